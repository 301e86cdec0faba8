//! A model names an order by a dimension, running totals or a comparison with the mean (issue 26, shapes 9, 7 and
//! 2): its `sort`, `cumulative` and `relative` are kept where the question asks for them, compiled by code and answered; where the question never asks, the
//! model's addition is dropped and the call answers what was asked (a running total is never shown for a plain
//! monthly series). A chat model on loopback (ScriptedChatServer) plays the model.

mod model_support;

use std::sync::Arc;

use model_support::{demo_entities, demo_metric_executor, model_planner, today};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::pipeline::{AskRequest, Planned};
use wenshu_engine::plan::Plan;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn route(tool: &str, question: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": null, "subjectName": null, "startDate": "", "endDate": "",
               "rewrittenQuestion": question})
        .to_string(),
    )
}

async fn plan(question: &str, extraction: Value) -> Planned {
    let reply = Reply::content(extraction.to_string());
    let server = ScriptedChatServer::start(vec![route("sales_metrics", question), reply.clone(), reply]).await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    planner.plan(&AskRequest::new(question, today())).await
}

fn params(planned: &Planned) -> &serde_json::Map<String, Value> {
    match &planned.plan {
        Plan::Ok { tool, params } if tool == "sales_metrics" => params,
        other => panic!("expected a call of sales_metrics, got {other:?}"),
    }
}

#[tokio::test]
async fn a_models_sort_by_a_dimension_is_kept_and_the_rows_come_in_its_order() {
    let question = "上个月各地区的销售额按地区降序排列";
    let planned = plan(
        question,
        json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-10-01", "end": "2026-10-31"},
               "groupBy": ["地区"], "sort": {"dimension": "地区", "direction": "desc"}}),
    )
    .await;
    let params = params(&planned);
    assert_eq!(
        params["sort"],
        json!({"dimension": "地区", "direction": "desc"}),
        "{params:?}"
    );
    let (executor, dir) = demo_metric_executor("metric-model-sort").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, params).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let regions: Vec<String> = result.rows.iter().map(|r| r[0].as_str().unwrap().to_string()).collect();
    let mut sorted = regions.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(regions, sorted, "{:?}", result.rows);
    assert_eq!(regions.len(), 5);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_models_running_total_is_kept_only_when_the_question_asks_for_one() {
    let monthly = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-01-01", "end": "2026-10-31"},
        "grain": "month", "cumulative": true});
    let planned = plan("今年到10月每月的累计销售额", monthly.clone()).await;
    let asked = params(&planned);
    assert_eq!(asked["cumulative"], json!(true), "{asked:?}");
    let (executor, dir) = demo_metric_executor("metric-model-running").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, asked).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let sums: Vec<f64> = result.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
    assert_eq!(sums.len(), 10, "{:?}", result.rows);
    assert!(sums.windows(2).all(|w| w[1] > w[0]), "running totals grow: {sums:?}");
    // The same call for a question that never says 累计: the model's addition is dropped.
    let planned = plan("今年到10月每月的销售额", monthly).await;
    let plain = params(&planned);
    assert!(plain.get("cumulative").is_none(), "{plain:?}");
    let call = wenshu_contract::bind(tool, plain).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let months: Vec<f64> = result.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
    assert!(
        (months.iter().sum::<f64>() - sums[9]).abs() < 1.0,
        "{months:?} vs {sums:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_models_comparison_with_the_mean_is_kept_only_when_the_question_asks_for_one() {
    let above = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-10-01", "end": "2026-10-31"},
        "groupBy": ["销售"], "relative": {"measure": "销售额", "op": ">"}});
    let planned = plan("上个月销售额高于平均水平的销售", above.clone()).await;
    let asked = params(&planned);
    assert_eq!(asked["relative"], json!({"measure": "销售额", "op": ">"}), "{asked:?}");
    let (executor, dir) = demo_metric_executor("metric-model-relative").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, asked).unwrap();
    let kept = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    // The same call for a question that never compares with the mean: every salesperson, none dropped.
    let planned = plan("上个月各销售的销售额", above).await;
    let plain = params(&planned);
    assert!(plain.get("relative").is_none(), "{plain:?}");
    let call = wenshu_contract::bind(tool, plain).unwrap();
    let all = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let amount = |row: &Vec<Value>| row[1].as_f64().unwrap();
    let mean = all.rows.iter().map(amount).sum::<f64>() / all.rows.len() as f64;
    assert!(
        !kept.rows.is_empty() && kept.rows.len() < all.rows.len(),
        "{:?}",
        kept.rows
    );
    assert!(
        kept.rows.iter().all(|r| amount(r) > mean),
        "{:?} vs mean {mean}",
        kept.rows
    );
    assert_eq!(
        kept.rows.len(),
        all.rows.iter().filter(|r| amount(r) > mean).count(),
        "every salesperson above the mean is kept"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_models_ratio_is_kept_only_when_the_question_divides() {
    let per_order = json!({"measures": [{"name": "销量", "dividedBy": "订单数"}],
        "timeRange": {"start": "2026-01-01", "end": "2026-12-31"}});
    let planned = plan("今年平均每单销量", per_order.clone()).await;
    let asked = params(&planned);
    assert_eq!(asked["measures"][0]["dividedBy"], json!("订单数"), "{asked:?}");
    let (executor, dir) = demo_metric_executor("metric-model-ratio").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, asked).unwrap();
    let ratio = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let value = ratio.rows[0][0].as_f64().unwrap();
    assert!(value > 1.0 && value < 10.0, "sets per order, not the total: {value}");
    // The same call for a question that never divides: the total, the model's division dropped.
    let planned = plan("今年的销量", per_order).await;
    let plain = params(&planned);
    assert!(plain["measures"][0].get("dividedBy").is_none(), "{plain:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_models_bands_are_kept_only_with_the_bounds_the_question_states() {
    let question = "今年订单金额在1万以下、1万到5万、5万以上的订单数";
    let banded = |bounds: Value| {
        json!({"measures": [{"name": "订单数"}], "timeRange": {"start": "2026-01-01", "end": "2026-12-31"},
               "bands": {"measure": "销售额", "bounds": bounds}})
    };
    let planned = plan(question, banded(json!([10000, 50000]))).await;
    let asked = params(&planned);
    assert_eq!(asked["bands"]["bounds"], json!([10000, 50000]), "{asked:?}");
    let (executor, dir) = demo_metric_executor("metric-model-bands").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let call = wenshu_contract::bind(tool, asked).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let names: Vec<&str> = result.rows.iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(names, ["<10000", "10000–50000", "≥50000"], "{:?}", result.rows);
    // Bounds the question never states are the model's own: never answered as the question's bands.
    let planned = plan(question, banded(json!([20000, 50000]))).await;
    let kept = match &planned.plan {
        Plan::Ok { params, .. } => params.get("bands").cloned(),
        _ => None,
    };
    assert!(
        kept.is_none_or(|b| b["bounds"] == json!([10000, 50000])),
        "{:?}",
        planned.plan
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The model's call for `question`, planned: the params of sales_metrics.
async fn kept(question: &str, extraction: Value) -> serde_json::Map<String, Value> {
    let planned = plan(question, extraction).await;
    params(&planned).clone()
}

#[tokio::test]
async fn a_models_change_ranking_distinct_count_thresholds_and_days_are_kept_only_where_asked() {
    let october = json!({"start": "2026-10-01", "end": "2026-10-31"});
    // Shape 4: the compared rows ranked by the change — only where the question ranks.
    let ranked = json!({"measures": [{"name": "销售额"}], "timeRange": october, "groupBy": ["产品"],
        "compare": {"kind": "previous_period", "rank": {"by": "rate", "direction": "desc", "limit": 1}}});
    let asked = kept("上个月哪个产品的销售额环比增长最快", ranked.clone()).await;
    assert_eq!(asked["compare"]["rank"]["by"], json!("rate"), "{asked:?}");
    let plain = kept("上个月各产品的销售额环比", ranked).await;
    assert!(
        plain["compare"].get("rank").is_none(),
        "every product compared: {plain:?}"
    );
    // Shape 5: a distinct count named by the model.
    let counted = kept(
        "上个月有几位销售",
        json!({"measures": [{"name": "销售", "distinct": true}], "timeRange": october}),
    )
    .await;
    assert_eq!(counted["measures"][0]["distinct"], json!(true), "{counted:?}");
    // Shape 6: a second threshold only with the number the question states.
    let two = |second: f64| {
        json!({"measures": [{"name": "销量"}, {"name": "订单数"}], "timeRange": october, "groupBy": ["销售"],
            "having": {"measure": "销量", "op": ">", "value": 120},
            "alsoHaving": [{"measure": "订单数", "op": ">", "value": second}]})
    };
    let both = kept("上个月销量超过120且订单数超过40的销售", two(40.0)).await;
    assert_eq!(both["alsoHaving"][0]["value"], json!(40.0), "{both:?}");
    let invented = plan("上个月销量超过120且订单数超过40的销售", two(45.0)).await;
    let invented_kept = match &invented.plan {
        Plan::Ok { params, .. } => params.get("alsoHaving").cloned(),
        _ => None,
    };
    assert!(
        invented_kept.is_none_or(|t| t[0]["value"] == json!(40.0)),
        "{:?}",
        invented.plan
    );
    // Shape 8: only weekends where the question says so.
    let weekends = json!({"measures": [{"name": "销售额"}], "timeRange": october, "days": "weekend"});
    let said = kept("上个月周末的销售额", weekends.clone()).await;
    assert_eq!(said["days"], json!("weekend"), "{said:?}");
    let all_days = kept("上个月的销售额", weekends).await;
    assert!(all_days.get("days").is_none(), "every day: {all_days:?}");
    let (executor, dir) = demo_metric_executor("metric-model-more-shapes").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    for params in [&asked, &counted, &both, &said] {
        let call = wenshu_contract::bind(tool, params).unwrap();
        let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
        assert!(!result.rows.is_empty(), "{params:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
