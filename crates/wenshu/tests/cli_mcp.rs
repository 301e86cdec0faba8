//! `wenshu mcp` spoken to over stdio by a client (newline-delimited JSON-RPC), and MCP tools answering questions
//! through `wenshu ask` when the third-party test servers are installed (`scripts/mcp-interop.sh`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use serde_json::{Value, json};
use wenshu_testkit::{Reply, ScriptedChatServer};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(data_dir: &std::path::Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wenshu"))
            .args(["mcp", "--engine", "lexicon", "--today", "2026-11-29"])
            .env("WENSHU_DATA_DIR", data_dir)
            .env_remove("WENSHU_CONFIG")
            .env_remove("WENSHU_LLM_BASE_URL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("wenshu mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self { child, stdin, stdout }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The response with this id (notifications in between are skipped).
    fn response(&mut self, id: i64) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "wenshu mcp closed stdout"
            );
            let message: Value =
                serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn wenshu_mcp_serves_ask_and_extract_over_stdio() {
    let dir = std::env::temp_dir().join(format!("wenshu-mcp-stdio-{}", std::process::id()));
    let mut session = Session::start(&dir);
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}));
    let init = session.response(1);
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    session.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = session.response(2);
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"ask") && names.contains(&"extract"), "{names:?}");
    session.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "ask", "arguments": {"question": "华东区本月的销售额是多少"}}}));
    let answer = session.response(3);
    let structured = &answer["result"]["structuredContent"];
    assert_eq!(
        (structured["kind"].as_str(), structured["tool"].as_str()),
        (Some("answered"), Some("sales_query")),
        "{answer}"
    );
    session.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "extract", "arguments": {"tool": "sales_query", "question": "上季度企业版的销售排名前五"}}}));
    let extracted = session.response(4);
    assert_eq!(
        extracted["result"]["structuredContent"]["params"]["limit"], 5,
        "{extracted}"
    );
    drop(session);
    let _ = std::fs::remove_dir_all(&dir);
}

/// "现在东京几点" through `wenshu ask` with the model engine: the route picks the MCP tool `time.get_current_time`,
/// the extraction gives the time zone, and mcp-server-time answers.
#[tokio::test]
async fn an_mcp_tool_answers_a_question_end_to_end() {
    let Ok(time_command) = std::env::var("WENSHU_MCP_TIME") else {
        println!("skipped: WENSHU_MCP_TIME is not set (scripts/mcp-interop.sh installs mcp-server-time)");
        return;
    };
    let route = json!({"toolCode": "time.get_current_time", "subjectType": null, "subjectName": null, "startDate": null,
                       "endDate": null, "rewrittenQuestion": "现在东京几点"});
    let model = ScriptedChatServer::start(vec![
        Reply::content(route.to_string()),
        Reply::content(r#"{"timezone": "Asia/Tokyo"}"#),
    ])
    .await;
    let dir = std::env::temp_dir().join(format!("wenshu-mcp-ask-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("wenshu.toml");
    std::fs::write(
        &config,
        format!("[[mcp.servers]]\nname = \"time\"\ncommand = \"{time_command}\"\n"),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
    command
        .args([
            "ask",
            "--json",
            "--engine",
            "model",
            "--today",
            "2026-11-29",
            "--config",
        ])
        .arg(&config)
        .arg("现在东京几点")
        .env("WENSHU_DATA_DIR", &dir)
        .env("WENSHU_LLM_BASE_URL", model.base_url())
        .env("WENSHU_LLM_MODEL", "scripted");
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(answer["kind"], "answered", "{answer}");
    assert_eq!(answer["tool"], "time.get_current_time");
    assert!(answer["outcome"].to_string().contains("Asia/Tokyo"), "{answer}");
    let listed = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["tools", "list", "--mcp", "time", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains("工具ID: time.get_current_time") && text.contains("timezone"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
