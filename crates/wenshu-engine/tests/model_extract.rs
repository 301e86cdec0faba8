//! The model extractor against a real chat-completions server on 127.0.0.1 that answers from a script.

use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::{Map, Value, json};
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::extract::grounding::Verdict;
use wenshu_engine::extract::{ExtractOutcome, ExtractRequest, Extraction, ModelExtractor};
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, OutputMode, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn provider(server: &ScriptedChatServer, name: &str) -> ProviderConfig {
    ProviderConfig::new(name, server.base_url(), "scripted")
        .with_timeout(Duration::from_millis(400))
        .with_output_mode(OutputMode::JsonObject)
}

fn fast_retry() -> RetryConfig {
    RetryConfig {
        max_retries: 1,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    }
}

fn extractor(providers: Vec<ProviderConfig>) -> ModelExtractor {
    extractor_with(providers, BreakerConfig::default())
}

fn extractor_with(providers: Vec<ProviderConfig>, breaker: BreakerConfig) -> ModelExtractor {
    let client = ChatClient::new(providers, fast_retry(), breaker).expect("client");
    ModelExtractor::new(Arc::new(client), Arc::new(PromptTemplates::embedded()), true)
}

async fn run(extractor: &ModelExtractor, tool: &str, question: &str, fixed: Value) -> Extraction {
    let catalog: Catalog = demo_catalog().unwrap();
    let tool = catalog.get(tool).unwrap();
    let fixed: Map<String, Value> = fixed.as_object().cloned().unwrap_or_default();
    let request = ExtractRequest {
        tool,
        question,
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        fixed,
    };
    extractor.extract(&request).await
}

async fn sales(replies: Vec<Reply>, question: &str) -> (Extraction, ScriptedChatServer) {
    let server = ScriptedChatServer::start(replies).await;
    let extraction = run(
        &extractor(vec![provider(&server, "primary")]),
        "sales_query",
        question,
        json!({}),
    )
    .await;
    (extraction, server)
}

fn ok_params(extraction: &Extraction) -> Value {
    match &extraction.outcome {
        ExtractOutcome::Ok { params } => Value::Object(params.clone()),
        other => panic!("expected ok, got {other:?}\ntrace: {:#?}", extraction.trace),
    }
}

const Q1: &str = "华东区本月的销售额是多少";

fn q1_params() -> Value {
    json!({"region": "华东", "period": "本月", "queryType": "summary", "limit": 10})
}

#[tokio::test]
async fn clean_json_binds_with_defaults_and_the_prompt_states_today() {
    let (extraction, server) = sales(vec![Reply::content(r#"{"region": "华东", "period": "本月"}"#)], Q1).await;
    assert_eq!(ok_params(&extraction), q1_params());
    let call = &extraction.trace.calls[0];
    assert_eq!(
        call.raw_answer.as_deref(),
        Some(r#"{"region": "华东", "period": "本月"}"#)
    );
    let system = &call.messages[0].content;
    assert!(
        system.contains("2026-11-29") && system.contains("Asia/Shanghai"),
        "{system}"
    );
    let user = &call.messages[1].content;
    assert!(user.contains("工具ID: sales_query") && user.contains(Q1), "{user}");
    let sent = &server.requests()[0].body;
    assert_eq!(sent["response_format"]["type"], "json_object");
    assert!(call.usage.is_some());
}

#[tokio::test]
async fn fenced_json_prose_and_think_blocks_are_read() {
    for answer in [
        "```json\n{\"region\": \"华东\"}\n```",
        "根据你的问题，提取的参数如下：{\"region\": \"华东\"} 希望有帮助。",
        "<think>用户问华东区，本月……</think>\n{\"region\": \"华东\"}",
        "[{\"region\": \"华东\"}]",
    ] {
        let (extraction, _server) = sales(vec![Reply::content(answer)], Q1).await;
        assert_eq!(ok_params(&extraction), q1_params(), "answer: {answer}");
        assert_eq!(extraction.trace.calls.len(), 1);
    }
}

#[tokio::test]
async fn wrong_types_and_synonyms_are_coerced_and_recorded() {
    let (extraction, _server) = sales(
        vec![Reply::content(
            r#"{"region": "华东区", "queryType": "排名", "limit": "5"}"#,
        )],
        "本月华东区销售排名前五",
    )
    .await;
    assert_eq!(
        ok_params(&extraction),
        json!({"region": "华东", "period": "本月", "queryType": "ranking", "limit": 5})
    );
    let rules: Vec<(&str, &str)> = extraction
        .trace
        .coercions
        .iter()
        .map(|c| (c.param.as_str(), c.rule))
        .collect();
    assert_eq!(
        rules,
        [
            ("region", "enum_synonym"),
            ("queryType", "enum_synonym"),
            ("limit", "numeric_string")
        ]
    );
}

#[tokio::test]
async fn an_invented_field_is_corrected_by_one_re_ask() {
    let (extraction, server) = sales(
        vec![
            Reply::content(r#"{"region": "华东", "city": "上海"}"#),
            Reply::content(r#"{"region": "华东"}"#),
        ],
        Q1,
    )
    .await;
    assert_eq!(ok_params(&extraction), q1_params());
    assert_eq!(extraction.trace.unknown_keys, ["city"]);
    let calls = &extraction.trace.calls;
    assert_eq!(calls.len(), 2);
    assert!(calls[0].error.as_deref().unwrap().contains("city"));
    let retry = &server.requests()[1].body["messages"];
    let last = retry.as_array().unwrap().last().unwrap()["content"].as_str().unwrap();
    assert!(last.contains("city"), "the re-ask carries the exact error: {last}");
}

#[tokio::test]
async fn an_invented_name_is_dropped_and_named_in_the_trace() {
    let (extraction, _server) = sales(vec![Reply::content(r#"{"region": "华东", "salesPerson": "张伟"}"#)], Q1).await;
    assert_eq!(ok_params(&extraction), q1_params());
    let check = extraction
        .trace
        .grounding
        .iter()
        .find(|c| c.param == "salesPerson")
        .unwrap();
    assert!(matches!(&check.verdict, Verdict::Dropped { reason } if reason.contains("张伟")));
}

#[tokio::test]
async fn null_for_a_required_parameter_is_missing() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"question": null}"#)]).await;
    let extraction = run(
        &extractor(vec![provider(&server, "p")]),
        "text_to_sql",
        "随便问问",
        json!({}),
    )
    .await;
    assert_eq!(
        extraction.outcome,
        ExtractOutcome::Missing {
            params: vec!["question".into()]
        }
    );
}

#[tokio::test]
async fn a_period_the_enum_cannot_take_is_unsupported() {
    let (extraction, _server) = sales(
        vec![Reply::content(r#"{"region": "华东", "period": "本年"}"#)],
        "去年华东区的销售额",
    )
    .await;
    assert_eq!(
        extraction.outcome,
        ExtractOutcome::Unsupported {
            param: "period".into(),
            value: "去年".into()
        }
    );
    let (extraction, _server) = sales(vec![Reply::content(r#"{"region": "华中"}"#)], "华中区本月的销售额").await;
    assert_eq!(
        extraction.outcome,
        ExtractOutcome::Unsupported {
            param: "region".into(),
            value: "华中".into()
        }
    );
}

#[tokio::test]
async fn a_prose_answer_then_invalid_json_fails_after_one_re_ask() {
    let (extraction, server) = sales(
        vec![Reply::content("好的，我来帮你查询。"), Reply::content("{not json")],
        Q1,
    )
    .await;
    assert!(matches!(&extraction.outcome, ExtractOutcome::Failed { reason } if reason.contains("re-ask")));
    assert_eq!(extraction.trace.calls.len(), 2);
    assert_eq!(server.requests().len(), 2, "never more than one re-ask");
    assert_eq!(extraction.trace.calls[1].raw_answer.as_deref(), Some("{not json"));
}

#[tokio::test]
async fn empty_answers_fail_after_the_one_re_ask_with_the_attempts_in_the_trace() {
    let (extraction, server) = sales(vec![Reply::content(""), Reply::content("")], Q1).await;
    assert_eq!(server.request_count(), 2);
    assert!(
        matches!(&extraction.outcome, ExtractOutcome::Failed { reason } if reason.contains("empty")),
        "{:?}",
        extraction.outcome
    );
    let attempts = &extraction.trace.calls[0].attempts;
    assert!(
        !attempts.is_empty() && attempts.iter().all(|a| a.outcome == "empty answer"),
        "{attempts:?}"
    );
}

#[tokio::test]
async fn invalid_json_then_a_good_answer_on_the_re_ask() {
    let (extraction, _server) = sales(
        vec![
            Reply::content("{\"region\": \"华东\""),
            Reply::content(r#"{"region": "华东"}"#),
        ],
        Q1,
    )
    .await;
    assert_eq!(ok_params(&extraction), q1_params());
    assert!(extraction.trace.calls[0].error.as_deref().unwrap().contains("JSON"));
}

#[tokio::test]
async fn a_500_then_success_is_retried_by_the_client() {
    let (extraction, _server) = sales(
        vec![
            Reply::status(500, "upstream broke"),
            Reply::content(r#"{"region": "华东"}"#),
        ],
        Q1,
    )
    .await;
    assert_eq!(ok_params(&extraction), q1_params());
    let attempts = &extraction.trace.calls[0].attempts;
    assert_eq!(attempts.len(), 2);
    assert!(attempts[0].outcome.contains("500"));
}

#[tokio::test]
async fn a_hang_past_the_timeout_fails_over_to_the_next_provider() {
    let slow = ScriptedChatServer::start(vec![
        Reply::hang(Duration::from_secs(3)),
        Reply::hang(Duration::from_secs(3)),
    ])
    .await;
    let good = ScriptedChatServer::start(vec![Reply::content(r#"{"region": "华东"}"#)]).await;
    let extractor = extractor(vec![provider(&slow, "slow"), provider(&good, "good")]);
    let extraction = run(&extractor, "sales_query", Q1, json!({})).await;
    assert_eq!(ok_params(&extraction), q1_params());
    let call = &extraction.trace.calls[0];
    assert_eq!(call.provider.as_deref(), Some("good"));
    assert!(
        call.attempts
            .iter()
            .any(|a| a.provider == "slow" && a.outcome.contains("timeout")),
        "{:?}",
        call.attempts
    );
}

#[tokio::test]
async fn a_429_storm_opens_the_breaker_and_fails_over() {
    let storm = ScriptedChatServer::start((0..20).map(|_| Reply::status(429, "slow down")).collect()).await;
    let backup = ScriptedChatServer::start((0..4).map(|_| Reply::content(r#"{"region": "华东"}"#)).collect()).await;
    let breaker = BreakerConfig {
        failure_threshold: 2,
        cool_down: Duration::from_secs(60),
    };
    let extractor = extractor_with(vec![provider(&storm, "storm"), provider(&backup, "backup")], breaker);
    for _ in 0..3 {
        let extraction = run(&extractor, "sales_query", Q1, json!({})).await;
        assert_eq!(ok_params(&extraction), q1_params());
        assert_eq!(extraction.trace.calls[0].provider.as_deref(), Some("backup"));
    }
    let storm_calls = storm.requests().len();
    assert_eq!(
        storm_calls, 4,
        "two calls of two attempts each, then the breaker is open"
    );
    let extraction = run(&extractor, "sales_query", Q1, json!({})).await;
    assert!(
        extraction.trace.calls[0]
            .attempts
            .iter()
            .any(|a| a.provider == "storm" && a.outcome.contains("breaker"))
    );
    assert_eq!(
        storm.requests().len(),
        storm_calls,
        "an open breaker does not contact the provider"
    );
}

#[tokio::test]
async fn code_filled_parameters_are_hidden_from_the_model_and_merged() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"movieId": 99}"#)]).await;
    let fixed = json!({"movieId": 2, "startDate": "2026-11-23", "endDate": "2026-11-29"});
    let extraction = run(
        &extractor(vec![provider(&server, "p")]),
        "movie_box_office",
        "流浪地球2最近7天的每日票房",
        fixed.clone(),
    )
    .await;
    assert_eq!(ok_params(&extraction), fixed, "the model never fills an ID");
    assert!(extraction.trace.calls.is_empty(), "nothing left for the model: no call");
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn the_subject_id_is_never_asked_of_the_model() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"movieId": 3}"#)]).await;
    let extraction = run(
        &extractor(vec![provider(&server, "p")]),
        "movie_rating",
        "满江红的评分",
        json!({}),
    )
    .await;
    assert_eq!(
        extraction.outcome,
        ExtractOutcome::Missing {
            params: vec!["movieId".into()]
        }
    );
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn a_custom_param_prompt_replaces_the_system_prompt() {
    let mut document: Value = serde_json::from_str(wenshu_contract::catalog::DEMO_CATALOG_JSON).unwrap();
    document["tools"][0]["x-param-prompt"] = json!("只输出 JSON。今天是 {{ today }}，时区 {{ timezone }}。");
    let catalog = Catalog::from_value(&document).unwrap();
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"region": "华东"}"#)]).await;
    let extractor = extractor(vec![provider(&server, "p")]);
    let request = ExtractRequest {
        tool: catalog.get("sales_query").unwrap(),
        question: Q1,
        today: date(2026, 11, 29),
        timezone: "Asia/Shanghai",
        fixed: Map::new(),
    };
    let extraction = extractor.extract(&request).await;
    assert_eq!(ok_params(&extraction), q1_params());
    assert_eq!(
        extraction.trace.calls[0].messages[0].content,
        "只输出 JSON。今天是 2026-11-29，时区 Asia/Shanghai。"
    );
}
