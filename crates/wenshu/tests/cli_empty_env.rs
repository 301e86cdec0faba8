//! Empty `WENSHU_*` variables mean "not set": `wenshu demo` starts with the lexicon engine when every model
//! variable is set but empty (a common shell habit, `WENSHU_LLM_BASE_URL=`), and answers over HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// Kills the demo when the test ends, passing or not.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn demo_starts_with_empty_model_variables() {
    let dir = TempDir(std::env::temp_dir().join(format!("wenshu-empty-env-{}", std::process::id())));
    std::fs::create_dir_all(dir.path()).expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["demo", "--port", "0", "--today", "2026-11-29"])
        .current_dir(dir.path())
        .env("WENSHU_DATA_DIR", dir.path())
        .env("WENSHU_LLM_BASE_URL", "")
        .env("WENSHU_LLM_MODEL", "")
        .env("WENSHU_LLM_API_KEY", "")
        .env("WENSHU_CONFIG", "")
        .env("WENSHU_USER_KEYS", "")
        .env("WENSHU_ADMIN_KEYS", " ")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wenshu runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut demo = Demo(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("a line");
    if !line.contains("serving on") {
        let _ = demo.0.kill();
        let output = demo.0.wait_with_output_or_stderr();
        panic!("demo did not start: {line}{output}");
    }
    assert!(line.contains("engine: lexicon"), "{line}");
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("an address")
        .to_string();
    let body = r#"{"question":"华东区本月的销售额是多少"}"#;
    let mut stream = TcpStream::connect(&address).expect("connect");
    write!(
        stream,
        "POST /api/ask HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, json) = response.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let answer: serde_json::Value = serde_json::from_str(json).expect("JSON");
    assert_eq!(answer["kind"], "answered", "{answer}");
    assert_eq!(answer["trace"]["engine"], "lexicon");
}

/// A folder removed when the test ends.
/// `serve --engine lexicon` with a model configured (for the fallback only) says the lexicon engine reads questions.
#[test]
fn the_start_line_names_the_engine_that_reads_questions() {
    let dir = TempDir(std::env::temp_dir().join(format!("wenshu-engine-line-{}", std::process::id())));
    std::fs::create_dir_all(dir.path()).expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["serve", "--port", "0", "--today", "2026-11-29", "--engine", "lexicon"])
        .current_dir(dir.path())
        .env("WENSHU_DATA_DIR", dir.path())
        .env("WENSHU_LLM_BASE_URL", "http://127.0.0.1:9/v1")
        .env("WENSHU_LLM_MODEL", "any")
        .env("WENSHU_CONFIG", "")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wenshu runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut served = Demo(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("a line");
    if !line.contains("serving on") {
        let _ = served.0.kill();
        panic!("serve did not start: {line}{}", served.0.wait_with_output_or_stderr());
    }
    assert!(
        line.contains("engine: lexicon, with a model for the fallback"),
        "{line}"
    );
}

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The child's stderr, for a failure message.
trait StderrText {
    fn wait_with_output_or_stderr(&mut self) -> String;
}

impl StderrText for Child {
    fn wait_with_output_or_stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(stderr) = self.stderr.take() {
            let _ = BufReader::new(stderr).read_to_string(&mut text);
        }
        text
    }
}
