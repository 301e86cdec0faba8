//! A plain MCP client over streamable HTTP, with a bearer key: initialize, the initialized notification, then
//! `tools/call` — JSON-RPC posts whose answers come as JSON or as server-sent events.

use std::time::Duration;

use serde_json::{Value, json};

/// One MCP session with wenshu's `/mcp`.
pub struct McpSession {
    http: reqwest::Client,
    url: String,
    key: Option<String>,
    session: Option<String>,
    next_id: i64,
}

impl McpSession {
    /// Opens a session at `url` as the holder of `key`; `Err((status, body))` when the server refuses it.
    pub async fn open(url: &str, key: Option<&str>) -> Result<Self, (u16, String)> {
        let mut session = Self {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            url: url.to_string(),
            key: key.map(str::to_string),
            session: None,
            next_id: 1,
        };
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "row-scope-matrix", "version": "1"}});
        session.request("initialize", init).await?;
        let (status, body) = session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        if status >= 300 {
            return Err((status, body));
        }
        Ok(session)
    }

    /// `tools/call` of `name` with `arguments`: the JSON-RPC result.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Result<Value, (u16, String)> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, (u16, String)> {
        let id = self.next_id;
        self.next_id += 1;
        let (status, body) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        if status >= 300 {
            return Err((status, body));
        }
        let message = messages(&body)
            .into_iter()
            .find(|m| m["id"] == id)
            .ok_or_else(|| (status, format!("no answer to request {id}: {body}")))?;
        match message.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err((status, message.to_string())),
        }
    }

    async fn post(&mut self, message: Value) -> (u16, String) {
        let mut request = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .json(&message);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        let response = request.send().await.expect("/mcp answers");
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_string);
        }
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    }
}

/// The JSON-RPC messages of a body: one JSON value, or the `data:` lines of an event stream.
fn messages(body: &str) -> Vec<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        return vec![value];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}
