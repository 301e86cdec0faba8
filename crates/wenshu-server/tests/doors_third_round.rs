//! The residual defects of the second server probe, over real HTTP on 127.0.0.1: MCP sessions shared out by
//! principal, bound to it and expired when idle (D20); connections capped per address (D4); conversation pages
//! bounded in bytes and in concurrent reads per principal (D8).

mod common;

use std::time::Duration;

use common::{Options, Server, keyed, start};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use wenshu_mcp::SessionLimits;
use wenshu_server::{ListenSettings, ServerSettings};
use wenshu_store::NewTurn;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "doors", "version": "0"}}})
}

/// POSTs a JSON-RPC message to `/mcp` with `key` and an optional session: (status, session id, body as JSON or
/// Null).
async fn mcp(server: &Server, key: &str, session: Option<&str>, body: &Value) -> (u16, Option<String>, Value) {
    let mut request = server
        .client
        .post(format!("{}/mcp", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {key}"))
        .json(body);
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().await.unwrap_or_default();
    (status, id, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Opens a session with `key` and sends `notifications/initialized`: the session's id.
async fn open(server: &Server, key: &str) -> (u16, Option<String>, Value) {
    let (status, id, body) = mcp(server, key, None, &initialize()).await;
    if let Some(id) = &id {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (noted, _, _) = mcp(server, key, Some(id), &note).await;
        assert_eq!(noted, 202);
    }
    (status, id, body)
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("(not the JSON error body)")
}

async fn keyed_mcp_server(sessions: SessionLimits) -> Server {
    start(Options {
        settings: keyed(&["u1", "u2"], &[]),
        sessions,
        ..Options::default()
    })
    .await
}

#[tokio::test]
async fn d20_one_principal_at_its_session_share_leaves_room_for_another() {
    let server = keyed_mcp_server(SessionLimits {
        max_sessions: 10,
        per_owner: 3,
        idle: Duration::from_secs(60),
    })
    .await;
    for _ in 0..3 {
        let (status, id, _) = open(&server, "u1").await;
        assert_eq!(status, 200);
        assert!(id.is_some());
    }
    let (status, id, body) = mcp(&server, "u1", None, &initialize()).await;
    assert_eq!((status, code(&body), id), (429, "too_many_sessions", None), "{body}");
    let (status, id, _) = open(&server, "u2").await;
    assert_eq!(status, 200, "another principal still opens a session");
    let (status, _, _) = mcp(&server, "u2", id.as_deref(), &ping()).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn d20_a_session_answers_only_the_principal_that_opened_it() {
    let server = keyed_mcp_server(SessionLimits::default()).await;
    let (status, id, _) = open(&server, "u1").await;
    assert_eq!(status, 200);
    let id = id.expect("a session id");
    let (status, _, body) = mcp(&server, "u2", Some(&id), &ping()).await;
    assert_eq!((status, code(&body)), (404, "unknown_session"), "{body}");
    let (status, _, body) = mcp(&server, "u1", Some(&id), &ping()).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = mcp(&server, "u1", Some("no-such-session"), &ping()).await;
    assert_eq!((status, code(&body)), (404, "unknown_session"), "{body}");
}

#[tokio::test]
async fn d20_an_idle_session_expires_and_frees_its_owners_slot() {
    let server = keyed_mcp_server(SessionLimits {
        max_sessions: 10,
        per_owner: 1,
        idle: Duration::from_millis(700),
    })
    .await;
    let (status, id, _) = open(&server, "u1").await;
    assert_eq!(status, 200);
    let id = id.expect("a session id");
    let (status, _, _) = mcp(&server, "u1", Some(&id), &ping()).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (status, _, body) = mcp(&server, "u1", Some(&id), &ping()).await;
    assert_eq!((status, code(&body)), (404, "unknown_session"), "{body}");
    let (status, id, _) = open(&server, "u1").await;
    assert_eq!(status, 200, "the expired session's slot is free again");
    assert!(id.is_some());
}

/// Sends `GET /healthz` (keep-alive) on `stream` and reads the answer's first bytes.
async fn health_on(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut buffer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
        .await
        .expect("an answer")
        .unwrap();
    String::from_utf8_lossy(&buffer[..n]).to_string()
}

#[tokio::test]
async fn d4_an_address_at_its_connection_cap_does_not_stop_another_address() {
    let server = start(Options {
        listen: ListenSettings {
            max_connections: 100,
            max_connections_per_address: 4,
            ..ListenSettings::default()
        },
        ..Options::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(server.address).await.unwrap();
        let answer = health_on(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        held.push(stream);
    }
    // The fifth from the same address: one 503 with the JSON body, then closed.
    let mut fifth = TcpStream::connect(server.address).await.unwrap();
    let _ = fifth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), fifth.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the refused connection is closed");
    let answer = String::from_utf8_lossy(&answer).to_string();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"code\":\"too_many_connections\""), "{answer}");
    // Another address (127.0.0.2 is loopback on Linux) is still served.
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let mut other = socket.connect(server.address).await.unwrap();
    let answer = health_on(&mut other).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // A held connection closed frees a slot of its address.
    drop(held.pop());
    let mut again = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut stream = TcpStream::connect(server.address).await.unwrap();
        if health_on(&mut stream).await.starts_with("HTTP/1.1 200") {
            again = Some(stream);
            break;
        }
    }
    assert!(again.is_some(), "a freed slot is given to the address again");
}

/// A turn whose outcome holds `rows` rows of about 60 bytes each.
fn big_turn(conversation: &str, n: usize, rows: usize) -> NewTurn {
    let rows: Vec<Value> = (0..rows)
        .map(|i| json!(["华东", i, format!("{n:04}-{i:06}-{}", "x".repeat(32))]))
        .collect();
    NewTurn {
        conversation_id: conversation.to_string(),
        question: format!("第{n}个问题"),
        rewritten_question: format!("第{n}个问题"),
        kind: "answered".into(),
        tool: Some("sales_by_region".into()),
        outcome: json!({"kind": "answered", "columns": ["region", "i", "tag"], "rows": rows}),
        conclusion: format!("turn {n}"),
        trace: json!({"steps": []}),
        subject: None,
    }
}

/// A conversation (no owner) of `count` turns of `rows` rows, then one of `last_rows` rows: its id.
async fn conversation_of(server: &Server, count: usize, rows: usize, last_rows: usize) -> String {
    let conversation = server.store.create_owned_conversation(None).await.unwrap();
    for n in 0..count {
        server
            .store
            .append_turn(big_turn(&conversation.id, n, rows))
            .await
            .unwrap();
    }
    server
        .store
        .append_turn(big_turn(&conversation.id, count, last_rows))
        .await
        .unwrap();
    conversation.id
}

#[tokio::test]
async fn d8_a_page_of_large_turns_stays_within_its_byte_budget() {
    const BUDGET: usize = 64 * 1024;
    let server = start(Options {
        settings: ServerSettings {
            max_page_bytes: BUDGET,
            ..ServerSettings::default()
        },
        ..Options::default()
    })
    .await;
    // 30 turns of about 20 KB, then one of about 300 KB.
    let id = conversation_of(&server, 30, 300, 5000).await;
    let (mut before, mut seen, mut pages) = (None::<String>, Vec::<String>::new(), 0);
    loop {
        let url = match &before {
            None => format!("{}/api/conversations/{id}", server.base),
            Some(turn) => format!("{}/api/conversations/{id}?before={turn}", server.base),
        };
        let response = server.client.get(url).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let text = response.text().await.unwrap();
        assert!(text.len() <= BUDGET + 512, "a page of {} bytes", text.len());
        let page: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(page["turnCount"], 31);
        let turns = page["turns"].as_array().unwrap();
        assert!(!turns.is_empty());
        if pages == 0 {
            // The newest turn alone is over the budget: its rows are cut and it says how many it had.
            assert_eq!(turns.len(), 1);
            assert_eq!(turns[0]["rowsTotal"], 5000);
            let kept = turns[0]["outcome"]["rows"].as_array().unwrap().len();
            assert!(kept > 100 && kept < 5000, "{kept} rows kept");
        } else {
            assert!(turns.iter().all(|t| t.get("rowsTotal").is_none()));
            assert!(
                turns
                    .iter()
                    .all(|t| t["outcome"]["rows"].as_array().unwrap().len() == 300)
            );
        }
        let ids: Vec<String> = turns.iter().map(|t| t["id"].as_str().unwrap().to_string()).collect();
        seen.splice(0..0, ids);
        pages += 1;
        match page["nextBefore"].as_str() {
            Some(next) => before = Some(next.to_string()),
            None => break,
        }
        assert!(pages < 40, "paging does not end");
    }
    assert!(pages >= 10, "{pages} pages");
    let questions: Vec<String> = {
        let mut all = Vec::new();
        for turn in &seen {
            let owned = server.store.owned_turn(turn).await.unwrap().unwrap();
            all.push(owned.turn.question);
        }
        all
    };
    let expected: Vec<String> = (0..=30).map(|n| format!("第{n}个问题")).collect();
    assert_eq!(questions, expected, "every turn once, oldest first");
}

#[tokio::test]
async fn d8_concurrent_page_reads_beyond_the_cap_get_429() {
    let server = start(Options {
        settings: ServerSettings {
            max_page_reads_per_principal: 1,
            ..ServerSettings::default()
        },
        ..Options::default()
    })
    .await;
    let id = conversation_of(&server, 60, 300, 300).await;
    let url = format!("{}/api/conversations/{id}", server.base);
    let reads = (0..24).map(|_| {
        let (client, url) = (reqwest::Client::new(), url.clone());
        tokio::spawn(async move {
            let response = client.get(url).send().await.unwrap();
            let status = response.status().as_u16();
            let retry = response.headers().contains_key("retry-after");
            let body: Value = response.json().await.unwrap_or(Value::Null);
            (status, retry, body)
        })
    });
    let mut answers = Vec::new();
    for read in reads.collect::<Vec<_>>() {
        answers.push(read.await.unwrap());
    }
    let ok = answers.iter().filter(|(status, _, _)| *status == 200).count();
    let refused: Vec<_> = answers.iter().filter(|(status, _, _)| *status == 429).collect();
    assert_eq!(ok + refused.len(), answers.len(), "only 200 or 429");
    assert!(ok >= 1 && !refused.is_empty(), "{ok} read, {} refused", refused.len());
    for (_, retry, body) in refused {
        assert!(*retry);
        assert_eq!(code(body), "rate_limited", "{body}");
    }
    let response = server.client.get(&url).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "the cap is given back");
}
