//! Local `$ref`s (`#/components/schemas/Pet`) inlined throughout a document; a reference that is external,
//! missing or recursive is replaced by an empty schema and named.

use serde_json::{Map, Value};

/// The document with every local `$ref` inlined; `notes` gets one line per reference that could not be.
pub fn inline_refs(document: &Value, notes: &mut Vec<String>) -> Value {
    let mut stack = Vec::new();
    walk(document, document, &mut stack, notes)
}

fn walk(value: &Value, document: &Value, stack: &mut Vec<String>, notes: &mut Vec<String>) -> Value {
    match value {
        Value::Object(object) => match object.get("$ref").and_then(Value::as_str) {
            Some(reference) => follow(reference, object, document, stack, notes),
            None => Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.clone(), walk(v, document, stack, notes)))
                    .collect(),
            ),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| walk(v, document, stack, notes)).collect()),
        other => other.clone(),
    }
}

fn follow(
    reference: &str,
    object: &Map<String, Value>,
    document: &Value,
    stack: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Value {
    let note = |notes: &mut Vec<String>, why: &str| {
        let line = format!("$ref `{reference}` not inlined: {why}");
        if !notes.contains(&line) {
            notes.push(line);
        }
    };
    let Some(pointer) = reference.strip_prefix('#') else {
        note(notes, "only references inside the document are read");
        return Value::Object(Map::new());
    };
    if stack.iter().any(|r| r == reference) {
        note(
            notes,
            "it refers to itself (a recursive schema); that level accepts any value",
        );
        return Value::Object(Map::new());
    }
    let Some(target) = document.pointer(pointer) else {
        note(notes, "nothing is there");
        return Value::Object(Map::new());
    };
    stack.push(reference.to_string());
    let mut inlined = walk(target, document, stack, notes);
    stack.pop();
    // OpenAPI 3.1 lets a reference carry its own keywords (a description); they win over the target's.
    if let Value::Object(out) = &mut inlined {
        for (k, v) in object.iter().filter(|(k, _)| *k != "$ref") {
            out.insert(k.clone(), walk(v, document, stack, notes));
        }
    }
    inlined
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_references_are_inlined_and_the_rest_named() {
        let doc = json!({
            "a": {"$ref": "#/components/schemas/Pet", "description": "the pet"},
            "b": {"$ref": "other.yaml#/X"},
            "c": {"$ref": "#/components/schemas/Missing"},
            "components": {"schemas": {
                "Pet": {"type": "object", "properties": {"kind": {"$ref": "#/components/schemas/Kind"}}},
                "Kind": {"type": "string", "enum": ["cat", "dog"]},
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}}
            }}
        });
        let mut notes = Vec::new();
        let out = inline_refs(&doc, &mut notes);
        assert_eq!(out["a"]["properties"]["kind"]["enum"], json!(["cat", "dog"]));
        assert_eq!(out["a"]["description"], "the pet");
        assert_eq!(
            out["components"]["schemas"]["Node"]["properties"]["next"]["properties"]["next"],
            json!({})
        );
        assert_eq!(notes.len(), 3, "{notes:?}");
    }
}
