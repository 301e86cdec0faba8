//! The server probe's second round (issue #29), over real HTTP on 127.0.0.1: wrong keys throttled by address and
//! credential without locking out the right ones (D19), the audit filter by id or by name (D22), a JSON-RPC body
//! that does not deserialize (D24), hyper's own errors as the JSON error body (D11).

mod common;

use common::{Options, Server, keyed, start};
use serde_json::Value;
use wenshu_server::ServerSettings;
use wenshu_store::AuditFilter;

/// GETs `path` with an optional key: (status, headers, body as JSON or Null).
async fn get(server: &Server, path: &str, key: Option<&str>) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut request = server.client.get(format!("{}{path}", server.base));
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    (status, headers, response.json().await.unwrap_or(Value::Null))
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("(not the JSON error body)")
}

/// The audit entries that record a lock-out.
async fn lockouts(server: &Server) -> Vec<wenshu_store::AuditEntry> {
    let page = server.store.audit(&AuditFilter::default()).await.unwrap();
    page.entries
        .into_iter()
        .filter(|entry| entry.step.as_deref() == Some("auth"))
        .collect()
}

#[tokio::test]
async fn d19_a_wrong_key_is_throttled_and_a_right_key_from_the_same_address_passes() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    for _ in 0..10 {
        let (status, _, body) = get(&server, "/api/tools", Some("guessed-KEY-9")).await;
        assert_eq!((status, code(&body)), (401, "invalid_key"));
    }
    assert!(lockouts(&server).await.is_empty(), "nothing has locked yet");
    let (status, headers, body) = get(&server, "/api/tools", Some("guessed-KEY-9")).await;
    assert_eq!(
        (status, code(&body)),
        (429, "rate_limited"),
        "the wrong key itself is throttled"
    );
    let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=6).contains(&wait), "{wait}");
    assert_eq!(
        get(&server, "/api/tools", Some("u1")).await.0,
        200,
        "a right user key passes"
    );
    assert_eq!(
        get(&server, "/api/audit", Some("a1")).await.0,
        200,
        "a right admin key passes"
    );
    assert_eq!(get(&server, "/healthz", Some("a1")).await.0, 200);
    assert_eq!(get(&server, "/api/tools", Some("guessed-KEY-9")).await.0, 429);
    // One audit entry for the lock, naming the address and the credential's digest, never the credential.
    let entries = lockouts(&server).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    assert_eq!((entry.outcome.as_str(), entry.door.as_str()), ("rejected", "api"));
    assert!(
        entry.question.contains("127.0.0.1") && entry.question.contains("c-"),
        "{}",
        entry.question
    );
    assert!(!entry.question.contains("guessed-KEY-9"), "{}", entry.question);
    // Another wrong key from that address has a bucket of its own.
    assert_eq!(get(&server, "/api/tools", Some("other-wrong")).await.0, 401);
}

#[tokio::test]
async fn d19_an_address_trying_many_different_keys_is_throttled_too() {
    let server = start(Options {
        settings: ServerSettings {
            auth_failures_per_minute: 1,
            ..keyed(&["u1"], &[])
        },
        ..Options::default()
    })
    .await;
    let mut statuses = Vec::new();
    for i in 0..12 {
        statuses.push(get(&server, "/api/tools", Some(&format!("guess-{i}"))).await.0);
    }
    assert_eq!(statuses[..10], [401; 10]);
    assert_eq!(statuses[10..], [429, 429]);
    assert_eq!(get(&server, "/api/tools", Some("u1")).await.0, 200);
    assert_eq!(lockouts(&server).await.len(), 1);
}

/// An audit entry of the principal `id` named `name`.
fn entry_of(id: &str, name: &str) -> wenshu_store::NewAudit {
    wenshu_store::NewAudit {
        principal: wenshu_store::AuditPrincipal {
            id: Some(id.to_string()),
            name: Some(name.to_string()),
            role: "user".to_string(),
        },
        door: "api".to_string(),
        conversation_id: None,
        question: format!("asked by {id}"),
        tool: None,
        params: Value::Null,
        sql: Vec::new(),
        rows: None,
        outcome: "answered".to_string(),
        step: None,
    }
}

#[tokio::test]
async fn d22_the_audit_filter_matches_ids_by_principal_and_names_by_principal_name() {
    let server = start(Options::default()).await;
    for (id, name) in [("k-alice", "alice"), ("jwt:mallory", "alice"), ("k-bob", "bob")] {
        server.store.record_audit(entry_of(id, name)).await.unwrap();
    }
    let ids = |body: &Value| -> Vec<String> {
        body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["principal"]["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, _, body) = get(&server, "/api/audit?principal=k-alice", None).await;
    assert_eq!((status, ids(&body)), (200, vec!["k-alice".to_string()]));
    let (status, _, body) = get(&server, "/api/audit?principal=alice", None).await;
    assert_eq!((status, ids(&body)), (200, Vec::<String>::new()), "a name is not an id");
    let (_, _, body) = get(&server, "/api/audit?principal=jwt:mallory", None).await;
    assert_eq!(ids(&body), ["jwt:mallory"]);
    let (status, _, body) = get(&server, "/api/audit?principalName=alice", None).await;
    assert_eq!(
        (status, ids(&body)),
        (200, vec!["jwt:mallory".to_string(), "k-alice".to_string()])
    );
    let (status, _, body) = get(&server, "/api/audit?principalName=", None).await;
    assert_eq!((status, code(&body)), (400, "invalid_value"));
    assert_eq!(body["error"]["param"], "principalName");
}

#[tokio::test]
async fn d24_a_body_that_is_no_jsonrpc_message_is_a_400_on_mcp() {
    let server = start(Options::default()).await;
    for body in [
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_string(),
        format!("{}1{}", "[".repeat(200), "]".repeat(200)),
        r#"{"jsonrpc":"2.0","id":1,"method":"#.to_string(),
    ] {
        let response = server
            .client
            .post(format!("{}/mcp", server.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400, "{body}");
        let json: Value = response.json().await.unwrap();
        assert_eq!(code(&json), "malformed_json", "{json}");
        assert!(
            json["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("the body is not a JSON-RPC message")
        );
    }
}

/// Sends `request` on a fresh connection and reads the answer until the server closes it: (status, body).
async fn raw(server: &Server, request: &[u8]) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.address).await.unwrap();
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server did not close the connection");
    let text = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[tokio::test]
async fn d11_hypers_own_errors_carry_the_json_error_body() {
    let server = start(Options::default()).await;
    let many_headers: String = (0..5000).map(|i| format!("x-h{i}: v\r\n")).collect();
    let long_uri = format!("/api/tools?{}", "a".repeat(70_000));
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"GARBAGE\r\n\r\n".to_vec(), 400, "bad_request"),
        (
            b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n".to_vec(),
            400,
            "bad_request",
        ),
        (
            b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".to_vec(),
            400,
            "bad_request",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: x\r\nbad header: v\r\n\r\n".to_vec(),
            400,
            "bad_request",
        ),
        (
            format!("GET {long_uri} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes(),
            414,
            "uri_too_long",
        ),
        (
            format!("GET / HTTP/1.1\r\nHost: x\r\n{many_headers}\r\n").into_bytes(),
            431,
            "headers_too_large",
        ),
        (
            format!("GET / HTTP/1.1\r\nHost: x\r\nx-big: {}\r\n\r\n", "b".repeat(1 << 20)).into_bytes(),
            431,
            "headers_too_large",
        ),
    ];
    for (request, status, expected) in cases {
        let shown = String::from_utf8_lossy(&request[..request.len().min(60)]).to_string();
        let (got, head, body) = raw(&server, &request).await;
        assert_eq!(got, status, "{shown}: {head}");
        assert!(head.contains("content-type: application/json"), "{shown}: {head}");
        let json: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{shown}: {body:?}"));
        assert_eq!(code(&json), expected, "{shown}");
    }
    // The server still answers afterwards, and its own responses are untouched.
    let (status, _, body) = raw(
        &server,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200, "{body}");
}
