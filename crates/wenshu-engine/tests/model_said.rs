//! With a model, a metric query is checked against what the user said, never against the router's rewrite
//! (issue 23): dates the rewrite moved by a day are corrected from the question's time expression, and a filter the
//! user named survives a rewrite that names the movie by its ID. The model is a scripted chat server on loopback;
//! the planned query runs on the demo's SQLite data.

mod model_support;

use std::sync::Arc;

use model_support::{demo_entities, demo_metric_executor, model_planner, today};
use serde_json::{Map, Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::pipeline::{AskRequest, Planned};
use wenshu_engine::plan::Plan;
use wenshu_engine::route::Turn;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn route(tool: &str, start: &str, end: &str, rewritten: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": null, "subjectName": null, "startDate": start, "endDate": end,
               "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

async fn plan(replies: Vec<Reply>, question: &str, history: Vec<Turn>) -> Planned {
    let server = ScriptedChatServer::start(replies).await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    let mut request = AskRequest::new(question, today());
    request.history = history;
    planner.plan(&request).await
}

fn params(planned: &Planned) -> &Map<String, Value> {
    match &planned.plan {
        Plan::Ok { params, .. } => params,
        other => panic!(
            "expected a call, got {other:?}\ntrace: {:#?}",
            planned.trace.step("extract")
        ),
    }
}

/// The grounding check of `param` in the extract step's trace.
fn check(planned: &Planned, param: &str) -> Value {
    let extract = planned.trace.step("extract").unwrap().output_value();
    let grounding = &extract["trace"]["grounding"];
    grounding
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["param"] == param))
        .cloned()
        .unwrap_or_else(|| panic!("no check of {param}: {grounding:#}"))
}

/// Runs a metric call on the demo data: its rows.
async fn run(tool: &str, params: &Map<String, Value>) -> Vec<Vec<Value>> {
    let (executor, dir) = demo_metric_executor(&format!("model-said-{tool}")).await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get(tool).unwrap();
    let call = wenshu_contract::bind(tool, params).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today())).await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
    result.rows
}

#[tokio::test]
async fn a_metric_querys_dates_off_by_a_day_are_corrected_from_the_question() {
    // The model's rewrite states its own (wrong) days, and its query repeats them: the user said 上个月.
    let rewritten = "2026年10月2日至10月31日的销售额是多少";
    let replies = vec![
        route("sales_metrics", "2026-10-02", "2026-10-31", rewritten),
        Reply::content(
            json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-10-02", "end": "2026-10-31"}})
                .to_string(),
        ),
    ];
    let planned = plan(replies, "上个月的销售额是多少", vec![]).await;
    let params = params(&planned);
    assert_eq!(
        params["timeRange"],
        json!({"start": "2026-10-01", "end": "2026-10-31"}),
        "{params:?}"
    );
    let checked = check(&planned, "timeRange");
    assert_eq!(checked["verdict"], "corrected", "{checked:#}");
    assert!(checked["evidence"].as_str().unwrap().contains("上个月"), "{checked:#}");
    // The rewrite stays what the model understood.
    assert_eq!(planned.rewritten_question, rewritten);

    // The corrected query answers the whole month: more than the query the model wrote.
    let asked = run("sales_metrics", params).await;
    let mut written = params.clone();
    written.insert("timeRange".into(), json!({"start": "2026-10-02", "end": "2026-10-31"}));
    let wrong = run("sales_metrics", &written).await;
    let amount = |rows: &[Vec<Value>]| rows[0][0].as_f64().unwrap();
    assert!(amount(&asked) > amount(&wrong), "{asked:?} vs {wrong:?}");
}

#[tokio::test]
async fn a_filter_survives_a_rewrite_naming_the_movie_by_its_id() {
    let replies = vec![
        route(
            "box_office_metrics",
            "2026-10-01",
            "2026-10-31",
            "影片ID 3 在上个月的票房是多少",
        ),
        Reply::content(
            json!({"measures": [{"name": "票房"}], "filters": [{"dimension": "影片", "values": ["满江红"]}],
                   "timeRange": {"start": "2026-10-01", "end": "2026-10-31"}})
            .to_string(),
        ),
    ];
    let planned = plan(replies, "满江红上个月的票房是多少", vec![]).await;
    let params = params(&planned);
    assert_eq!(
        params.get("filters"),
        Some(&json!([{"dimension": "影片", "values": ["满江红"]}])),
        "{params:?}"
    );
    assert_eq!(check(&planned, "filters")["verdict"], "supported");

    // The movie's own box office, not every movie's.
    let one = run("box_office_metrics", params).await;
    let mut all = params.clone();
    all.remove("filters");
    let every = run("box_office_metrics", &all).await;
    let revenue = |rows: &[Vec<Value>]| rows.last().and_then(|r| r.last()).and_then(Value::as_f64).unwrap();
    assert!(revenue(&one) < revenue(&every), "{one:?} vs {every:?}");
}

#[tokio::test]
async fn a_follow_up_keeps_the_earlier_rounds_values_and_its_own_dates() {
    // 那上个月呢 after a question about 满江红: the movie is said in the earlier round, the month in this one.
    let replies = vec![
        route(
            "box_office_metrics",
            "2026-10-01",
            "2026-10-31",
            "影片ID 3 在上个月的票房",
        ),
        Reply::content(
            json!({"measures": [{"name": "票房"}], "filters": [{"dimension": "影片", "values": ["满江红"]}],
                   "timeRange": {"start": "2026-10-02", "end": "2026-10-31"}})
            .to_string(),
        ),
    ];
    let history = vec![Turn::new("满江红这个月的票房", "满江红这个月的票房 → 票房=…")];
    let planned = plan(replies, "那上个月呢", history).await;
    let params = params(&planned);
    assert!(params.contains_key("filters"), "{params:?}");
    assert_eq!(params["timeRange"], json!({"start": "2026-10-01", "end": "2026-10-31"}));
}

#[tokio::test]
async fn a_place_the_rewrite_drops_is_still_read_from_the_users_words() {
    // The user names a city the data does not have; the model routes to the sales tool and rewrites the question
    // without it. Coverage reads the user's words: 杭州 is unread, so the national total is not the answer.
    let replies = vec![
        route("sales_query", "", "", "本月的销售额是多少"),
        Reply::content(json!({"period": "本月", "queryType": "summary"}).to_string()),
    ];
    let planned = plan(replies, "杭州本月的销售额是多少", vec![]).await;
    match &planned.plan {
        Plan::Ok { .. } => panic!("answered as the national total: {:?}", planned.plan),
        other => {
            let text = format!("{other:?}");
            assert!(text.contains("杭州"), "the stop names the unread word: {text}");
        }
    }
}
