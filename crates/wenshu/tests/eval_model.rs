//! `wenshu eval --engine model` runs the plan cases of `eval/cases.jsonl` against a loopback model server. The
//! server replays, for each route and extract call it receives, what the lexicon engine decides for that case — so
//! the model path (prompts, answer parsing, checks, resolution, grounding, binding) is run end to end on every case.
//! The replayed router sees the tools a model router sees (fixed ones); a metric tool chosen by coverage is filled
//! by the model with its metric query by names, which grounding keeps.

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Arc, Mutex};

use jiff::civil::Date;
use serde_json::{Map, Value};
use wenshu_contract::demo_catalog;
use wenshu_engine::extract::ExtractRequest;
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::{RouteInput, Turn};
use wenshu_testkit::{Reply, ScriptedChatServer};

const CASES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/cases.jsonl"));

/// The text between `<question>` tags of the last user message.
fn question_of(body: &Value) -> Option<String> {
    let user = body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|m| m["role"] == "user")?["content"]
        .as_str()?
        .to_string();
    let start = user.find("<question>\n")? + "<question>\n".len();
    let end = user[start..].find("\n</question>")? + start;
    Some(user[start..end].to_string())
}

fn tool_of(body: &Value) -> Option<String> {
    let user = body["messages"].as_array()?.iter().find(|m| m["role"] == "user")?["content"]
        .as_str()?
        .to_string();
    let start = user.find("工具ID: ")? + "工具ID: ".len();
    Some(user[start..].lines().next()?.trim().to_string())
}

#[tokio::test]
async fn the_plan_cases_pass_through_the_model_engine() {
    let catalog = Arc::new(demo_catalog().unwrap());
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let router = LexiconRouter::new(entities.clone());
    let extractor = LexiconExtractor::new(entities);
    let cases: HashMap<String, (Date, Vec<Turn>)> = CASES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let case: Value = serde_json::from_str(line).unwrap();
            let history: Vec<Turn> = serde_json::from_value(case["history"].clone()).unwrap();
            (
                case["question"].as_str().unwrap().to_string(),
                (case["today"].as_str().unwrap().parse().unwrap(), history),
            )
        })
        .collect();
    let rewritten_days: Arc<Mutex<HashMap<String, Date>>> = Arc::default();
    let responder = move |body: &Value| -> Reply {
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        let Some(question) = question_of(body) else {
            return Reply::content("{}");
        };
        if system.contains("问数路由器") {
            let Some((today, history)) = cases.get(&question) else {
                return Reply::status(400, "unknown question");
            };
            let fallback = catalog.fallback().map(|t| t.name().to_string());
            let tools = catalog
                .tools()
                .iter()
                .filter(|t| Some(t.name().to_string()) != fallback && t.extensions().metrics.is_none())
                .collect();
            let input = RouteInput {
                question: &question,
                history,
                today: *today,
                timezone: "Asia/Shanghai",
                tools,
                subject_types: vec!["movie".into(), "salesPerson".into()],
            };
            let decision = router.route_now(&input).decision.unwrap_or_default();
            let rewritten = decision.rewritten_question.clone().unwrap_or_else(|| question.clone());
            rewritten_days.lock().unwrap().insert(rewritten, *today);
            return Reply::content(serde_json::to_string(&decision).unwrap());
        }
        let (Some(tool_name), Some(today)) = (tool_of(body), rewritten_days.lock().unwrap().get(&question).copied())
        else {
            return Reply::content("{}");
        };
        let Some(tool) = catalog.get(&tool_name) else {
            return Reply::content("{}");
        };
        let request = ExtractRequest {
            tool,
            question: &question,
            today,
            timezone: "Asia/Shanghai",
            fixed: Map::new(),
        };
        let extraction = extractor.extract_now(&request);
        let answer: Map<String, Value> = match extraction.trace.bound_from {
            // A metric tool's extraction is its metric query by names, as a model would return it.
            Some(query) if tool.extensions().metrics.is_some() => query,
            _ => extraction
                .trace
                .grounding
                .iter()
                .map(|c| (c.param.clone(), c.value.clone()))
                .collect(),
        };
        Reply::content(Value::Object(answer).to_string())
    };
    let server = ScriptedChatServer::start_with(Arc::new(responder)).await;
    let metric_tools: Vec<String> = demo_catalog()
        .unwrap()
        .tools()
        .iter()
        .filter(|t| t.extensions().metrics.is_some())
        .map(|t| t.name().to_string())
        .collect();
    let case_count = CASES.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(case_count >= 20, "the plan cases are there ({case_count})");
    let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
    command
        .args(["eval", "--engine", "model"])
        .env("WENSHU_LLM_BASE_URL", server.base_url())
        .env("WENSHU_LLM_MODEL", "replay")
        .env_remove("WENSHU_CONFIG");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/cases.jsonl"));
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.trim_end().ends_with(&format!("{case_count} passed, 0 failed")),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let route_calls = server
        .requests()
        .iter()
        .filter(|r| {
            r.body["messages"][0]["content"]
                .as_str()
                .unwrap_or("")
                .contains("问数路由器")
        })
        .count();
    assert_eq!(route_calls, case_count, "one route call per case");
    let metric_calls = server
        .requests()
        .iter()
        .filter(|r| tool_of(&r.body).is_some_and(|t| metric_tools.contains(&t)))
        .count();
    assert!(metric_calls >= 1, "a metric tool is filled through the model");
}
