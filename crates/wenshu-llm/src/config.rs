//! Provider, retry and circuit-breaker settings, and the API key that never prints.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

use crate::error::LlmError;

/// An API key. `Debug` and `Display` print `***`; only [`ApiKey::expose_secret`] gives the text.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the `Authorization` header only.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How the client asks the model for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// `response_format: {"type":"json_schema", ...}` with the request's schema (OpenAI, vLLM, llama.cpp server).
    JsonSchema {
        /// Whether the server must follow the schema exactly (`strict`).
        strict: bool,
    },
    /// `response_format: {"type":"json_object"}` (JSON mode, no schema).
    #[default]
    JsonObject,
    /// No `response_format`: the prompt alone asks for JSON.
    Plain,
    /// One function tool whose `parameters` is the schema, forced by `tool_choice`; the answer is its `arguments`.
    ToolCall,
}

impl OutputMode {
    /// The mode actually used for a request: without a schema, `JsonSchema` and `ToolCall` fall back to `JsonObject`.
    pub fn effective(self, has_schema: bool) -> OutputMode {
        match self {
            OutputMode::JsonSchema { .. } | OutputMode::ToolCall if !has_schema => OutputMode::JsonObject,
            other => other,
        }
    }
}

/// One OpenAI-compatible chat endpoint and the model to call there.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// A short unique name, used in attempts, traces and breaker state.
    pub name: String,
    /// The API base, e.g. `http://127.0.0.1:8080/v1`; the client posts to `{base_url}/chat/completions`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<ApiKey>,
    /// The model name sent in every request.
    pub model: String,
    /// Sampling temperature (0–2), sent when set.
    pub temperature: Option<f32>,
    /// Cap on generated tokens, sent as `max_tokens` when set.
    pub max_tokens: Option<u32>,
    /// Time limit for one HTTP attempt, connection and body included.
    pub timeout: Duration,
    /// How structured output is requested.
    pub output_mode: OutputMode,
}

impl ProviderConfig {
    /// A provider with no key, no temperature or token cap, a 30 s timeout and `JsonObject` output.
    pub fn new(name: impl Into<String>, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ProviderConfig {
            name: name.into(),
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            temperature: None,
            max_tokens: None,
            timeout: Duration::from_secs(30),
            output_mode: OutputMode::default(),
        }
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the cap on generated tokens.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets the per-attempt timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the output mode.
    pub fn with_output_mode(mut self, output_mode: OutputMode) -> Self {
        self.output_mode = output_mode;
        self
    }

    /// The chat completions endpoint: `{base_url}/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// Checks every field; the error names the field, the value (never the key) and what is allowed.
    pub fn validate(&self) -> Result<(), LlmError> {
        let field = |name: &str| format!("providers.{}.{name}", self.name);
        if self.name.trim().is_empty() {
            return Err(LlmError::config("providers.name", &self.name, "a non-empty name"));
        }
        let scheme_ok = self.base_url.starts_with("http://") || self.base_url.starts_with("https://");
        if !scheme_ok || reqwest::Url::parse(&self.base_url).is_err() {
            return Err(LlmError::config(
                field("base_url"),
                &self.base_url,
                "an http:// or https:// URL such as http://127.0.0.1:8080/v1",
            ));
        }
        if self.model.trim().is_empty() {
            return Err(LlmError::config(field("model"), &self.model, "a non-empty model name"));
        }
        if let Some(key) = &self.api_key {
            let text = key.expose_secret();
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_graphic()) {
                let shown = if text.is_empty() { "(empty)" } else { "***" };
                return Err(LlmError::config(
                    field("api_key"),
                    shown,
                    "printable ASCII without spaces",
                ));
            }
        }
        if let Some(t) = self.temperature
            && !(t.is_finite() && (0.0..=2.0).contains(&t))
        {
            return Err(LlmError::config(
                field("temperature"),
                t.to_string(),
                "a number from 0 to 2",
            ));
        }
        if self.max_tokens == Some(0) {
            return Err(LlmError::config(field("max_tokens"), "0", "at least 1, or unset"));
        }
        if self.timeout.is_zero() {
            return Err(LlmError::config(field("timeout"), "0ms", "a positive duration"));
        }
        Ok(())
    }
}

/// Retries of one provider: exponential backoff, `Retry-After` honoured, bounded.
///
/// Retried: HTTP 429, 5xx, timeouts and connection errors. Never retried: any other 4xx, or a body that is not
/// understood (those go straight to the next provider).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryConfig {
    /// Retries after the first attempt (so at most `1 + max_retries` attempts per provider and call).
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Upper bound of any delay, `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryConfig {
    fn default() -> Self {
        RetryConfig {
            max_retries: 2,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryConfig {
    /// Most retries accepted by [`RetryConfig::validate`].
    pub const MAX_RETRIES: u32 = 10;

    /// The wait before retry number `retry` (0 for the first): `base_delay * 2^retry`, or `Retry-After` when the
    /// server sent one, both capped by `max_delay`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let wait = match retry_after {
            Some(after) => after,
            None => self.base_delay.saturating_mul(2u32.saturating_pow(retry.min(31))),
        };
        wait.min(self.max_delay)
    }

    /// Checks the bounds; the error names the field, the value and what is allowed.
    pub fn validate(&self) -> Result<(), LlmError> {
        if self.max_retries > Self::MAX_RETRIES {
            return Err(LlmError::config(
                "retry.max_retries",
                self.max_retries.to_string(),
                format!("0 to {}", Self::MAX_RETRIES),
            ));
        }
        if self.base_delay > self.max_delay {
            return Err(LlmError::config(
                "retry.base_delay",
                format!("{}ms", self.base_delay.as_millis()),
                format!("at most retry.max_delay ({}ms)", self.max_delay.as_millis()),
            ));
        }
        Ok(())
    }
}

/// When a provider's circuit breaker opens and how long it stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Consecutive failed calls (a call = all its retries) that open the breaker.
    pub failure_threshold: u32,
    /// How long an open breaker skips the provider before letting one trial call through.
    pub cool_down: Duration,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            failure_threshold: 5,
            cool_down: Duration::from_secs(30),
        }
    }
}

impl BreakerConfig {
    /// Checks the bounds; the error names the field, the value and what is allowed.
    pub fn validate(&self) -> Result<(), LlmError> {
        if self.failure_threshold == 0 {
            return Err(LlmError::config("breaker.failure_threshold", "0", "at least 1"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_never_prints() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "***");
        assert_eq!(format!("{key}"), "***");
        let config = ProviderConfig::new("a", "http://127.0.0.1:1/v1", "m").with_api_key(key);
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-secret-123"), "{debug}");
        assert!(debug.contains("***"));
    }

    #[test]
    fn api_key_deserializes_from_a_string() {
        let key: ApiKey = serde_json::from_str("\"sk-1\"").expect("key");
        assert_eq!(key.expose_secret(), "sk-1");
    }

    #[test]
    fn delay_doubles_and_is_capped() {
        let retry = RetryConfig {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        assert_eq!(retry.delay(0, None), Duration::from_millis(100));
        assert_eq!(retry.delay(1, None), Duration::from_millis(200));
        assert_eq!(retry.delay(2, None), Duration::from_millis(350));
        assert_eq!(retry.delay(40, None), Duration::from_millis(350));
        assert_eq!(
            retry.delay(0, Some(Duration::from_millis(300))),
            Duration::from_millis(300)
        );
        assert_eq!(
            retry.delay(0, Some(Duration::from_secs(60))),
            Duration::from_millis(350)
        );
    }

    #[test]
    fn effective_mode_degrades_without_schema() {
        assert_eq!(OutputMode::ToolCall.effective(false), OutputMode::JsonObject);
        assert_eq!(
            OutputMode::JsonSchema { strict: true }.effective(false),
            OutputMode::JsonObject
        );
        assert_eq!(OutputMode::ToolCall.effective(true), OutputMode::ToolCall);
        assert_eq!(OutputMode::Plain.effective(false), OutputMode::Plain);
    }

    #[test]
    fn validation_names_field_value_and_allowed() {
        let bad = ProviderConfig::new("a", "ftp://x", "m");
        let message = bad.validate().expect_err("bad url").to_string();
        assert!(message.contains("providers.a.base_url"), "{message}");
        assert!(message.contains("ftp://x"), "{message}");
        assert!(message.contains("http://"), "{message}");

        let bad = ProviderConfig::new("a", "http://h/v1", "m").with_temperature(3.5);
        assert!(bad.validate().expect_err("temperature").to_string().contains("0 to 2"));

        let bad = ProviderConfig::new("a", "http://h/v1", "m").with_api_key(ApiKey::new("sk bad key"));
        let message = bad.validate().expect_err("key").to_string();
        assert!(!message.contains("sk bad key"), "{message}");

        assert!(
            RetryConfig {
                max_retries: 11,
                ..RetryConfig::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            BreakerConfig {
                failure_threshold: 0,
                ..BreakerConfig::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            ProviderConfig::new("a", "https://api.example.invalid/v1/", "m")
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn endpoint_joins_without_double_slash() {
        let config = ProviderConfig::new("a", "http://127.0.0.1:8080/v1/", "m");
        assert_eq!(config.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
    }
}
