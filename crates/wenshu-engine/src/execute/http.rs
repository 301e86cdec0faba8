//! The HTTP executor: the request a tool's `x-http` describes, built by the contract, sent with a time limit;
//! the JSON answer (its body read under the cap per result, its values under the cap per value) becomes rows. Credentials a tool declares in `x-http-auth` (`[{"header", "prefix", "env"}]`)
//! are read from the environment (never from the question) and sent as sensitive headers, never shown.

use std::collections::HashMap;

use std::time::Instant;

use serde_json::{Map, Value, json};
use wenshu_contract::http::build_request;
use wenshu_contract::{BoundCall, Tool};

use super::error::ExecError;
use super::{ExecContext, ExecFuture, Executor, ToolResult, check_call, elapsed_ms};
use wenshu_sql::db::ByteCap;
use wenshu_sql::db::bytes::check_rows;

/// The most characters of an error response's body kept in the message.
const ERROR_BODY_CHARS: usize = 200;

/// Calls the HTTP endpoints of `x-http` tools under one base URL.
#[derive(Debug, Clone)]
pub struct HttpExecutor {
    base_url: String,
    client: reqwest::Client,
    credentials: Option<HashMap<String, String>>,
}

impl HttpExecutor {
    /// An executor for endpoints under `base_url` (e.g. `http://127.0.0.1:8080/api`). Installs ring as the
    /// process's rustls crypto provider when none is installed yet.
    pub fn new(base_url: impl Into<String>) -> Result<Self, ExecError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder().build().map_err(|e| ExecError::Http {
            status: None,
            message: format!("cannot build the HTTP client: {e}"),
        })?;
        Ok(Self::with_client(base_url, client))
    }

    /// An executor using a client built elsewhere.
    pub fn with_client(base_url: impl Into<String>, client: reqwest::Client) -> Self {
        Self {
            base_url: base_url.into(),
            client,
            credentials: None,
        }
    }

    /// Reads `x-http-auth` variables from `values` instead of the process environment.
    pub fn with_credentials(mut self, values: HashMap<String, String>) -> Self {
        self.credentials = Some(values);
        self
    }

    /// The headers of a tool's `x-http-auth`, each value read from its variable.
    fn auth_headers(
        &self,
        tool: &Tool,
    ) -> Result<Vec<(reqwest::header::HeaderName, reqwest::header::HeaderValue)>, ExecError> {
        let invalid = |reason: String| ExecError::Invalid {
            tool: tool.name().to_string(),
            reason,
        };
        let Some(list) = tool.definition().get("x-http-auth") else {
            return Ok(Vec::new());
        };
        let items = list
            .as_array()
            .ok_or_else(|| invalid("x-http-auth: expected an array".into()))?;
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let field = |key: &str| item.get(key).and_then(Value::as_str);
            let (Some(header), Some(env)) = (field("header"), field("env")) else {
                return Err(invalid(format!("x-http-auth[{i}]: expected {{\"header\", \"env\"}}")));
            };
            let secret = match &self.credentials {
                Some(values) => values.get(env).cloned(),
                None => std::env::var(env).ok(),
            }
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                invalid(format!(
                    "the credential for header `{header}` is missing: set the environment variable `{env}`"
                ))
            })?;
            let name = reqwest::header::HeaderName::from_bytes(header.as_bytes())
                .map_err(|_| invalid(format!("x-http-auth[{i}].header: `{header}` is not a header name")))?;
            let mut value =
                reqwest::header::HeaderValue::from_str(&format!("{}{secret}", field("prefix").unwrap_or("")))
                    .map_err(|_| invalid(format!("the value of `{env}` is not a valid header value")))?;
            value.set_sensitive(true);
            out.push((name, value));
        }
        Ok(out)
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    async fn run(&self, tool: &Tool, call: &BoundCall, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        check_call(tool, call)?;
        let start = Instant::now();
        let request = build_request(tool, call, &self.base_url).map_err(|e| ExecError::Invalid {
            tool: tool.name().to_string(),
            reason: e.to_string(),
        })?;
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|e| ExecError::Invalid {
            tool: tool.name().to_string(),
            reason: format!("method `{}`: {e}", request.method),
        })?;
        let mut builder = self.client.request(method, &request.url).timeout(ctx.timeout);
        for (name, value) in self.auth_headers(tool)? {
            builder = builder.header(name, value);
        }
        if let Some(body) = &request.body {
            builder = builder.json(body);
        }
        let transport = |e: reqwest::Error| {
            if e.is_timeout() {
                ExecError::Timeout {
                    after_ms: ctx.timeout_ms(),
                }
            } else {
                ExecError::Http {
                    status: e.status().map(|s| s.as_u16()),
                    message: e.to_string(),
                }
            }
        };
        let mut response = builder.send().await.map_err(transport)?;
        let status = response.status();
        let bytes = read_body(&mut response, ctx.bytes.result).await.map_err(|e| match e {
            BodyError::Transport(e) => transport(e),
            BodyError::TooLarge => ExecError::TooLarge {
                cap: ByteCap::Result,
                limit: ctx.bytes.result,
            },
        })?;
        if !status.is_success() {
            return Err(ExecError::Http {
                status: Some(status.as_u16()),
                message: short_text(&bytes),
            });
        }
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| ExecError::Http {
            status: Some(status.as_u16()),
            message: format!("the response is not JSON ({e}): {}", short_text(&bytes)),
        })?;
        let (columns, rows, truncated) = json_to_rows(value, ctx.row_cap);
        check_rows(&rows, ctx.bytes)?;
        Ok(ToolResult {
            columns,
            rows,
            truncated,
            detail: json!({
                "kind": "http",
                "method": request.method,
                "url": request.url,
                "body": request.body,
                "status": status.as_u16(),
            }),
            duration_ms: elapsed_ms(start),
        })
    }
}

/// Why a response body was not read whole.
enum BodyError {
    /// The connection failed or timed out.
    Transport(reqwest::Error),
    /// The body is longer than the cap.
    TooLarge,
}

/// Reads the body chunk by chunk, at most `cap` bytes: a longer body (by its `Content-Length`, or as it arrives) is
/// refused and the rest never read.
async fn read_body(response: &mut reqwest::Response, cap: usize) -> Result<Vec<u8>, BodyError> {
    if response
        .content_length()
        .is_some_and(|len| usize::try_from(len).map_or(true, |len| len > cap))
    {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        if body.len().saturating_add(chunk.len()) > cap {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl Executor for HttpExecutor {
    fn execute<'a>(&'a self, tool: &'a Tool, call: &'a BoundCall, ctx: &'a ExecContext) -> ExecFuture<'a> {
        Box::pin(self.run(tool, call, ctx))
    }
}

/// A JSON answer as rows: an array of objects gives one row each (columns are the keys, in order of first
/// appearance); an object gives one row; anything else gives a single column `value`. At most `row_cap` rows;
/// the flag says whether more existed.
pub fn json_to_rows(value: Value, row_cap: usize) -> (Vec<String>, Vec<Vec<Value>>, bool) {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            let truncated = items.len() > row_cap;
            let objects: Vec<Map<String, Value>> = items
                .into_iter()
                .take(row_cap)
                .filter_map(|item| match item {
                    Value::Object(object) => Some(object),
                    _ => None,
                })
                .collect();
            let mut columns: Vec<String> = Vec::new();
            for object in &objects {
                for key in object.keys() {
                    if !columns.contains(key) {
                        columns.push(key.clone());
                    }
                }
            }
            let rows = objects
                .into_iter()
                .map(|mut object| {
                    columns
                        .iter()
                        .map(|c| object.remove(c).unwrap_or(Value::Null))
                        .collect()
                })
                .collect();
            (columns, rows, truncated)
        }
        Value::Array(items) => {
            let truncated = items.len() > row_cap;
            let rows = items.into_iter().take(row_cap).map(|item| vec![item]).collect();
            (vec!["value".to_string()], rows, truncated)
        }
        Value::Object(object) => {
            let columns = object.keys().cloned().collect();
            let row = object.into_iter().map(|(_, v)| v).collect();
            (columns, vec![row], false)
        }
        other => (vec!["value".to_string()], vec![vec![other]], false),
    }
}

/// The start of a body as text, for messages.
fn short_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    let mut short: String = text.chars().take(ERROR_BODY_CHARS).collect();
    if text.chars().count() > ERROR_BODY_CHARS {
        short.push('…');
    }
    if short.is_empty() {
        short.push_str("(empty body)");
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_of_objects_unions_keys_in_order() {
        let (columns, rows, truncated) = json_to_rows(json!([{"a": 1, "b": 2}, {"c": 3, "a": 4}]), 10);
        assert_eq!(columns, ["a", "b", "c"]);
        assert_eq!(
            rows,
            vec![
                vec![json!(1), json!(2), Value::Null],
                vec![json!(4), Value::Null, json!(3)]
            ]
        );
        assert!(!truncated);
    }

    #[test]
    fn object_is_one_row_and_scalars_one_column() {
        let (columns, rows, _) = json_to_rows(json!({"id": "x", "n": 2}), 10);
        assert_eq!(columns, ["id", "n"]);
        assert_eq!(rows, vec![vec![json!("x"), json!(2)]]);
        let (columns, rows, truncated) = json_to_rows(json!([1, 2, 3]), 2);
        assert_eq!(columns, ["value"]);
        assert_eq!(rows, vec![vec![json!(1)], vec![json!(2)]]);
        assert!(truncated);
    }

    #[test]
    fn short_text_cuts_long_bodies() {
        let long = "x".repeat(500);
        assert_eq!(short_text(long.as_bytes()).chars().count(), ERROR_BODY_CHARS + 1);
        assert_eq!(short_text(b""), "(empty body)");
    }
}
