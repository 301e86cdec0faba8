//! Every door of the server, over real HTTP on 127.0.0.1, one test per defect of the server probe (D1–D16, D7 is
//! the engine's): `/mcp` behind the keys and the limit, bounded MCP sessions and limiter, timeouts and the
//! connection cap, ownership, throttled wrong keys, the turn cap and paging, JSON errors, the auth scheme,
//! `Retry-After`, security headers and content types, cancelled hang-ups, retention.

mod common;

use std::time::{Duration, Instant};

use common::{Options, Server, keyed, start};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wenshu_mcp::SessionLimits;
use wenshu_server::ServerSettings;
use wenshu_server::timeouts::Timeouts;
use wenshu_server::{ListenSettings, guard};
use wenshu_testkit::{Reply, ScriptedChatServer};

const QUESTION: &str = "华东区本月的销售额是多少";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "doors", "version": "0"}}})
}

/// POSTs JSON to `path` with an optional key and extra headers: (status, headers, body as JSON or Null).
async fn post(
    server: &Server,
    path: &str,
    key: Option<&str>,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut request = server.client.post(format!("{}{path}", server.base)).json(body);
    if path == "/mcp" {
        request = request.header("accept", "application/json, text/event-stream");
    }
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    let text = response.text().await.unwrap_or_default();
    (status, headers, serde_json::from_str(&text).unwrap_or(Value::Null))
}

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

/// Opens an MCP session with `key`: its id.
async fn open_session(server: &Server, key: Option<&str>) -> (u16, Option<String>, Value) {
    let (status, headers, body) = post(server, "/mcp", key, &[], &initialize()).await;
    let id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (status, id, body)
}

#[tokio::test]
async fn d1_mcp_needs_a_key_counts_against_the_limit_and_checks_origin() {
    let settings = ServerSettings {
        rate_per_minute: 4,
        ..keyed(&["u1"], &["a1"])
    };
    let server = start(Options {
        settings,
        ..Options::default()
    })
    .await;
    let (status, id, body) = open_session(&server, None).await;
    assert_eq!((status, code(&body), id), (401, "missing_key", None));
    let (status, _, body) = open_session(&server, Some("wrong")).await;
    assert_eq!((status, code(&body)), (401, "invalid_key"));
    let (status, _, body) = post(
        &server,
        "/mcp",
        Some("u1"),
        &[("origin", "http://evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!((status, code(&body)), (403, "forbidden"), "{body}");
    let (status, id, _) = open_session(&server, Some("u1")).await;
    assert_eq!(status, 200);
    let id = id.expect("a session id");
    let session = [("mcp-session-id", id.as_str())];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = post(&server, "/mcp", Some("u1"), &session, &note).await;
    assert_eq!(status, 202);
    // Four requests a minute: the origin probe, the initialize and the notification took three; one call is left.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {"question": QUESTION}}});
    let (status, _, _) = post(&server, "/mcp", Some("u1"), &session, &call).await;
    assert_eq!(status, 200);
    let (status, headers, body) = post(&server, "/mcp", Some("u1"), &session, &call).await;
    assert_eq!((status, code(&body)), (429, "rate_limited"));
    assert!(headers.contains_key("retry-after"));
}

#[tokio::test]
async fn d2_mcp_sessions_are_capped_and_expire_when_idle() {
    let server = start(Options {
        sessions: SessionLimits {
            max_sessions: 5,
            idle: Duration::from_millis(800),
            ..SessionLimits::default()
        },
        ..Options::default()
    })
    .await;
    let mut first = None;
    for _ in 0..5 {
        let (status, id, _) = open_session(&server, None).await;
        assert_eq!(status, 200);
        first = first.or(id);
    }
    let (status, headers, body) = post(&server, "/mcp", None, &[], &initialize()).await;
    assert_eq!((status, code(&body)), (503, "too_many_sessions"), "{body}");
    assert!(headers.contains_key("retry-after"));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (status, id, _) = open_session(&server, None).await;
    assert_eq!(status, 200, "idle sessions free their slots");
    assert!(id.is_some());
    let first = first.unwrap();
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let (status, _, _) = post(&server, "/mcp", None, &[("mcp-session-id", first.as_str())], &ping).await;
    assert_eq!(status, 404, "an expired session is gone");
}

#[tokio::test]
async fn d3_d13_the_limit_keys_on_the_address_not_on_unverified_tokens() {
    let server = start(Options {
        settings: ServerSettings {
            rate_per_minute: 3,
            ..ServerSettings::default()
        },
        ..Options::default()
    })
    .await;
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..8 {
        let (status, headers, _) = post(
            &server,
            "/api/ask",
            Some(&format!("bogus-{i}")),
            &[],
            &json!({"question": QUESTION}),
        )
        .await;
        statuses.push(status);
        retry_after = retry_after.or(headers.get("retry-after").cloned());
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429, 429, 429, 429]);
    let seconds: u64 = retry_after.unwrap().to_str().unwrap().parse().unwrap();
    assert!((1..=20).contains(&seconds), "{seconds}");
    assert_eq!(server.state.limiter().len(), 1, "one bucket: the address");
}

/// Reads from a raw connection until it closes or `limit` passes: (closed, bytes read).
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (bool, String) {
    let mut seen = Vec::new();
    let deadline = Instant::now() + limit;
    let mut buffer = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (true, String::from_utf8_lossy(&seen).into_owned()),
            Ok(Ok(n)) => seen.extend_from_slice(&buffer[..n]),
            Err(_) => return (false, String::from_utf8_lossy(&seen).into_owned()),
        }
    }
}

#[tokio::test]
async fn d4_idle_slow_and_oversized_requests_are_cut_off_and_connections_capped() {
    let server = start(Options {
        settings: ServerSettings {
            timeouts: Timeouts {
                body_read: Duration::from_millis(700),
                request: Duration::from_secs(10),
            },
            ..ServerSettings::default()
        },
        listen: ListenSettings {
            header_read: Duration::from_millis(700),
            max_connections: 6,
            ..ListenSettings::default()
        },
        ..Options::default()
    })
    .await;
    // Idle (no bytes) and partial headers: closed after the header-read timeout.
    let mut idle = TcpStream::connect(server.address).await.unwrap();
    let mut partial = TcpStream::connect(server.address).await.unwrap();
    partial.write_all(b"GET /healthz HTTP/1.1\r\nX-A: ").await.unwrap();
    assert!(
        read_until_closed(&mut idle, Duration::from_secs(3)).await.0,
        "idle connection kept"
    );
    assert!(
        read_until_closed(&mut partial, Duration::from_secs(3)).await.0,
        "partial head kept"
    );
    // An idle keep-alive connection after one answer: closed too.
    let mut kept = TcpStream::connect(server.address).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (closed, seen) = read_until_closed(&mut kept, Duration::from_secs(3)).await;
    assert!(closed && seen.starts_with("HTTP/1.1 200"), "{seen}");
    // A declared body over the cap: 413 at once, before any of it is sent.
    let mut big = TcpStream::connect(server.address).await.unwrap();
    big.write_all(
        b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let (_, seen) = read_until_closed(&mut big, Duration::from_secs(3)).await;
    assert!(
        seen.starts_with("HTTP/1.1 413") && seen.contains("body_too_large"),
        "{seen}"
    );
    assert!(started.elapsed() < Duration::from_millis(600));
    // A slow body under the cap: 408 after the body-read timeout.
    let mut slow = TcpStream::connect(server.address).await.unwrap();
    slow.write_all(
        b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"q",
    )
    .await
    .unwrap();
    let (closed, seen) = read_until_closed(&mut slow, Duration::from_secs(3)).await;
    assert!(
        closed && seen.starts_with("HTTP/1.1 408") && seen.contains("body_timeout"),
        "{seen}"
    );
    // Six connections at most: the seventh gets a clean 503 and is closed; health still answers after.
    let mut held = Vec::new();
    for _ in 0..6 {
        held.push(TcpStream::connect(server.address).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut over = TcpStream::connect(server.address).await.unwrap();
    let (closed, seen) = read_until_closed(&mut over, Duration::from_secs(2)).await;
    assert!(
        closed && seen.starts_with("HTTP/1.1 503") && seen.contains("too_many_connections"),
        "{seen}"
    );
    drop(held);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let (status, _, _) = get(&server, "/healthz", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn d5_conversations_and_traces_belong_to_their_key() {
    let server = start(Options {
        settings: keyed(&["u1", "u2"], &["a1"]),
        ..Options::default()
    })
    .await;
    let (status, _, answer) = post(&server, "/api/ask", Some("u1"), &[], &json!({"question": QUESTION})).await;
    assert_eq!(status, 200);
    let conversation = answer["conversationId"].as_str().unwrap();
    let trace = answer["traceId"].as_str().unwrap();
    for key in ["u1", "a1"] {
        assert_eq!(
            get(&server, &format!("/api/conversations/{conversation}"), Some(key))
                .await
                .0,
            200
        );
        assert_eq!(get(&server, &format!("/api/traces/{trace}"), Some(key)).await.0, 200);
    }
    let (status, _, body) = get(&server, &format!("/api/conversations/{conversation}"), Some("u2")).await;
    assert_eq!((status, code(&body)), (404, "unknown_conversation"));
    let (status, _, body) = get(&server, &format!("/api/traces/{trace}"), Some("u2")).await;
    assert_eq!((status, code(&body)), (404, "unknown_trace"));
    let follow = json!({"question": "那上个月呢", "conversationId": conversation});
    let (status, _, body) = post(&server, "/api/ask", Some("u2"), &[], &follow).await;
    assert_eq!((status, code(&body)), (404, "unknown_conversation"));
    assert_eq!(post(&server, "/api/ask", Some("u1"), &[], &follow).await.0, 200);
}

#[tokio::test]
async fn d6_wrong_keys_are_throttled_per_address() {
    let server = start(Options {
        settings: ServerSettings {
            auth_failures_per_minute: 3,
            ..keyed(&["u1"], &[])
        },
        ..Options::default()
    })
    .await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(get(&server, "/api/tools", Some("guess")).await.0);
    }
    assert_eq!(statuses, [401, 401, 401, 429, 429]);
    let (status, headers, body) = get(&server, "/api/tools", Some("guess")).await;
    assert_eq!(
        (status, code(&body)),
        (429, "rate_limited"),
        "the wrong key is throttled"
    );
    assert!(headers.contains_key("retry-after"));
    // D19: a right key from the same address is still answered.
    assert_eq!(get(&server, "/api/tools", Some("u1")).await.0, 200);
}

#[tokio::test]
async fn d8_a_conversation_has_a_turn_cap_and_pages() {
    let server = start(Options {
        settings: ServerSettings {
            max_turns_per_conversation: 3,
            ..ServerSettings::default()
        },
        ..Options::default()
    })
    .await;
    let (_, _, answer) = post(&server, "/api/ask", None, &[], &json!({"question": QUESTION})).await;
    let id = answer["conversationId"].as_str().unwrap().to_string();
    let follow = json!({"question": QUESTION, "conversationId": id});
    let mut turns = vec![answer["turnId"].as_str().unwrap().to_string()];
    for _ in 0..2 {
        let (status, _, answer) = post(&server, "/api/ask", None, &[], &follow).await;
        assert_eq!(status, 200);
        turns.push(answer["turnId"].as_str().unwrap().to_string());
    }
    let (status, _, body) = post(&server, "/api/ask", None, &[], &follow).await;
    assert_eq!((status, code(&body)), (409, "conversation_full"));
    let (status, _, page) = get(&server, &format!("/api/conversations/{id}?limit=2"), None).await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = page["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [turns[1].as_str(), turns[2].as_str()]);
    assert_eq!(
        (page["turnCount"].as_u64(), page["nextBefore"].as_str()),
        (Some(3), Some(turns[1].as_str()))
    );
    let (_, _, older) = get(
        &server,
        &format!("/api/conversations/{id}?limit=2&before={}", turns[1]),
        None,
    )
    .await;
    let ids: Vec<&str> = older["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        (ids, older["nextBefore"].clone()),
        (vec![turns[0].as_str()], Value::Null)
    );
    for bad in ["limit=0", "limit=101", "limit=x"] {
        let (status, _, body) = get(&server, &format!("/api/conversations/{id}?{bad}"), None).await;
        assert_eq!((status, body["error"]["param"].as_str()), (422, Some("limit")), "{bad}");
    }
    let (status, _, body) = get(&server, &format!("/api/conversations/{id}?before=nope"), None).await;
    assert_eq!((status, code(&body)), (404, "unknown_turn"));
}

#[tokio::test]
async fn d11_every_error_is_the_json_error_body() {
    let server = start(Options::default()).await;
    let cases = [
        ("GET", "/api/tools/sales_query", 405, "method_not_allowed"),
        ("DELETE", "/api/ask", 405, "method_not_allowed"),
        ("GET", "/api/traces/%ff%fe", 400, "malformed_path"),
        ("GET", "/nowhere", 404, "no_route"),
        ("GET", "/assets/missing.js", 404, "no_route"),
    ];
    for (method, path, status, expected) in cases {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let response = server
            .client
            .request(method, format!("{}{path}", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(code(&body), expected, "{path}: {body}");
    }
}

#[tokio::test]
async fn d12_the_bearer_scheme_is_case_insensitive() {
    let server = start(Options {
        settings: keyed(&["u1"], &[]),
        ..Options::default()
    })
    .await;
    for header in ["bearer u1", "BEARER u1", "Bearer u1"] {
        let response = server
            .client
            .get(format!("{}/api/tools", server.base))
            .header("authorization", header)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{header}");
    }
}

#[tokio::test]
async fn d15_the_page_has_security_headers_and_json_routes_take_only_json() {
    let server = start(Options::default()).await;
    let response = server.client.get(format!("{}/", server.base)).send().await.unwrap();
    let headers = response.headers().clone();
    let page = response.text().await.unwrap();
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"));
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(csp, guard::CSP);
    // The policy allows no inline script: every script of the page is a file.
    for tag in page.split("<script").skip(1) {
        let head = tag.split('>').next().unwrap_or_default();
        assert!(head.contains("src="), "an inline script: <script{head}>");
    }
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"] {
        let response = server
            .client
            .post(format!("{}/api/ask", server.base))
            .header("content-type", content_type)
            .body(json!({"question": QUESTION}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 415, "{content_type}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(code(&body), "unsupported_media_type");
    }
}

#[tokio::test]
async fn d14_a_hung_up_stream_cancels_its_question() {
    let route = json!({"toolCode": "movie_rating", "subjectType": "movie", "subjectName": "满江红", "startDate": null,
                       "endDate": null, "rewrittenQuestion": "满江红的评分是多少"})
    .to_string();
    let model = ScriptedChatServer::start(vec![
        Reply::content(route.clone()),
        Reply::delayed(Duration::from_millis(1500), route.clone()),
        Reply::delayed(Duration::from_millis(1500), route),
    ])
    .await;
    let server = start(Options {
        model: Some(model.base_url()),
        ..Options::default()
    })
    .await;
    let (status, _, answer) = post(
        &server,
        "/api/ask",
        None,
        &[],
        &json!({"question": "满江红的评分是多少"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let id = answer["conversationId"].as_str().unwrap().to_string();
    let response = server
        .client
        .post(format!("{}/api/ask", server.base))
        .header("accept", "text/event-stream")
        .json(&json!({"question": "满江红的评分是多少", "conversationId": id}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    for _ in 0..50 {
        if model.request_count() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(model.request_count(), 2, "the second question reached the model");
    drop(response);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (_, _, page) = get(&server, &format!("/api/conversations/{id}"), None).await;
    assert_eq!(page["turnCount"], 1, "the hung-up question is not stored: {page}");
    // A plain (not streamed) ask whose client gives up is dropped the same way.
    let gave_up = server
        .client
        .post(format!("{}/api/ask", server.base))
        .timeout(Duration::from_millis(400))
        .json(&json!({"question": "满江红的评分是多少", "conversationId": id}))
        .send()
        .await;
    assert!(gave_up.is_err(), "the client gave up before the answer");
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert_eq!(model.request_count(), 3);
    let (_, _, page) = get(&server, &format!("/api/conversations/{id}"), None).await;
    assert_eq!(page["turnCount"], 1, "the abandoned question is not stored: {page}");
}

#[tokio::test]
async fn d16_old_turns_are_purged() {
    let server = start(Options::default()).await;
    let (_, _, answer) = post(&server, "/api/ask", None, &[], &json!({"question": QUESTION})).await;
    let (id, trace) = (
        answer["conversationId"].as_str().unwrap(),
        answer["traceId"].as_str().unwrap(),
    );
    assert_eq!(server.store.purge_older_than(1).await.unwrap(), 0, "a new turn is kept");
    assert_eq!(get(&server, &format!("/api/conversations/{id}"), None).await.0, 200);
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(server.store.purge_older_than(0).await.unwrap(), 1);
    assert_eq!(get(&server, &format!("/api/conversations/{id}"), None).await.0, 404);
    assert_eq!(get(&server, &format!("/api/traces/{trace}"), None).await.0, 404);
}
