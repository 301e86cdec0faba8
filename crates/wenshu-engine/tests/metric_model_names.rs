//! With a model, a metric tool is filled by names only: the model's metric query (measure, dimension and value
//! names, grain, order) is checked name by name against the model and the data, then compiled by code. A chat
//! model on loopback (ScriptedChatServer) plays the model.

use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::Map;
use wenshu_contract::demo_catalog;
use wenshu_engine::db::Database;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::extract::{ExtractOutcome, ExtractRequest, ModelExtractor};
use wenshu_engine::metric::{MetricExecutor, MetricValues, SharedValues};
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, OutputMode, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

async fn extract(reply: &str, question: &str) -> ExtractOutcome {
    let server = ScriptedChatServer::start(vec![Reply::content(reply), Reply::content(reply)]).await;
    let provider = ProviderConfig::new("primary", server.base_url(), "scripted")
        .with_timeout(Duration::from_millis(800))
        .with_output_mode(OutputMode::JsonObject);
    let retry = RetryConfig {
        max_retries: 0,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    };
    let client = ChatClient::new(vec![provider], retry, BreakerConfig::default()).unwrap();
    let extractor = ModelExtractor::new(Arc::new(client), Arc::new(PromptTemplates::embedded()), true);
    let catalog = demo_catalog().unwrap();
    let request = ExtractRequest {
        tool: catalog.get("sales_metrics").unwrap(),
        question,
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        fixed: Map::new(),
    };
    extractor.extract(&request).await.outcome
}

#[tokio::test]
async fn a_models_metric_query_by_names_runs_as_code_compiles_it() {
    let reply = r#"{"measures": [{"name": "销售额"}], "groupBy": ["地区"], "filters": [{"dimension": "产品", "values": ["企业版"]}], "order": {"measure": "销售额", "direction": "desc"}, "limit": 3}"#;
    let outcome = extract(reply, "企业版销售额前三的地区").await;
    let ExtractOutcome::Ok { params } = outcome else {
        panic!("expected ok, got {outcome:?}");
    };
    let dir = std::env::temp_dir().join(format!("wenshu-metric-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("demo.sqlite").display());
    wenshu_engine::demo::create_at(&url, date(2026, 11, 29)).await.unwrap();
    let db = Database::connect_read_only(&url).await.unwrap();
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let entities = EntityCatalogs::from_json_str(wenshu_engine::demo::ENTITIES_JSON).unwrap();
    let values = SharedValues::new();
    values.set(MetricValues::load(&db, &catalog, &entities).await.unwrap());
    let executor = MetricExecutor::new(db, values);
    let call = wenshu_contract::bind(tool, &params).unwrap();
    let result = executor
        .execute(tool, &call, &ExecContext::new(date(2026, 11, 29)))
        .await
        .unwrap();
    assert_eq!(result.columns, ["地区", "销售额"]);
    assert_eq!(result.rows.len(), 3);
    let sql = result.detail["statements"][0]["sql"].as_str().unwrap();
    assert!(!sql.contains("企业版"), "the value is bound: {sql}");
    assert_eq!(result.detail["presentation"]["chart"]["kind"], "bar");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn sql_or_an_unknown_name_from_the_model_never_binds() {
    for reply in [
        r#"{"measures": [{"name": "SUM(amount); DROP TABLE sales"}]}"#,
        r#"{"measures": [{"name": "销售额"}], "groupBy": ["仓库"]}"#,
        r#"{"measures": [{"name": "销售额"}], "sql": "SELECT * FROM sales"}"#,
    ] {
        let outcome = extract(reply, "销售额").await;
        assert!(
            !matches!(outcome, ExtractOutcome::Ok { .. }),
            "{reply} must not bind: {outcome:?}"
        );
    }
}
