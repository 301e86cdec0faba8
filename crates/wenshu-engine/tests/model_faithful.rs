//! The model path keeps a right answer right, against a real chat-completions server on 127.0.0.1: a mode the
//! model inferred is checked against what the question asks for (never replaced by the default), a period in words
//! binds through the time knowledge, an empty answer gets the one re-ask, and an unsupported fact is still dropped.

mod model_support;

use std::sync::Arc;

use jiff::civil::date;
use model_support::{demo_entities, extract_in, model_planner, verdict};
use serde_json::{Value, json};
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::extract::grounding::Verdict;
use wenshu_engine::extract::{ExtractOutcome, Extraction};
use wenshu_engine::pipeline::AskRequest;
use wenshu_engine::plan::Plan;
use wenshu_testkit::{Reply, ScriptedChatServer};

async fn sales(question: &str, replies: Vec<Reply>) -> (Extraction, usize) {
    extract_in(&demo_catalog().unwrap(), "sales_query", question, replies).await
}

fn ok_params(extraction: &Extraction) -> Value {
    match &extraction.outcome {
        ExtractOutcome::Ok { params } => Value::Object(params.clone()),
        other => panic!("expected ok, got {other:?}\ntrace: {:#?}", extraction.trace),
    }
}

#[tokio::test]
async fn a_right_ranking_for_top_three_is_kept() {
    let (extraction, asks) = sales(
        "本月销售额前三名的销售员",
        vec![Reply::content(r#"{"queryType": "ranking", "limit": 3}"#)],
    )
    .await;
    assert_eq!(
        ok_params(&extraction),
        json!({"period": "本月", "queryType": "ranking", "limit": 3})
    );
    assert!(
        matches!(verdict(&extraction, "queryType"), Verdict::Supported { evidence } if evidence.contains("前三")),
        "{:?}",
        verdict(&extraction, "queryType")
    );
    assert_eq!(asks, 1);
}

#[tokio::test]
async fn a_mode_nothing_decides_is_kept_and_marked_unverified() {
    let (extraction, _) = sales(
        "华东区本月的销售情况",
        vec![Reply::content(r#"{"region": "华东", "queryType": "trend"}"#)],
    )
    .await;
    assert_eq!(ok_params(&extraction)["queryType"], "trend");
    assert!(
        matches!(verdict(&extraction, "queryType"), Verdict::Unverified { reason } if reason.contains("queryType"))
    );
}

#[tokio::test]
async fn a_mode_the_question_contradicts_gives_way_to_the_one_it_asks_for() {
    let (extraction, _) = sales(
        "华东区本月的销售明细",
        vec![Reply::content(r#"{"region": "华东", "queryType": "ranking"}"#)],
    )
    .await;
    assert_eq!(ok_params(&extraction)["queryType"], "detail");
    assert!(matches!(
        verdict(&extraction, "queryType"),
        Verdict::Corrected { from, .. } if from == "ranking"
    ));
}

#[tokio::test]
async fn a_mode_is_judged_by_the_catalogs_own_spellings() {
    // Another domain, its modes spelled its own way: top_n (排行) and rows (列表); nothing names the demo.
    let catalog = Catalog::from_value(&json!([{
        "name": "ticket_stats", "description": "客服工单统计",
        "inputSchema": {"type": "object", "properties": {
            "view": {"type": "string", "enum": ["overview", "top_n", "rows"], "default": "overview",
                     "description": "视图：overview(汇总)、top_n(排行)、rows(列表)"},
            "n": {"type": "integer", "default": 10}}}}]))
    .unwrap();
    let (extraction, _) = extract_in(
        &catalog,
        "ticket_stats",
        "投诉最多的前五个渠道",
        vec![Reply::content(r#"{"view": "top_n", "n": 5}"#)],
    )
    .await;
    assert_eq!(ok_params(&extraction), json!({"view": "top_n", "n": 5}));
    assert!(matches!(verdict(&extraction, "view"), Verdict::Supported { .. }));
}

#[tokio::test]
async fn a_period_in_words_binds_to_the_enum_value_of_the_same_days() {
    for (question, words, value) in [
        ("这个月华东区的销售额", "这个月", "本月"),
        ("上个季度华东区的销售额", "上个季度", "上季度"),
        ("Q3华东区的销售额", "Q3", "上季度"),
    ] {
        let answer = json!({"region": "华东", "period": words}).to_string();
        let (extraction, _) = sales(question, vec![Reply::content(answer)]).await;
        assert_eq!(ok_params(&extraction)["period"], value, "{question}");
        assert!(
            extraction
                .trace
                .coercions
                .iter()
                .any(|c| c.param == "period" && c.rule == "period_words" && c.from == words),
            "{question}: {:?}",
            extraction.trace.coercions
        );
    }
    let (extraction, _) = sales(
        "去年华东区的销售额",
        vec![Reply::content(r#"{"region": "华东", "period": "去年"}"#)],
    )
    .await;
    assert!(
        matches!(&extraction.outcome, ExtractOutcome::Unsupported { param, .. } if param == "period"),
        "{:?}",
        extraction.outcome
    );
}

#[tokio::test]
async fn an_empty_answer_gets_the_one_re_ask() {
    let (extraction, asks) = sales(
        "华东区本月的销售额",
        vec![Reply::content(""), Reply::content(r#"{"region": "华东"}"#)],
    )
    .await;
    assert_eq!(ok_params(&extraction)["region"], "华东");
    assert_eq!(asks, 2);
    assert!(extraction.trace.calls[0].empty_answer);
    let reask = &extraction.trace.calls[1].messages;
    assert!(reask.last().is_some_and(|m| m.content.contains("empty")), "{reask:?}");
    let (extraction, asks) = sales("华东区本月的销售额", vec![Reply::content(""), Reply::content("")]).await;
    assert!(
        matches!(&extraction.outcome, ExtractOutcome::Failed { reason } if reason.contains("re-ask")),
        "{:?}",
        extraction.outcome
    );
    assert_eq!(asks, 2);
}

#[tokio::test]
async fn an_unsupported_name_or_filter_is_still_dropped() {
    let (extraction, _) = sales(
        "华东区本月的销售额",
        vec![Reply::content(
            r#"{"region": "华东", "salesPerson": "张伟", "product": "企业版", "limit": 7}"#,
        )],
    )
    .await;
    let params = ok_params(&extraction);
    assert_eq!(params.get("salesPerson"), None);
    assert_eq!(params.get("product"), None);
    assert_eq!(params["limit"], 10);
    for param in ["salesPerson", "product", "limit"] {
        assert!(
            matches!(verdict(&extraction, param), Verdict::Dropped { .. }),
            "{param}"
        );
    }
}

#[tokio::test]
async fn the_planner_keeps_the_models_ranking_and_re_asks_an_empty_route() {
    let route = json!({"toolCode": "sales_query", "subjectType": null, "subjectName": null, "startDate": "2026-11-01",
                       "endDate": "2026-11-30", "rewrittenQuestion": "本月销售前三名"})
    .to_string();
    let server = ScriptedChatServer::start(vec![
        Reply::content(""),
        Reply::content(route),
        Reply::content(r#"{"queryType": "ranking", "limit": 3}"#),
    ])
    .await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    let planned = planner
        .plan(&AskRequest::new("本月销售前三名", date(2026, 11, 29)))
        .await;
    let Plan::Ok { params, .. } = &planned.plan else {
        panic!("expected ok, got {:?}", planned.plan);
    };
    assert_eq!(
        Value::Object(params.clone()),
        json!({"period": "本月", "queryType": "ranking", "limit": 3})
    );
    assert_eq!(server.request_count(), 3);
}
