//! The schema sent to a model for structured output: the parameters it fills, typed, and the optional
//! `unmatched` list (the user's words the parameters cannot express, never an argument of the tool).
//!
//! Strict structured output (OpenAI `strict: true`) needs every property required and `additionalProperties:
//! false`, so in strict form every type is nullable: "not mentioned" is `null`, which binding treats as absent.

use serde_json::{Map, Value, json};
use wenshu_contract::{ParamSpec, ParamType, Tool};

use super::unmatched::{UNMATCHED, asked};

/// What the `unmatched` property says to the model.
const UNMATCHED_DESCRIPTION: &str =
    "用户问题中工具参数无法表达的条件、指标、维度或取值，逐字照抄用户原词；都能表达时为空";

/// The decoding schema of `tool` without the parameters in `hidden`, with the optional `unmatched` array of
/// strings (unless the tool has a parameter of that name); `strict` makes every property required and nullable
/// and closes every object.
pub fn decoding_schema(tool: &Tool, hidden: &[&str], strict: bool) -> Value {
    let specs: Vec<&ParamSpec> = tool
        .params()
        .iter()
        .filter(|p| !hidden.contains(&p.name.as_str()))
        .collect();
    let mut schema = object_schema(&specs, strict);
    if asked(tool) {
        let mut list = json!({"type": "array", "items": {"type": "string"}, "description": UNMATCHED_DESCRIPTION});
        if strict {
            make_nullable(&mut list);
            if let Some(Value::Array(required)) = schema.get_mut("required") {
                required.push(json!(UNMATCHED));
            }
        }
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert(UNMATCHED.to_string(), list);
        }
    }
    schema
}

fn object_schema(specs: &[&ParamSpec], strict: bool) -> Value {
    let properties: Map<String, Value> = specs
        .iter()
        .map(|spec| (spec.name.clone(), property_schema(spec, strict, strict)))
        .collect();
    let required: Vec<&str> = specs
        .iter()
        .filter(|spec| strict || spec.required)
        .map(|spec| spec.name.as_str())
        .collect();
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn property_schema(spec: &ParamSpec, strict: bool, nullable: bool) -> Value {
    let mut schema = match spec.ty {
        ParamType::Object => {
            let children: Vec<&ParamSpec> = spec.properties.iter().collect();
            object_schema(&children, strict)
        }
        ParamType::Array => {
            let items = spec
                .items
                .as_deref()
                .map_or_else(|| json!({}), |items| property_schema(items, strict, false));
            json!({"type": "array", "items": items})
        }
        ParamType::Any => json!({"type": ["string", "number", "boolean"]}),
        scalar => json!({"type": scalar.name()}),
    };
    if !spec.enum_values.is_empty() {
        let mut values = spec.enum_values.clone();
        if nullable {
            values.push(Value::Null);
        }
        schema["enum"] = Value::Array(values);
    }
    if !spec.description.is_empty() {
        schema["description"] = Value::String(spec.description.clone());
    }
    if nullable {
        make_nullable(&mut schema);
    }
    schema
}

fn make_nullable(schema: &mut Value) {
    let nullable = match schema.get("type") {
        Some(Value::String(t)) => json!([t, "null"]),
        Some(Value::Array(types)) => {
            let mut types = types.clone();
            types.push(json!("null"));
            Value::Array(types)
        }
        _ => return,
    };
    schema["type"] = nullable;
}

#[cfg(test)]
mod tests {
    use super::*;
    use wenshu_contract::demo_catalog;

    #[test]
    fn strict_schemas_require_every_property_and_allow_null() {
        let catalog = demo_catalog().unwrap();
        let schema = decoding_schema(catalog.get("sales_query").unwrap(), &[], true);
        assert_eq!(
            schema["required"],
            json!([
                "region",
                "period",
                "product",
                "salesPerson",
                "queryType",
                "limit",
                "unmatched"
            ])
        );
        assert_eq!(
            (
                schema["properties"]["unmatched"]["type"].clone(),
                schema["properties"]["unmatched"]["items"].clone()
            ),
            (json!(["array", "null"]), json!({"type": "string"}))
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["properties"]["limit"]["type"], json!(["integer", "null"]));
        assert_eq!(
            schema["properties"]["region"]["enum"],
            json!(["华东", "华南", "华北", "西南", "西北", null])
        );
    }

    #[test]
    fn hidden_parameters_are_left_out_and_nested_objects_closed() {
        let catalog = demo_catalog().unwrap();
        let schema = decoding_schema(catalog.get("movie_box_office").unwrap(), &["movieId"], false);
        assert_eq!(schema["required"], json!(["startDate", "endDate"]));
        assert!(schema["properties"].get("movieId").is_none());
        assert_eq!(
            schema["properties"]["unmatched"]["type"], "array",
            "optional, never required"
        );
        let schema = decoding_schema(catalog.get("query_order").unwrap(), &[], true);
        let address = &schema["properties"]["address"];
        assert_eq!(
            (address["type"].clone(), address["additionalProperties"].clone()),
            (json!(["object", "null"]), json!(false))
        );
        assert_eq!(address["required"], json!(["province", "city"]));
        assert_eq!(address["properties"]["city"]["type"], json!(["string", "null"]));
    }
}
