//! wenshu's MCP server over streamable HTTP reads who asks from the HTTP request: the viewer an auth layer put into
//! the request's extensions (here axum's `Extension` layer, as wenshu-server's auth layer does) fills a tool's
//! `x-principal` parameters in `extract`, whatever the question says; a request with no viewer is scoped with
//! nothing and refused.

// The Extension layer over rmcp's service makes a deep future type.
#![recursion_limit = "256"]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::{Map, Value, json};
use wenshu_contract::Catalog;
use wenshu_engine::answer::Engine;
use wenshu_engine::execute::Executors;
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::scope::Viewer;
use wenshu_mcp::{McpHub, McpServerConfig, WenshuMcpServer, http_service};

fn server() -> WenshuMcpServer {
    let catalog = Arc::new(
        Catalog::from_value(&json!({"tools": [{
            "name": "tenant_orders",
            "description": "Orders of a tenant",
            "inputSchema": {"type": "object", "required": ["tenant"], "properties": {
                "tenant": {"type": "integer", "description": "tenant", "x-principal": "tenant_id"}
            }},
            "x-http": {"method": "GET", "path": "/orders"}
        }]}))
        .unwrap(),
    );
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let extractor = Arc::new(LexiconExtractor::new(entities.clone()));
    let planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities)),
        extractor.clone(),
    );
    let engine = Arc::new(Engine::new(planner, Arc::new(Executors::new())));
    WenshuMcpServer::new(engine, extractor, catalog).with_today(date(2026, 11, 29))
}

/// Serves the MCP server at `/mcp` on 127.0.0.1:0, with `viewer` put into every request's extensions when given.
async fn mount(viewer: Option<Viewer>) -> McpHub {
    let router = axum::Router::new().nest_service("/mcp", http_service(server()));
    let router = match viewer {
        Some(viewer) => router.layer(axum::Extension(viewer)),
        None => router,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let config =
        McpServerConfig::http("wenshu", format!("http://{address}/mcp")).with_call_timeout(Duration::from_secs(20));
    McpHub::connect(vec![config]).await.unwrap()
}

fn extract(question: &str) -> Map<String, Value> {
    json!({"tool": "tenant_orders", "question": question})
        .as_object()
        .cloned()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn principal_parameters_come_from_the_requests_viewer_never_the_question() {
    let east = Viewer::scoped(
        Some("k-east".into()),
        BTreeMap::from([("tenant_id".to_string(), json!(7))]),
    );
    let hub = mount(Some(east)).await;
    let raw = hub
        .call_raw("wenshu.extract", &extract("租户8的订单"), None)
        .await
        .unwrap();
    let content = &raw["structuredContent"];
    assert_eq!(content["status"], "ok", "{raw:#}");
    assert_eq!(content["params"]["tenant"], 7, "{raw:#}");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_a_viewer_is_scoped_with_nothing_and_refused() {
    let hub = mount(None).await;
    let error = hub
        .call("wenshu.extract", &extract("租户8的订单"), None, 10)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("tenant_id"), "{error}");
    hub.shutdown().await;
}
