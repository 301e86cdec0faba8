//! The hub without any real server: bad configurations, a server that is down at start-up, a disabled one,
//! unknown names — and result conversion and tool compilation from MCP JSON.

use std::time::{Duration, Instant};

use serde_json::{Map, json};
use wenshu_contract::Catalog;
use wenshu_engine::execute::ExecError;
use wenshu_mcp::client::result::{CallRecord, to_tool_result};
use wenshu_mcp::client::tools::compile_remote_tool;
use wenshu_mcp::client::{ServerState, namespaced, split_namespaced};
use wenshu_mcp::{McpError, McpHub, McpServerConfig, ReconnectPolicy};

fn missing_server(name: &str) -> McpServerConfig {
    McpServerConfig::stdio(name, "/nonexistent/wenshu-no-such-mcp-server", Vec::new()).with_reconnect(ReconnectPolicy {
        max_attempts: 2,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    })
}

#[test]
fn bad_configurations_are_refused() {
    let bad_name = McpServerConfig::http("a.b", "http://127.0.0.1:1/mcp");
    assert_eq!(bad_name.validate().unwrap_err().code(), "config");
    let bad_url = McpServerConfig::http("x", "ftp://127.0.0.1/mcp");
    assert!(bad_url.validate().is_err());
    let empty = McpServerConfig::stdio("x", " ", Vec::new());
    assert!(empty.validate().is_err());
    let zero = McpServerConfig::http("x", "http://127.0.0.1:1/mcp").with_call_timeout(Duration::ZERO);
    assert!(zero.validate().is_err());
    assert!(
        McpServerConfig::http("sales-db_1", "http://127.0.0.1:1/mcp")
            .validate()
            .is_ok()
    );
}

#[test]
fn backoff_doubles_and_is_capped() {
    let policy = ReconnectPolicy::default();
    assert_eq!(policy.backoff(0), Duration::from_millis(200));
    assert_eq!(policy.backoff(1), Duration::from_millis(400));
    assert_eq!(policy.backoff(10), Duration::from_secs(2));
}

#[tokio::test]
async fn duplicate_server_names_are_refused() {
    let error = McpHub::connect(vec![missing_server("a"), missing_server("a")])
        .await
        .unwrap_err();
    assert!(matches!(error, McpError::Config { .. }), "{error}");
}

#[tokio::test]
async fn a_server_down_at_start_up_is_unavailable_and_calls_fail_clearly() {
    let hub = McpHub::connect(vec![missing_server("down"), missing_server("off").with_enabled(false)])
        .await
        .unwrap();
    let status = hub.status();
    assert!(matches!(&status[0].state, ServerState::Unavailable { reason } if reason.contains("cannot start")));
    assert_eq!(status[1].state, ServerState::Disabled);
    assert!(hub.tools().is_empty());

    let started = Instant::now();
    let error = hub.call("down.anything", &Map::new(), None, 10).await.unwrap_err();
    assert_eq!(error.code(), "unavailable", "{error}");
    assert!(error.to_string().contains("down"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let exec: ExecError = error.into();
    assert_eq!(exec.code(), "http");

    let error = hub.call("off.anything", &Map::new(), None, 10).await.unwrap_err();
    assert!(error.to_string().contains("disabled"), "{error}");
    let error = hub.call("nowhere.tool", &Map::new(), None, 10).await.unwrap_err();
    assert_eq!(error.code(), "unknown_server");
    let error = hub.call("no-dot", &Map::new(), None, 10).await.unwrap_err();
    assert_eq!(error.code(), "unknown_tool");
    let rendered = wenshu_mcp::render_server_tools(&hub, "down", Default::default()).unwrap_err();
    assert_eq!(rendered.code(), "unavailable");
}

#[test]
fn names_are_namespaced_by_server() {
    assert_eq!(namespaced("time", "get_current_time"), "time.get_current_time");
    assert_eq!(split_namespaced("a.b.c"), Some(("a", "b.c")));
    assert_eq!(split_namespaced(".b"), None);
    assert_eq!(split_namespaced("a"), None);
}

#[test]
fn a_remote_tool_compiles_under_its_namespaced_name_without_extensions() {
    let remote = json!({
        "name": "get-sum", "title": "Get Sum Tool", "description": "Returns the sum of two numbers",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                        "required": ["a", "b"], "$schema": "http://json-schema.org/draft-07/schema#"},
        "x-http": {"method": "GET", "url": "http://evil.example/"},
        "annotations": {"readOnlyHint": true}
    });
    let tool = compile_remote_tool("everything", &remote).unwrap();
    assert_eq!(tool.name(), "everything.get-sum");
    assert_eq!(tool.title(), Some("Get Sum Tool"));
    assert!(tool.route().is_none());
    assert!(tool.param("a").is_some_and(|p| p.required));

    let refused =
        compile_remote_tool("s", &json!({"name": "bad name!", "inputSchema": {"type": "object"}})).unwrap_err();
    assert_eq!(refused.tool, "bad name!");
    let mut catalog = Catalog::new();
    catalog
        .insert(compile_remote_tool("s", &json!({"name": "t"})).unwrap())
        .unwrap();
    assert!(
        catalog
            .insert(compile_remote_tool("s", &json!({"name": "t"})).unwrap())
            .is_err()
    );
}

fn record<'a>(arguments: &'a serde_json::Value) -> CallRecord<'a> {
    CallRecord {
        server: "s",
        tool: "t",
        arguments,
    }
}

#[test]
fn structured_content_becomes_rows_and_text_one_column() {
    let arguments = json!({"q": 1});
    let raw = json!({"content": [{"type": "text", "text": "[...]"}],
                     "structuredContent": [{"city": "东京", "t": 1}, {"city": "纽约", "t": 2, "x": true}]});
    let result = to_tool_result(record(&arguments), raw.clone(), 1, 2.0).unwrap();
    assert_eq!(result.columns, ["city", "t"]);
    assert_eq!(result.rows, vec![vec![json!("东京"), json!(1)]]);
    assert!(result.truncated);
    assert_eq!(result.detail["result"], raw);
    assert_eq!(result.detail["mcp"]["arguments"], arguments);

    let object = json!({"structuredContent": {"temperature": 36, "humidity": 82}, "content": []});
    let result = to_tool_result(record(&arguments), object, 10, 0.0).unwrap();
    assert_eq!(result.columns, ["temperature", "humidity"]);
    assert_eq!(result.rows.len(), 1);

    let text =
        json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png", "data": ""}]});
    let result = to_tool_result(record(&arguments), text, 10, 0.0).unwrap();
    assert_eq!(result.columns, ["text"]);
    assert_eq!(result.rows, vec![vec![json!("a")], vec![json!("[image image/png]")]]);
}

#[test]
fn is_error_becomes_an_error_with_the_raw_result() {
    let arguments = json!({});
    let raw = json!({"isError": true, "content": [{"type": "text", "text": "no such city"}]});
    let error = to_tool_result(record(&arguments), raw.clone(), 10, 0.0).unwrap_err();
    match &error {
        McpError::ToolFailed { tool, message, result } => {
            assert_eq!(tool, "s.t");
            assert_eq!(message, "no such city");
            assert_eq!(result, &raw);
        }
        other => panic!("{other:?}"),
    }
    let exec: ExecError = error.into();
    assert!(exec.to_string().contains("no such city"));
}
