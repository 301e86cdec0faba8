//! Grounding of a model's metric query: structure names of the model are kept (and checked against the question's
//! demands), facts the question never states are dropped and named. A chat model on loopback (ScriptedChatServer)
//! plays the model; the kept query runs on the demo's SQLite data.

mod model_support;

use model_support::{demo_metric_executor, extract_demo, today, verdict};
use serde_json::{Map, Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::extract::grounding::Verdict;
use wenshu_engine::extract::{ExtractOutcome, Extraction};

async fn extract(tool: &str, reply: Value, question: &str) -> Extraction {
    extract_demo(tool, &reply.to_string(), question).await
}

fn params(extraction: &Extraction) -> &Map<String, Value> {
    match &extraction.outcome {
        ExtractOutcome::Ok { params } => params,
        other => panic!("expected ok, got {other:?}"),
    }
}

fn top_ten() -> Value {
    json!({"measures": [{"name": "票房"}], "timeRange": {"start": "2026-01-01", "end": "2026-12-31"},
        "groupBy": ["影片"], "order": {"measure": "票房", "direction": "desc"}, "limit": 10})
}

#[tokio::test]
async fn the_right_metric_query_is_kept_whole_and_answered() {
    let extraction = extract("box_office_metrics", top_ten(), "今年票房最高的十部电影是哪些").await;
    let params = params(&extraction).clone();
    for key in ["measures", "timeRange", "groupBy", "order", "limit"] {
        assert!(params.contains_key(key), "{key} kept: {params:?}");
        assert!(
            !matches!(verdict(&extraction, key), Verdict::Dropped { .. }),
            "{key}: {:?}",
            extraction.trace.grounding
        );
    }
    assert_eq!(params["order"]["direction"], "desc");
    assert!(matches!(verdict(&extraction, "timeRange"), Verdict::Supported { .. }));

    let (executor, dir) = demo_metric_executor("metric-grounding").await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("box_office_metrics").unwrap();
    let call = wenshu_contract::bind(tool, &params).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    assert_eq!(result.columns, ["影片", "票房"]);
    assert!(!result.rows.is_empty() && result.rows.len() <= 10, "{:?}", result.rows);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_filter_value_the_question_never_names_is_dropped() {
    let reply = json!({"measures": [{"name": "销售额"}], "groupBy": ["产品"],
        "filters": [{"dimension": "地区", "values": ["华东区"]}]});
    let extraction = extract("sales_metrics", reply, "各产品的销售额是多少").await;
    let params = params(&extraction);
    assert!(!params.contains_key("filters"), "{params:?}");
    let Verdict::Dropped { reason } = verdict(&extraction, "filters") else {
        panic!("filters dropped: {:?}", extraction.trace.grounding);
    };
    assert!(reason.contains("华东区"), "{reason}");
    assert!(params.contains_key("groupBy"), "{params:?}");
}

#[tokio::test]
async fn a_filter_value_named_by_a_shorter_spelling_is_kept() {
    let reply = json!({"measures": [{"name": "销售额"}], "filters": [{"dimension": "地区", "values": ["华东区"]}]});
    let extraction = extract("sales_metrics", reply, "华东的销售额是多少").await;
    assert!(
        params(&extraction).contains_key("filters"),
        "{:?}",
        extraction.trace.grounding
    );
}

#[tokio::test]
async fn a_time_range_the_question_never_states_is_dropped() {
    let extraction = extract("box_office_metrics", top_ten(), "票房最高的十部电影是哪些").await;
    let params = params(&extraction);
    assert!(!params.contains_key("timeRange"), "{params:?}");
    assert!(matches!(verdict(&extraction, "timeRange"), Verdict::Dropped { .. }));
    assert!(
        params.contains_key("order") && params.contains_key("limit"),
        "{params:?}"
    );
}

#[tokio::test]
async fn an_order_contradicting_the_question_is_corrected() {
    let extraction = extract("box_office_metrics", top_ten(), "今年票房最低的十部电影是哪些").await;
    assert_eq!(params(&extraction)["order"]["direction"], "asc");
    assert!(matches!(verdict(&extraction, "order"), Verdict::Corrected { .. }));
}

#[tokio::test]
async fn a_limit_the_question_never_states_is_dropped() {
    let extraction = extract("box_office_metrics", top_ten(), "今年票房最高的电影是哪些").await;
    assert!(matches!(verdict(&extraction, "limit"), Verdict::Dropped { .. }));
    assert!(!params(&extraction).contains_key("limit"));
}

#[tokio::test]
async fn a_grain_or_comparison_the_question_contradicts_is_corrected() {
    let reply = json!({"measures": [{"name": "销售额"}], "grain": "day",
        "timeRange": {"start": "2026-01-01", "end": "2026-12-31"}});
    let extraction = extract("sales_metrics", reply, "今年每个月的销售额").await;
    assert_eq!(params(&extraction)["grain"], "month");
    assert!(matches!(verdict(&extraction, "grain"), Verdict::Corrected { .. }));

    let reply = json!({"measures": [{"name": "销售额"}], "compare": {"kind": "year_over_year"},
        "timeRange": {"start": "2026-10-01", "end": "2026-12-31"}});
    let extraction = extract("sales_metrics", reply, "本季度销售额环比怎么样").await;
    assert_eq!(params(&extraction)["compare"]["kind"], "previous_period");
    assert!(matches!(verdict(&extraction, "compare"), Verdict::Corrected { .. }));
}

#[tokio::test]
async fn a_model_name_the_question_does_not_spell_is_kept_unverified() {
    let reply = json!({"measures": [{"name": "销售额"}], "groupBy": ["地区"]});
    let extraction = extract("sales_metrics", reply, "哪个大区卖得最好").await;
    assert!(params(&extraction).contains_key("measures"));
    assert!(matches!(verdict(&extraction, "measures"), Verdict::Unverified { .. }));
}

#[tokio::test]
async fn a_time_range_the_question_states_otherwise_is_corrected_to_its_time_expression() {
    let reply = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-10-02", "end": "2026-10-31"}});
    let extraction = extract("sales_metrics", reply.clone(), "上个月的销售额").await;
    assert_eq!(
        params(&extraction)["timeRange"],
        json!({"start": "2026-10-01", "end": "2026-10-31"})
    );
    assert!(matches!(verdict(&extraction, "timeRange"), Verdict::Corrected { .. }));
    // Of two time expressions, the one the given range overlaps decides; none overlapping, it is dropped.
    let extraction = extract("sales_metrics", reply, "上个月和去年同月的销售额").await;
    assert_eq!(params(&extraction)["timeRange"]["start"], "2026-10-01");
    let reply = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2024-03-01", "end": "2024-03-31"}});
    let extraction = extract("sales_metrics", reply, "上个月和本月的销售额").await;
    assert!(matches!(verdict(&extraction, "timeRange"), Verdict::Dropped { .. }));
}
