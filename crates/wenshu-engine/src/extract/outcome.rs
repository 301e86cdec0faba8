//! What an extraction ends in, and the record of how it got there.

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Coercion;

use super::grounding::GroundingCheck;
use super::unmatched::UnmatchedCheck;
use crate::model_call::ModelCall;

/// How an extraction ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ExtractOutcome {
    /// The tool can be called with these parameters (defaults filled).
    Ok {
        /// The bound parameters, in schema order.
        params: Map<String, Value>,
    },
    /// Required parameters the question does not give and that have no default: ask the user.
    Missing {
        /// Their names.
        params: Vec<String>,
    },
    /// The question names a value the tool cannot take: the orchestrator degrades.
    Unsupported {
        /// The parameter.
        param: String,
        /// The value the question names.
        value: String,
    },
    /// Extraction failed; the reason is for the administrator.
    Failed {
        /// What went wrong.
        reason: String,
    },
}

/// The trace of one extraction.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExtractTrace {
    /// `model` or `lexicon`.
    pub engine: &'static str,
    /// The parameters code filled (hidden from the model).
    pub fixed: Map<String, Value>,
    /// Each model call, the corrective re-ask included.
    pub calls: Vec<ModelCall>,
    /// The coercions binding made to the answer's values.
    pub coercions: Vec<Coercion>,
    /// The grounding verdict on each value.
    pub grounding: Vec<GroundingCheck>,
    /// Keys the answer held that the tool does not declare.
    pub unknown_keys: Vec<String>,
    /// The words the model listed as `unmatched` (conditions the tool cannot express), each with its verdict.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<UnmatchedCheck>,
    /// The parameters that went into the final binding.
    pub bound_from: Option<Map<String, Value>>,
}

/// An outcome and its trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    /// How it ended.
    pub outcome: ExtractOutcome,
    /// How it got there.
    pub trace: ExtractTrace,
}
