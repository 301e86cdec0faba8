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
