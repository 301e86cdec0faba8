//! The servers `wenshu bench ask --compare` starts itself: this program's `demo` on a free port with a store of its
//! own (a new SQLite file) in one of three modes, so one run compares them on the same machine.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

/// How the benchmark's server keeps its turns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoreMode {
    /// Group commit with this window.
    Group(Duration),
    /// Each write in a transaction of its own (`store_group_commit_ms = 0`).
    Alone,
    /// Nothing kept (the hidden `--no-store`).
    None,
}

impl StoreMode {
    /// The mode in words.
    pub fn label(&self) -> String {
        match self {
            Self::Group(window) => format!("group commit ({} ms)", window.as_secs_f64() * 1000.0),
            Self::Alone => "without group commit".to_string(),
            Self::None => "no store".to_string(),
        }
    }

    /// A name for its files.
    fn slug(&self) -> &'static str {
        match self {
            Self::Group(_) => "group",
            Self::Alone => "alone",
            Self::None => "none",
        }
    }
}

/// A running benchmark server, killed on drop.
pub struct BenchServer {
    child: Child,
    /// Its base URL.
    pub url: String,
    /// Its store file; `None` for the no-store mode.
    pub store: Option<PathBuf>,
}

impl Drop for BenchServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl BenchServer {
    /// Starts `wenshu demo` in `mode`, with its files in `dir`, the demo's day fixed to `today`; waits for its
    /// address line.
    pub fn start(mode: StoreMode, dir: &Path, today: &str) -> anyhow::Result<Self> {
        let config = dir.join(format!("{}.toml", mode.slug()));
        let window = match mode {
            StoreMode::Group(window) => window.as_secs_f64() * 1000.0,
            StoreMode::Alone | StoreMode::None => 0.0,
        };
        std::fs::write(&config, format!("store_group_commit_ms = {window}\n"))
            .with_context(|| format!("cannot write {}", config.display()))?;
        let store = dir.join(format!("{}.sqlite", mode.slug()));
        let log = dir.join(format!("{}.log", mode.slug()));
        let stderr = std::fs::File::create(&log).with_context(|| format!("cannot write {}", log.display()))?;
        let mut command = Command::new(std::env::current_exe().context("this program's path")?);
        command
            .args([
                "demo",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--today",
                today,
                "--config",
            ])
            .arg(&config)
            .arg("--store")
            .arg(format!("sqlite:{}", store.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if mode == StoreMode::None {
            command.arg("--no-store");
        }
        let mut child = command.spawn().context("cannot start the benchmark's server")?;
        let stdout = child.stdout.take().context("the server's output")?;
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            let Some(line) = lines.next() else {
                let _ = child.kill();
                let _ = child.wait();
                let said = std::fs::read_to_string(&log).unwrap_or_default();
                bail!("the benchmark's server stopped before serving: {}", said.trim());
            };
            let line = line.context("reading the server's output")?;
            if let Some(rest) = line.split("serving on ").nth(1) {
                break rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches('/')
                    .to_string();
            }
        };
        // The rest of its output is read and dropped, so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Self {
            child,
            url,
            store: (mode != StoreMode::None).then_some(store),
        })
    }
}

/// The bytes a stored turn takes: the store file's size over `turns`, once the write-ahead log is folded into it
/// (the last connection to close checkpoints it).
pub async fn bytes_per_turn(store: &Path, turns: usize) -> anyhow::Result<f64> {
    let opened = wenshu_store::SqliteStore::open(&store.display().to_string()).await?;
    opened.close().await;
    drop(opened);
    let size = std::fs::metadata(store)
        .with_context(|| format!("cannot read {}", store.display()))?
        .len();
    Ok(size as f64 / turns.max(1) as f64)
}
