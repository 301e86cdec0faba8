//! One JSON error shape for every binding failure, and its HTTP status.

use serde::Serialize;
use serde_json::Value;

/// The JSON body of every binding failure: `{"error": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The fields of an error body; absent fields are left out of the JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorDetail {
    /// A stable machine-readable code, e.g. `missing_required`.
    pub code: &'static str,
    /// The tool concerned, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The parameter at fault (a dotted path for nested ones), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// Every parameter concerned, when there are several (missing or unknown names).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Where the parameter travels in an HTTP request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<&'static str>,
    /// The value that was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A sentence for a person: the field, the value, and what was allowed.
    pub message: String,
    /// What would have been accepted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<Value>,
}

impl ErrorDetail {
    /// A detail with only a code and a message; the other fields start empty.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            tool: None,
            param: None,
            params: Vec::new(),
            location: None,
            value: None,
            message: message.into(),
            allowed: Vec::new(),
        }
    }
}
