//! wenshu's own MCP server, reached by an rmcp client (the hub) over streamable HTTP on loopback: the demo engine
//! (lexicon, demo catalog, demo SQLite database) answers `ask` and `extract`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::{Date, date};
use serde_json::{Map, Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::Engine;
use wenshu_engine::db::Database;
use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_mcp::{McpHub, McpServerConfig, WenshuMcpServer, http_service};

const TODAY: Date = date(2026, 11, 29);

/// A demo SQLite database in a temporary file, removed on drop.
struct DemoDb {
    path: PathBuf,
}

impl DemoDb {
    async fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("wenshu-mcp-server-{name}-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        wenshu_demo::create_at(&format!("sqlite://{}", path.display()), TODAY)
            .await
            .unwrap();
        Self { path }
    }

    async fn server(&self) -> WenshuMcpServer {
        let catalog = Arc::new(demo_catalog().unwrap());
        let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
        let extractor = Arc::new(LexiconExtractor::new(entities.clone()));
        let planner = Planner::new(
            catalog.clone(),
            entities.clone(),
            Arc::new(LexiconRouter::new(entities)),
            extractor.clone(),
        );
        let db = Database::connect_read_only(&format!("sqlite://{}", self.path.display()))
            .await
            .unwrap();
        let mut executors = Executors::new();
        let sql = SqlTemplateExecutor::new(db, &catalog).unwrap();
        executors.register_sql(Arc::new(sql));
        let engine = Arc::new(Engine::new(planner, Arc::new(executors)));
        WenshuMcpServer::new(engine, extractor, catalog).with_today(TODAY)
    }
}

impl Drop for DemoDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Serves `handler` at `/mcp` of an axum router on 127.0.0.1:0; returns the endpoint URL.
async fn mount(handler: WenshuMcpServer) -> String {
    let router = axum::Router::new().nest_service("/mcp", http_service(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{address}/mcp")
}

async fn hub(url: &str) -> McpHub {
    let config = McpServerConfig::http("wenshu", url).with_call_timeout(Duration::from_secs(20));
    McpHub::connect(vec![config]).await.unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_shows_ask_and_extract() {
    let demo = DemoDb::new("list").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let names: Vec<String> = hub.tools().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["wenshu.ask", "wenshu.extract"], "status: {:?}", hub.status());
    let tools = hub.catalog_tools();
    assert!(tools.refused.is_empty(), "{:?}", tools.refused);
    let ask = &tools.tools[0].1;
    assert!(ask.param("question").is_some_and(|p| p.required));
    assert!(ask.param("subjectId").is_some_and(|p| !p.required));
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_answers_the_sales_question() {
    let demo = DemoDb::new("ask").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let raw = hub
        .call_raw(
            "wenshu.ask",
            &args(json!({"question": "华东区本月的销售额是多少", "conversationId": "c-1"})),
            None,
        )
        .await
        .unwrap();
    let content = &raw["structuredContent"];
    assert_eq!(content["kind"], "answered", "{raw:#}");
    assert_eq!(content["tool"], "sales_query");
    assert_eq!(content["parameters"]["region"], "华东");
    assert_eq!(content["conversationId"], "c-1");
    assert!(!content["rows"].as_array().unwrap().is_empty());
    let steps = content["trace"]["steps"].as_array().unwrap();
    let names: Vec<&str> = steps.iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(names.contains(&"route") && names.contains(&"execute"), "{names:?}");
    assert!(
        steps
            .iter()
            .all(|s| s["decision"].is_string() && s["durationMs"].is_number())
    );
    let text = raw["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("kind: answered"), "{text}");
    assert_ne!(raw["isError"], true);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_through_the_executor_gives_rows() {
    let demo = DemoDb::new("rows").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let result = hub
        .call(
            "wenshu.ask",
            &args(json!({"question": "华东区本月的销售额是多少"})),
            None,
            100,
        )
        .await
        .unwrap();
    let kind = result.columns.iter().position(|c| c == "kind").unwrap();
    assert_eq!(result.rows[0][kind], "answered");
    assert_eq!(result.detail["mcp"]["tool"], "ask");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_gives_the_stated_parameters() {
    let demo = DemoDb::new("extract").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let raw = hub
        .call_raw(
            "wenshu.extract",
            &args(json!({"tool": "sales_query", "question": "华东区本月的销售额是多少"})),
            None,
        )
        .await
        .unwrap();
    let content = &raw["structuredContent"];
    assert_eq!(content["status"], "ok", "{raw:#}");
    assert_eq!(content["params"]["region"], "华东");
    assert_eq!(content["tool"], "sales_query");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_tool_errors_the_caller_can_read() {
    let demo = DemoDb::new("bad").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let error = hub
        .call(
            "wenshu.extract",
            &args(json!({"tool": "no_such_tool", "question": "华东区"})),
            None,
            10,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code(), "tool_failed", "{error}");
    assert!(error.to_string().contains("no_such_tool"), "{error}");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_header_is_refused() {
    let demo = DemoDb::new("host").await;
    let url = mount(demo.server().await).await;
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let mut stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response).await;
    let status_line = response.lines().next().unwrap_or_default().to_string();
    assert!(
        status_line.contains(" 403 ") || status_line.contains(" 421 ") || status_line.contains(" 400 "),
        "{status_line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subject_id_the_question_cannot_mean_is_a_tool_error_naming_it() {
    let demo = DemoDb::new("subject").await;
    let url = mount(demo.server().await).await;
    let hub = hub(&url).await;
    let error = hub
        .call(
            "wenshu.ask",
            &args(json!({"question": "英雄上周的票房", "subjectId": "2"})),
            None,
            10,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code(), "tool_failed", "{error}");
    assert!(error.to_string().contains("subjectId"), "{error}");
    let raw = hub
        .call_raw(
            "wenshu.ask",
            &args(json!({"question": "英雄上周的票房", "subjectId": "21"})),
            None,
        )
        .await
        .unwrap();
    assert_eq!(raw["structuredContent"]["parameters"]["movieId"], 21, "{raw:#}");
    hub.shutdown().await;
}
