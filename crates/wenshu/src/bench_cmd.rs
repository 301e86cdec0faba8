//! `wenshu bench ask`: a load test of `POST /api/ask` from a second process — requests per second and latency
//! percentiles at a given concurrency, beside the server's own time per ask (read from its `/metrics`). With
//! `--compare` it starts its own demo servers and runs the load on each: group commit, each write alone, and no
//! store, so the store's share is one run's ratio.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::bench_metrics::{Scrape, ServerTime};
use crate::bench_server::{BenchServer, StoreMode, bytes_per_turn};

/// What `wenshu bench` can measure.
#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// Load-test `POST /api/ask` of a running server (or, with `--compare`, of servers it starts).
    Ask {
        /// The server's base URL.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
        /// Connections asking at once.
        #[arg(long, default_value_t = 64)]
        concurrency: usize,
        /// How long to ask, in seconds.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// The questions, asked in turn.
        #[arg(long = "question", default_values_t = ["华东区本月的销售额是多少".to_string(), "流浪地球2最近7天的每日票房".to_string(), "上季度企业版的销售排名前五".to_string()])]
        questions: Vec<String>,
        /// An API key, when the server needs one.
        #[arg(long, env = "WENSHU_BENCH_KEY")]
        key: Option<String>,
        /// Start this program's demo three times instead of asking `--url` — group commit, each write alone, no
        /// store (`--no-store`) — each with a new store file, and compare them.
        #[arg(long)]
        compare: bool,
        /// With `--compare`: the group commit window of the first server, in milliseconds.
        #[arg(long, default_value_t = 1.0)]
        group_commit_ms: f64,
        /// With `--compare`: the demo's fixed day (YYYY-MM-DD).
        #[arg(long, default_value = "2026-11-29")]
        today: String,
    },
}

/// One load's settings.
#[derive(Debug, Clone)]
struct Load {
    concurrency: usize,
    duration: Duration,
    questions: Arc<Vec<String>>,
    key: Option<String>,
}

/// What one load measured on the client.
#[derive(Debug, Default)]
struct Measured {
    latencies: Vec<Duration>,
    errors: usize,
    elapsed: f64,
}

impl Measured {
    /// Answered asks per second.
    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.max(f64::EPSILON)
    }

    /// The latency at `p` (0 to 1), in milliseconds.
    fn percentile(&self, p: f64) -> f64 {
        let Some(last) = self.latencies.len().checked_sub(1) else {
            return 0.0;
        };
        let index = ((last as f64) * p).round() as usize;
        self.latencies[index.min(last)].as_secs_f64() * 1000.0
    }

    /// The client's figures in words.
    fn describe(&self, concurrency: usize) -> String {
        format!(
            "{} requests, {} errors in {:.1} s at {concurrency} connections: {:.0} req/s; latency p50 {:.1} ms, p90 \
             {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            self.latencies.len(),
            self.errors,
            self.elapsed,
            self.rate(),
            self.percentile(0.50),
            self.percentile(0.90),
            self.percentile(0.99),
            self.percentile(1.0),
        )
    }
}

/// Runs one `wenshu bench` subcommand.
pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    let BenchCommand::Ask {
        url,
        concurrency,
        seconds,
        questions,
        key,
        compare,
        group_commit_ms,
        today,
    } = command;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let load = Load {
        concurrency: concurrency.max(1),
        duration: Duration::from_secs(seconds.max(1)),
        questions: Arc::new(questions),
        key: key.filter(|key| !key.trim().is_empty()),
    };
    runtime.block_on(async move {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(load.concurrency)
            .build()?;
        if !compare {
            let (measured, _) = measured_run(&client, &url, &load).await?;
            return Ok(exit_code(&measured));
        }
        if !(group_commit_ms.is_finite() && group_commit_ms > 0.0) {
            anyhow::bail!("--group-commit-ms must be above 0, got {group_commit_ms}");
        }
        let window = Duration::from_secs_f64(group_commit_ms / 1000.0);
        compare_modes(&client, &load, window, &today).await
    })
}

/// Loads `url` once, printing the client's figures and the server's time per ask.
async fn measured_run(client: &reqwest::Client, url: &str, load: &Load) -> anyhow::Result<(Measured, ServerTime)> {
    let before = scrape(client, url).await;
    let measured = ask_for_a_while(client, url, load).await?;
    let after = scrape(client, url).await;
    let time = ServerTime::between(&before, &after);
    println!("{}", measured.describe(load.concurrency));
    println!("{}", time.describe());
    Ok((measured, time))
}

/// The server's `/metrics` now; empty when it cannot be read (the figures then read 0).
async fn scrape(client: &reqwest::Client, url: &str) -> Scrape {
    let endpoint = format!("{}/metrics", url.trim_end_matches('/'));
    match client.get(endpoint).send().await {
        Ok(response) => Scrape::parse(&response.text().await.unwrap_or_default()),
        Err(_) => Scrape::default(),
    }
}

/// Runs the load on a demo server of each mode in turn, then the ratios and the bytes per stored turn.
async fn compare_modes(
    client: &reqwest::Client,
    load: &Load,
    window: Duration,
    today: &str,
) -> anyhow::Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("wenshu-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rates = Vec::new();
    let mut failed = false;
    for mode in [StoreMode::Group(window), StoreMode::Alone, StoreMode::None] {
        println!("— {}", mode.label());
        let server = BenchServer::start(mode, &dir, today)?;
        // A few asks first, so no mode pays for the first connections and caches.
        let warm = Load {
            duration: Duration::from_secs(1),
            ..load.clone()
        };
        let warmed = ask_for_a_while(client, &server.url, &warm).await?;
        let (measured, _) = measured_run(client, &server.url, load).await?;
        let store = server.store.clone();
        drop(server);
        if let Some(store) = store {
            let turns = warmed.latencies.len() + measured.latencies.len();
            println!(
                "{:.0} bytes a stored turn (with its conversation and audit entry)",
                bytes_per_turn(&store, turns).await?
            );
        }
        failed |= measured.errors > 0;
        rates.push((mode.label(), measured.rate()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let [(group, grouped), (alone, single), (none, bare)] = &rates[..] {
        println!(
            "{group}: {:.2}× the req/s {alone}, {:.2}× the req/s with {none}",
            grouped / single.max(f64::EPSILON),
            grouped / bare.max(f64::EPSILON)
        );
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// 0 when every ask was answered, else 1.
fn exit_code(measured: &Measured) -> ExitCode {
    if measured.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Asks `url` from `load.concurrency` tasks for `load.duration`.
async fn ask_for_a_while(client: &reqwest::Client, url: &str, load: &Load) -> anyhow::Result<Measured> {
    let endpoint = format!("{}/api/ask", url.trim_end_matches('/'));
    let counter = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let duration = load.duration;
    let workers: Vec<_> = (0..load.concurrency)
        .map(|_| {
            let (client, endpoint, questions, key, counter) = (
                client.clone(),
                endpoint.clone(),
                load.questions.clone(),
                load.key.clone(),
                counter.clone(),
            );
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut errors = 0usize;
                while started.elapsed() < duration {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let Some(question) = questions.get(n % questions.len().max(1)) else {
                        break;
                    };
                    let mut request = client.post(&endpoint).json(&json!({"question": question}));
                    if let Some(key) = &key {
                        request = request.bearer_auth(key);
                    }
                    let asked = Instant::now();
                    match request.send().await {
                        Ok(response) if response.status().is_success() => {
                            let _ = response.bytes().await;
                            latencies.push(asked.elapsed());
                        }
                        _ => errors += 1,
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut measured = Measured::default();
    for worker in workers {
        let (mut latencies, errors) = worker.await?;
        measured.latencies.append(&mut latencies);
        measured.errors += errors;
    }
    measured.elapsed = started.elapsed().as_secs_f64();
    measured.latencies.sort();
    Ok(measured)
}
