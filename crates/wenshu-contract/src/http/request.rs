//! Binding a raw HTTP request to one validated call: route, query, body, required check, conversion, merge.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::bind::{BindError, BoundCall, MissingReport, bind_with};
use crate::http::body::{BodyLimits, parse_body};
use crate::http::route::{HttpRoute, PathMatchError};
use crate::param::Location;
use crate::tool::Tool;

/// A raw request: method, target (`/path?query`) and optional body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRequest {
    /// The method, upper case.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    /// The body bytes, if any.
    pub body: Option<Vec<u8>>,
}

impl RawRequest {
    /// Reads a request line such as `POST /orders/ord_1?status=shipped`.
    pub fn parse_line(line: &str, body: Option<Vec<u8>>) -> Result<Self, BindError> {
        let mut parts = line.split_whitespace();
        let (Some(method), Some(target), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(BindError::Malformed {
                code: "bad_request_line",
                location: None,
                message: format!("`{line}` is not a request line like `POST /orders/ord_1?status=shipped`"),
            });
        };
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Ok(Self {
            method: method.to_ascii_uppercase(),
            path: path.to_string(),
            query: query.to_string(),
            body,
        })
    }
}

/// The raw values of each location, before they are merged and converted (seed 001's snapshot).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RequestDump {
    /// Values taken from the path.
    pub path: Map<String, Value>,
    /// Values taken from the query string (repeated keys become arrays).
    pub query: Map<String, Value>,
    /// The parsed body, when a body parameter exists and a body was sent.
    pub body: Option<Map<String, Value>>,
}

/// Binds a raw request to `tool`; returns the call and the raw values of each location.
pub fn bind_request(
    tool: &Tool,
    request: &RawRequest,
    limits: BodyLimits,
) -> Result<(BoundCall, RequestDump), BindError> {
    let route = tool.route().ok_or_else(|| BindError::NotHttp {
        tool: tool.name().to_string(),
    })?;
    if request.method != route.method {
        return Err(BindError::MethodNotAllowed {
            tool: tool.name().to_string(),
            method: request.method.clone(),
            expected: route.method.clone(),
        });
    }
    let dump = RequestDump {
        path: read_path(tool, route, &request.path)?,
        query: read_query(&request.query),
        body: read_body(tool, route, request.body.as_deref(), limits)?,
    };
    let mut merged = Map::new();
    place(tool, route, Location::Path, &dump.path, &mut merged)?;
    place(tool, route, Location::Query, &dump.query, &mut merged)?;
    if let Some(body) = &dump.body {
        place(tool, route, Location::Body, body, &mut merged)?;
    }
    let call = bind_with(tool, &merged, MissingReport::FirstOnly)?;
    Ok((call, dump))
}

fn read_path(tool: &Tool, route: &HttpRoute, path: &str) -> Result<Map<String, Value>, BindError> {
    let values = route.template.match_path(path).map_err(|e| match e {
        PathMatchError::NoMatch => BindError::PathNotFound {
            tool: tool.name().to_string(),
            path: path.to_string(),
            template: route.template.as_str().to_string(),
        },
        PathMatchError::InvalidUtf8 { param } => BindError::Malformed {
            code: "invalid_utf8",
            location: Some(Location::Path),
            message: format!("path parameter `{param}` is not valid UTF-8 once percent-decoded"),
        },
    })?;
    Ok(values.into_iter().map(|(k, v)| (k, Value::String(v))).collect())
}

fn read_query(query: &str) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        let value = Value::String(value.into_owned());
        match out.get_mut(key.as_ref()) {
            Some(Value::Array(items)) => items.push(value),
            Some(first) => *first = Value::Array(vec![first.take(), value]),
            None => {
                out.insert(key.into_owned(), value);
            }
        }
    }
    out
}

/// Parses the body only when the tool has a body parameter.
fn read_body(
    tool: &Tool,
    route: &HttpRoute,
    body: Option<&[u8]>,
    limits: BodyLimits,
) -> Result<Option<Map<String, Value>>, BindError> {
    let wants_body = tool.params().iter().any(|p| route.location_of(p) == Location::Body);
    match body {
        Some(bytes) if wants_body => parse_body(bytes, limits).map(Some),
        _ => Ok(None),
    }
}

/// Moves the values found at `location` into the merged map, refusing undeclared or misplaced names.
fn place(
    tool: &Tool,
    route: &HttpRoute,
    location: Location,
    values: &Map<String, Value>,
    merged: &mut Map<String, Value>,
) -> Result<(), BindError> {
    let mut unknown = Vec::new();
    for (key, value) in values {
        tracing::debug!(location = %location.name(), key = %key, raw = %raw_text(value), "param");
        match tool.param(key) {
            None => unknown.push(key.clone()),
            Some(spec) if route.location_of(spec) != location => {
                return Err(BindError::WrongLocation {
                    tool: tool.name().to_string(),
                    param: key.clone(),
                    found: location,
                    expected: route.location_of(spec),
                });
            }
            Some(_) => {
                merged.insert(key.clone(), value.clone());
            }
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    Err(BindError::UnknownFields {
        tool: tool.name().to_string(),
        names: unknown,
        location: Some(location),
        allowed: tool
            .params()
            .iter()
            .filter(|p| route.location_of(p) == location)
            .map(|p| p.name.clone())
            .collect(),
    })
}

fn raw_text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
