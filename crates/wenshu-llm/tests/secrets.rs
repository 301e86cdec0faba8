//! The API key is sent as `Authorization: Bearer …` and never shows up anywhere else.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;
use wenshu_llm::{ApiKey, BreakerConfig, ChatClient, ChatRequest, Message, ProviderConfig, RetryConfig};
use wenshu_testkit::{Reply, ScriptedChatServer};

const SECRET: &str = "sk-test-SECRET-0123456789";

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

fn provider(name: &str, server: &ScriptedChatServer) -> ProviderConfig {
    ProviderConfig::new(name, server.base_url(), "m")
        .with_api_key(ApiKey::new(SECRET))
        .with_timeout(Duration::from_millis(300))
}

fn retry() -> RetryConfig {
    RetryConfig {
        max_retries: 1,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    }
}

#[tokio::test]
async fn the_key_is_sent_as_bearer_but_never_printed() {
    let logs = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(logs.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {SECRET}"}}}}"#);
    let a = ScriptedChatServer::start(vec![Reply::status(401, echo.clone())]).await;
    let b = ScriptedChatServer::start(vec![
        Reply::status(500, format!("internal error for key {SECRET}")),
        Reply::raw(format!("not json, key={SECRET}")),
        Reply::content("{}"),
    ])
    .await;
    let config_a = provider("a", &a);
    let config_b = provider("b", &b);
    let client = ChatClient::new(
        vec![config_a.clone(), config_b.clone()],
        retry(),
        BreakerConfig::default(),
    )
    .expect("client");
    let request = ChatRequest::new(vec![Message::user("hi")]);

    let err = client.complete(&request).await.expect_err("401, then 500 and garbage");
    let response = client.complete(&request).await.expect("answer");

    assert_eq!(
        a.requests()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert_eq!(
        b.requests()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );

    let logs = String::from_utf8(logs.0.lock().expect("logs").clone()).expect("utf-8");
    assert!(logs.contains("chat attempt"), "attempts are logged: {logs}");
    let printed = [
        ("config", format!("{config_a:?}")),
        ("client", format!("{client:?}")),
        ("error debug", format!("{err:?}")),
        ("error display", err.to_string()),
        ("response", format!("{response:?}")),
        ("response json", serde_json::to_string(&response).expect("json")),
        ("logs", logs),
    ];
    for (what, text) in printed {
        assert!(!text.contains(SECRET), "{what} leaks the key: {text}");
    }
    assert!(
        format!("{err:?}").contains("Incorrect API key provided: ***"),
        "{err:?}"
    );
}

#[test]
fn a_bad_key_is_reported_without_its_value() {
    let config = ProviderConfig::new("a", "http://127.0.0.1:9/v1", "m").with_api_key(ApiKey::new("sk bad\nkey"));
    let err = ChatClient::new(vec![config], RetryConfig::default(), BreakerConfig::default()).expect_err("bad key");
    let text = format!("{err} {err:?}");
    assert!(text.contains("providers.a.api_key"), "{text}");
    assert!(!text.contains("sk bad"), "{text}");
}
