//! Safe coercion of one raw value to a parameter's type and enum, with a record of every change made.

use serde::Serialize;
use serde_json::{Map, Number, Value};

use crate::enum_index::EnumIndex;
use crate::extensions::kind_of;
use crate::param::{ParamSpec, ParamType};

/// One change made to a raw value so that it fits its parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coercion {
    /// The parameter (dotted path for nested ones).
    pub param: String,
    /// The value as supplied.
    pub from: Value,
    /// The value as bound.
    pub to: Value,
    /// The rule that applied: `numeric_string`, `whole_float`, `boolean_string`, `number_to_string`,
    /// `json_string`, `single_to_array`, `enum_normalized` or `enum_synonym`.
    pub rule: &'static str,
}

/// Why a value does not fit its parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidValue {
    /// The parameter (dotted path for nested ones).
    pub param: String,
    /// The value as supplied.
    pub value: Value,
    /// What would have been accepted (the enum values, when there are any).
    pub allowed: Vec<Value>,
    /// A stable code: `invalid_type` or `enum_out_of_range`.
    pub code: &'static str,
    /// Why it was refused, in words.
    pub reason: String,
}

/// Coerces `value` to fit `spec`, recording each change in `coercions`; `index` holds the enum's canonical
/// spellings (built on the spot when `None`).
pub fn coerce_value(
    spec: &ParamSpec,
    path: &str,
    value: Value,
    index: Option<&EnumIndex>,
    coercions: &mut Vec<Coercion>,
) -> Result<Value, Box<InvalidValue>> {
    let typed = coerce_type(spec, path, value, coercions)?;
    if spec.enum_values.is_empty() {
        return Ok(typed);
    }
    match_enum(spec, path, typed, index, coercions)
}

fn coerce_type(
    spec: &ParamSpec,
    path: &str,
    value: Value,
    coercions: &mut Vec<Coercion>,
) -> Result<Value, Box<InvalidValue>> {
    if spec.ty == ParamType::Object {
        return coerce_object(spec, path, value, coercions);
    }
    if spec.ty == ParamType::Array {
        return coerce_array(spec, path, value, coercions);
    }
    if spec.ty.accepts(&value) {
        return Ok(value);
    }
    let (converted, rule) = convert_scalar(spec.ty, &value).ok_or_else(|| invalid_type(spec, path, &value))?;
    coercions.push(Coercion {
        param: path.to_string(),
        from: value,
        to: converted.clone(),
        rule,
    });
    Ok(converted)
}

/// The safe scalar conversions; `None` when none applies.
fn convert_scalar(ty: ParamType, value: &Value) -> Option<(Value, &'static str)> {
    match (ty, value) {
        (ParamType::Integer, Value::Number(n)) => whole_number(n.as_f64()?).map(|i| (i, "whole_float")),
        (ParamType::Integer, Value::String(s)) => {
            let text = s.trim();
            if let Ok(i) = text.parse::<i64>() {
                return Some((Value::from(i), "numeric_string"));
            }
            whole_number(finite(text)?).map(|i| (i, "numeric_string"))
        }
        (ParamType::Number, Value::String(s)) => {
            let text = s.trim();
            if let Ok(i) = text.parse::<i64>() {
                return Some((Value::from(i), "numeric_string"));
            }
            Number::from_f64(finite(text)?).map(|n| (Value::Number(n), "numeric_string"))
        }
        (ParamType::Boolean, Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some((Value::Bool(true), "boolean_string")),
            "false" => Some((Value::Bool(false), "boolean_string")),
            _ => None,
        },
        (ParamType::String, Value::Number(n)) => Some((Value::String(n.to_string()), "number_to_string")),
        _ => None,
    }
}

fn finite(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// A float that is a whole number within i64 range, as an integer value.
fn whole_number(f: f64) -> Option<Value> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53: every integer below is exact in f64
    (f.fract() == 0.0 && f.abs() <= LIMIT).then(|| Value::from(f as i64))
}

fn coerce_object(
    spec: &ParamSpec,
    path: &str,
    value: Value,
    coercions: &mut Vec<Coercion>,
) -> Result<Value, Box<InvalidValue>> {
    let object = match value {
        Value::Object(object) => object,
        Value::String(ref s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(object)) => {
                coercions.push(Coercion {
                    param: path.to_string(),
                    from: value.clone(),
                    to: Value::Object(object.clone()),
                    rule: "json_string",
                });
                object
            }
            _ => return Err(invalid_type(spec, path, &value)),
        },
        other => return Err(invalid_type(spec, path, &other)),
    };
    let mut out = Map::new();
    for (key, item) in object {
        let item = match spec.property(&key) {
            Some(child) if !item.is_null() => coerce_value(child, &format!("{path}.{key}"), item, None, coercions)?,
            _ => item,
        };
        out.insert(key, item);
    }
    Ok(Value::Object(out))
}

fn coerce_array(
    spec: &ParamSpec,
    path: &str,
    value: Value,
    coercions: &mut Vec<Coercion>,
) -> Result<Value, Box<InvalidValue>> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(_) | Value::Null => return Err(invalid_type(spec, path, &value)),
        single => {
            coercions.push(Coercion {
                param: path.to_string(),
                from: single.clone(),
                to: Value::Array(vec![single.clone()]),
                rule: "single_to_array",
            });
            vec![single]
        }
    };
    let Some(item_spec) = spec.items.as_deref() else {
        return Ok(Value::Array(items));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| coerce_value(item_spec, &format!("{path}[{i}]"), item, None, coercions))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn match_enum(
    spec: &ParamSpec,
    path: &str,
    value: Value,
    index: Option<&EnumIndex>,
    coercions: &mut Vec<Coercion>,
) -> Result<Value, Box<InvalidValue>> {
    if spec.enum_values.contains(&value) {
        return Ok(value);
    }
    let built;
    let index = match index {
        Some(index) => index,
        None => {
            built = EnumIndex::build(spec, &[]);
            &built
        }
    };
    let found = value.as_str().and_then(|text| index.lookup(text));
    match found {
        Some((canonical_value, rule)) => {
            let to = Value::String(canonical_value.to_string());
            coercions.push(Coercion {
                param: path.to_string(),
                from: value,
                to: to.clone(),
                rule,
            });
            Ok(to)
        }
        None => Err(Box::new(InvalidValue {
            param: path.to_string(),
            reason: format!("{value} is not one of the allowed values"),
            value,
            allowed: spec.enum_values.clone(),
            code: "enum_out_of_range",
        })),
    }
}

fn invalid_type(spec: &ParamSpec, path: &str, value: &Value) -> Box<InvalidValue> {
    Box::new(InvalidValue {
        param: path.to_string(),
        value: value.clone(),
        allowed: Vec::new(),
        code: "invalid_type",
        reason: format!("expected {}, got {} ({value})", spec.ty.name(), kind_of(value)),
    })
}
