//! The planner with the model engine against a real loopback chat server: each plan outcome and each check of
//! seed 003 §五.

mod model_support;

use std::sync::Arc;

use jiff::civil::date;
use model_support::{demo_entities, model_planner};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::pipeline::{AskRequest, Planned, Planner};
use wenshu_engine::plan::{Audience, Plan};
use wenshu_engine::route::Turn;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn planner(server: &ScriptedChatServer, disabled: &[&str]) -> Planner {
    model_planner(server, Arc::new(demo_catalog().unwrap()), demo_entities())
        .with_disabled(disabled.iter().map(|s| s.to_string()))
}

fn route(tool: Option<&str>, name: Option<&str>, start: Option<&str>, end: Option<&str>, rewritten: &str) -> Reply {
    let subject_type = name.map(|_| "movie");
    Reply::content(
        json!({"toolCode": tool, "subjectType": subject_type, "subjectName": name, "startDate": start, "endDate": end,
               "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

async fn plan(
    replies: Vec<Reply>,
    question: &str,
    history: Vec<Turn>,
    subject_id: Option<&str>,
) -> (Planned, ScriptedChatServer) {
    plan_with(replies, question, history, subject_id, &[]).await
}

async fn plan_with(
    replies: Vec<Reply>,
    question: &str,
    history: Vec<Turn>,
    subject_id: Option<&str>,
    disabled: &[&str],
) -> (Planned, ScriptedChatServer) {
    let server = ScriptedChatServer::start(replies).await;
    let request = AskRequest {
        question: question.into(),
        history,
        today: date(2026, 11, 29),
        subject_id: subject_id.map(str::to_string),
        step_sink: None,
        viewer: wenshu_engine::scope::Viewer::operator(),
    };
    let planned = planner(&server, disabled).plan(&request).await;
    (planned, server)
}

fn steps(planned: &Planned) -> Vec<&str> {
    planned.trace.steps.iter().map(|s| s.step).collect()
}

#[tokio::test]
async fn a_sales_question_routes_then_extracts() {
    let (planned, server) = plan(
        vec![
            route(
                Some("sales_query"),
                None,
                Some("2026-11-01"),
                Some("2026-11-30"),
                "华东区本月的销售额是多少",
            ),
            Reply::content(r#"{"region": "华东"}"#),
        ],
        "华东区本月的销售额是多少",
        vec![],
        None,
    )
    .await;
    assert_eq!(
        planned.plan,
        Plan::Ok {
            tool: "sales_query".into(),
            params: json!({"region": "华东", "period": "本月", "queryType": "summary", "limit": 10})
                .as_object()
                .cloned()
                .unwrap()
        }
    );
    assert_eq!(steps(&planned), ["route", "check", "fill", "extract", "coverage"]);
    assert_eq!(server.requests().len(), 2);
    let route_step = planned.trace.step("route").unwrap();
    assert!(route_step.tokens.is_some());
    let system = server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("2026-11-29") && system.contains("sales_query") && !system.contains("text_to_sql"));
}

#[tokio::test]
async fn a_movie_is_resolved_by_code_and_the_model_fills_nothing() {
    let (planned, server) = plan(
        vec![route(
            Some("movie_box_office"),
            Some("《流浪地球2》"),
            Some("2026-11-23"),
            Some("2026-11-29"),
            "流浪地球2最近7天的每日票房",
        )],
        "《流浪地球2》最近7天的每日票房",
        vec![],
        None,
    )
    .await;
    let expected = json!({"movieId": 2, "startDate": "2026-11-23", "endDate": "2026-11-29"});
    assert_eq!(
        planned.plan,
        Plan::Ok {
            tool: "movie_box_office".into(),
            params: expected.as_object().cloned().unwrap()
        }
    );
    assert_eq!(server.requests().len(), 1, "only the route call");
    let check = planned.trace.step("check").unwrap();
    assert!(check.decision.contains("cleaned"), "{}", check.decision);
    assert!(planned.trace.step("resolve").unwrap().decision.contains("exact"));
}

#[tokio::test]
async fn several_matches_are_candidates_never_the_first() {
    let (planned, _server) = plan(
        vec![route(
            Some("movie_box_office"),
            Some("英雄"),
            None,
            None,
            "英雄上周的票房",
        )],
        "英雄上周的票房",
        vec![],
        None,
    )
    .await;
    let Plan::Ambiguous { candidates, .. } = &planned.plan else {
        panic!("{:?}", planned.plan)
    };
    let ids: Vec<Value> = candidates.iter().map(|c| c.entity.id.clone()).collect();
    assert_eq!(ids, [json!(21), json!(22)]);
    assert!(candidates.iter().all(|c| c.entity.attributes.contains_key("year")));
}

#[tokio::test]
async fn a_chosen_subject_skips_resolution() {
    let (planned, _server) = plan(
        vec![route(Some("movie_rating"), Some("英雄"), None, None, "英雄的评分")],
        "英雄的评分",
        vec![],
        Some("22"),
    )
    .await;
    assert_eq!(
        planned.plan,
        Plan::Ok {
            tool: "movie_rating".into(),
            params: json!({"movieId": 22}).as_object().cloned().unwrap()
        }
    );
    assert!(planned.trace.step("resolve").unwrap().decision.contains("caller chose"));
}

#[tokio::test]
async fn an_unknown_name_is_not_found() {
    let (planned, _server) = plan(
        vec![route(
            Some("movie_box_office"),
            Some("战狼3"),
            None,
            None,
            "战狼3的票房",
        )],
        "战狼3的票房",
        vec![],
        None,
    )
    .await;
    assert_eq!(
        planned.plan,
        Plan::NotFound {
            tool: "movie_box_office".into(),
            name: "战狼3".into()
        }
    );
}

#[tokio::test]
async fn unknown_or_disabled_tools_take_the_fallback_path() {
    let (planned, _server) = plan(
        vec![route(Some(" sales_delete "), None, None, None, "删掉销售数据")],
        "删掉销售数据",
        vec![],
        None,
    )
    .await;
    assert!(
        matches!(&planned.plan, Plan::Fallback { tool: Some(t), reason, .. } if t == "text_to_sql" && reason.contains("sales_delete"))
    );
    let check = planned.trace.step("check").expect("a check step");
    assert!(
        check.decision.contains("sales_delete")
            && check
                .decision_zh
                .as_deref()
                .is_some_and(|zh| zh.contains("sales_delete") && zh.contains("未")),
        "the check's notes in both languages: {check:?}"
    );
    let (planned, _server) = plan_with(
        vec![route(Some("movie_rating"), Some("满江红"), None, None, "满江红的评分")],
        "满江红的评分",
        vec![],
        None,
        &["movie_rating"],
    )
    .await;
    assert!(matches!(&planned.plan, Plan::Fallback { reason, .. } if reason.contains("movie_rating")));
    let (planned, _server) = plan_with(
        vec![route(None, None, None, None, "今年票房最高的十部电影是哪些")],
        "今年票房最高的十部电影是哪些",
        vec![],
        None,
        &["text_to_sql"],
    )
    .await;
    assert!(
        matches!(&planned.plan, Plan::Fallback { tool: None, .. }),
        "{:?}",
        planned.plan
    );
    let routed = planned.trace.step("route").expect("a route step");
    assert_eq!(
        (routed.decision.as_str(), routed.decision_zh.as_deref()),
        ("tool (none)", Some("未选中工具"))
    );
}

#[tokio::test]
async fn a_subject_tool_without_a_subject_falls_back() {
    let (planned, _server) = plan(
        vec![route(
            Some("movie_box_office"),
            None,
            None,
            None,
            "今年票房最高的十部电影是哪些",
        )],
        "今年票房最高的十部电影是哪些",
        vec![],
        None,
    )
    .await;
    assert!(
        matches!(&planned.plan, Plan::Fallback { reason, question, .. } if reason.contains("movie") && question == "今年票房最高的十部电影是哪些")
    );
}

#[tokio::test]
async fn invalid_dates_are_treated_as_not_given_and_the_default_range_applies() {
    let (planned, _server) = plan(
        vec![route(
            Some("movie_box_office"),
            Some("满江红"),
            Some("soon"),
            Some("30/30"),
            "",
        )],
        "满江红的票房",
        vec![],
        None,
    )
    .await;
    let Plan::Ok { params, .. } = &planned.plan else {
        panic!("{:?}", planned.plan)
    };
    assert_eq!(
        (params["startDate"].clone(), params["endDate"].clone()),
        (json!("2026-11-23"), json!("2026-11-29"))
    );
    let notes = &planned.trace.step("check").unwrap().decision;
    assert!(
        notes.contains("not an ISO date") && notes.contains("rewrittenQuestion is empty"),
        "{notes}"
    );
    assert_eq!(planned.rewritten_question, "满江红的票房");
}

#[tokio::test]
async fn an_unreadable_route_falls_back_and_a_dead_model_stops_for_the_admin() {
    let (planned, _server) = plan(vec![Reply::content("我觉得应该用销售工具")], "华东销售额", vec![], None).await;
    assert!(matches!(&planned.plan, Plan::Fallback { reason, .. } if reason.contains("JSON")));
    let (planned, _server) = plan(vec![Reply::status(500, "down")], "华东销售额", vec![], None).await;
    assert!(
        matches!(&planned.plan, Plan::Stopped { step, audience: Audience::Admin, .. } if step == "route"),
        "{:?}",
        planned.plan
    );
}

#[tokio::test]
async fn history_is_capped_at_three_rounds_and_the_rewrite_is_extracted_from() {
    // The routed name must come from the question or the last three rounds: the newest round named it.
    let history: Vec<Turn> = (1..=5)
        .map(|i| Turn::new(format!("第{i}轮问题"), format!("第{i}轮结论")))
        .map(|t| match t.answer.as_str() {
            "第5轮结论" => Turn::new(t.question, "第5轮结论：《长津湖》"),
            _ => t,
        })
        .collect();
    let (planned, server) = plan(
        vec![route(
            Some("movie_rating"),
            Some("长津湖"),
            None,
            None,
            "长津湖的评分是多少",
        )],
        "那它的评分呢",
        history,
        None,
    )
    .await;
    assert_eq!(
        planned.plan,
        Plan::Ok {
            tool: "movie_rating".into(),
            params: json!({"movieId": 4}).as_object().cloned().unwrap()
        }
    );
    let sent: String = server.requests()[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(sent.contains("那它的评分呢"), "the user's own words go to the router");
    assert!(!sent.contains("第2轮问题") && sent.contains("第3轮问题") && sent.contains("第5轮结论"));
    assert_eq!(planned.rewritten_question, "长津湖的评分是多少");
}

#[tokio::test]
async fn missing_and_unsupported_come_from_extraction() {
    let (planned, _server) = plan(
        vec![
            route(Some("query_order"), None, None, None, "订单 A-9 现在什么状态"),
            Reply::content(r#"{"orderId": "A-9"}"#),
        ],
        "订单 A-9 现在什么状态",
        vec![],
        None,
    )
    .await;
    assert_eq!(
        planned.plan,
        Plan::Missing {
            tool: "query_order".into(),
            params: vec!["address".into()]
        }
    );
    let (planned, _server) = plan(
        vec![
            route(
                Some("sales_query"),
                None,
                Some("2025-01-01"),
                Some("2025-12-31"),
                "去年华东的销售额",
            ),
            Reply::content(r#"{"region": "华东", "period": "本年"}"#),
        ],
        "去年华东的销售额",
        vec![],
        None,
    )
    .await;
    assert!(
        matches!(&planned.plan, Plan::Unsupported { param, .. } if param == "period"),
        "{:?}",
        planned.plan
    );
}
