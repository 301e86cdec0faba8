//! OpenAPI 3.0/3.1 operations → HTTP tools: path and query parameters and JSON body properties with their `in`,
//! required, types, enums, defaults and descriptions; the operationId as the name, the summary as the title;
//! security requirements as `x-http-auth`. What cannot be expressed is named in the notes, never dropped silently.

use std::collections::HashSet;

use serde_json::{Map, Value, json};
use wenshu_contract::extensions::HTTP_METHODS;

use super::auth::scheme_header;

/// The tools of a document and what was noted on the way.
#[derive(Debug, Default)]
pub struct Imported {
    /// The HTTP tools.
    pub tools: Vec<Value>,
    /// One line per decision or construct left out.
    pub notes: Vec<String>,
    /// The first server's URL (the document's, else a path's or an operation's), variables filled with their
    /// defaults.
    pub server_url: Option<String>,
    /// Operations left out by `--only`.
    pub filtered: usize,
}

/// The methods OpenAPI has beyond those a tool may use.
const OTHER_METHODS: [&str; 3] = ["head", "options", "trace"];

/// Keywords of OpenAPI schemas that are annotations for code generators, not constraints.
const ANNOTATIONS: [&str; 7] = [
    "example",
    "examples",
    "xml",
    "externalDocs",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Converts a document whose `$ref`s are inlined; `only` keeps operations with one of these tags.
pub fn convert(document: &Value, only: &[String]) -> Imported {
    let mut out = Imported {
        server_url: server_url(document),
        ..Imported::default()
    };
    let title = document["info"]["title"].as_str().unwrap_or("api");
    let mut names: HashSet<String> = HashSet::new();
    let Some(paths) = document["paths"].as_object() else {
        out.notes.push("the document has no paths".into());
        return out;
    };
    for (path, item) in paths {
        let shared = item["parameters"].as_array().cloned().unwrap_or_default();
        for method in OTHER_METHODS {
            if item.get(method).is_some() {
                out.notes.push(format!(
                    "{} {path}: not imported — tools call GET, POST, PUT, PATCH or DELETE",
                    method.to_uppercase()
                ));
            }
        }
        for method in HTTP_METHODS {
            let Some(operation) = item.get(method.to_ascii_lowercase()) else {
                continue;
            };
            let tags: Vec<&str> = operation["tags"]
                .as_array()
                .map(|t| t.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !only.is_empty() && !tags.iter().any(|t| only.iter().any(|o| o == t)) {
                out.filtered += 1;
                continue;
            }
            let at = format!("{method} {path}");
            // A server of its own (the operation's, else its path's) other than the base URL: one base URL per
            // catalog, so it would be called at the wrong place.
            let own = first_server(&operation["servers"]).or_else(|| first_server(&item["servers"]));
            if let (Some(own), Some(base)) = (&own, &out.server_url)
                && own != base
            {
                out.notes.push(format!(
                    "{at}: not imported — its server {own} is not the base URL {base} (import it alone with \
                     --only, or with --base-url)"
                ));
                continue;
            }
            match operation_tool(document, path, method, operation, &shared, title, &mut names) {
                Ok((tool, notes)) => {
                    out.notes
                        .push(format!("{at} → tool `{}`", tool["name"].as_str().unwrap_or_default()));
                    out.notes.extend(notes.into_iter().map(|n| format!("  {n}")));
                    out.tools.push(tool);
                }
                Err(reason) => out.notes.push(format!("{at}: not imported — {reason}")),
            }
        }
    }
    out
}

/// The base URL: the document's first server, else the first server a path or an operation declares (a document
/// of one path often declares it there).
fn server_url(document: &Value) -> Option<String> {
    first_server(&document["servers"]).or_else(|| {
        document["paths"].as_object()?.values().find_map(|item| {
            first_server(&item["servers"]).or_else(|| {
                HTTP_METHODS
                    .iter()
                    .find_map(|m| first_server(&item[m.to_ascii_lowercase()]["servers"]))
            })
        })
    })
}

/// `servers[0].url` of a `servers` array, with its variables' defaults.
fn first_server(servers: &Value) -> Option<String> {
    let server = servers.as_array()?.first()?;
    let mut url = server["url"].as_str()?.to_string();
    if let Some(vars) = server["variables"].as_object() {
        for (name, var) in vars {
            if let Some(default) = var["default"].as_str() {
                url = url.replace(&format!("{{{name}}}"), default);
            }
        }
    }
    Some(url.trim_end_matches('/').to_string())
}

/// A tool name from an operationId, else from the method and path.
fn tool_name(
    operation: &Value,
    method: &str,
    path: &str,
    names: &mut HashSet<String>,
    notes: &mut Vec<String>,
) -> String {
    let raw = match operation["operationId"].as_str() {
        Some(id) if !id.trim().is_empty() => id.trim().to_string(),
        _ => {
            let made = format!("{}_{}", method.to_ascii_lowercase(), path);
            notes.push("no operationId: the name is made from the method and path".into());
            made
        }
    };
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    name = name.trim_matches('_').chars().take(120).collect();
    if name != raw && operation["operationId"].is_string() {
        notes.push(format!(
            "operationId `{raw}` written as `{name}` (tool names are ASCII letters, digits, _ - .)"
        ));
    }
    let base = name.clone();
    let mut n = 2;
    while !names.insert(name.clone()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    if name != base {
        notes.push(format!("a second tool named `{base}`: this one is `{name}`"));
    }
    name
}

fn operation_tool(
    document: &Value,
    path: &str,
    method: &str,
    operation: &Value,
    shared: &[Value],
    title: &str,
    names: &mut HashSet<String>,
) -> Result<(Value, Vec<String>), String> {
    let mut notes = Vec::new();
    let name = tool_name(operation, method, path, names, &mut notes);
    let mut properties = Map::new();
    let mut required: Vec<String> = Vec::new();
    let own = operation["parameters"].as_array().cloned().unwrap_or_default();
    let mut parameters: Vec<Value> = shared
        .iter()
        .filter(|s| !own.iter().any(|o| o["name"] == s["name"] && o["in"] == s["in"]))
        .cloned()
        .collect();
    parameters.extend(own);
    for p in &parameters {
        let pname = p["name"].as_str().ok_or("a parameter without a name")?;
        let place = p["in"].as_str().unwrap_or_default();
        let is_required = p["required"].as_bool().unwrap_or(place == "path");
        if !matches!(place, "path" | "query") {
            let why =
                format!("{place} parameter `{pname}` is not supported (tools send path, query and JSON body values)");
            if is_required {
                return Err(format!("required {why}"));
            }
            notes.push(format!("{why}: left out"));
            continue;
        }
        let Some(schema) = p.get("schema") else {
            let why = format!("parameter `{pname}` has `content` instead of a schema");
            if is_required {
                return Err(why);
            }
            notes.push(format!("{why}: left out"));
            continue;
        };
        if let Some(style) = p["style"].as_str().filter(|s| *s != "form" && *s != "simple") {
            notes.push(format!(
                "parameter `{pname}` has style `{style}`: sent as form values instead"
            ));
        }
        let mut property = clean_schema(schema, &mut notes, pname);
        if let Some(d) = p["description"].as_str() {
            property.insert("description".into(), json!(d));
        }
        property.insert("in".into(), json!(place));
        // A form-style query array with `explode: false` is one comma-separated value (`daily=a,b`).
        let form = p["style"].as_str().is_none_or(|s| s == "form");
        if place == "query" && form && p["explode"] == json!(false) && property.get("type") == Some(&json!("array")) {
            property.insert("x-explode".into(), json!(false));
        }
        properties.insert(pname.to_string(), Value::Object(property));
        if is_required {
            required.push(pname.to_string());
        }
    }
    if let Some(body) = operation.get("requestBody") {
        body_properties(body, &mut properties, &mut required, &mut notes)?;
    }
    let mut tool = json!({
        "name": name,
        "description": operation["description"].as_str().or(operation["summary"].as_str()).unwrap_or_default(),
        "x-http": {"method": method, "path": path},
        "inputSchema": {"type": "object", "properties": properties, "required": required},
    });
    if let Some(summary) = operation["summary"].as_str() {
        tool["title"] = json!(summary);
    }
    if let Some(auth) = security(document, operation, title, &mut notes)? {
        tool["x-http-auth"] = auth;
    }
    Ok((tool, notes))
}

/// The properties of a JSON request body, each `in: body`.
fn body_properties(
    body: &Value,
    properties: &mut Map<String, Value>,
    required: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let body_required = body["required"].as_bool().unwrap_or(false);
    let content = body["content"].as_object().cloned().unwrap_or_default();
    let json_media = content
        .iter()
        .find(|(m, _)| *m == "application/json" || m.ends_with("+json"));
    let Some((_, media)) = json_media else {
        let kinds: Vec<&String> = content.keys().collect();
        let why = format!("a request body of {kinds:?} (only JSON bodies are sent)");
        if body_required {
            return Err(why);
        }
        notes.push(format!("{why}: left out"));
        return Ok(());
    };
    let schema = merge_all_of(&media["schema"]);
    for keyword in ["oneOf", "anyOf"] {
        if schema.get(keyword).is_some() {
            return Err(format!(
                "the request body is `{keyword}` of several schemas: a tool's body is one object of named values \
                 (split the operation per schema)"
            ));
        }
    }
    let Some(props) = schema["properties"].as_object() else {
        let why = "the request body is not an object with properties".to_string();
        if body_required {
            return Err(why);
        }
        notes.push(format!("{why}: left out"));
        return Ok(());
    };
    let listed: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (pname, prop) in props {
        if properties.contains_key(pname) {
            return Err(format!("body property `{pname}` has the name of a parameter"));
        }
        if prop["readOnly"].as_bool() == Some(true) {
            notes.push(format!("body property `{pname}` is read-only: left out"));
            continue;
        }
        let mut property = clean_schema(prop, notes, pname);
        property.insert("in".into(), json!("body"));
        properties.insert(pname.clone(), Value::Object(property));
        if listed.contains(&pname.as_str()) && body_required {
            required.push(pname.clone());
        }
    }
    Ok(())
}

/// `allOf` of object schemas merged into one (properties and required lists joined).
fn merge_all_of(schema: &Value) -> Value {
    let Some(parts) = schema["allOf"].as_array() else {
        return schema.clone();
    };
    let mut merged = schema.as_object().cloned().unwrap_or_default();
    merged.remove("allOf");
    let mut properties = merged
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut required: Vec<Value> = merged
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for part in parts {
        let part = merge_all_of(part);
        if let Some(p) = part["properties"].as_object() {
            properties.extend(p.clone());
        }
        if let Some(r) = part["required"].as_array() {
            required.extend(r.iter().cloned());
        }
        for (k, v) in part.as_object().into_iter().flatten() {
            if !matches!(k.as_str(), "properties" | "required") {
                merged.entry(k.clone()).or_insert(v.clone());
            }
        }
    }
    merged.insert("type".into(), json!("object"));
    merged.insert("properties".into(), Value::Object(properties));
    merged.insert("required".into(), Value::Array(required));
    Value::Object(merged)
}

/// A parameter schema as JSON Schema: OpenAPI annotations dropped, 3.0 `nullable` as a null type, `allOf` merged.
/// `oneOf`/`anyOf` stay: the tool's validator checks them.
fn clean_schema(schema: &Value, notes: &mut Vec<String>, name: &str) -> Map<String, Value> {
    let mut object = merge_all_of(schema).as_object().cloned().unwrap_or_default();
    for key in ANNOTATIONS {
        object.remove(key);
    }
    if object.remove("discriminator").is_some() {
        notes.push(format!(
            "`{name}`: the discriminator is not used; its oneOf is checked as written"
        ));
    }
    if object.remove("nullable").and_then(|n| n.as_bool()) == Some(true)
        && let Some(Value::String(t)) = object.get("type").cloned()
    {
        object.insert("type".into(), json!([t, "null"]));
    }
    for (key, value) in object.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                for (k, v) in props.iter_mut() {
                    *v = Value::Object(clean_schema(v, notes, &format!("{name}.{k}")));
                }
            }
            ("items" | "additionalProperties", value @ Value::Object(_)) => {
                *value = Value::Object(clean_schema(value, notes, name));
            }
            ("oneOf" | "anyOf", Value::Array(items)) => {
                for v in items.iter_mut() {
                    *v = Value::Object(clean_schema(v, notes, name));
                }
            }
            _ => {}
        }
    }
    object
}

/// The `x-http-auth` of an operation: the first security requirement whose schemes all map to headers.
fn security(
    document: &Value,
    operation: &Value,
    title: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Value>, String> {
    let requirements = operation
        .get("security")
        .or(document.get("security"))
        .and_then(Value::as_array);
    let Some(requirements) = requirements.filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if requirements.iter().any(|r| r.as_object().is_some_and(Map::is_empty)) {
        notes.push("security is optional for this operation: no credentials are sent".into());
        return Ok(None);
    }
    let schemes = &document["components"]["securitySchemes"];
    let mut reasons = Vec::new();
    for requirement in requirements {
        let mut headers = Vec::new();
        let mut lines = Vec::new();
        let mut failed = false;
        for name in requirement.as_object().into_iter().flatten().map(|(k, _)| k) {
            match scheme_header(name, &schemes[name.as_str()], title) {
                Ok((entry, line)) => {
                    headers.push(entry);
                    lines.push(line);
                }
                Err(why) => {
                    reasons.push(format!("`{name}`: {why}"));
                    failed = true;
                }
            }
        }
        if !failed {
            notes.extend(reasons.iter().map(|r| format!("auth alternative {r}: skipped")));
            notes.extend(lines);
            return Ok(Some(Value::Array(headers)));
        }
    }
    Err(format!("no security requirement can be met: {}", reasons.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_and_all_of_become_json_schema() {
        let mut notes = Vec::new();
        let cleaned = clean_schema(
            &json!({"type": "string", "nullable": true, "example": "x"}),
            &mut notes,
            "p",
        );
        assert_eq!(Value::Object(cleaned), json!({"type": ["string", "null"]}));
        let merged = merge_all_of(&json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}}
        ]}));
        assert_eq!(merged["properties"]["b"]["type"], "integer");
        assert_eq!(merged["required"], json!(["a"]));
    }
}
