//! The reverse of binding: from a bound call, the HTTP request to send.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::bind::{BindError, BoundCall};
use crate::param::Location;
use crate::tool::Tool;

/// A request ready to send.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HttpRequest {
    /// The method, upper case.
    pub method: String,
    /// The URL: base, encoded path and encoded query.
    pub url: String,
    /// The JSON body, when the tool has body parameters with values.
    pub body: Option<Value>,
}

/// Builds the request for `call` against `base_url` (e.g. `http://127.0.0.1:8080/api`; may be empty).
pub fn build_request(tool: &Tool, call: &BoundCall, base_url: &str) -> Result<HttpRequest, BindError> {
    let route = tool.route().ok_or_else(|| BindError::NotHttp {
        tool: tool.name().to_string(),
    })?;
    let path = route
        .template
        .render(|name| call.arguments.get(name).map(scalar_text))
        .ok_or_else(|| BindError::Missing {
            tool: tool.name().to_string(),
            names: route
                .template
                .param_names()
                .filter(|n| !call.arguments.contains_key(*n))
                .map(str::to_string)
                .collect(),
            location: Some(Location::Path),
        })?;
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut comma_joined: Vec<String> = Vec::new();
    let mut body = Map::new();
    for spec in tool.params().iter() {
        let Some(value) = call.arguments.get(&spec.name) else {
            continue;
        };
        match route.location_of(spec) {
            Location::Path => {}
            Location::Query => match value {
                Value::Array(items) if spec.comma_joined => {
                    // Each item encoded, the commas between them literal (`daily=a,b`), as OpenAPI writes it.
                    let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
                    let joined: Vec<String> = items.iter().map(|item| encode(&scalar_text(item))).collect();
                    comma_joined.push(format!("{}={}", encode(&spec.name), joined.join(",")));
                }
                Value::Array(items) => {
                    for item in items {
                        query.append_pair(&spec.name, &scalar_text(item));
                    }
                }
                other => {
                    query.append_pair(&spec.name, &scalar_text(other));
                }
            },
            Location::Body => {
                body.insert(spec.name.clone(), value.clone());
            }
        }
    }
    let mut query = query.finish();
    for pair in comma_joined {
        if !query.is_empty() {
            query.push('&');
        }
        query.push_str(&pair);
    }
    let mut url = format!("{}{path}", base_url.trim_end_matches('/'));
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query);
    }
    let body = (!body.is_empty()).then_some(Value::Object(body));
    Ok(HttpRequest {
        method: route.method.clone(),
        url,
        body,
    })
}

/// A value as it is written in a path or query: strings bare, everything else as JSON.
fn scalar_text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
