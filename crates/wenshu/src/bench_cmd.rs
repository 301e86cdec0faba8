//! `wenshu bench ask`: a load test of `POST /api/ask` from a second process — requests per second and latency
//! percentiles at a given concurrency.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

/// What `wenshu bench` can measure.
#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// Load-test `POST /api/ask` of a running server.
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
    },
}

/// Runs one `wenshu bench` subcommand.
pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    let BenchCommand::Ask {
        url,
        concurrency,
        seconds,
        questions,
        key,
    } = command;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(load(
        url,
        concurrency.max(1),
        Duration::from_secs(seconds.max(1)),
        Arc::new(questions),
        key.filter(|key| !key.trim().is_empty()),
    ))
}

async fn load(
    url: String,
    concurrency: usize,
    duration: Duration,
    questions: Arc<Vec<String>>,
    key: Option<String>,
) -> anyhow::Result<ExitCode> {
    let client = reqwest::Client::builder().pool_max_idle_per_host(concurrency).build()?;
    let endpoint = format!("{}/api/ask", url.trim_end_matches('/'));
    let counter = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, endpoint, questions, key, counter) = (
                client.clone(),
                endpoint.clone(),
                questions.clone(),
                key.clone(),
                counter.clone(),
            );
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut errors = 0usize;
                while started.elapsed() < duration {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let question = &questions[n % questions.len().max(1)];
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
    let mut latencies = Vec::new();
    let mut errors = 0;
    for worker in workers {
        let (mut l, e) = worker.await?;
        latencies.append(&mut l);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let percentile = |p: f64| -> f64 {
        if latencies.is_empty() {
            return 0.0;
        }
        let index = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies[index.min(latencies.len() - 1)].as_secs_f64() * 1000.0
    };
    println!(
        "{} requests, {errors} errors in {elapsed:.1} s at {concurrency} connections: {:.0} req/s; latency p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        percentile(0.50),
        percentile(0.90),
        percentile(0.99),
        percentile(1.0),
    );
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
