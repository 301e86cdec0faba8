//! The audit log over real HTTP on 127.0.0.1: an ask writes an entry with its principal, tool, bound call, SQL with
//! binds, row count and outcome, beside its turn; a rejected subject ID is audited without a turn; `/api/audit` is
//! for admins (a user gets 403), filters and pages, and names a bad filter; an MCP `ask` through `/mcp` is audited;
//! no key ever appears in an entry.

mod common;

use common::{Options, Server, keyed, start};
use serde_json::{Value, json};

const QUESTION: &str = "华东区本月的销售额是多少";

/// A request to `path` with an optional key: (status, body as JSON or Null).
async fn send(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut request = server.client.request(method, format!("{}{path}", server.base));
    if path == "/mcp" {
        request = request.header("accept", "application/json, text/event-stream");
    }
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn ask(server: &Server, key: Option<&str>, body: Value) -> (u16, Value) {
    send(server, reqwest::Method::POST, "/api/ask", key, Some(&body)).await
}

async fn audit(server: &Server, key: Option<&str>, query: &str) -> (u16, Value) {
    send(server, reqwest::Method::GET, &format!("/api/audit{query}"), key, None).await
}

fn entries(page: &Value) -> &Vec<Value> {
    page["entries"].as_array().expect("entries")
}

#[tokio::test]
async fn an_ask_is_audited_with_its_turn_principal_call_sql_rows_and_outcome() {
    let server = start(Options {
        settings: keyed(&["user-key-1"], &["admin-key-1"]),
        ..Options::default()
    })
    .await;
    let (status, answer) = ask(&server, Some("user-key-1"), json!({"question": QUESTION})).await;
    assert_eq!((status, answer["kind"].as_str()), (200, Some("answered")), "{answer}");

    let (status, page) = audit(&server, Some("admin-key-1"), "").await;
    assert_eq!(status, 200, "{page}");
    let all = entries(&page);
    assert_eq!(all.len(), 1, "{page}");
    let entry = &all[0];
    assert_eq!(entry["turnId"], answer["turnId"]);
    assert_eq!(entry["conversationId"], answer["conversationId"]);
    assert_eq!(
        (entry["door"].as_str(), entry["question"].as_str()),
        (Some("api"), Some(QUESTION))
    );
    assert_eq!(entry["tool"], answer["tool"]);
    assert_eq!(entry["params"], answer["params"]);
    let rows = answer["outcome"]["rows"].as_array().expect("rows").len();
    assert_eq!(entry["rows"], json!(rows));
    assert_eq!(
        (entry["outcome"].as_str(), entry["step"].as_str()),
        (Some("answered"), Some("execute"))
    );
    let sql = entry["sql"][0]["sql"].as_str().expect("the SQL that ran");
    assert!(sql.to_uppercase().contains("SELECT"), "{sql}");
    let binds = entry["sql"][0]["binds"].as_array().expect("binds");
    assert!(binds.iter().any(|b| b.to_string().contains("华东")), "{binds:?}");
    let principal = &entry["principal"];
    assert_eq!(principal["role"], "user");
    let id = principal["id"].as_str().expect("a principal id");
    assert!(id.starts_with("k-"), "{id}");
    assert!(
        !page.to_string().contains("user-key-1"),
        "a key in the audit log: {page}"
    );

    // Filters: by the principal's id, by tool and outcome; none matching is an empty page.
    let (_, mine) = audit(
        &server,
        Some("admin-key-1"),
        &format!("?principal={id}&outcome=answered"),
    )
    .await;
    assert_eq!(entries(&mine).len(), 1);
    let (_, other) = audit(&server, Some("admin-key-1"), "?outcome=stopped").await;
    assert!(entries(&other).is_empty(), "{other}");
    let (_, later) = audit(&server, Some("admin-key-1"), "?since=2999-01-01").await;
    assert!(entries(&later).is_empty(), "{later}");
}

#[tokio::test]
async fn only_admins_read_the_audit_log_and_bad_filters_are_named() {
    let server = start(Options {
        settings: keyed(&["user-key-2"], &["admin-key-2"]),
        ..Options::default()
    })
    .await;
    let (status, body) = audit(&server, Some("user-key-2"), "").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("admin_required")),
        "{body}"
    );
    let (status, _) = audit(&server, None, "").await;
    assert_eq!(status, 401);
    for (query, field, value) in [
        ("?since=last-week", "since", "last-week"),
        ("?until=2026-02-30", "until", "2026-02-30"),
        ("?outcome=maybe", "outcome", "maybe"),
        ("?limit=9999", "limit", "9999"),
        ("?before=0", "before", "0"),
    ] {
        let (status, body) = audit(&server, Some("admin-key-2"), query).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"]["param"].as_str(), Some(field), "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(value) && message.contains("must be"), "{message}");
    }
    let (status, body) = audit(&server, Some("admin-key-2"), "?colour=red").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("malformed_query")),
        "{body}"
    );
}

#[tokio::test]
async fn pages_run_newest_first_and_a_rejected_subject_is_audited_without_a_turn() {
    let server = start(Options::default()).await;
    for _ in 0..3 {
        let (status, _) = ask(&server, None, json!({"question": QUESTION})).await;
        assert_eq!(status, 200);
    }
    let (status, rejected) = ask(&server, None, json!({"question": "英雄上周的票房", "subjectId": 999})).await;
    assert_eq!(status, 422, "{rejected}");

    // No keys: anyone reads the log, as every conversation.
    let (status, first) = audit(&server, None, "?limit=2").await;
    assert_eq!(status, 200, "{first}");
    let page = entries(&first);
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["outcome"], "rejected");
    assert_eq!(page[0]["turnId"], Value::Null);
    assert!(page[0]["conversationId"].is_string(), "{}", page[0]);
    assert!(page[0]["tool"].is_string(), "{}", page[0]);
    assert_eq!(page[0]["principal"]["role"], "anonymous");
    assert!(page[0]["id"].as_i64() > page[1]["id"].as_i64());
    let before = first["nextBefore"].as_i64().expect("more");
    let (_, rest) = audit(&server, None, &format!("?limit=2&before={before}")).await;
    let rest = entries(&rest);
    assert_eq!(rest.len(), 2);
    assert!(
        rest.iter()
            .all(|e| e["id"].as_i64() < Some(before) && e["outcome"] == "answered")
    );
}

#[tokio::test]
async fn an_mcp_ask_is_audited() {
    let server = start(Options {
        settings: keyed(&["mcp-user-key"], &["mcp-admin-key"]),
        ..Options::default()
    })
    .await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "audit", "version": "0"}}});
    let response = server
        .client
        .post(format!("{}/mcp", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer mcp-user-key")
        .json(&initialize)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_string();
    let post = |body: Value| {
        server
            .client
            .post(format!("{}/mcp", server.base))
            .header("accept", "application/json, text/event-stream")
            .header("authorization", "Bearer mcp-user-key")
            .header("mcp-session-id", session.as_str())
            .json(&body)
            .send()
    };
    let note = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .unwrap();
    assert_eq!(note.status().as_u16(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ask", "arguments": {"question": QUESTION}}});
    let called = post(call).await.unwrap();
    assert_eq!(called.status().as_u16(), 200);
    let text = called.text().await.unwrap();
    assert!(text.contains("answered"), "{text}");

    let (status, page) = audit(&server, Some("mcp-admin-key"), "?tool=sales_query").await;
    assert_eq!(status, 200, "{page}");
    let all = entries(&page);
    assert_eq!(all.len(), 1, "{page}");
    let entry = &all[0];
    assert_eq!(
        (entry["door"].as_str(), entry["outcome"].as_str()),
        (Some("mcp"), Some("answered"))
    );
    assert_eq!(
        (entry["turnId"].clone(), entry["principal"]["role"].as_str()),
        (Value::Null, Some("user"))
    );
    assert!(
        entry["principal"]["id"].as_str().is_some_and(|id| id.starts_with("k-")),
        "{entry}"
    );
    assert!(entry["sql"][0]["sql"].is_string(), "{entry}");
    assert!(entry["rows"].as_u64().is_some(), "{entry}");
    assert!(!page.to_string().contains("mcp-user-key"));
}

#[test]
fn the_openapi_document_lists_the_route_its_filters_and_statuses() {
    let spec: Value = serde_json::from_str(wenshu_server::api::OPENAPI).unwrap();
    let operation = &spec["paths"]["/api/audit"]["get"];
    let names: Vec<&str> = operation["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "principal",
            "principalName",
            "tool",
            "outcome",
            "since",
            "until",
            "limit",
            "before"
        ]
    );
    for status in ["200", "400", "401", "403"] {
        assert!(operation["responses"][status].is_object(), "{status}");
    }
    let outcomes = &spec["components"]["schemas"]["AuditEntry"]["properties"]["outcome"]["enum"];
    assert_eq!(outcomes, &json!(wenshu_server::api::audit::OUTCOMES));
}

#[tokio::test]
async fn a_streamed_ask_and_a_stop_are_audited() {
    let server = start(Options::default()).await;
    let streamed = server
        .client
        .post(format!("{}/api/ask", server.base))
        .header("accept", "text/event-stream")
        .json(&json!({"question": QUESTION}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(streamed.contains("event: answer"), "{streamed}");
    let (status, stopped) = ask(&server, None, json!({"question": "明天会下雨吗"})).await;
    assert_eq!((status, stopped["kind"].as_str()), (200, Some("stopped")), "{stopped}");

    let (_, page) = audit(&server, None, "").await;
    let all = entries(&page);
    assert_eq!(all.len(), 2, "{page}");
    assert_eq!(
        (all[1]["outcome"].as_str(), all[1]["door"].as_str()),
        (Some("answered"), Some("api"))
    );
    assert!(all[1]["turnId"].is_string());
    let (_, only) = audit(&server, None, "?outcome=stopped").await;
    let only = entries(&only);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["turnId"], stopped["turnId"]);
    assert_eq!(only[0]["step"], stopped["outcome"]["step"]);
    assert_eq!(only[0]["rows"], Value::Null);
}

#[tokio::test]
async fn the_audit_purge_runs_at_start_and_keeps_turns() {
    let server = start(Options::default()).await;
    let (status, answer) = ask(&server, None, json!({"question": QUESTION})).await;
    assert_eq!(status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    // A retention of 0 days: everything written before now goes, at the task's first tick.
    let task = wenshu_server::retention::spawn_audit(std::sync::Arc::clone(&server.store), 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (_, page) = audit(&server, None, "").await;
        if entries(&page).is_empty() {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not purged: {page}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    task.abort();
    let conversation = answer["conversationId"].as_str().unwrap();
    let (status, _) = send(
        &server,
        reqwest::Method::GET,
        &format!("/api/conversations/{conversation}"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200, "the audit purge leaves turns to their own retention");
}
