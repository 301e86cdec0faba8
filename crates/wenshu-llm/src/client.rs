//! The OpenAI-compatible chat client: retries, failover across providers in order, a breaker per provider.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use tracing::{debug, info, warn};

use crate::breaker::{BreakerState, CircuitBreaker, Clock};
use crate::config::{BreakerConfig, OutputMode, ProviderConfig, RetryConfig};
use crate::error::{LlmError, ProviderError, ProviderFailure};
use crate::redact::{clean_body, redact};
use crate::wire::{self, Completion};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person (or the code speaking for them).
    User,
    /// The model.
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant message (e.g. the previous answer before a corrective re-ask).
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// One chat call: the messages, and the JSON Schema (name, schema) the answer should follow, if any.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    /// The conversation sent to the model.
    pub messages: Vec<Message>,
    /// `(name, schema)` for `JsonSchema` and `ToolCall` modes; without it they degrade to `JsonObject`.
    pub schema: Option<(String, Value)>,
}

impl ChatRequest {
    /// A request without a schema.
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest { messages, schema: None }
    }

    /// Adds the schema the answer should follow.
    pub fn with_schema(mut self, name: impl Into<String>, schema: Value) -> Self {
        self.schema = Some((name.into(), schema));
        self
    }
}

/// Token counts reported by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens generated.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Both together.
    #[serde(default)]
    pub total_tokens: u64,
}

/// One HTTP attempt or skip, for the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// The provider's name.
    pub provider: String,
    /// `ok`, `http 500`, `timeout`, `connection error`, `response not understood`, `empty answer`, `breaker open`.
    pub outcome: String,
    /// How long the attempt took (zero for a skip); serialized as `latency_ms`.
    #[serde(rename = "latency_ms", serialize_with = "millis")]
    pub latency: Duration,
}

/// A model's answer and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatResponse {
    /// The answer text: the message content, or the tool call's `arguments` in tool-call mode.
    pub text: String,
    /// The provider that answered.
    pub provider: String,
    /// The model that answered (as the server reports it, else as configured).
    pub model: String,
    /// Token counts, when the server sent them.
    pub usage: Option<Usage>,
    /// Wall time of the whole call, retries and failovers included; serialized as `latency_ms`.
    #[serde(rename = "latency_ms", serialize_with = "millis")]
    pub latency: Duration,
    /// Every attempt and skip, in order.
    pub attempts: Vec<Attempt>,
}

fn millis<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
}

struct Provider {
    config: ProviderConfig,
    breaker: CircuitBreaker,
}

/// Calls OpenAI-compatible chat APIs: providers in order, retries per provider, a circuit breaker each.
pub struct ChatClient {
    http: reqwest::Client,
    providers: Vec<Provider>,
    retry: RetryConfig,
    breaker: BreakerConfig,
}

impl fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let providers: Vec<_> = self.providers.iter().map(|p| (&p.config, p.breaker.state())).collect();
        f.debug_struct("ChatClient")
            .field("providers", &providers)
            .field("retry", &self.retry)
            .field("breaker", &self.breaker)
            .finish_non_exhaustive()
    }
}

impl ChatClient {
    /// Checks every setting and builds the client; providers are tried in the order given.
    pub fn new(providers: Vec<ProviderConfig>, retry: RetryConfig, breaker: BreakerConfig) -> Result<Self, LlmError> {
        if providers.is_empty() {
            return Err(LlmError::config("providers", "[]", "at least one provider"));
        }
        for (i, provider) in providers.iter().enumerate() {
            provider.validate()?;
            if providers[..i].iter().any(|p| p.name == provider.name) {
                return Err(LlmError::config(
                    "providers.name",
                    &provider.name,
                    "names unique among providers",
                ));
            }
        }
        retry.validate()?;
        breaker.validate()?;
        ensure_crypto_provider();
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| LlmError::HttpClient { message: e.to_string() })?;
        let providers = providers
            .into_iter()
            .map(|config| Provider {
                config,
                breaker: CircuitBreaker::new(breaker),
            })
            .collect();
        Ok(ChatClient {
            http,
            providers,
            retry,
            breaker,
        })
    }

    /// Replaces the breakers' clock (all breakers start closed again); for tests that move time.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        for provider in &mut self.providers {
            provider.breaker = CircuitBreaker::with_clock(self.breaker, clock.clone());
        }
        self
    }

    /// The providers' settings, in the order they are tried.
    pub fn providers(&self) -> impl Iterator<Item = &ProviderConfig> {
        self.providers.iter().map(|p| &p.config)
    }

    /// The breaker state of the named provider.
    pub fn breaker_state(&self, provider: &str) -> Option<BreakerState> {
        self.providers
            .iter()
            .find(|p| p.config.name == provider)
            .map(|p| p.breaker.state())
    }

    /// Sends the request to the first provider that answers: providers in order, open breakers skipped,
    /// retries within each provider for 429, 5xx, timeouts and connection errors.
    pub async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let mut attempts = Vec::new();
        let mut failures = Vec::new();
        for provider in &self.providers {
            let name = &provider.config.name;
            let Some(permit) = provider.breaker.try_acquire() else {
                debug!(provider = %name, "chat provider skipped: breaker open");
                attempts.push(Attempt {
                    provider: name.clone(),
                    outcome: "breaker open".into(),
                    latency: Duration::ZERO,
                });
                failures.push(ProviderFailure {
                    provider: name.clone(),
                    error: ProviderError::BreakerOpen,
                });
                continue;
            };
            match self.call(&provider.config, request, &mut attempts).await {
                Ok(completion) => {
                    permit.success();
                    let latency = started.elapsed();
                    info!(
                        provider = %name,
                        latency_ms = latency.as_millis() as u64,
                        attempts = attempts.len(),
                        "chat completed"
                    );
                    return Ok(ChatResponse {
                        text: completion.text,
                        provider: name.clone(),
                        model: completion.model.unwrap_or_else(|| provider.config.model.clone()),
                        usage: completion.usage,
                        latency,
                        attempts,
                    });
                }
                Err(error) => {
                    permit.failure();
                    warn!(provider = %name, error = %error, "chat provider failed");
                    failures.push(ProviderFailure {
                        provider: name.clone(),
                        error,
                    });
                }
            }
        }
        Err(LlmError::AllProvidersFailed { failures, attempts })
    }

    /// All attempts at one provider: the first, then retries while the error is retryable and retries remain.
    async fn call(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
        attempts: &mut Vec<Attempt>,
    ) -> Result<Completion, ProviderError> {
        let body = wire::request_body(config, request);
        let mode = config.output_mode.effective(request.schema.is_some());
        let mut retry = 0;
        loop {
            let started = Instant::now();
            let result = self.attempt(config, &body, mode).await;
            let latency = started.elapsed();
            let outcome = match &result {
                Ok(_) => "ok".to_owned(),
                Err((error, _)) => error.outcome(),
            };
            debug!(
                provider = %config.name,
                outcome = %outcome,
                latency_ms = latency.as_millis() as u64,
                retry,
                "chat attempt"
            );
            attempts.push(Attempt {
                provider: config.name.clone(),
                outcome,
                latency,
            });
            match result {
                Ok(completion) => return Ok(completion),
                Err((error, retry_after)) if error.is_retryable() && retry < self.retry.max_retries => {
                    let delay = self.retry.delay(retry, retry_after);
                    debug!(provider = %config.name, delay_ms = delay.as_millis() as u64, "chat retry after backoff");
                    retry += 1;
                    tokio::time::sleep(delay).await;
                }
                Err((error, _)) => return Err(error),
            }
        }
    }

    /// One HTTP attempt; on error also the server's `Retry-After`, when it sent one.
    async fn attempt(
        &self,
        config: &ProviderConfig,
        body: &Value,
        mode: OutputMode,
    ) -> Result<Completion, (ProviderError, Option<Duration>)> {
        let key = config.api_key.as_ref();
        let mut builder = self.http.post(config.endpoint()).timeout(config.timeout).json(body);
        if let Some(key) = key {
            builder = builder.bearer_auth(key.expose_secret());
        }
        let response = builder.send().await.map_err(|e| (transport_error(&e, config), None))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let text = response
            .text()
            .await
            .map_err(|e| (transport_error(&e, config), retry_after))?;
        if !status.is_success() {
            let error = ProviderError::Http {
                status: status.as_u16(),
                body: clean_body(&text, key),
            };
            return Err((error, retry_after));
        }
        wire::parse_completion(&text, mode).map_err(|error| {
            let error = match error {
                ProviderError::ResponseNotUnderstood { reason, raw } => ProviderError::ResponseNotUnderstood {
                    reason,
                    raw: clean_body(&raw, key),
                },
                other => other,
            };
            (error, None)
        })
    }
}

/// A timeout, or a connection error with its causes (key redacted).
fn transport_error(error: &reqwest::Error, config: &ProviderConfig) -> ProviderError {
    if error.is_timeout() {
        return ProviderError::Timeout { after: config.timeout };
    }
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ProviderError::Connection {
        message: redact(&message, config.api_key.as_ref()),
    }
}

/// `Retry-After` given in seconds (an HTTP date is ignored).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// reqwest is built without a bundled crypto provider (see Cargo.toml): install ring unless one is installed.
fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race against another installer is fine: any installed provider will do.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_serialize_as_milliseconds() {
        let attempt = Attempt {
            provider: "a".into(),
            outcome: "ok".into(),
            latency: Duration::from_micros(1500),
        };
        let value = serde_json::to_value(&attempt).expect("json");
        assert_eq!(value["latency_ms"], serde_json::json!(1.5));
    }

    #[test]
    fn new_rejects_bad_settings() {
        let err = ChatClient::new(vec![], RetryConfig::default(), BreakerConfig::default()).expect_err("empty");
        assert!(err.to_string().contains("providers"));
        let p = ProviderConfig::new("a", "http://127.0.0.1:1/v1", "m");
        let err = ChatClient::new(vec![p.clone(), p], RetryConfig::default(), BreakerConfig::default())
            .expect_err("duplicate");
        assert!(err.to_string().contains("unique"));
    }

    #[test]
    fn retry_after_reads_seconds_only() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(reqwest::header::RETRY_AFTER, "2".parse().expect("header"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().expect("header"),
        );
        assert_eq!(retry_after(&headers), None);
    }
}
