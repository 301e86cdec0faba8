//! `extract`: wenshu's overhead around one model call. The same loopback server answers both the bare chat call and
//! the whole extraction (prompt rendering, schema, parsing, coercion, grounding, binding, trace); the difference is
//! what wenshu adds around the wait for the server.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::civil::date;
use serde_json::Map;
use wenshu_contract::demo_catalog;
use wenshu_engine::extract::{ExtractRequest, ModelExtractor, extract_messages};
use wenshu_llm::client::{ChatClient, ChatRequest};
use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

const ANSWER: &str =
    r#"{"region": "华东区", "period": "上季度", "product": "enterprise", "queryType": "排名", "limit": "5"}"#;
const QUESTION: &str = "华东区上季度企业版的销售排名前五";
const REPLIES: usize = 200_000;

fn bench_extract(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime.block_on(ScriptedChatServer::start(
        (0..REPLIES).map(|_| Reply::content(ANSWER)).collect(),
    ));
    let provider = ProviderConfig::new("loopback", server.base_url(), "bench").with_timeout(Duration::from_secs(5));
    let client =
        Arc::new(ChatClient::new(vec![provider], RetryConfig::default(), BreakerConfig::default()).expect("client"));
    let prompts = Arc::new(PromptTemplates::embedded());
    let extractor = ModelExtractor::new(client.clone(), prompts.clone(), true);
    let catalog = demo_catalog().expect("demo catalog");
    let tool = catalog.get("sales_query").expect("sales_query");
    let request = ExtractRequest {
        tool,
        question: QUESTION,
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        fixed: Map::new(),
    };
    let chat = ChatRequest::new(extract_messages(&prompts, &request).expect("prompt"));

    let mut group = c.benchmark_group("extract");
    group.bench_function("chat_call_only", |b| {
        b.iter(|| runtime.block_on(client.complete(black_box(&chat))).expect("answer"))
    });
    group.bench_function("whole_extraction", |b| {
        b.iter(|| runtime.block_on(extractor.extract(black_box(&request))))
    });
    group.bench_function("prompt_rendering_only", |b| {
        b.iter(|| extract_messages(black_box(&prompts), black_box(&request)).expect("prompt"))
    });
    group.finish();
}

criterion_group!(benches, bench_extract);
criterion_main!(benches);
