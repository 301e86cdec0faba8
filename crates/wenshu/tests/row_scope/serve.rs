//! `wenshu serve` started by the test: its own data folder and `wenshu.toml`, a free loopback port, keys in its
//! environment; and the HTTP calls the matrix makes to it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// A running `wenshu serve`, stopped on drop.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Where its standard error goes (read when a cell fails).
    pub stderr: PathBuf,
    http: reqwest::Client,
}

/// What the server is started with.
pub struct Launch<'a> {
    /// The folder of its data, store, config and log.
    pub dir: &'a Path,
    /// The text of `wenshu.toml`.
    pub config: String,
    /// The tools' database.
    pub db_url: &'a str,
    /// The chat model's base URL (the scripted model).
    pub llm_base_url: String,
    /// The environment: keys and secrets named by the config.
    pub env: Vec<(&'a str, String)>,
    /// The fixed day.
    pub today: &'a str,
}

impl Served {
    /// Starts the binary and waits for the line naming its address (at most 120 s: the first start builds the
    /// metric values and may connect MCP servers).
    pub fn start(launch: Launch<'_>) -> Self {
        let config = launch.dir.join("wenshu.toml");
        std::fs::write(&config, &launch.config).unwrap();
        let stderr = launch.dir.join("serve.stderr");
        let store = format!("sqlite://{}", launch.dir.join("store.sqlite").display());
        let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
        command
            .args(["serve", "--engine", "lexicon", "--host", "127.0.0.1", "--port", "0"])
            .args(["--today", launch.today, "--db", launch.db_url, "--store", &store])
            .env("WENSHU_CONFIG", &config)
            .env("WENSHU_DATA_DIR", launch.dir.join("data"))
            .env("WENSHU_LLM_BASE_URL", launch.llm_base_url)
            .env("WENSHU_LLM_MODEL", "scripted-model")
            .env_remove("WENSHU_LLM_API_KEY")
            .env_remove("WENSHU_USER_KEYS")
            .env_remove("WENSHU_ADMIN_KEYS")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap());
        for (name, value) in &launch.env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("wenshu serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("serving on http://").nth(1) {
                    let address = rest.split('/').next().unwrap_or_default().to_string();
                    let _ = tx.send(address);
                }
            }
        });
        let address = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(address) => address,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "wenshu serve did not start:\n{}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                );
            }
        };
        Self {
            child,
            base: format!("http://{address}"),
            stderr,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
        }
    }

    /// `POST /api/ask` with `question`, as the holder of `key` (none: anonymous): the status and the JSON body.
    pub async fn ask(&self, key: Option<&str>, question: &str) -> (u16, Value) {
        self.send(
            self.http
                .post(format!("{}/api/ask", self.base))
                .json(&json!({"question": question})),
            key,
        )
        .await
    }

    /// `GET path` as the holder of `key`: the status and the JSON body.
    pub async fn get(&self, key: Option<&str>, path: &str) -> (u16, Value) {
        self.send(self.http.get(format!("{}{path}", self.base)), key).await
    }

    async fn send(&self, request: reqwest::RequestBuilder, key: Option<&str>) -> (u16, Value) {
        let request = match key {
            Some(key) => request.bearer_auth(key),
            None => request,
        };
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    /// The last lines of the server's standard error.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
