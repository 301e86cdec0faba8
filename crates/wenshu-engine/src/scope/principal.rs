//! Parameters that come from the principal (`x-principal` on a property): filled by code from the viewer's
//! attributes, whatever the model or the question said; a missing attribute refuses the call.

use serde_json::{Map, Value};
use wenshu_contract::{ParamType, Tool};

use super::Viewer;
use super::bound::{DENIED, ScopeRefusal, value_text};

/// The parameters of `tool` that code fills from `viewer` (name → value, typed as the parameter), or the refusal
/// naming the attribute the viewer lacks. An unscoped viewer without the attribute leaves an optional parameter
/// out (it sees every row); a scoped one is refused.
pub fn principal_params(tool: &Tool, viewer: &Viewer) -> Result<Map<String, Value>, ScopeRefusal> {
    let mut filled = Map::new();
    for spec in tool.params().iter() {
        let Some(attribute) = &spec.principal else { continue };
        match viewer.attribute(attribute).and_then(|v| typed(v, spec.ty)) {
            Some(value) => {
                filled.insert(spec.name.clone(), value);
            }
            None if viewer.unscoped && !spec.required && viewer.attribute(attribute).is_none() => {}
            None => {
                let (zh_why, en_why) = match viewer.attribute(attribute) {
                    None => ("没有这个属性".to_string(), "does not have it".to_string()),
                    Some(v) => (
                        format!("的这个属性（{}）不是 {} 类型的值", value_text(v), spec.ty.name()),
                        format!("has it as {}, not a {} value", value_text(v), spec.ty.name()),
                    ),
                };
                return Err(ScopeRefusal {
                    code: DENIED,
                    zh: format!(
                        "数据范围：工具 {} 的参数 {} 取自身份属性 {attribute}，而你的身份{zh_why}，不能调用",
                        tool.name(),
                        spec.name
                    ),
                    en: format!(
                        "Row scope: tool {} takes `{}` from identity attribute `{attribute}`, and your identity {en_why}",
                        tool.name(),
                        spec.name
                    ),
                    params: vec![
                        ("tool", tool.name().to_string()),
                        ("param", spec.name.clone()),
                        ("attribute", attribute.clone()),
                    ],
                });
            }
        }
    }
    Ok(filled)
}

/// The names of `tool`'s principal parameters (hidden from the model, dropped from what it says).
pub fn principal_names(tool: &Tool) -> Vec<&str> {
    tool.params()
        .iter()
        .filter(|p| p.principal.is_some())
        .map(|p| p.name.as_str())
        .collect()
}

/// Puts the principal parameters into `arguments`: every value the model or question gave them is replaced or
/// removed first.
pub fn apply_principal(tool: &Tool, viewer: &Viewer, arguments: &mut Map<String, Value>) -> Result<(), ScopeRefusal> {
    let filled = principal_params(tool, viewer)?;
    for name in principal_names(tool) {
        arguments.remove(name);
    }
    arguments.extend(filled);
    Ok(())
}

/// An attribute as a value of a parameter's type (`7` for an integer from `"7"`, `"7"` for a string from `7`).
fn typed(value: &Value, ty: ParamType) -> Option<Value> {
    match (ty, value) {
        (ParamType::String, Value::String(_)) => Some(value.clone()),
        (ParamType::String, Value::Number(_) | Value::Bool(_)) => Some(Value::String(value.to_string())),
        (ParamType::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => Some(value.clone()),
        (ParamType::Integer, Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        (ParamType::Number, Value::Number(_)) => Some(value.clone()),
        (ParamType::Number, Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        (ParamType::Boolean, Value::Bool(_)) => Some(value.clone()),
        (ParamType::Any, v) if !v.is_null() => Some(v.clone()),
        _ => None,
    }
}
