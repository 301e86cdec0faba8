//! Issue #29, D17 and D18, against `wenshu serve` on loopback (a SQLite demo database, a SQLite store, principals
//! from `wenshu.toml`: alice scoped to 华东, ops an admin; a scripted model, slow on purpose, for the fallback).
//!
//! - D17: a streamed ask whose client reads up to the `execute` event (the first that carries rows) and hangs up
//!   leaves exactly one audit entry, on a fixed tool and a metric tool; a hang-up before the answer leaves one
//!   `cancelled` entry, no turn and no rows sent; a plain or a whole streamed ask leaves one entry, not two; MCP
//!   `ask` and `extract` each leave one.
//! - D18: an admin's follow-up with a user's conversation id goes into a conversation of the admin's own: the user's
//!   conversation never holds a row outside the user's scope.

#[allow(dead_code)]
mod row_scope;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wenshu_testkit::{Reply, ScriptedChatServer};

use row_scope::mcp_client::McpSession;
use row_scope::serve::{Launch, Served};

const TODAY: &str = "2026-11-29";
const ALICE: &str = "alice-key-29";
const OPS: &str = "ops-key-29";
/// A question the lexicon cannot answer: the fallback's (slow) model writes its SQL.
const FALLBACK_QUESTION: &str = "每个地区销售额的方差";
/// How long the scripted model takes to answer.
const MODEL_DELAY: Duration = Duration::from_secs(3);
/// Regions outside alice's scope.
const OTHER_REGIONS: [&str; 4] = ["华北", "华南", "西北", "西南"];

const CONFIG: &str = r#"
[[auth.principals]]
name = "alice"
key_env = "WENSHU_D17_KEY_ALICE"
role = "user"
attributes = { region = "华东" }

[[auth.principals]]
name = "ops"
key_env = "WENSHU_D17_KEY_OPS"
role = "admin"

[scope]
sales = "region = :user.region"
"#;

/// A served `wenshu serve` with its folder and model (kept alive as long as it).
struct Setup {
    served: Served,
    _model: ScriptedChatServer,
    dir: PathBuf,
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn setup(name: &str) -> Setup {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("wenshu-d17-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let backend = row_scope::databases::sqlite(&dir, date(2026, 11, 29)).await;
    let sql = "SELECT region, SUM(amount) AS amount FROM sales GROUP BY region ORDER BY region";
    let model = ScriptedChatServer::start_with(Arc::new(move |_: &Value| {
        Reply::delayed(
            MODEL_DELAY,
            json!({"sql": sql, "explanation": "按要求查询"}).to_string(),
        )
    }))
    .await;
    let served = Served::start(Launch {
        dir: &dir,
        config: CONFIG.to_string(),
        db_url: &backend.url,
        llm_base_url: model.base_url(),
        env: vec![
            ("WENSHU_D17_KEY_ALICE", ALICE.to_string()),
            ("WENSHU_D17_KEY_OPS", OPS.to_string()),
        ],
        today: TODAY,
    });
    Setup {
        served,
        _model: model,
        dir,
    }
}

/// `POST /api/ask` with `body` as the holder of `key`.
async fn ask(served: &Served, key: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/api/ask", served.base))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Every audit entry of `question`, read as ops through `GET /api/audit`.
async fn entries_of(served: &Served, question: &str) -> Vec<Value> {
    let (status, page) = served.get(Some(OPS), "/api/audit?limit=500").await;
    assert_eq!(status, 200, "{page}");
    page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["question"] == question)
        .cloned()
        .collect()
}

/// The entries of `question` once there are at least `least` of them (waiting up to 15 s), and after a further
/// half second for any extra one.
async fn settled_entries(served: &Served, question: &str, least: usize) -> Vec<Value> {
    for _ in 0..150 {
        if entries_of(served, question).await.len() >= least {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    entries_of(served, question).await
}

/// A raw HTTP/1.1 streamed ask as the holder of `key`: reads until `until` is in what arrived (or the stream
/// ends), then hangs up with a reset. What arrived.
async fn streamed_until(served: &Served, key: &str, question: &str, until: &str) -> String {
    let address = served.base.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let body = json!({"question": question}).to_string();
    let head = format!(
        "POST /api/ask HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n\
         Accept: text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(body.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buffer = [0u8; 65536];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !String::from_utf8_lossy(&got).contains(until) {
        let read = tokio::time::timeout_at(deadline, socket.read(&mut buffer))
            .await
            .expect("the stream goes on");
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buffer[..n]),
        }
    }
    socket.set_zero_linger().unwrap();
    drop(socket);
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_ask_cut_after_its_execute_event_leaves_exactly_one_entry() {
    let setup = setup("cut").await;
    let served = &setup.served;
    const TRIES: usize = 6;
    for (question, tool) in [
        ("华东区本月的销售额是多少", "sales_query"),
        ("各大区本月的销售额", "sales_metrics"),
    ] {
        for tried in 1..=TRIES {
            let got = streamed_until(served, ALICE, question, "\"step\":\"execute\"").await;
            assert!(
                got.contains("\"step\":\"execute\"") && got.contains("\"rows\":[["),
                "the rows arrive in the execute event: {got}"
            );
            // The entry was stored before the rows were sent.
            assert_eq!(entries_of(served, question).await.len(), tried, "{tool}");
        }
        let entries = settled_entries(served, question, TRIES).await;
        assert_eq!(entries.len(), TRIES, "one entry per cut ask of {tool}: {entries:#?}");
        for entry in &entries {
            assert_eq!(entry["tool"], tool, "{entry}");
            assert_eq!(entry["outcome"], "answered", "{entry}");
            assert_eq!(entry["principal"]["name"], "alice", "{entry}");
            assert!(entry["rows"].as_u64().is_some_and(|n| n > 0), "{entry}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hang_up_before_the_answer_leaves_one_cancelled_entry_and_no_rows() {
    let setup = setup("cancel").await;
    let served = &setup.served;
    // The first step event comes before the fallback's model call (3 s); the client hangs up then.
    let got = streamed_until(served, ALICE, FALLBACK_QUESTION, "event: step").await;
    assert!(got.contains("event: step"), "{got}");
    assert!(!got.contains("\"rows\""), "no rows before the entry: {got}");
    tokio::time::sleep(MODEL_DELAY + Duration::from_secs(1)).await;
    let entries = settled_entries(served, FALLBACK_QUESTION, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    let entry = &entries[0];
    assert_eq!(entry["outcome"], "cancelled", "{entry}");
    assert_eq!(
        (entry["rows"].clone(), entry["turnId"].clone()),
        (Value::Null, Value::Null),
        "{entry}"
    );
    assert!(entry["step"].is_string(), "the last step sent is named: {entry}");
    let conversation = entry["conversationId"].as_str().expect("the conversation").to_string();
    let (status, page) = served
        .get(Some(ALICE), &format!("/api/conversations/{conversation}"))
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["turns"].as_array().map(Vec::len), Some(0), "{page}");
    let (status, cancelled) = served.get(Some(OPS), "/api/audit?outcome=cancelled").await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["entries"].as_array().map(Vec::len), Some(1), "{cancelled}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_ask_whose_connection_closes_before_the_answer_leaves_one_cancelled_entry() {
    let setup = setup("plain-cancel").await;
    let served = &setup.served;
    let question = "每个地区销售额的标准差";
    let address = served.base.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let body = json!({"question": question}).to_string();
    let head = format!(
        "POST /api/ask HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {ALICE}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(body.as_bytes()).await.unwrap();
    // The fallback's model takes 3 s; the client leaves after half a second.
    tokio::time::sleep(Duration::from_millis(500)).await;
    socket.set_zero_linger().unwrap();
    drop(socket);
    tokio::time::sleep(MODEL_DELAY + Duration::from_secs(1)).await;
    let entries = settled_entries(served, question, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    let entry = &entries[0];
    assert_eq!(entry["outcome"], "cancelled", "{entry}");
    assert_eq!(
        (entry["rows"].clone(), entry["turnId"].clone(), entry["step"].clone()),
        (Value::Null, Value::Null, Value::Null),
        "nothing was sent: {entry}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_door_leaves_exactly_one_entry() {
    let setup = setup("doors").await;
    let served = &setup.served;
    // A plain ask: one entry, its turn's.
    let question = "华东区本月的销售额是多少";
    let (status, answer) = ask(served, ALICE, json!({"question": question})).await;
    assert_eq!(status, 200, "{answer}");
    let entries = settled_entries(served, question, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["turnId"], answer["turnId"]);
    assert_eq!(entries[0]["door"], "api");

    // A streamed ask read to its end: one entry, and the rows came after the execute step, before the answer.
    let question = "各大区本月的销售额";
    let got = streamed_until(served, ALICE, question, "event: answer").await;
    assert!(
        got.contains("event: answer") && got.contains("\"step\":\"execute\""),
        "{got}"
    );
    let entries = settled_entries(served, question, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["tool"], "sales_metrics");
    assert!(got.contains(entries[0]["turnId"].as_str().expect("a turn")), "{got}");

    // The fallback, streamed to its end: one entry.
    let got = streamed_until(served, ALICE, FALLBACK_QUESTION, "event: answer").await;
    assert!(got.contains("event: answer"), "{got}");
    let entries = settled_entries(served, FALLBACK_QUESTION, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["step"], "fallback", "{:#}", entries[0]);

    // MCP `ask` and `extract`: one entry each.
    let mut mcp = McpSession::open(&format!("{}/mcp", served.base), Some(ALICE))
        .await
        .expect("an MCP session");
    let question = "华东区上个月的销售额是多少";
    mcp.call("ask", json!({"question": question})).await.expect("ask");
    let entries = settled_entries(served, question, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["door"], "mcp");
    let question = "华东区本周的销售额";
    let extracted = mcp
        .call("extract", json!({"tool": "sales_query", "question": question}))
        .await
        .expect("extract");
    assert_ne!(extracted["isError"], true, "{extracted}");
    let entries = settled_entries(served, question, 1).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    let entry = &entries[0];
    assert_eq!(
        (entry["door"].as_str(), entry["step"].as_str(), entry["tool"].as_str()),
        (Some("mcp"), Some("extract"), Some("sales_query")),
        "{entry}"
    );
    assert_eq!(entry["principal"]["name"], "alice", "{entry}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admins_follow_up_never_puts_rows_outside_the_users_scope_into_the_users_conversation() {
    let setup = setup("follow").await;
    let served = &setup.served;
    let (status, first) = ask(served, ALICE, json!({"question": "本月的销售额是多少"})).await;
    assert_eq!(status, 200, "{first}");
    let theirs = first["conversationId"].as_str().unwrap().to_string();

    // The admin's follow-up with alice's conversation id: answered unscoped, in a conversation of the admin's own.
    let question = "各大区本月的销售额";
    let (status, follow) = ask(served, OPS, json!({"question": question, "conversationId": theirs})).await;
    assert_eq!(status, 200, "{follow}");
    let rows = follow["outcome"]["rows"].to_string();
    assert!(
        OTHER_REGIONS.iter().all(|r| rows.contains(r)),
        "the admin sees every region: {rows}"
    );
    let own = follow["conversationId"].as_str().unwrap().to_string();
    // In the admin's own conversation, a follow-up stays there.
    let (status, again) = ask(served, OPS, json!({"question": "上个月呢", "conversationId": own})).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["conversationId"], own.as_str());

    // Alice reads her conversation (and the CSV of each turn): nothing outside 华东.
    let (status, page) = served.get(Some(ALICE), &format!("/api/conversations/{theirs}")).await;
    assert_eq!(status, 200, "{page}");
    let turns = page["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 1, "only alice's own turn: {page:#}");
    let text = page.to_string();
    assert!(OTHER_REGIONS.iter().all(|r| !text.contains(r)), "{page:#}");
    for turn in turns {
        let id = turn["id"].as_str().or(turn["turnId"].as_str()).expect("a turn id");
        let csv = reqwest::Client::new()
            .get(format!("{}/api/turns/{id}/csv", served.base))
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap();
        assert_eq!(csv.status().as_u16(), 200);
        let csv = csv.text().await.unwrap();
        assert!(OTHER_REGIONS.iter().all(|r| !csv.contains(r)), "{csv}");
    }
    assert_ne!(own, theirs, "{follow}");
    // Alice cannot open the admin's conversation.
    let (status, _) = served.get(Some(ALICE), &format!("/api/conversations/{own}")).await;
    assert_eq!(status, 404);
}
