//! Interoperability with MCP servers nobody here wrote: `@modelcontextprotocol/server-everything` (npm) over stdio
//! and streamable HTTP, and `mcp-server-time` (PyPI) over stdio. Each test skips, with a printed line, when its
//! server is not installed: `WENSHU_MCP_EVERYTHING` names server-everything's entry script (`…/dist/index.js`,
//! run with `node`) or its command; `WENSHU_MCP_TIME` names the `mcp-server-time` command.
//! `scripts/mcp-interop.sh` installs both (under `target/mcp-servers/`) and sets these.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::civil::date;
use serde_json::{Map, Value, json};
use wenshu_contract::render::Lang;
use wenshu_contract::{Catalog, bind};
use wenshu_engine::execute::{ExecContext, ExecError, Executor};
use wenshu_mcp::client::ServerState;
use wenshu_mcp::{McpExecutor, McpHub, McpServerConfig, ReconnectPolicy};

/// server-everything's command and arguments for `transport` (`stdio` or `streamableHttp`), if installed.
fn everything(transport: &str) -> Option<(String, Vec<String>)> {
    let Ok(entry) = std::env::var("WENSHU_MCP_EVERYTHING") else {
        println!("skipped: WENSHU_MCP_EVERYTHING is not set (run scripts/mcp-interop.sh)");
        return None;
    };
    if entry.ends_with(".js") {
        Some(("node".into(), vec![entry, transport.into()]))
    } else {
        Some((entry, vec![transport.into()]))
    }
}

/// mcp-server-time's command, if installed.
fn time_server() -> Option<String> {
    let command = std::env::var("WENSHU_MCP_TIME").ok();
    if command.is_none() {
        println!("skipped: WENSHU_MCP_TIME is not set (run scripts/mcp-interop.sh)");
    }
    command
}

async fn everything_stdio_hub(call_timeout: Duration) -> Option<Arc<McpHub>> {
    let (command, args) = everything("stdio")?;
    let config = McpServerConfig::stdio("everything", command, args).with_call_timeout(call_timeout);
    Some(Arc::new(McpHub::connect(vec![config]).await.unwrap()))
}

fn tool_names(hub: &McpHub) -> Vec<String> {
    hub.tools().into_iter().map(|(name, _)| name).collect()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn ctx(timeout: Duration) -> ExecContext {
    ExecContext {
        today: date(2026, 11, 29),
        timeout,
        row_cap: 100,
        ..ExecContext::new(date(2026, 11, 29))
    }
}

/// The hub's tools in a catalog, with the refused ones printed.
fn catalog_of(hub: &McpHub) -> Catalog {
    let mut catalog = Catalog::new();
    for refused in hub.add_to_catalog(&mut catalog) {
        println!("refused {}: {}", refused.tool, refused.reason);
    }
    catalog
}

/// Binds `raw` for `tool` through the contract and runs it with the MCP executor.
async fn run(
    executor: &McpExecutor,
    catalog: &Catalog,
    tool: &str,
    raw: Value,
) -> Result<wenshu_engine::execute::ToolResult, ExecError> {
    let tool = catalog.get(tool).unwrap();
    let call = bind(tool, &args(raw)).unwrap();
    executor.execute(tool, &call, &ctx(Duration::from_secs(20))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_lists_its_tools() {
    let Some(hub) = everything_stdio_hub(Duration::from_secs(20)).await else {
        return;
    };
    assert_eq!(hub.status()[0].state, ServerState::Connected, "{:?}", hub.status());
    let names = tool_names(&hub);
    for expected in [
        "everything.echo",
        "everything.get-sum",
        "everything.trigger-long-running-operation",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} not in {names:?}");
    }
    // After `initialized` the server registers more tools and sends `notifications/tools/list_changed`: the hub
    // lists again on its own.
    let started = Instant::now();
    while hub.status()[0].lists < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no re-list: {:?}",
            hub.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        tool_names(&hub)
            .iter()
            .any(|n| n == "everything.simulate-research-query")
    );
    let rendered = wenshu_mcp::render_server_tools(&hub, "everything", Lang::Zh).unwrap();
    assert!(rendered.contains("工具ID: everything.echo"), "{rendered}");
    assert!(rendered.contains("message (类型: string, 必填)"), "{rendered}");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http_lists_its_tools() {
    let Some((command, args)) = everything("streamableHttp") else {
        return;
    };
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut child = tokio::process::Command::new(command)
        .args(args)
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "server-everything did not listen on {port}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let config = McpServerConfig::http("everything", format!("http://127.0.0.1:{port}/mcp"));
    let hub = Arc::new(McpHub::connect(vec![config]).await.unwrap());
    assert_eq!(hub.status()[0].state, ServerState::Connected, "{:?}", hub.status());
    let names = tool_names(&hub);
    assert!(names.iter().any(|n| n == "everything.echo"), "{names:?}");
    let catalog = catalog_of(&hub);
    let executor = McpExecutor::new(hub.clone());
    let result = run(&executor, &catalog, "everything.echo", json!({"message": "over http"}))
        .await
        .unwrap();
    assert_eq!(result.rows, vec![vec![json!("Echo: over http")]]);
    hub.shutdown().await;
    let _ = child.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_tools_are_bound_and_called_through_the_executor() {
    let Some(hub) = everything_stdio_hub(Duration::from_secs(20)).await else {
        return;
    };
    let catalog = catalog_of(&hub);
    let executor = McpExecutor::new(hub.clone());

    let echo = run(&executor, &catalog, "everything.echo", json!({"message": "你好，问数"}))
        .await
        .unwrap();
    assert_eq!(echo.columns, ["text"]);
    assert_eq!(echo.rows, vec![vec![json!("Echo: 你好，问数")]]);
    assert_eq!(echo.detail["mcp"]["tool"], "echo");
    assert_eq!(echo.detail["result"]["content"][0]["type"], "text");

    // "2" is coerced to a number by the contract binding before the call.
    let sum = run(&executor, &catalog, "everything.get-sum", json!({"a": "2", "b": 3}))
        .await
        .unwrap();
    let text = sum.rows[0][0].as_str().unwrap();
    assert!(text.contains('5'), "{text}");

    let weather = run(
        &executor,
        &catalog,
        "everything.get-structured-content",
        json!({"location": "Chicago"}),
    )
    .await
    .unwrap();
    assert!(
        weather.columns.iter().any(|c| c == "temperature"),
        "{:?}",
        weather.columns
    );
    assert_eq!(weather.rows.len(), 1);

    // A tool the server does not list is refused by name.
    let error = hub
        .call("everything.no-such-tool", &Map::new(), None, 10)
        .await
        .unwrap_err();
    assert_eq!(error.code(), "unknown_tool", "{error}");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_running_tool_times_out_within_the_limit() {
    let Some(hub) = everything_stdio_hub(Duration::from_secs(1)).await else {
        return;
    };
    let catalog = catalog_of(&hub);
    let executor = McpExecutor::new(hub.clone());
    let started = Instant::now();
    let error = run(
        &executor,
        &catalog,
        "everything.trigger-long-running-operation",
        json!({"duration": 10, "steps": 2}),
    )
    .await
    .unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(error, ExecError::Timeout { after_ms: 1000 }), "{error:?}");
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
    // The connection survives a timed-out call.
    let echo = run(&executor, &catalog, "everything.echo", json!({"message": "still here"}))
        .await
        .unwrap();
    assert_eq!(echo.rows, vec![vec![json!("Echo: still here")]]);
    hub.shutdown().await;
}

/// A few city names and their IANA zones: there is no time-zone gazetteer in wenshu, so the test maps the city
/// the question names itself.
const CITY_ZONES: &[(&str, &str)] = &[
    ("东京", "Asia/Tokyo"),
    ("纽约", "America/New_York"),
    ("伦敦", "Europe/London"),
    ("北京", "Asia/Shanghai"),
];

fn zone_in(question: &str) -> Option<&'static str> {
    CITY_ZONES
        .iter()
        .find(|(city, _)| question.contains(city))
        .map(|(_, zone)| *zone)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_server_answers_and_survives_being_killed() {
    let Some(command) = time_server() else { return };
    let config = McpServerConfig::stdio("time", command, ["--local-timezone".to_string(), "UTC".to_string()])
        .with_call_timeout(Duration::from_secs(20))
        .with_reconnect(ReconnectPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
        });
    let hub = Arc::new(McpHub::connect(vec![config]).await.unwrap());
    let names = tool_names(&hub);
    assert!(
        names.iter().any(|n| n == "time.get_current_time"),
        "{names:?} {:?}",
        hub.status()
    );
    let catalog = catalog_of(&hub);
    let executor = McpExecutor::new(hub.clone());

    let zone = zone_in("现在东京几点").unwrap();
    let first = run(&executor, &catalog, "time.get_current_time", json!({"timezone": zone}))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&first.rows).unwrap().contains("Asia/Tokyo"),
        "{first:?}"
    );
    let lists_before = hub.status()[0].lists;

    let pid = hub.process_id("time").unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    tokio::time::sleep(Duration::from_millis(300)).await;

    let second = run(&executor, &catalog, "time.get_current_time", json!({"timezone": zone}))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&second.rows).unwrap().contains("Asia/Tokyo"),
        "{second:?}"
    );
    let status = &hub.status()[0];
    assert!(status.lists > lists_before, "not re-listed: {status:?}");
    assert_ne!(hub.process_id("time"), Some(pid));
    hub.shutdown().await;
}
