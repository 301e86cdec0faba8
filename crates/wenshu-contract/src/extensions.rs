//! wenshu's `x-` extensions of an MCP Tool: synonyms, subject, date range, HTTP route, examples, custom prompt.

use serde_json::{Map, Value};

use crate::catalog::FieldError;
use crate::param::{ParamTable, ParamType};

/// The extra spellings of one enum value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumSynonyms {
    /// The canonical enum value.
    pub value: String,
    /// The other ways people write it.
    pub synonyms: Vec<String>,
}

/// `x-subject`: the parameter that code fills from a resolved entity ID (the model never fills it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectParam {
    /// The entity catalog the subject comes from (`movie`).
    pub entity_type: String,
    /// The parameter that receives the entity's ID.
    pub param: String,
}

/// `x-date-range`: the parameters that code fills from the routed date range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateRangeParams {
    /// The parameter receiving the first day.
    pub start: String,
    /// The parameter receiving the last day.
    pub end: String,
    /// The range used when the question names none (a time expression such as `最近7天`).
    pub default: Option<String>,
}

/// `x-http`: the endpoint an HTTP tool calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpEndpoint {
    /// The HTTP method, upper case.
    pub method: String,
    /// The path template, e.g. `/orders/{orderId}`.
    pub path: String,
}

/// Every `x-` extension wenshu reads from a tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extensions {
    /// `x-enum-synonyms`, per parameter, in the order written.
    pub enum_synonyms: Vec<(String, Vec<EnumSynonyms>)>,
    /// `x-subject`.
    pub subject: Option<SubjectParam>,
    /// `x-date-range`.
    pub date_range: Option<DateRangeParams>,
    /// `x-http`.
    pub http: Option<HttpEndpoint>,
    /// `x-examples`: sample questions.
    pub examples: Vec<String>,
    /// `x-param-prompt`: a custom system prompt for parameter extraction.
    pub param_prompt: Option<String>,
    /// `x-answers`: what the tool returns, for the whole tool or per value of a mode enum.
    pub answers: Option<crate::answers::Answers>,
    /// `x-metrics`: the metric model of a metric tool (read by `Tool::compile`, which also makes its `inputSchema`).
    pub metrics: Option<std::sync::Arc<crate::metric::MetricModel>>,
}

impl Extensions {
    /// The synonyms declared for one parameter.
    pub fn synonyms_of(&self, param: &str) -> &[EnumSynonyms] {
        self.enum_synonyms
            .iter()
            .find(|(name, _)| name == param)
            .map(|(_, list)| list.as_slice())
            .unwrap_or(&[])
    }
}

/// HTTP methods an `x-http` tool may use.
pub const HTTP_METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// Reads and checks the extensions of one tool object against its parameter table.
pub(crate) fn read_extensions(tool: &Map<String, Value>, params: &ParamTable) -> Result<Extensions, FieldError> {
    Ok(Extensions {
        enum_synonyms: read_enum_synonyms(tool.get("x-enum-synonyms"), params)?,
        subject: read_subject(tool.get("x-subject"), params)?,
        date_range: read_date_range(tool.get("x-date-range"), params)?,
        http: read_http(tool.get("x-http"))?,
        examples: read_string_list(tool.get("x-examples"), "x-examples")?,
        param_prompt: optional_string(tool, "x-param-prompt")?,
        answers: crate::answers::read_answers(tool.get("x-answers"), params)?,
        metrics: None,
    })
}

fn read_enum_synonyms(
    value: Option<&Value>,
    params: &ParamTable,
) -> Result<Vec<(String, Vec<EnumSynonyms>)>, FieldError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let by_param = expect_object(value, "x-enum-synonyms")?;
    let mut out = Vec::new();
    for (param_name, values) in by_param {
        let field = format!("x-enum-synonyms.{param_name}");
        let spec = params
            .get(param_name)
            .ok_or_else(|| FieldError::new(&field, format!("no parameter `{param_name}` in inputSchema")))?;
        if spec.enum_values.is_empty() {
            return Err(FieldError::new(&field, format!("parameter `{param_name}` has no enum")));
        }
        let mut seen: Vec<(String, String)> = spec
            .enum_strings()
            .map(|v| (wenshu_lexicon::canonical::canonical(v), v.to_string()))
            .collect();
        let mut list = Vec::new();
        for (enum_value, synonyms) in expect_object(values, &field)? {
            let value_field = format!("{field}.{enum_value}");
            if !spec.enum_strings().any(|v| v == enum_value) {
                return Err(FieldError::new(
                    &value_field,
                    format!("`{enum_value}` is not one of the enum values of `{param_name}`"),
                ));
            }
            let synonyms = read_string_list(Some(synonyms), &value_field)?;
            for synonym in &synonyms {
                let key = wenshu_lexicon::canonical::canonical(synonym);
                if key.is_empty() {
                    return Err(FieldError::new(&value_field, "a synonym is empty"));
                }
                if let Some((_, other)) = seen.iter().find(|(k, v)| *k == key && v != enum_value) {
                    return Err(FieldError::new(
                        &value_field,
                        format!("synonym `{synonym}` also denotes `{other}`"),
                    ));
                }
                seen.push((key, enum_value.clone()));
            }
            list.push(EnumSynonyms {
                value: enum_value.clone(),
                synonyms,
            });
        }
        out.push((param_name.clone(), list));
    }
    Ok(out)
}

fn read_subject(value: Option<&Value>, params: &ParamTable) -> Result<Option<SubjectParam>, FieldError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let object = expect_object(value, "x-subject")?;
    let entity_type = required_string(object, "x-subject", "type")?;
    let param = required_string(object, "x-subject", "param")?;
    let spec = params
        .get(&param)
        .ok_or_else(|| FieldError::new("x-subject.param", format!("no parameter `{param}` in inputSchema")))?;
    if !matches!(spec.ty, ParamType::Integer | ParamType::String) {
        return Err(FieldError::new(
            "x-subject.param",
            format!(
                "`{param}` is of type {}; a subject ID must be an integer or a string",
                spec.ty.name()
            ),
        ));
    }
    Ok(Some(SubjectParam { entity_type, param }))
}

fn read_date_range(value: Option<&Value>, params: &ParamTable) -> Result<Option<DateRangeParams>, FieldError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let object = expect_object(value, "x-date-range")?;
    let start = required_string(object, "x-date-range", "start")?;
    let end = required_string(object, "x-date-range", "end")?;
    for (key, name) in [("start", &start), ("end", &end)] {
        let spec = params.get(name).ok_or_else(|| {
            FieldError::new(
                format!("x-date-range.{key}"),
                format!("no parameter `{name}` in inputSchema"),
            )
        })?;
        if spec.ty != ParamType::String {
            return Err(FieldError::new(
                format!("x-date-range.{key}"),
                format!("`{name}` is of type {}; a date must be a string", spec.ty.name()),
            ));
        }
    }
    let default = optional_string(object, "default").map_err(|e| FieldError::new("x-date-range.default", e.reason))?;
    Ok(Some(DateRangeParams { start, end, default }))
}

fn read_http(value: Option<&Value>) -> Result<Option<HttpEndpoint>, FieldError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let object = expect_object(value, "x-http")?;
    let method = required_string(object, "x-http", "method")?.to_ascii_uppercase();
    if !HTTP_METHODS.contains(&method.as_str()) {
        return Err(FieldError::new(
            "x-http.method",
            format!("`{method}` is not one of {}", HTTP_METHODS.join(", ")),
        ));
    }
    let path = required_string(object, "x-http", "path")?;
    Ok(Some(HttpEndpoint { method, path }))
}

/// Reads an optional array of strings.
pub(crate) fn read_string_list(value: Option<&Value>, field: &str) -> Result<Vec<String>, FieldError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let items = value
        .as_array()
        .ok_or_else(|| FieldError::new(field, format!("expected an array of strings, got {}", kind_of(value))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().map(str::to_string).ok_or_else(|| {
                FieldError::new(
                    format!("{field}[{i}]"),
                    format!("expected a string, got {}", kind_of(item)),
                )
            })
        })
        .collect()
}

/// Reads a JSON object, or says what was there instead.
pub(crate) fn expect_object<'a>(value: &'a Value, field: &str) -> Result<&'a Map<String, Value>, FieldError> {
    value
        .as_object()
        .ok_or_else(|| FieldError::new(field, format!("expected an object, got {}", kind_of(value))))
}

fn required_string(object: &Map<String, Value>, parent: &str, key: &str) -> Result<String, FieldError> {
    match object.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(other) => Err(FieldError::new(
            format!("{parent}.{key}"),
            format!("expected a non-empty string, got {}", kind_of(other)),
        )),
        None => Err(FieldError::new(format!("{parent}.{key}"), "is required")),
    }
}

/// Reads an optional string member.
pub(crate) fn optional_string(object: &Map<String, Value>, key: &str) -> Result<Option<String>, FieldError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(FieldError::new(
            key,
            format!("expected a string, got {}", kind_of(other)),
        )),
    }
}

/// Names the JSON kind of a value for messages (`a number`, `an object`, …).
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `x-principal` on a property: the name of the principal's attribute that fills it (`"tenant_id"`). Code fills
/// the parameter from the asking principal; the model never sees it and a value from the question is discarded.
/// Only a string, integer, number or boolean parameter can take one, and the name must be a plain word.
pub(crate) fn read_principal(
    object: &Map<String, Value>,
    ty: ParamType,
    field: &str,
) -> Result<Option<String>, FieldError> {
    let Some(value) = object.get("x-principal") else {
        return Ok(None);
    };
    let at = format!("{field}.x-principal");
    let name = value
        .as_str()
        .map(str::trim)
        .ok_or_else(|| FieldError::new(&at, format!("must be the name of a principal attribute, found {value}")))?;
    let plain = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !plain {
        return Err(FieldError::new(
            &at,
            format!("`{name}` is not an attribute name (letters, digits, `_`, not starting with a digit)"),
        ));
    }
    if !matches!(
        ty,
        ParamType::String | ParamType::Integer | ParamType::Number | ParamType::Boolean
    ) {
        return Err(FieldError::new(
            &at,
            format!(
                "a parameter of type {} cannot come from the principal; allowed: string, integer, number, boolean",
                ty.name()
            ),
        ));
    }
    if object.contains_key("x-entity") || object.contains_key("enum") {
        return Err(FieldError::new(
            &at,
            "a principal parameter cannot also have `x-entity` or `enum`: its value comes from the principal alone",
        ));
    }
    Ok(Some(name.to_string()))
}

#[cfg(test)]
mod principal_tests {
    use serde_json::json;

    use super::*;

    fn read(schema: Value, ty: ParamType) -> Result<Option<String>, FieldError> {
        read_principal(schema.as_object().unwrap(), ty, "inputSchema.properties.tenant")
    }

    #[test]
    fn a_principal_attribute_is_read_and_bad_ones_name_the_field() {
        assert_eq!(read(json!({}), ParamType::String).unwrap(), None);
        assert_eq!(
            read(json!({"x-principal": "tenant_id"}), ParamType::Integer)
                .unwrap()
                .as_deref(),
            Some("tenant_id")
        );
        for (schema, ty, why) in [
            (json!({"x-principal": 7}), ParamType::String, "must be the name"),
            (json!({"x-principal": ""}), ParamType::String, "not an attribute name"),
            (
                json!({"x-principal": "a.b"}),
                ParamType::String,
                "not an attribute name",
            ),
            (json!({"x-principal": "t"}), ParamType::Array, "type array"),
            (
                json!({"x-principal": "t", "enum": ["a"]}),
                ParamType::String,
                "cannot also",
            ),
        ] {
            let error = read(schema, ty).unwrap_err();
            assert!(
                error.field.ends_with("x-principal") && error.reason.contains(why),
                "{error:?}"
            );
        }
    }
}
