//! A model names the first rows of each group (issue 26, shape 1): its metric query's `within` is kept, compiled by
//! code and answered; a plain ranking named for a question asking a ranking inside each group is never the answer.
//! A chat model on loopback (ScriptedChatServer) plays the model.

mod model_support;

use std::sync::Arc;

use model_support::{demo_entities, demo_metric_executor, model_planner, today};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::pipeline::{AskRequest, Planned};
use wenshu_engine::plan::Plan;
use wenshu_testkit::{Reply, ScriptedChatServer};

const QUESTION: &str = "上个月每个地区销售额最高的两个产品";

fn route(tool: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": null, "subjectName": null, "startDate": "", "endDate": "",
               "rewrittenQuestion": QUESTION})
        .to_string(),
    )
}

/// The model's metric query: by region and product, ordered by sales; `within` as given.
fn query(within: Option<Value>) -> Value {
    let mut q = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-10-01", "end": "2026-10-31"},
        "groupBy": ["地区", "产品"], "order": {"measure": "销售额", "direction": "desc"}});
    match within {
        Some(w) => q["within"] = w,
        None => q["limit"] = json!(2),
    }
    q
}

async fn plan(extraction: Value) -> Planned {
    let reply = Reply::content(extraction.to_string());
    let server = ScriptedChatServer::start(vec![route("sales_metrics"), reply.clone(), reply]).await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    planner.plan(&AskRequest::new(QUESTION, today())).await
}

#[tokio::test]
async fn a_models_top_within_each_group_is_kept_and_answered_per_group() {
    let planned = plan(query(Some(json!({"dimension": "地区", "limit": 2})))).await;
    let Plan::Ok { tool, params } = &planned.plan else {
        panic!("expected a call, got {:?}", planned.plan);
    };
    assert_eq!(tool, "sales_metrics");
    assert_eq!(params["within"], json!({"dimension": "地区", "limit": 2}), "{params:?}");
    let (executor, dir) = demo_metric_executor("metric-model-within").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, params).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    assert_eq!(result.columns, ["地区", "产品", "销售额"]);
    // Two products in each of the five regions, region by region.
    assert_eq!(result.rows.len(), 10, "{:?}", result.rows);
    for pair in result.rows.chunks(2) {
        assert_eq!(pair[0][0], pair[1][0], "{:?}", result.rows);
    }
    let sql = result.detail["statements"][0]["sql"].as_str().unwrap();
    assert!(sql.contains("ROW_NUMBER() OVER (PARTITION BY"), "{sql}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_models_plain_ranking_never_answers_a_ranking_inside_each_group() {
    // Coverage says why, in the question's words.
    let stopped = |planned: &Planned, why: &str| {
        let text = serde_json::to_string(&planned.plan).unwrap();
        assert!(!matches!(planned.plan, Plan::Ok { .. }) && text.contains(why), "{text}");
    };
    stopped(&plan(query(None)).await, "里分别排名");
    // The top of each group by another number of rows than asked is not the answer either.
    stopped(
        &plan(query(Some(json!({"dimension": "地区", "limit": 3})))).await,
        "在每组取前 2 名",
    );
}
