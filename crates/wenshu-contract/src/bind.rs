//! Binding: from a raw parameter map to one validated call, following the required/default matrix.
//!
//! | | has a default | has no default |
//! |---|---|---|
//! | required | absent → the default | absent → reported missing |
//! | optional | absent → the default | absent → left out |
//!
//! A `null` counts as absent. Values are coerced safely ([`crate::coerce`]), then the whole call is checked by
//! the tool's compiled validator. Unknown fields are reported, never dropped; an invalid optional value is an
//! error, never dropped (dropping a filter would widen the query).

use serde::Serialize;
use serde_json::{Map, Value};

pub use crate::coerce::Coercion;
use crate::coerce::{InvalidValue, coerce_value};
use crate::error::{ErrorBody, ErrorDetail};
use crate::param::{Location, ParamSpec};
use crate::tool::Tool;

/// One validated call of a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments, in schema order.
    pub arguments: Map<String, Value>,
    /// The parameters filled from their schema default.
    pub defaulted: Vec<String>,
    /// Every change made to a supplied value.
    pub coercions: Vec<Coercion>,
}

/// Why a call could not be bound. Each variant becomes one [`ErrorBody`] with an HTTP status.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindError {
    /// No tool of that name.
    #[error("unknown tool `{tool}`; known tools: {}", known.join(", "))]
    UnknownTool {
        /// The name asked for.
        tool: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// Fields the tool does not declare.
    #[error("tool `{tool}` has no parameter {}; its parameters are: {}", quote_all(names), allowed.join(", "))]
    UnknownFields {
        /// The tool.
        tool: String,
        /// The undeclared names, in the order supplied.
        names: Vec<String>,
        /// Where they were found, for HTTP requests.
        location: Option<Location>,
        /// The names the tool declares.
        allowed: Vec<String>,
    },
    /// Required parameters with no value and no default.
    #[error("tool `{tool}` needs {}{}, which has no default", quote_all(names), at(*location))]
    Missing {
        /// The tool.
        tool: String,
        /// The missing names, in schema order.
        names: Vec<String>,
        /// Where the first one travels, for HTTP tools.
        location: Option<Location>,
    },
    /// A parameter sent in another place than the one the tool declares.
    #[error("parameter `{param}` of tool `{tool}` was sent in the {} but belongs in the {}", found.name(), expected.name())]
    WrongLocation {
        /// The tool.
        tool: String,
        /// The parameter.
        param: String,
        /// Where it was sent.
        found: Location,
        /// Where it belongs.
        expected: Location,
    },
    /// A value that does not fit its parameter.
    #[error("{0}")]
    Invalid(Box<InvalidParam>),
    /// A request that cannot be read at all (broken JSON, invalid UTF-8, too big, too deep, bad request line).
    #[error("{message}")]
    Malformed {
        /// A stable code (`malformed_json`, `invalid_utf8`, `body_too_large`, `body_too_deep`, …).
        code: &'static str,
        /// Where the problem is.
        location: Option<Location>,
        /// What is wrong, in words.
        message: String,
    },
    /// No route of the tool matches the request's path.
    #[error("path `{path}` does not match `{template}` of tool `{tool}`")]
    PathNotFound {
        /// The tool.
        tool: String,
        /// The path asked for.
        path: String,
        /// The tool's path template.
        template: String,
    },
    /// The request's method is not the tool's.
    #[error("tool `{tool}` takes {expected}, not {method}")]
    MethodNotAllowed {
        /// The tool.
        tool: String,
        /// The method asked for.
        method: String,
        /// The tool's method.
        expected: String,
    },
    /// A bound call that cannot be turned into a request (the tool has no `x-http`).
    #[error("tool `{tool}` is not an HTTP tool (it has no `x-http`)")]
    NotHttp {
        /// The tool.
        tool: String,
    },
}

impl BindError {
    /// The stable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool { .. } => "unknown_tool",
            Self::UnknownFields { .. } => "unknown_field",
            Self::Missing { .. } => "missing_required",
            Self::WrongLocation { .. } => "wrong_location",
            Self::Invalid(invalid) => invalid.code,
            Self::Malformed { code, .. } => code,
            Self::PathNotFound { .. } => "path_not_found",
            Self::MethodNotAllowed { .. } => "method_not_allowed",
            Self::NotHttp { .. } => "not_http_tool",
        }
    }

    /// The HTTP status: 400 malformed, 413 too large, 404/405 no route, 422 invalid.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::Malformed {
                code: "body_too_large", ..
            } => 413,
            Self::Malformed { .. } => 400,
            Self::UnknownTool { .. } | Self::PathNotFound { .. } => 404,
            Self::MethodNotAllowed { .. } => 405,
            Self::NotHttp { .. } => 400,
            Self::UnknownFields { .. } | Self::Missing { .. } | Self::WrongLocation { .. } | Self::Invalid(_) => 422,
        }
    }

    /// The JSON error body.
    pub fn to_body(&self) -> ErrorBody {
        let mut detail = ErrorDetail::new(self.code(), self.to_string());
        match self {
            Self::UnknownTool { tool, known } => {
                detail.tool = Some(tool.clone());
                detail.allowed = known.iter().cloned().map(Value::String).collect();
            }
            Self::UnknownFields {
                tool,
                names,
                location,
                allowed,
            } => {
                detail.tool = Some(tool.clone());
                detail.param = names.first().cloned();
                detail.params = names.clone();
                detail.location = location.map(Location::name);
                detail.allowed = allowed.iter().cloned().map(Value::String).collect();
            }
            Self::Missing { tool, names, location } => {
                detail.tool = Some(tool.clone());
                detail.param = names.first().cloned();
                detail.params = names.clone();
                detail.location = location.map(Location::name);
            }
            Self::WrongLocation {
                tool,
                param,
                found,
                expected,
            } => {
                detail.tool = Some(tool.clone());
                detail.param = Some(param.clone());
                detail.location = Some(found.name());
                detail.allowed = vec![Value::String(expected.name().into())];
            }
            Self::Invalid(invalid) => {
                detail.tool = Some(invalid.tool.clone());
                detail.param = Some(invalid.param.clone());
                detail.location = invalid.location.map(Location::name);
                detail.value = Some(invalid.value.clone());
                detail.allowed = invalid.allowed.clone();
            }
            Self::Malformed { location, .. } => detail.location = location.map(Location::name),
            Self::PathNotFound { tool, template, .. } => {
                detail.tool = Some(tool.clone());
                detail.allowed = vec![Value::String(template.clone())];
            }
            Self::MethodNotAllowed { tool, expected, .. } => {
                detail.tool = Some(tool.clone());
                detail.allowed = vec![Value::String(expected.clone())];
            }
            Self::NotHttp { tool } => detail.tool = Some(tool.clone()),
        }
        ErrorBody { error: detail }
    }
}

/// A value that does not fit its parameter: which, where, what was refused and what was allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("parameter `{param}` of tool `{tool}`{}: {reason}{}", at(*location), allowed_text(allowed))]
pub struct InvalidParam {
    /// The tool.
    pub tool: String,
    /// The parameter (dotted path for nested ones).
    pub param: String,
    /// Where it travels, for HTTP tools.
    pub location: Option<Location>,
    /// The value refused.
    pub value: Value,
    /// What would have been accepted.
    pub allowed: Vec<Value>,
    /// A stable code (`invalid_type`, `enum_out_of_range`, `out_of_range`, `invalid_format`, …).
    pub code: &'static str,
    /// Why, in words.
    pub reason: String,
}

/// How strictly missing parameters are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingReport {
    /// Every missing parameter is named.
    #[default]
    All,
    /// Stop at the first missing one (the HTTP required check).
    FirstOnly,
}

/// Binds a raw parameter map to one validated call of `tool`.
pub fn bind(tool: &Tool, raw: &Map<String, Value>) -> Result<BoundCall, BindError> {
    bind_with(tool, raw, MissingReport::All)
}

/// Binds a raw parameter map, reporting missing parameters as `report` says.
pub fn bind_with(tool: &Tool, raw: &Map<String, Value>, report: MissingReport) -> Result<BoundCall, BindError> {
    reject_unknown(tool, raw)?;
    let mut call = BoundCall {
        tool: tool.name().to_string(),
        arguments: Map::with_capacity(tool.params().len()),
        defaulted: Vec::new(),
        coercions: Vec::new(),
    };
    let mut missing: Vec<&ParamSpec> = Vec::new();
    for (position, spec) in tool.params().iter().enumerate() {
        match raw.get(&spec.name).filter(|v| !v.is_null()) {
            Some(value) => {
                let index = tool.enum_index_at(position);
                let bound = coerce_value(spec, &spec.name, value.clone(), index, &mut call.coercions)
                    .map_err(|e| invalid(tool, *e))?;
                call.arguments.insert(spec.name.clone(), bound);
            }
            None => match (&spec.default, spec.required) {
                (Some(default), _) => {
                    call.arguments.insert(spec.name.clone(), default.clone());
                    call.defaulted.push(spec.name.clone());
                }
                (None, true) => {
                    missing.push(spec);
                    if report == MissingReport::FirstOnly {
                        break;
                    }
                }
                (None, false) => {}
            },
        }
    }
    if let Some(first) = missing.first() {
        return Err(BindError::Missing {
            tool: tool.name().to_string(),
            names: missing.iter().map(|s| s.name.clone()).collect(),
            location: tool.location_of(first),
        });
    }
    let instance = Value::Object(std::mem::take(&mut call.arguments));
    validate(tool, &instance)?;
    if let Value::Object(arguments) = instance {
        call.arguments = arguments;
    }
    Ok(call)
}

/// Checks names and coerces every supplied (non-null) value, without defaults, the required check or the schema
/// validator: what a model's answer holds, ready to be checked against the question before it is bound.
pub fn coerce_values(tool: &Tool, raw: &Map<String, Value>) -> Result<(Map<String, Value>, Vec<Coercion>), BindError> {
    reject_unknown(tool, raw)?;
    let mut values = Map::new();
    let mut coercions = Vec::new();
    for (position, spec) in tool.params().iter().enumerate() {
        if let Some(value) = raw.get(&spec.name).filter(|v| !v.is_null()) {
            let index = tool.enum_index_at(position);
            let coerced =
                coerce_value(spec, &spec.name, value.clone(), index, &mut coercions).map_err(|e| invalid(tool, *e))?;
            values.insert(spec.name.clone(), coerced);
        }
    }
    Ok((values, coercions))
}

fn reject_unknown(tool: &Tool, raw: &Map<String, Value>) -> Result<(), BindError> {
    let unknown: Vec<String> = raw.keys().filter(|k| tool.param(k).is_none()).cloned().collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(BindError::UnknownFields {
        tool: tool.name().to_string(),
        names: unknown,
        location: None,
        allowed: tool.params().names().into_iter().map(str::to_string).collect(),
    })
}

/// Checks bound arguments with the tool's compiled validator; the first problem becomes an error.
fn validate(tool: &Tool, instance: &Value) -> Result<(), BindError> {
    if tool.validator().is_valid(instance) {
        return Ok(());
    }
    let Some(error) = tool.validator().iter_errors(instance).next() else {
        return Ok(());
    };
    let pointer = error.instance_path().as_str().to_string();
    let param = pointer_to_param(&pointer);
    let top = param.split(['.', '[']).next().unwrap_or_default();
    let spec = tool.param(top);
    let value = instance.pointer(&pointer).cloned().unwrap_or(Value::Null);
    use jsonschema::error::ValidationErrorKind as Kind;
    let code = match error.kind() {
        Kind::Minimum { .. } | Kind::Maximum { .. } | Kind::ExclusiveMinimum { .. } | Kind::ExclusiveMaximum { .. } => {
            "out_of_range"
        }
        Kind::Format { .. } => "invalid_format",
        Kind::Pattern { .. } => "pattern_mismatch",
        Kind::MinLength { .. } | Kind::MaxLength { .. } | Kind::MinItems { .. } | Kind::MaxItems { .. } => {
            "invalid_length"
        }
        Kind::Type { .. } => "invalid_type",
        Kind::Enum { .. } => "enum_out_of_range",
        Kind::Required { .. } => "missing_required",
        Kind::AdditionalProperties { .. } => "unknown_field",
        _ => "schema_violation",
    };
    Err(BindError::Invalid(Box::new(InvalidParam {
        tool: tool.name().to_string(),
        location: spec.and_then(|s| tool.location_of(s)),
        allowed: spec.map(|s| allowed_of(s, &param)).unwrap_or_default(),
        param: if param.is_empty() { top.to_string() } else { param },
        value,
        code,
        reason: error.to_string(),
    })))
}

/// What a parameter allows, for messages: its enum values, or its bounds written out.
fn allowed_of(spec: &ParamSpec, path: &str) -> Vec<Value> {
    if path != spec.name {
        return Vec::new();
    }
    if !spec.enum_values.is_empty() {
        return spec.enum_values.clone();
    }
    match (&spec.minimum, &spec.maximum) {
        (Some(min), Some(max)) => vec![Value::String(format!("{min}..={max}"))],
        (Some(min), None) => vec![Value::String(format!(">= {min}"))],
        (None, Some(max)) => vec![Value::String(format!("<= {max}"))],
        (None, None) => spec
            .format
            .iter()
            .map(|f| Value::String(format!("format: {f}")))
            .collect(),
    }
}

/// `/address/city` → `address.city`; `/tags/0` → `tags[0]`.
fn pointer_to_param(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if segment.chars().all(|c| c.is_ascii_digit()) && !out.is_empty() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

fn invalid(tool: &Tool, error: InvalidValue) -> BindError {
    let InvalidValue {
        param,
        value,
        allowed,
        code,
        reason,
    } = error;
    let top = param.split(['.', '[']).next().unwrap_or_default();
    BindError::Invalid(Box::new(InvalidParam {
        tool: tool.name().to_string(),
        location: tool.param(top).and_then(|s| tool.location_of(s)),
        param,
        value,
        allowed,
        code,
        reason,
    }))
}

fn quote_all(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn at(location: Option<Location>) -> String {
    location.map(|l| format!(" (in the {})", l.name())).unwrap_or_default()
}

fn allowed_text(allowed: &[Value]) -> String {
    if allowed.is_empty() {
        return String::new();
    }
    let items: Vec<String> = allowed
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        .collect();
    format!("; allowed: {}", items.join(", "))
}
