//! `pipeline`: the whole pipeline's overhead per question. With the model engine against an instant loopback model,
//! the plan (route call, check, resolve, fill, extract call, ground, bind) is measured against the two bare chat
//! calls it makes; the difference is wenshu's overhead. The lexicon engine's whole plan is measured too (target
//! < 200 µs), and two of its stages alone: the route and the coverage check.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::civil::date;
use serde_json::json;
use wenshu_contract::demo_catalog;
use wenshu_engine::coverage;
use wenshu_engine::extract::{ExtractRequest, ModelExtractor, extract_messages};
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::RouteInput;
use wenshu_engine::route::model::ModelRouter;
use wenshu_llm::client::{ChatClient, ChatRequest};
use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

const QUESTION: &str = "华东区上季度企业版的销售排名前五";

fn bench_pipeline(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let route = json!({"toolCode": "sales_query", "subjectType": null, "subjectName": null, "startDate": "2026-07-01",
                       "endDate": "2026-09-30", "rewrittenQuestion": QUESTION})
    .to_string();
    let extract = r#"{"region": "华东", "product": "企业版", "queryType": "ranking", "limit": 5}"#.to_string();
    let responder = move |body: &serde_json::Value| {
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        if system.contains("问数路由器") {
            Reply::content(route.clone())
        } else {
            Reply::content(extract.clone())
        }
    };
    let server = runtime.block_on(ScriptedChatServer::start_with(Arc::new(responder)));
    let provider = ProviderConfig::new("loopback", server.base_url(), "bench").with_timeout(Duration::from_secs(5));
    let client =
        Arc::new(ChatClient::new(vec![provider], RetryConfig::default(), BreakerConfig::default()).expect("client"));
    let prompts = Arc::new(PromptTemplates::embedded());
    let catalog = Arc::new(demo_catalog().expect("demo catalog"));
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).expect("entities"));
    let model_planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
        Arc::new(ModelExtractor::new(client.clone(), prompts.clone(), true)),
    );
    let lexicon_planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities.clone())),
    );
    let request = AskRequest::new(QUESTION, date(2026, 11, 29));
    let tool = catalog.get("sales_query").expect("sales_query");
    let extract_request = ExtractRequest {
        tool,
        question: QUESTION,
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        fixed: Default::default(),
    };
    let chat = ChatRequest::new(extract_messages(&prompts, &extract_request).expect("prompt"));

    let mut group = c.benchmark_group("pipeline");
    group.bench_function("two_bare_chat_calls", |b| {
        b.iter(|| {
            runtime.block_on(async {
                client.complete(black_box(&chat)).await.expect("route");
                client.complete(black_box(&chat)).await.expect("extract")
            })
        })
    });
    group.bench_function("model_plan", |b| {
        b.iter(|| runtime.block_on(model_planner.plan(black_box(&request))))
    });
    group.bench_function("lexicon_plan", |b| {
        b.iter(|| runtime.block_on(lexicon_planner.plan(black_box(&request))))
    });
    // The stages of the lexicon plan on their own: the route (tool choice, subject, dates) over the tools a planner
    // routes to (no fallback, no metric tool) and the coverage check of the bound call; the question's facts are
    // remembered per thread, as within one plan.
    let router = LexiconRouter::new(entities.clone());
    let tools: Vec<&wenshu_contract::Tool> = catalog
        .tools()
        .iter()
        .filter(|t| Some(t.name()) != catalog.fallback().map(|f| f.name()) && t.extensions().metrics.is_none())
        .collect();
    let route_input = RouteInput {
        question: QUESTION,
        history: &[],
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        tools,
        subject_types: entities.types().into_iter().map(str::to_string).collect(),
    };
    group.bench_function("lexicon_route", |b| {
        b.iter(|| router.route_now(black_box(&route_input)))
    });
    let planned = runtime.block_on(lexicon_planner.plan(&request));
    let Plan::Ok {
        tool: planned_tool,
        params,
    } = &planned.plan
    else {
        panic!("the question plans a call: {:?}", planned.plan);
    };
    let planned_tool = catalog.get(planned_tool).expect("planned tool");
    group.bench_function("coverage_check", |b| {
        b.iter(|| coverage::check(planned_tool, params, black_box(QUESTION), date(2026, 11, 29), &entities))
    });
    group.finish();
}

criterion_group!(benches, bench_pipeline);
criterion_main!(benches);
