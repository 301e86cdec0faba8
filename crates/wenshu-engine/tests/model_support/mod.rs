//! What the model-path tests share: an extractor whose model is a scripted chat server on loopback, one
//! extraction of a demo tool, the grounding verdict of a parameter, and a metric executor over the demo's SQLite data.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::{Date, date};
use serde_json::Map;
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::db::Database;
use wenshu_engine::extract::grounding::Verdict;
use wenshu_engine::extract::{ExtractRequest, Extraction, ModelExtractor};
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::metric::{MetricExecutor, MetricValues, SharedValues};
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::model::ModelRouter;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, OutputMode, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

/// The lexicon engine over `db` with the metric tools of `catalog` (their values read per viewer's scope) under the
/// row-scope `rules`; also the shared metric values.
pub async fn scoped_metric_engine(
    db: &Database,
    catalog: Arc<Catalog>,
    rules: wenshu_engine::scope::ScopeRules,
) -> (wenshu_engine::answer::Engine, SharedValues) {
    let entities = Arc::new(EntityCatalogs::new());
    let values = SharedValues::new();
    values.load(db, catalog.clone(), &entities).await.unwrap();
    let planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities).with_metric_values(values.clone())),
    );
    let mut executors = wenshu_engine::execute::Executors::new();
    Arc::new(MetricExecutor::new(db.clone(), values.clone())).register_all(&catalog, &mut executors);
    let engine = wenshu_engine::answer::Engine::new(planner, Arc::new(executors))
        .with_scope(Arc::new(rules))
        .with_metric_values(values.clone());
    (engine, values)
}

/// The day every model-path test asks on.
pub fn today() -> Date {
    date(2026, 11, 29)
}

/// The demo's entity catalogs, as the evaluation keeps them (`eval/entities.json`).
pub fn demo_entities() -> Arc<EntityCatalogs> {
    const ENTITIES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/entities.json"));
    Arc::new(EntityCatalogs::from_json_str(ENTITIES).expect("entities"))
}

/// A chat client of one provider, `server`, answering JSON objects, with no retries.
pub fn client(server: &ScriptedChatServer) -> Arc<ChatClient> {
    client_with(server, Some(OutputMode::JsonObject))
}

/// A chat client of one provider, `server`, in output `mode` (the provider's default when `None`), with no retries.
pub fn client_with(server: &ScriptedChatServer, mode: Option<OutputMode>) -> Arc<ChatClient> {
    let mut provider = ProviderConfig::new("scripted", server.base_url(), "m").with_timeout(Duration::from_millis(800));
    if let Some(mode) = mode {
        provider = provider.with_output_mode(mode);
    }
    let retry = RetryConfig {
        max_retries: 0,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
    };
    Arc::new(ChatClient::new(vec![provider], retry, BreakerConfig::default()).expect("client"))
}

/// A planner of the model engine (router and extractor) over `catalog` and `entities`, its model `server`
/// (the provider's default output mode).
pub fn model_planner(server: &ScriptedChatServer, catalog: Arc<Catalog>, entities: Arc<EntityCatalogs>) -> Planner {
    let client = client_with(server, None);
    let prompts = Arc::new(PromptTemplates::embedded());
    Planner::new(
        catalog,
        entities,
        Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
        Arc::new(ModelExtractor::new(client, prompts, true)),
    )
}

/// A planner of the lexicon engine over the demo catalog and entities.
pub fn lexicon_planner() -> Planner {
    let entities = demo_entities();
    Planner::new(
        Arc::new(demo_catalog().expect("demo catalog")),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities)),
    )
}

/// The model extractor over `server`, with the embedded prompts and grounding on.
pub fn extractor(server: &ScriptedChatServer) -> ModelExtractor {
    ModelExtractor::new(client(server), Arc::new(PromptTemplates::embedded()), true)
}

/// One extraction of `tool` in `catalog` for `question`, the model answering `replies` in turn; with the number of
/// requests the model received.
pub async fn extract_in(catalog: &Catalog, tool: &str, question: &str, replies: Vec<Reply>) -> (Extraction, usize) {
    let server = ScriptedChatServer::start(replies).await;
    let request = ExtractRequest {
        tool: catalog.get(tool).expect("tool"),
        question,
        today: today(),
        timezone: "Asia/Shanghai",
        fixed: Map::new(),
    };
    let extraction = extractor(&server).extract(&request).await;
    (extraction, server.request_count())
}

/// One extraction of demo tool `tool`, the model giving `reply` (twice, for the one re-ask).
pub async fn extract_demo(tool: &str, reply: &str, question: &str) -> Extraction {
    let replies = vec![Reply::content(reply), Reply::content(reply)];
    extract_in(&demo_catalog().expect("demo catalog"), tool, question, replies)
        .await
        .0
}

/// The grounding verdict on `param`; panics naming the checks when there is none.
pub fn verdict<'a>(extraction: &'a Extraction, param: &str) -> &'a Verdict {
    &extraction
        .trace
        .grounding
        .iter()
        .find(|c| c.param == param)
        .unwrap_or_else(|| panic!("no check of {param}: {:#?}", extraction.trace.grounding))
        .verdict
}

/// The demo's data in a folder of its own, and a metric executor over it read-only; remove the folder when done.
pub async fn demo_metric_executor(tag: &str) -> (MetricExecutor, PathBuf) {
    let dir = std::env::temp_dir().join(format!("wenshu-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let url = format!("sqlite://{}", dir.join("demo.sqlite").display());
    wenshu_demo::create_at(&url, today()).await.expect("demo data");
    let db = Database::connect_read_only(&url).await.expect("read-only connection");
    let catalog = demo_catalog().expect("demo catalog");
    let entities = EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).expect("entities");
    let values = SharedValues::new();
    values.set(MetricValues::load(&db, &catalog, &entities).await.expect("values"));
    (MetricExecutor::new(db, values), dir)
}
