//! With a model, a metric tool is filled by names only: the model's metric query (measure, dimension and value
//! names, grain, order) is checked name by name against the model and the data, then compiled by code. A chat
//! model on loopback (ScriptedChatServer) plays the model.

mod model_support;

use model_support::{demo_metric_executor, extract_demo, today};
use wenshu_contract::demo_catalog;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::extract::ExtractOutcome;

async fn extract(reply: &str, question: &str) -> ExtractOutcome {
    extract_demo("sales_metrics", reply, question).await.outcome
}

#[tokio::test]
async fn a_models_metric_query_by_names_runs_as_code_compiles_it() {
    let reply = r#"{"measures": [{"name": "销售额"}], "groupBy": ["地区"], "filters": [{"dimension": "产品", "values": ["企业版"]}], "order": {"measure": "销售额", "direction": "desc"}, "limit": 3}"#;
    let outcome = extract(reply, "企业版销售额前三的地区").await;
    let ExtractOutcome::Ok { params } = outcome else {
        panic!("expected ok, got {outcome:?}");
    };
    let (executor, dir) = demo_metric_executor("metric-names").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, &params).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
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
