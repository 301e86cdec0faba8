//! The conditions the model says a tool cannot express (`unmatched`, issue 23): a word the user said makes the
//! tool's call not the answer — the extraction is `unsupported`, naming it —; a word only the model wrote is
//! ignored; an empty or absent list changes nothing. The model is a scripted chat server on loopback.

mod model_support;

use std::sync::Arc;

use model_support::{client_with, demo_entities, model_planner, today};
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::{AskOutcome, Engine};
use wenshu_engine::execute::Executors;
use wenshu_engine::extract::ModelExtractor;
use wenshu_engine::pipeline::{AskRequest, Planned, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::route::model::ModelRouter;
use wenshu_llm::config::OutputMode;
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn route(tool: &str, rewritten: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": null, "subjectName": null, "startDate": "", "endDate": "",
               "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

async fn plan(replies: Vec<Reply>, question: &str) -> Planned {
    let server = ScriptedChatServer::start(replies).await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    planner.plan(&AskRequest::new(question, today())).await
}

/// The extract step of the routed tool (the first one): its decision and its extraction.
fn extract_step(planned: &Planned) -> (&str, Value) {
    let step = planned.trace.step("extract").expect("an extract step");
    (step.decision.as_str(), step.output_value())
}

/// The routed tool's call, with its extraction in the panic message.
fn params(planned: &Planned) -> &serde_json::Map<String, Value> {
    match &planned.plan {
        Plan::Ok { tool, params } if tool == "sales_query" => params,
        other => panic!(
            "expected a call of sales_query, got {other:?}\n{:#?}",
            extract_step(planned)
        ),
    }
}

const HANGZHOU: &str = "杭州本月的销售额是多少";

fn hangzhou_replies() -> Vec<Reply> {
    vec![
        route("sales_query", HANGZHOU),
        Reply::content(json!({"period": "本月", "queryType": "summary", "unmatched": ["杭州"]}).to_string()),
        // The metric tool the planner tries next cannot express it either.
        Reply::content(
            json!({"measures": [{"name": "销售额"}], "timeRange": {"start": "2026-11-01", "end": "2026-11-29"},
                   "unmatched": ["杭州"]})
            .to_string(),
        ),
    ]
}

#[tokio::test]
async fn a_condition_the_user_said_and_the_tool_cannot_express_is_not_answered() {
    let planned = plan(hangzhou_replies(), HANGZHOU).await;
    let (decision, extraction) = extract_step(&planned);
    assert_eq!(decision, "unsupported", "{extraction:#}");
    assert_eq!(
        extraction["outcome"],
        json!({"status": "unsupported", "param": "unmatched", "value": "杭州"})
    );
    assert_eq!(
        extraction["trace"]["unmatched"],
        json!([{"word": "杭州", "verdict": "said"}])
    );
    match &planned.plan {
        Plan::Ok { tool, .. } => panic!("answered by {tool}: {:?}", planned.plan),
        other => assert!(
            format!("{other:?}").contains("杭州"),
            "the reason names the word: {other:?}"
        ),
    }
    // The plan is the routed tool's own refusal, naming the word (the metric tool refused it too).
    assert!(
        matches!(&planned.plan, Plan::Unsupported { tool, param, value }
            if tool == "sales_query" && param == "unmatched" && value == "杭州"),
        "{:?}",
        planned.plan
    );
}

#[tokio::test]
async fn the_stop_names_each_word_in_chinese_and_english() {
    let server = ScriptedChatServer::start(hangzhou_replies()).await;
    let planner = model_planner(&server, Arc::new(demo_catalog().unwrap()), demo_entities());
    // No fallback model: the stop is the user's, naming the word.
    let engine = Engine::new(planner, Arc::new(Executors::new()));
    let answer = engine.ask(&AskRequest::new(HANGZHOU, today())).await;
    let AskOutcome::Stopped { messages, .. } = &answer.outcome else {
        panic!("expected a stop, got {:?}", answer.outcome);
    };
    let first = &messages[0];
    assert_eq!(first.code.as_str(), "tool.unsupported_value");
    assert!(first.zh.contains("「杭州」"), "{}", first.zh);
    assert!(first.en.contains("“杭州”"), "{}", first.en);
    assert_eq!(first.params["words"], json!(["杭州"]));
    assert!(answer.trace.step("execute").is_none(), "nothing ran");
}

#[tokio::test]
async fn a_word_the_user_never_said_is_ignored_and_noted() {
    // The model's rewrite invents 火星 and lists it: the user never said it, so it restricts nothing.
    let question = "本月华东区的销售额是多少";
    let replies = vec![
        route("sales_query", "火星上本月华东区的销售额是多少"),
        Reply::content(
            json!({"region": "华东", "period": "本月", "queryType": "summary", "unmatched": ["火星"]}).to_string(),
        ),
    ];
    let planned = plan(replies, question).await;
    let params = params(&planned);
    assert_eq!(params["region"], "华东");
    assert!(!params.contains_key("unmatched"), "never an argument: {params:?}");
    let (decision, extraction) = extract_step(&planned);
    assert_eq!(decision, "ok");
    assert_eq!(
        extraction["trace"]["unmatched"],
        json!([{"word": "火星", "verdict": "not_said"}])
    );
}

#[tokio::test]
async fn an_empty_or_absent_list_changes_nothing() {
    let question = "本月华东区的销售额是多少";
    let mut calls = Vec::new();
    for unmatched in [None, Some(json!([])), Some(Value::Null)] {
        let mut answer = json!({"region": "华东", "period": "本月", "queryType": "summary"});
        if let Some(list) = &unmatched {
            answer["unmatched"] = list.clone();
        }
        let replies = vec![route("sales_query", question), Reply::content(answer.to_string())];
        let planned = plan(replies, question).await;
        let (_, extraction) = extract_step(&planned);
        assert!(extraction["trace"].get("unmatched").is_none(), "{extraction:#}");
        assert_eq!(
            extraction["trace"]["calls"].as_array().map(Vec::len),
            Some(1),
            "no re-ask for an unknown key: {unmatched:?}"
        );
        calls.push(params(&planned).clone());
    }
    assert!(calls.windows(2).all(|w| w[0] == w[1]), "{calls:?}");
}

#[tokio::test]
async fn the_decoding_schema_sent_asks_for_the_optional_list() {
    let question = "本月华东区的销售额是多少";
    let server = ScriptedChatServer::start(vec![
        route("sales_query", question),
        Reply::content(json!({"region": "华东", "period": "本月", "queryType": "summary"}).to_string()),
    ])
    .await;
    let client = client_with(&server, Some(OutputMode::JsonSchema { strict: false }));
    let prompts = Arc::new(PromptTemplates::embedded());
    let planner = Planner::new(
        Arc::new(demo_catalog().unwrap()),
        demo_entities(),
        Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
        Arc::new(ModelExtractor::new(client, prompts, false)),
    );
    let planned = planner.plan(&AskRequest::new(question, today())).await;
    params(&planned);
    let requests = server.requests();
    let schema = &requests[1].body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["properties"]["unmatched"]["items"],
        json!({"type": "string"}),
        "{schema:#}"
    );
    let required = schema["required"].as_array().unwrap();
    assert!(!required.contains(&json!("unmatched")), "optional: {schema:#}");
    let system = requests[1].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("unmatched"), "the prompt asks for it");
}
