//! The chat client against a real loopback HTTP server (wenshu-testkit's ScriptedChatServer).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wenshu_llm::breaker::{BreakerState, Clock};
use wenshu_llm::{
    BreakerConfig, ChatClient, ChatRequest, LlmError, Message, OutputMode, ProviderConfig, ProviderError, RetryConfig,
    extract_json_object,
};
use wenshu_testkit::{Reply, ScriptedChatServer};

const TIMEOUT: Duration = Duration::from_millis(300);

fn provider(name: &str, server: &ScriptedChatServer, mode: OutputMode) -> ProviderConfig {
    ProviderConfig::new(name, server.base_url(), "test-model")
        .with_timeout(TIMEOUT)
        .with_output_mode(mode)
}

fn retry(max_retries: u32) -> RetryConfig {
    RetryConfig {
        max_retries,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(40),
    }
}

fn breaker(threshold: u32) -> BreakerConfig {
    BreakerConfig {
        failure_threshold: threshold,
        cool_down: Duration::from_secs(60),
    }
}

fn client(providers: Vec<ProviderConfig>, max_retries: u32) -> ChatClient {
    ChatClient::new(providers, retry(max_retries), breaker(5)).expect("client")
}

fn question() -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("只输出 JSON"),
        Message::user("华东区本月的销售额是多少"),
    ])
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": { "region": { "type": "string", "enum": ["华东", "华南"] } },
        "required": ["region"],
        "additionalProperties": false
    })
}

fn outcomes(attempts: &[wenshu_llm::Attempt]) -> Vec<String> {
    attempts
        .iter()
        .map(|a| format!("{}:{}", a.provider, a.outcome))
        .collect()
}

#[tokio::test]
async fn clean_json_answer_with_usage_latency_and_attempts() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"region":"华东"}"#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 2);
    let response = client.complete(&question()).await.expect("answer");

    assert_eq!(extract_json_object(&response.text).expect("object")["region"], "华东");
    assert_eq!(response.provider, "a");
    assert_eq!(response.model, "test-model");
    let usage = response.usage.expect("usage");
    assert_eq!(usage.prompt_tokens, 11);
    assert_eq!(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    assert!(response.latency > Duration::ZERO);
    assert_eq!(outcomes(&response.attempts), ["a:ok"]);
    assert!(response.attempts[0].latency <= response.latency);

    let trace = serde_json::to_value(&response).expect("serializable");
    assert!(trace["latency_ms"].as_f64().expect("ms") > 0.0);
    assert_eq!(trace["attempts"][0]["outcome"], "ok");

    let sent = &server.requests()[0].body;
    assert_eq!(sent["model"], "test-model");
    assert_eq!(
        sent["messages"][1],
        json!({"role": "user", "content": "华东区本月的销售额是多少"})
    );
    assert_eq!(sent["response_format"], json!({"type": "json_object"}));
}

#[tokio::test]
async fn answers_as_models_really_send_them() {
    let server = ScriptedChatServer::start(vec![
        Reply::content("```json\n{\"region\":\"华东\"}\n```"),
        Reply::content("根据你的问题，提取的参数如下：\n{\"region\":\"华东\"}\n如需调整请告诉我。"),
        Reply::content("<think>用户说的是华东区，对应枚举 {华东}</think>\n{\"region\":\"华东\"}"),
        Reply::content_with_reasoning(r#"{"region":"华东"}"#, "先判断地区……"),
    ])
    .await;
    let client = client(vec![provider("a", &server, OutputMode::Plain)], 0);
    for _ in 0..4 {
        let response = client.complete(&question()).await.expect("answer");
        let object = extract_json_object(&response.text).unwrap_or_else(|e| panic!("{:?}: {e}", response.text));
        assert_eq!(Value::Object(object), json!({"region": "华东"}));
    }
    for request in server.requests() {
        assert!(
            request.body.get("response_format").is_none(),
            "plain mode sends no response_format"
        );
        assert!(request.body.get("tools").is_none());
    }
}

#[tokio::test]
async fn tool_call_mode_sends_a_forced_tool_and_answers_its_arguments() {
    let server = ScriptedChatServer::start(vec![Reply::tool_call(r#"{"region":"华南"}"#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::ToolCall)], 0);
    let response = client
        .complete(&question().with_schema("sales_query", schema()))
        .await
        .expect("answer");

    assert_eq!(response.text, r#"{"region":"华南"}"#);
    let sent = &server.requests()[0].body;
    assert_eq!(sent["tools"][0]["type"], "function");
    assert_eq!(sent["tools"][0]["function"]["name"], "sales_query");
    assert_eq!(sent["tools"][0]["function"]["parameters"], schema());
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "function", "function": {"name": "sales_query"}})
    );
    assert!(sent.get("response_format").is_none());
}

#[tokio::test]
async fn double_encoded_tool_arguments_still_give_the_object() {
    let server = ScriptedChatServer::start(vec![Reply::tool_call(r#""{\"region\":\"华南\"}""#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::ToolCall)], 0);
    let response = client
        .complete(&question().with_schema("q", schema()))
        .await
        .expect("answer");
    assert_eq!(extract_json_object(&response.text).expect("object")["region"], "华南");
}

#[tokio::test]
async fn json_schema_mode_sends_the_schema_with_strict() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"region":"华东"}"#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::JsonSchema { strict: true })], 0);
    client
        .complete(&question().with_schema("sales_query", schema()))
        .await
        .expect("answer");

    let format = &server.requests()[0].body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "sales_query");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(format["json_schema"]["schema"], schema());
}

#[tokio::test]
async fn schema_modes_degrade_to_json_object_without_a_schema() {
    let server = ScriptedChatServer::start(vec![Reply::content("{}"), Reply::content("{}")]).await;
    for mode in [OutputMode::ToolCall, OutputMode::JsonSchema { strict: false }] {
        let client = client(vec![provider("a", &server, mode)], 0);
        client.complete(&question()).await.expect("answer");
    }
    for request in server.requests() {
        assert_eq!(request.body["response_format"], json!({"type": "json_object"}));
        assert!(request.body.get("tools").is_none());
    }
}

#[tokio::test]
async fn a_500_is_retried_and_the_attempts_are_recorded() {
    let server = ScriptedChatServer::start(vec![
        Reply::status(500, r#"{"error":"boom"}"#),
        Reply::status(503, "busy"),
        Reply::content(r#"{"region":"华东"}"#),
    ])
    .await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 2);
    let response = client.complete(&question()).await.expect("answer");
    assert_eq!(outcomes(&response.attempts), ["a:http 500", "a:http 503", "a:ok"]);
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn retries_are_bounded() {
    let server = ScriptedChatServer::start(vec![
        Reply::status(500, "1"),
        Reply::status(500, "2"),
        Reply::status(500, "3"),
    ])
    .await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 1);
    let err = client.complete(&question()).await.expect_err("fails");
    assert_eq!(server.request_count(), 2);
    assert_eq!(outcomes(err.attempts()), ["a:http 500", "a:http 500"]);
    assert!(matches!(
        err.failures()[0].error,
        ProviderError::Http { status: 500, .. }
    ));
}

#[tokio::test]
async fn a_400_is_not_retried_but_fails_over() {
    let a = ScriptedChatServer::start(vec![Reply::status(400, r#"{"error":"response_format unsupported"}"#)]).await;
    let b = ScriptedChatServer::start(vec![Reply::content("{}")]).await;
    let client = client(
        vec![
            provider("a", &a, OutputMode::JsonObject),
            provider("b", &b, OutputMode::Plain),
        ],
        2,
    );
    let response = client.complete(&question()).await.expect("answer from b");
    assert_eq!(response.provider, "b");
    assert_eq!(outcomes(&response.attempts), ["a:http 400", "b:ok"]);
    assert_eq!(a.request_count(), 1);
}

#[tokio::test]
async fn a_400_alone_is_an_error_that_keeps_the_body() {
    let server = ScriptedChatServer::start(vec![Reply::status(400, r#"{"error":"bad messages"}"#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 2);
    let err = client.complete(&question()).await.expect_err("fails");
    assert_eq!(server.request_count(), 1);
    let LlmError::AllProvidersFailed { failures, attempts } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        failures[0].error,
        ProviderError::Http {
            status: 400,
            body: r#"{"error":"bad messages"}"#.into()
        }
    );
    assert!(err.to_string().contains("a: http 400"), "{err}");
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_retried() {
    let server =
        ScriptedChatServer::start(vec![Reply::hang(Duration::from_secs(3)), Reply::content(r#"{"a":1}"#)]).await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 1);
    let started = Instant::now();
    let response = client.complete(&question()).await.expect("answer");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the timeout cut the hang short"
    );
    assert_eq!(outcomes(&response.attempts), ["a:timeout", "a:ok"]);
    assert!(response.attempts[0].latency >= TIMEOUT);
}

#[tokio::test]
async fn timeouts_exhaust_retries_then_fail_over() {
    let a = ScriptedChatServer::start(vec![
        Reply::hang(Duration::from_secs(3)),
        Reply::hang(Duration::from_secs(3)),
    ])
    .await;
    let b = ScriptedChatServer::start(vec![Reply::content("{}")]).await;
    let client = client(
        vec![
            provider("a", &a, OutputMode::JsonObject),
            provider("b", &b, OutputMode::JsonObject),
        ],
        1,
    );
    let response = client.complete(&question()).await.expect("answer from b");
    assert_eq!(outcomes(&response.attempts), ["a:timeout", "a:timeout", "b:ok"]);
}

#[tokio::test]
async fn connection_errors_are_retried_then_fail_over() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let b = ScriptedChatServer::start(vec![Reply::content("{}")]).await;
    let dead = ProviderConfig::new("dead", format!("http://127.0.0.1:{closed}/v1"), "m").with_timeout(TIMEOUT);
    let client = client(vec![dead, provider("b", &b, OutputMode::JsonObject)], 1);
    let response = client.complete(&question()).await.expect("answer from b");
    assert_eq!(
        outcomes(&response.attempts),
        ["dead:connection error", "dead:connection error", "b:ok"]
    );
}

#[tokio::test]
async fn a_body_that_is_not_a_completion_is_not_retried() {
    let server = ScriptedChatServer::start(vec![Reply::raw("<html>502 Bad Gateway</html>")]).await;
    let client = client(vec![provider("a", &server, OutputMode::JsonObject)], 2);
    let err = client.complete(&question()).await.expect_err("fails");
    assert_eq!(server.request_count(), 1);
    let ProviderError::ResponseNotUnderstood { raw, .. } = &err.failures()[0].error else {
        panic!("{err:?}")
    };
    assert_eq!(raw, "<html>502 Bad Gateway</html>");
}

#[tokio::test]
async fn a_429_storm_fails_over_then_opens_the_breaker() {
    let a = ScriptedChatServer::start((0..4).map(|_| Reply::status_retry_after(429, "slow down", 1)).collect()).await;
    let b = ScriptedChatServer::start((0..3).map(|_| Reply::content("{}")).collect()).await;
    let providers = vec![
        provider("a", &a, OutputMode::JsonObject),
        provider("b", &b, OutputMode::JsonObject),
    ];
    let client = ChatClient::new(providers, retry(1), breaker(2)).expect("client");

    let started = Instant::now();
    for _ in 0..2 {
        let response = client.complete(&question()).await.expect("answer from b");
        assert_eq!(response.provider, "b");
        assert_eq!(outcomes(&response.attempts), ["a:http 429", "a:http 429", "b:ok"]);
    }
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "Retry-After: 1 is capped by max_delay"
    );
    assert_eq!(a.request_count(), 4);
    assert_eq!(client.breaker_state("a"), Some(BreakerState::Open));
    assert_eq!(client.breaker_state("b"), Some(BreakerState::Closed));

    let response = client.complete(&question()).await.expect("answer from b");
    assert_eq!(outcomes(&response.attempts), ["a:breaker open", "b:ok"]);
    assert_eq!(
        a.request_count(),
        4,
        "an open breaker skips the provider without contacting it"
    );
}

#[tokio::test]
async fn half_open_after_cool_down_and_a_successful_trial_closes() {
    let a = ScriptedChatServer::start(vec![Reply::status(500, "down"), Reply::content(r#"{"from":"a"}"#)]).await;
    let b = ScriptedChatServer::start(vec![Reply::content("{}"), Reply::content("{}")]).await;
    let providers = vec![
        provider("a", &a, OutputMode::JsonObject),
        provider("b", &b, OutputMode::JsonObject),
    ];
    let cool_down = Duration::from_millis(250);
    let client = ChatClient::new(
        providers,
        retry(0),
        BreakerConfig {
            failure_threshold: 1,
            cool_down,
        },
    )
    .expect("client");

    assert_eq!(client.complete(&question()).await.expect("b").provider, "b");
    assert_eq!(client.complete(&question()).await.expect("b").provider, "b");
    assert_eq!(a.request_count(), 1);

    tokio::time::sleep(cool_down + Duration::from_millis(50)).await;
    assert_eq!(client.breaker_state("a"), Some(BreakerState::HalfOpen));
    let response = client.complete(&question()).await.expect("trial");
    assert_eq!(response.provider, "a");
    assert_eq!(client.breaker_state("a"), Some(BreakerState::Closed));
    assert_eq!(a.request_count(), 2);
}

#[derive(Debug)]
struct ManualClock(Mutex<Instant>);

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().expect("clock")
    }
}

#[tokio::test]
async fn a_failed_trial_reopens_the_breaker() {
    let a = ScriptedChatServer::start(vec![Reply::status(500, "down"), Reply::status(502, "still down")]).await;
    let b = ScriptedChatServer::start((0..4).map(|_| Reply::content("{}")).collect()).await;
    let clock = Arc::new(ManualClock(Mutex::new(Instant::now())));
    let providers = vec![
        provider("a", &a, OutputMode::JsonObject),
        provider("b", &b, OutputMode::JsonObject),
    ];
    let config = BreakerConfig {
        failure_threshold: 1,
        cool_down: Duration::from_secs(30),
    };
    let client = ChatClient::new(providers, retry(0), config)
        .expect("client")
        .with_clock(clock.clone());

    client.complete(&question()).await.expect("b");
    let skipped = client.complete(&question()).await.expect("b");
    assert_eq!(outcomes(&skipped.attempts), ["a:breaker open", "b:ok"]);

    *clock.0.lock().expect("clock") += Duration::from_secs(31);
    let trial = client.complete(&question()).await.expect("b");
    assert_eq!(outcomes(&trial.attempts), ["a:http 502", "b:ok"]);
    assert_eq!(client.breaker_state("a"), Some(BreakerState::Open));

    let skipped = client.complete(&question()).await.expect("b");
    assert_eq!(outcomes(&skipped.attempts), ["a:breaker open", "b:ok"]);
    assert_eq!(a.request_count(), 2);
}

#[tokio::test]
async fn all_breakers_open_is_an_error_without_contacting_anyone() {
    let a = ScriptedChatServer::start(vec![Reply::status(500, "down")]).await;
    let client =
        ChatClient::new(vec![provider("a", &a, OutputMode::JsonObject)], retry(0), breaker(1)).expect("client");
    client.complete(&question()).await.expect_err("500");
    let err = client.complete(&question()).await.expect_err("open");
    assert_eq!(err.failures()[0].error, ProviderError::BreakerOpen);
    assert_eq!(a.request_count(), 1);
}

#[tokio::test]
async fn an_empty_answer_fails_over() {
    let a = ScriptedChatServer::start(vec![Reply::content("")]).await;
    let b = ScriptedChatServer::start(vec![Reply::content("{}")]).await;
    let client = client(
        vec![
            provider("a", &a, OutputMode::JsonObject),
            provider("b", &b, OutputMode::JsonObject),
        ],
        2,
    );
    let response = client.complete(&question()).await.expect("b");
    assert_eq!(outcomes(&response.attempts), ["a:empty answer", "b:ok"]);
}
