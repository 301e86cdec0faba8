//! The HTTP API over real HTTP on 127.0.0.1, with the lexicon engine, the demo SQLite database and a SQLite store.

use std::sync::Arc;

use jiff::civil::date;
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::Engine;
use wenshu_engine::db::Database;
use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_server::{AppState, ServerSettings};

struct Server {
    base: String,
    client: reqwest::Client,
    _db: TempFile,
}

struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn start(settings: ServerSettings) -> Server {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let path = std::env::temp_dir().join(format!("wenshu-api-{}-{nanos}.sqlite", std::process::id()));
    wenshu_demo::create_at(&format!("sqlite://{}", path.display()), date(2026, 11, 29))
        .await
        .unwrap();
    let db = Database::connect_read_only(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let catalog = Arc::new(demo_catalog().unwrap());
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities)),
    );
    let mut executors = Executors::new();
    let sql = SqlTemplateExecutor::new(db, &catalog).unwrap();
    executors.register_sql(Arc::new(sql));
    let engine = Engine::new(planner, Arc::new(executors));
    let store = wenshu_store::open_store("sqlite::memory:").await.unwrap();
    let settings = ServerSettings {
        today: Some(date(2026, 11, 29)),
        ..settings
    };
    let router = wenshu_server::router(AppState::new(engine, store, settings));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(wenshu_server::serve(listener, router));
    Server {
        base,
        client: reqwest::Client::new(),
        _db: TempFile(path),
    }
}

impl Server {
    async fn ask(&self, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/api/ask", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let response = self.client.get(format!("{}{path}", self.base)).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn ask_answers_and_stores_the_turn_with_its_trace() {
    let server = start(ServerSettings::default()).await;
    let (status, answer) = server.ask(json!({"question": "华东区本月的销售额是多少"})).await;
    assert_eq!(status, 200);
    assert_eq!(
        (answer["kind"].as_str(), answer["tool"].as_str()),
        (Some("answered"), Some("sales_query"))
    );
    assert_eq!(answer["rewrittenQuestion"], "华东区本月的销售额是多少");
    let conversation = answer["conversationId"].as_str().unwrap().to_string();
    let (status, trace) = server
        .get(&format!("/api/traces/{}", answer["traceId"].as_str().unwrap()))
        .await;
    assert_eq!(status, 200);
    assert_eq!(trace["steps"][0]["step"], "route");
    let (_, stored) = server.get(&format!("/api/conversations/{conversation}")).await;
    assert_eq!(stored["turns"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_conversation_carries_history_into_follow_ups() {
    let server = start(ServerSettings::default()).await;
    let (_, first) = server.ask(json!({"question": "长津湖上个月的票房"})).await;
    let conversation = first["conversationId"].clone();
    let (_, second) = server
        .ask(json!({"question": "那它的评分呢", "conversationId": conversation}))
        .await;
    assert_eq!(second["tool"], "movie_rating");
    assert_eq!(second["params"], json!({"movieId": 4}));
    assert_eq!(second["conversationId"], conversation);
}

#[tokio::test]
async fn candidates_then_a_chosen_subject() {
    let server = start(ServerSettings::default()).await;
    let (_, first) = server.ask(json!({"question": "英雄上周的票房"})).await;
    assert_eq!(first["kind"], "choose");
    assert_eq!(first["outcome"]["candidates"].as_array().unwrap().len(), 2);
    let (_, chosen) = server
        .ask(json!({"question": "英雄上周的票房", "subjectId": 21, "conversationId": first["conversationId"]}))
        .await;
    assert_eq!(
        (chosen["kind"].as_str(), chosen["params"]["movieId"].as_i64()),
        (Some("answered"), Some(21))
    );
}

#[tokio::test]
async fn steps_stream_as_server_sent_events() {
    let server = start(ServerSettings::default()).await;
    let response = server
        .client
        .post(format!("{}/api/ask", server.base))
        .header("accept", "text/event-stream")
        .json(&json!({"question": "流浪地球2最近7天的每日票房"}))
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = response.text().await.unwrap();
    let events: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
    assert_eq!(events.last(), Some(&"answer"), "{text}");
    assert!(events.iter().filter(|e| **e == "step").count() >= 5, "{events:?}");
    let answer_line = text.lines().skip_while(|l| *l != "event: answer").nth(1).unwrap();
    let answer: Value = serde_json::from_str(answer_line.strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(answer["outcome"]["rows"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn bad_input_gets_the_json_error_body_and_the_right_status() {
    let server = start(ServerSettings {
        max_body_bytes: 2048,
        ..ServerSettings::default()
    })
    .await;
    let post = |body: String| {
        server
            .client
            .post(format!("{}/api/ask", server.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let response = post("{broken".into()).await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(
        response.json::<Value>().await.unwrap()["error"]["code"],
        "malformed_json"
    );
    let response = post(json!({"question": "x".repeat(4000)}).to_string()).await.unwrap();
    assert_eq!(response.status().as_u16(), 413);
    assert_eq!(
        response.json::<Value>().await.unwrap()["error"]["code"],
        "body_too_large"
    );
    let (status, body) = server.ask(json!({"question": "  "})).await;
    assert_eq!((status, body["error"]["param"].as_str()), (422, Some("question")));
    let (status, body) = server.ask(json!({"question": "q", "color": "red"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("malformed_json")));
    assert!(body["error"]["message"].as_str().unwrap().contains("color"));
    let (status, body) = server
        .ask(json!({"question": "华东的销售额", "conversationId": "nope"}))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("unknown_conversation"))
    );
    let (status, body) = server.ask(json!({"question": "q", "subjectId": [1]})).await;
    assert_eq!((status, body["error"]["param"].as_str()), (422, Some("subjectId")));
    let (status, body) = server.get("/api/traces/missing").await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("unknown_trace")));
    let (status, _) = server.get("/api/nothing-here").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn keys_guard_the_api_and_only_admins_change_tools() {
    let settings = ServerSettings {
        user_keys: vec!["u-key".into()],
        admin_keys: vec!["a-key".into()],
        ..ServerSettings::default()
    };
    let server = start(settings).await;
    let (status, body) = server.ask(json!({"question": "华东的销售额"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("missing_key")));
    let ask = |key: &'static str| {
        server
            .client
            .post(format!("{}/api/ask", server.base))
            .bearer_auth(key)
            .json(&json!({"question": "华东的销售额"}))
            .send()
    };
    assert_eq!(ask("wrong").await.unwrap().status().as_u16(), 401);
    assert_eq!(ask("u-key").await.unwrap().status().as_u16(), 200);
    let patch = |key: &'static str, body: Value| {
        server
            .client
            .patch(format!("{}/api/tools/movie_rating", server.base))
            .bearer_auth(key)
            .json(&body)
            .send()
    };
    assert_eq!(
        patch("u-key", json!({"enabled": false}))
            .await
            .unwrap()
            .status()
            .as_u16(),
        403
    );
    assert_eq!(
        patch("a-key", json!({"enabled": "no"}))
            .await
            .unwrap()
            .status()
            .as_u16(),
        422
    );
    assert_eq!(
        patch("a-key", json!({"enabled": false}))
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
    let tools: Value = server
        .client
        .get(format!("{}/api/tools", server.base))
        .bearer_auth("u-key")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rating = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "movie_rating")
        .unwrap()
        .clone();
    assert_eq!(rating["enabled"], false);
    let answer: Value = server
        .client
        .post(format!("{}/api/ask", server.base))
        .bearer_auth("u-key")
        .json(&json!({"question": "满江红的评分是多少"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_ne!(answer["tool"], "movie_rating", "a disabled tool is never routed to");
    let response = server
        .client
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "health needs no key");
}

#[tokio::test]
async fn a_client_over_its_rate_gets_429() {
    let server = start(ServerSettings {
        rate_per_minute: 3,
        ..ServerSettings::default()
    })
    .await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(server.ask(json!({"question": "华东的销售额"})).await.0);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
}

#[tokio::test]
async fn health_metrics_openapi_and_the_page_are_served() {
    let server = start(ServerSettings::default()).await;
    server.ask(json!({"question": "华东区本月的销售额是多少"})).await;
    let metrics = server
        .client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("wenshu_questions_total") && metrics.contains("wenshu_step_duration_seconds_bucket"),
        "{metrics}"
    );
    let (status, openapi) = server.get("/api/openapi.json").await;
    assert_eq!((status, openapi["openapi"].as_str()), (200, Some("3.1.0")));
    assert!(openapi["paths"]["/api/ask"]["post"].is_object());
    let page = server.client.get(format!("{}/", server.base)).send().await.unwrap();
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.text().await.unwrap().contains("/assets/app.js"));
    let script = server
        .client
        .get(format!("{}/assets/app.js", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(script.status().as_u16(), 200);
}
