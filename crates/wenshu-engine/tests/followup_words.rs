//! A follow-up is read in full, on both engines: the words the user writes this round that the earlier question
//! has no place for — a value the data does not hold, a name nobody has, a measure no tool declares — are carried
//! into the rewrite and judged, never dropped so that the earlier question is answered again; a round that
//! stopped is not continued; a follow-up that only swaps a value still plans.

mod model_support;

use std::sync::Arc;

use jiff::civil::date;
use model_support::{demo_entities, model_planner};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::pipeline::{AskRequest, Planned, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::route::Turn;
use wenshu_testkit::{Reply, ScriptedChatServer};

const FIRST: &str = "本月华南区的销量";

fn lexicon() -> Planner {
    model_support::lexicon_planner()
}

fn request(question: &str, history: Vec<Turn>) -> AskRequest {
    let mut request = AskRequest::new(question, date(2026, 11, 29));
    request.history = history;
    request
}

fn answered_first() -> Vec<Turn> {
    vec![Turn::new(FIRST, "本月华南的销量 120 套")]
}

/// The region an `ok` plan filters on, when it is one.
fn region_of(planned: &Planned) -> Option<String> {
    let Plan::Ok { params, .. } = &planned.plan else {
        return None;
    };
    let region = params.get("region").and_then(Value::as_str).map(str::to_string);
    let filtered = params
        .get("filters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|f| f["dimension"] == "地区" || f["dimension"] == "region")
        .and_then(|f| {
            f["values"]
                .get(0)
                .or(f.get("value"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    region.or(filtered)
}

#[tokio::test]
async fn words_the_earlier_question_has_no_place_for_are_never_dropped_on_the_lexicon_engine() {
    let planner = lexicon();
    for follow_up in ["那东三省呢", "那王小明呢", "那净利润呢"] {
        let planned = planner.plan(&request(follow_up, answered_first())).await;
        assert!(
            !matches!(planned.plan, Plan::Ok { .. }),
            "{follow_up} after {FIRST} answered {:?} (rewritten {})",
            planned.plan,
            planned.rewritten_question
        );
        let carried = follow_up.trim_start_matches('那').trim_end_matches('呢');
        assert!(
            planned.rewritten_question.contains(carried),
            "the rewrite drops 「{carried}」: {}",
            planned.rewritten_question
        );
    }
    let swapped = planner.plan(&request("那华北呢", answered_first())).await;
    assert_eq!(region_of(&swapped).as_deref(), Some("华北"), "{:?}", swapped.plan);
}

#[tokio::test]
async fn a_round_that_stopped_is_not_continued() {
    let planner = lexicon();
    let mut history = answered_first();
    let mut stopped = Turn::new("那东三省呢", "没有「东三省」这个地区");
    stopped.stopped = true;
    history.push(stopped);
    let planned = planner.plan(&request("那华北呢", history)).await;
    assert_eq!(region_of(&planned).as_deref(), Some("华北"), "{:?}", planned.plan);
    assert!(
        !planned.rewritten_question.contains("东三省"),
        "the stopped round's words came back: {}",
        planned.rewritten_question
    );
}

#[tokio::test]
async fn a_model_rewrite_that_drops_the_new_word_is_not_trusted() {
    // The model carries the earlier question over whole and drops 东三省: its call is the earlier one.
    let route = json!({"toolCode": "sales_query", "subjectType": null, "subjectName": null,
        "startDate": "2026-11-01", "endDate": "2026-11-30", "rewrittenQuestion": FIRST})
    .to_string();
    let extract = json!({"region": "华南", "queryType": "summary"}).to_string();
    let server = ScriptedChatServer::start(vec![
        Reply::content(route.clone()),
        Reply::content(extract.clone()),
        Reply::content(route),
        Reply::content(extract),
    ])
    .await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    let planned = planner.plan(&request("那东三省呢", answered_first())).await;
    assert_ne!(
        region_of(&planned).as_deref(),
        Some("华南"),
        "the earlier question was answered again: {:?}",
        planned.plan
    );
    assert!(!matches!(planned.plan, Plan::Ok { .. }), "{:?}", planned.plan);
}

/// The history of one answered round.
fn answered(question: &str) -> Vec<Turn> {
    vec![Turn::new(question, "已回答")]
}

#[tokio::test]
async fn a_question_that_names_its_measure_is_new_and_inherits_no_filter() {
    let planner = lexicon();
    let planned = planner
        .plan(&request("本月专业版的销量", answered("上个月华北区的销量")))
        .await;
    assert!(matches!(planned.plan, Plan::Ok { .. }), "{:?}", planned.plan);
    assert_eq!(
        region_of(&planned),
        None,
        "华北 leaked into a new question: {:?}",
        planned.plan
    );
    assert!(
        !planned.rewritten_question.contains("华北"),
        "{}",
        planned.rewritten_question
    );
}

#[tokio::test]
async fn a_ranking_or_grouping_after_a_subject_is_about_every_subject() {
    let planner = lexicon();
    let planned = planner
        .plan(&request("本月各类型影片的票房", answered("长津湖最近7天的票房")))
        .await;
    let Plan::Ok { params, .. } = &planned.plan else {
        panic!("{:?}", planned.plan);
    };
    let text = serde_json::to_string(params).unwrap_or_default();
    assert!(
        !text.contains("长津湖") && !text.contains("movieId"),
        "the earlier subject leaked: {text}"
    );
    assert!(
        !planned.rewritten_question.contains("长津湖"),
        "{}",
        planned.rewritten_question
    );
}

#[tokio::test]
async fn a_follow_up_naming_another_person_replaces_the_earlier_one() {
    let planner = lexicon();
    let planned = planner.plan(&request("那黄强呢", answered("李娜上个月的销售额"))).await;
    let Plan::Ok { params, .. } = &planned.plan else {
        panic!("{:?}", planned.plan);
    };
    let text = serde_json::to_string(params).unwrap_or_default();
    assert!(
        text.contains("黄强") && !text.contains("李娜"),
        "{text} (rewritten {})",
        planned.rewritten_question
    );
}

#[tokio::test]
async fn the_route_shows_the_edit_a_follow_up_makes_and_keeps_the_rest() {
    let planner = lexicon();
    let history = vec![Turn::new("上个月各地区的销售额", "华东 120 万……")];
    let planned = planner.plan(&request("那按产品看呢", history)).await;
    let route = planned.trace.step("route").unwrap().output_value();
    let edit = &route["evidence"]["edit"];
    assert_eq!(edit["of"], "上个月各地区的销售额", "{route}");
    let changes = edit["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "only the grouping changes: {changes:?}");
    assert_eq!(changes[0]["part"], "grouping");
    assert_eq!(changes[0]["replaced"], "各地区");
    assert!(
        planned.rewritten_question.starts_with("上个月"),
        "{}",
        planned.rewritten_question
    );
    let own = planner.plan(&request("上个月各地区的销售额", vec![])).await;
    let route = own.trace.step("route").unwrap().output_value();
    assert!(
        route["evidence"]["edit"].is_null(),
        "a question of its own edits nothing: {route}"
    );
}

#[tokio::test]
async fn a_bare_grouping_edits_the_earlier_question() {
    let planner = lexicon();
    let history = vec![Turn::new("上个月各地区的订单数", "……")];
    let planned = planner.plan(&request("按产品呢", history)).await;
    let Plan::Ok { params, .. } = &planned.plan else {
        panic!("{:?}", planned.plan)
    };
    assert_eq!(params["groupBy"], json!(["产品"]), "{params:?}");
    assert_eq!(params["timeRange"], json!({"start": "2026-10-01", "end": "2026-10-31"}));
    assert_eq!(params["measures"], json!([{"name": "订单数"}]));
}

#[tokio::test]
async fn a_number_beyond_a_parameters_range_is_the_users_to_change() {
    let planned = lexicon().plan(&request("本月华东区的销售明细前200条", vec![])).await;
    assert!(
        matches!(&planned.plan, Plan::Unsupported { param, value, .. } if param == "limit" && value == "200"),
        "{:?}",
        planned.plan
    );
    let engine = wenshu_engine::answer::Engine::new(lexicon(), Arc::new(wenshu_engine::execute::Executors::new()));
    let answer = engine.ask(&request("本月华东区的销售明细前200条", vec![])).await;
    let wenshu_engine::answer::AskOutcome::Stopped { reasons, audience, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    assert_eq!(*audience, wenshu_engine::plan::Audience::User, "{reasons:?}");
    assert!(
        reasons[0].contains("1～100") && reasons[0].contains("200"),
        "{reasons:?}"
    );
    let within = lexicon().plan(&request("本月华东区的销售明细前20条", vec![])).await;
    assert_eq!(within.plan.status(), "ok", "{:?}", within.plan);
}
