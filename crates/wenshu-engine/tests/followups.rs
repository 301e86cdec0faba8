//! Follow-ups keep what the user chose, on both engines: after the user picks one of two same-named entities, a
//! follow-up naming it (or referring to it) uses that ID; a subject ID sent with a request must be an entity of
//! the tool's subject type that the question's name can mean, else the request is rejected with a typed error.

mod model_support;

use std::sync::Arc;

use jiff::civil::date;
use model_support::{demo_entities, model_planner};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::{AskOutcome, Engine};
use wenshu_engine::execute::Executors;
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::resolve::chosen::{SubjectIdError, subject_of_call};
use wenshu_engine::route::Turn;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn entities() -> Arc<EntityCatalogs> {
    demo_entities()
}

fn lexicon() -> Planner {
    model_support::lexicon_planner()
}

fn model(server: &ScriptedChatServer) -> Planner {
    model_planner(server, Arc::new(demo_catalog().unwrap()), entities())
}

fn route(tool: &str, name: Option<&str>, rewritten: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": name.map(|_| "movie"), "subjectName": name, "startDate": null,
               "endDate": null, "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

fn request(question: &str, history: Vec<Turn>, subject_id: Option<&str>) -> AskRequest {
    let mut request = AskRequest::new(question, date(2026, 11, 29));
    request.history = history;
    request.subject_id = subject_id.map(str::to_string);
    request
}

/// The round in which the user chose `id` for the tool's subject, as the history keeps it.
fn chosen_round(question: &str, tool: &str, id: i64) -> Turn {
    let catalog = demo_catalog().unwrap();
    let mut turn = Turn::new(question, "已查询");
    let params = json!({"movieId": id});
    turn.subject = subject_of_call(catalog.get(tool).unwrap(), &entities(), params.as_object().unwrap());
    turn
}

fn movie_id(plan: &Plan) -> Option<Value> {
    match plan {
        Plan::Ok { params, .. } => params.get("movieId").cloned(),
        _ => None,
    }
}

#[tokio::test]
async fn after_a_choice_the_follow_up_uses_that_id_on_the_lexicon_engine() {
    let planner = lexicon();
    let first = planner.plan(&request("英雄上周的票房", vec![], None)).await;
    assert!(matches!(&first.plan, Plan::Ambiguous { candidates, .. } if candidates.len() == 2));
    let chosen = planner.plan(&request("英雄上周的票房", vec![], Some("22"))).await;
    assert_eq!(movie_id(&chosen.plan), Some(json!(22)));

    let history = vec![chosen_round("英雄上周的票房", "movie_box_office", 22)];
    assert_eq!(history[0].subject.as_ref().map(|s| s.id.clone()), Some(json!(22)));
    for follow_up in ["那它的评分呢", "英雄的评分呢"] {
        let planned = planner.plan(&request(follow_up, history.clone(), None)).await;
        assert_eq!(
            movie_id(&planned.plan),
            Some(json!(22)),
            "{follow_up}: {:?}",
            planned.plan
        );
    }
    // Without the choice in the history the same name still asks again: nothing is picked silently.
    let again = planner
        .plan(&request(
            "英雄的评分呢",
            vec![Turn::new("英雄上周的票房", "已查询")],
            None,
        ))
        .await;
    assert_eq!(again.plan.status(), "ambiguous");
}

#[tokio::test]
async fn after_a_choice_the_follow_up_uses_that_id_on_the_model_engine() {
    let server = ScriptedChatServer::start(vec![route("movie_rating", Some("英雄"), "英雄的评分")]).await;
    let history = vec![chosen_round("英雄上周的票房", "movie_box_office", 21)];
    let planned = model(&server).plan(&request("那它的评分呢", history, None)).await;
    assert_eq!(movie_id(&planned.plan), Some(json!(21)), "{:?}", planned.plan);
    let resolve = planned.trace.step("resolve").unwrap();
    assert_eq!(resolve.input_value()["chosenEarlier"], 21);
}

#[tokio::test]
async fn a_subject_id_must_be_one_the_question_can_mean() {
    let planner = lexicon();
    let cases = [
        ("2", "subject_mismatch"),
        ("999", "unknown_subject"),
        ("twenty", "invalid_type"),
    ];
    for (id, code) in cases {
        let planned = planner.plan(&request("英雄上周的票房", vec![], Some(id))).await;
        let Plan::Rejected { error, tool } = &planned.plan else {
            panic!("{id}: expected rejected, got {:?}", planned.plan);
        };
        assert_eq!(
            (tool.as_str(), error.code(), error.value()),
            ("movie_box_office", code, id)
        );
        assert!(error.to_string().contains("subjectId"), "{error}");
    }
    let planned = planner.plan(&request("英雄上周的票房", vec![], Some("2"))).await;
    let Plan::Rejected { error, .. } = &planned.plan else {
        panic!("{:?}", planned.plan);
    };
    let SubjectIdError::NotNamed { allowed, chosen, .. } = error.as_ref() else {
        panic!("{error:?}");
    };
    assert_eq!(chosen, "流浪地球2");
    assert_eq!(allowed.len(), 2);
    // A question that names no subject takes any entity of the type; one whose reference means another does not.
    let planned = planner.plan(&request("这部电影的评分呢", vec![], Some("2"))).await;
    assert_eq!(movie_id(&planned.plan), Some(json!(2)), "{:?}", planned.plan);
    let planned = planner
        .plan(&request(
            "那它的评分呢",
            vec![Turn::new("满江红的评分", "7.8")],
            Some("2"),
        ))
        .await;
    assert_eq!(planned.plan.status(), "rejected");
}

#[tokio::test]
async fn the_engine_rejects_the_request_before_running_anything() {
    let engine = Engine::new(lexicon(), Arc::new(Executors::new()));
    let answer = engine.ask(&request("英雄上周的票房", vec![], Some("2"))).await;
    assert!(
        matches!(&answer.outcome, AskOutcome::Rejected { error, .. } if error.code() == "subject_mismatch"),
        "{:?}",
        answer.outcome
    );
    assert_eq!(answer.outcome.kind(), "rejected");
    assert!(answer.trace.step("execute").is_none());
}
