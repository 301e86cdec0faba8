//! The scripted chat server: a real axum server on loopback.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::Reply;

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The parsed JSON body; a body that is not JSON is kept as a JSON string.
    pub body: Value,
    /// The `Authorization` header, when sent.
    pub authorization: Option<String>,
}

/// Answers a request by looking at it (a model that replays decisions), once the script is used up.
pub type Responder = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

#[derive(Default)]
struct Shared {
    script: VecDeque<Reply>,
    served: usize,
    requests: Vec<RecordedRequest>,
    responder: Option<Responder>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("script", &self.script.len())
            .field("served", &self.served)
            .finish()
    }
}

type SharedState = Arc<Mutex<Shared>>;

/// A real HTTP server on `127.0.0.1:0` answering chat completions from a script; shuts down on drop.
#[derive(Debug)]
pub struct ScriptedChatServer {
    addr: SocketAddr,
    state: SharedState,
    task: JoinHandle<()>,
}

impl ScriptedChatServer {
    /// Binds a loopback port and starts answering `POST /v1/chat/completions` with `script`, in order.
    ///
    /// # Panics
    /// When no loopback port can be bound (a test environment fault).
    pub async fn start(script: Vec<Reply>) -> ScriptedChatServer {
        Self::launch(Shared {
            script: script.into(),
            ..Shared::default()
        })
        .await
    }

    /// Starts a server that answers every request with `responder(request body)`.
    ///
    /// # Panics
    /// When no loopback port can be bound (a test environment fault).
    pub async fn start_with(responder: Responder) -> ScriptedChatServer {
        Self::launch(Shared {
            responder: Some(responder),
            ..Shared::default()
        })
        .await
    }

    async fn launch(shared: Shared) -> ScriptedChatServer {
        let state: SharedState = Arc::new(Mutex::new(shared));
        let app = Router::new()
            .route("/v1/chat/completions", post(handle))
            .with_state(state.clone());
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address of the listener");
        let task = tokio::spawn(async move {
            // An error here means the listener died; the test will see connection errors.
            let _ = axum::serve(listener, app).await;
        });
        ScriptedChatServer { addr, state, task }
    }

    /// The base URL to configure a client with: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// How many requests were received so far.
    pub fn request_count(&self) -> usize {
        lock(&self.state).requests.len()
    }

    /// How many scripted replies are still waiting to be served.
    pub fn remaining(&self) -> usize {
        lock(&self.state).script.len()
    }

    /// Appends more replies to the end of the script.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.state).script.extend(replies);
    }
}

impl Drop for ScriptedChatServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(state: &SharedState) -> MutexGuard<'_, Shared> {
    // A panicking test thread must not hide the recorded requests from the others.
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn handle(State(state): State<SharedState>, headers: HeaderMap, body: Bytes) -> Response {
    let text = String::from_utf8_lossy(&body).into_owned();
    let parsed = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let (reply, served) = {
        let mut shared = lock(&state);
        shared.requests.push(RecordedRequest {
            body: parsed.clone(),
            authorization,
        });
        let reply = shared
            .script
            .pop_front()
            .or_else(|| shared.responder.as_ref().map(|r| r(&parsed)));
        if reply.is_some() {
            shared.served += 1;
        }
        (reply, shared.served)
    };
    let Some(reply) = reply else {
        let message = format!("ScriptedChatServer: the script is exhausted after {served} replies");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({ "error": { "message": message } })),
        )
            .into_response();
    };
    answer(reply, &parsed).await
}

async fn answer(reply: Reply, request: &Value) -> Response {
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted")
        .to_owned();
    match reply {
        Reply::Content { text, reasoning } => completion(&model, message_with_content(&text, reasoning.as_deref())),
        Reply::ToolCall { arguments } => {
            let name = request
                .pointer("/tools/0/function/name")
                .and_then(Value::as_str)
                .unwrap_or("tool")
                .to_owned();
            let message = json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": "call_scripted_1",
                    "type": "function",
                    "function": { "name": name, "arguments": arguments }
                }]
            });
            completion(&model, message)
        }
        Reply::Status {
            code,
            body,
            retry_after,
        } => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = (status, body).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            if let Some(seconds) = retry_after {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            }
            response
        }
        Reply::Hang { duration } => {
            tokio::time::sleep(duration).await;
            completion(&model, message_with_content("{}", None))
        }
        Reply::Delayed { duration, text } => {
            tokio::time::sleep(duration).await;
            completion(&model, message_with_content(&text, None))
        }
        Reply::Raw { body } => {
            let mut response = (StatusCode::OK, body).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
    }
}

fn message_with_content(text: &str, reasoning: Option<&str>) -> Value {
    let mut message = json!({ "role": "assistant", "content": text });
    if let Some(reasoning) = reasoning {
        message["reasoning_content"] = Value::String(reasoning.to_owned());
    }
    message
}

fn completion(model: &str, message: Value) -> Response {
    let completion_tokens = message
        .get("content")
        .and_then(Value::as_str)
        .map_or(8, |text| text.chars().count() as u64);
    let finish_reason = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let body = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason }],
        "usage": {
            "prompt_tokens": 11,
            "completion_tokens": completion_tokens,
            "total_tokens": 11 + completion_tokens
        }
    });
    (StatusCode::OK, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A bare HTTP/1.1 POST over a fresh TCP connection; returns (status, lowercased head, body).
    async fn post(server: &ScriptedChatServer, auth: Option<&str>, body: &str) -> (u16, String, String) {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.expect("connect");
        let auth = auth.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.expect("read");
        let raw = String::from_utf8(raw).expect("utf-8");
        let (head, body) = raw.split_once("\r\n\r\n").expect("head and body");
        let status = head[9..12].parse().expect("status");
        (status, head.to_ascii_lowercase(), body.to_owned())
    }

    #[tokio::test]
    async fn answers_from_the_script_in_order_and_records_requests() {
        let server = ScriptedChatServer::start(vec![
            Reply::content("你好"),
            Reply::status_retry_after(429, "{\"error\":\"slow down\"}", 3),
            Reply::raw("not json"),
        ])
        .await;
        assert!(server.base_url().starts_with("http://127.0.0.1:"));
        assert!(server.base_url().ends_with("/v1"));
        let body = r#"{"model":"m1","messages":[]}"#;

        let (status, _, first) = post(&server, Some("Bearer k"), body).await;
        assert_eq!(status, 200);
        let first: Value = serde_json::from_str(&first).expect("json");
        assert_eq!(first["choices"][0]["message"]["content"], "你好");
        assert_eq!(first["model"], "m1");
        assert!(first["usage"]["total_tokens"].as_u64().is_some());

        let (status, head, _) = post(&server, None, body).await;
        assert_eq!(status, 429);
        assert!(head.contains("retry-after: 3"), "{head}");

        let (status, _, third) = post(&server, None, "plain text").await;
        assert_eq!(status, 200);
        assert_eq!(third, "not json");

        let (status, _, exhausted) = post(&server, None, body).await;
        assert_eq!(status, 500);
        assert!(exhausted.contains("exhausted"), "{exhausted}");

        let requests = server.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(requests[0].authorization.as_deref(), Some("Bearer k"));
        assert_eq!(requests[0].body["model"], "m1");
        assert_eq!(requests[1].authorization, None);
        assert_eq!(requests[2].body, Value::String("plain text".into()));
        assert_eq!(server.remaining(), 0);
    }
}
