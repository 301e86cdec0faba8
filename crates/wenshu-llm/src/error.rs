//! Typed errors: of the client and templates ([`LlmError`]), of one provider ([`ProviderError`]), and of pulling
//! JSON out of an answer ([`AnswerError`]). No error ever holds the API key.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::client::Attempt;

/// What went wrong in the chat client or the prompt templates.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// A setting is out of bounds; the value shown is never an API key.
    #[error("bad configuration: {field} = {value:?}; allowed: {allowed}")]
    Config {
        /// The setting, e.g. `providers.qwen.base_url`.
        field: String,
        /// The value given (`***` for a key).
        value: String,
        /// What would be accepted.
        allowed: String,
    },
    /// The HTTP client could not be built.
    #[error("could not build the HTTP client: {message}")]
    HttpClient {
        /// The cause.
        message: String,
    },
    /// Every provider failed or was skipped; each failure and every attempt is kept for the trace.
    #[error("all providers failed: {}", FailureList(.failures))]
    AllProvidersFailed {
        /// One entry per provider, in the order tried.
        failures: Vec<ProviderFailure>,
        /// Every HTTP attempt and skip, in order.
        attempts: Vec<Attempt>,
    },
    /// A template could not be loaded or rendered.
    #[error("prompt template {name}: {message}")]
    Template {
        /// The template name, e.g. `extract_system.j2`.
        name: String,
        /// What went wrong, with the line when known.
        message: String,
    },
    /// A template override could not be read.
    #[error("reading prompt template {path}: {message}")]
    PromptIo {
        /// The file.
        path: PathBuf,
        /// The cause.
        message: String,
    },
}

impl LlmError {
    /// A configuration error.
    pub(crate) fn config(field: impl Into<String>, value: impl Into<String>, allowed: impl Into<String>) -> Self {
        LlmError::Config {
            field: field.into(),
            value: value.into(),
            allowed: allowed.into(),
        }
    }

    /// The attempts made before this error, for the trace (empty when none were made).
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            LlmError::AllProvidersFailed { attempts, .. } => attempts,
            _ => &[],
        }
    }

    /// The per-provider failures (empty unless every provider failed).
    pub fn failures(&self) -> &[ProviderFailure] {
        match self {
            LlmError::AllProvidersFailed { failures, .. } => failures,
            _ => &[],
        }
    }
}

/// Why one provider gave no answer for a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider}: {error}")]
pub struct ProviderFailure {
    /// The provider's name.
    pub provider: String,
    /// Its last error.
    pub error: ProviderError,
}

/// The last error of one provider in one call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// An HTTP error status; the body is truncated to about 2 KB and the key is redacted.
    #[error("http {status}: {}", snippet(.body))]
    Http {
        /// The status code.
        status: u16,
        /// The response body (truncated, key redacted).
        body: String,
    },
    /// No complete answer within the provider's timeout.
    #[error("timeout after {}ms", .after.as_millis())]
    Timeout {
        /// The timeout in force.
        after: Duration,
    },
    /// The connection could not be made or broke.
    #[error("connection error: {message}")]
    Connection {
        /// The cause (key redacted).
        message: String,
    },
    /// A 2xx answer whose body is not a chat completion.
    #[error("response not understood ({reason}): {}", snippet(.raw))]
    ResponseNotUnderstood {
        /// What was missing or malformed.
        reason: String,
        /// The raw body (truncated to about 2 KB, key redacted).
        raw: String,
    },
    /// A completion with neither content nor a tool call.
    #[error("empty answer (finish_reason {finish_reason:?})")]
    EmptyAnswer {
        /// The `finish_reason` the server gave, if any.
        finish_reason: Option<String>,
    },
    /// The provider's circuit breaker is open; it was not contacted.
    #[error("breaker open")]
    BreakerOpen,
}

impl ProviderError {
    /// Whether the same provider may be tried again within the call (429, 5xx, timeout, connection).
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => *status == 429 || (500..=599).contains(status),
            ProviderError::Timeout { .. } | ProviderError::Connection { .. } => true,
            _ => false,
        }
    }

    /// The short outcome word of an [`Attempt`]: `http 500`, `timeout`, `breaker open`, …
    pub fn outcome(&self) -> String {
        match self {
            ProviderError::Http { status, .. } => format!("http {status}"),
            ProviderError::Timeout { .. } => "timeout".into(),
            ProviderError::Connection { .. } => "connection error".into(),
            ProviderError::ResponseNotUnderstood { .. } => "response not understood".into(),
            ProviderError::EmptyAnswer { .. } => "empty answer".into(),
            ProviderError::BreakerOpen => "breaker open".into(),
        }
    }
}

/// Why no JSON object could be taken out of a model's answer. The raw answer is kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The answer is empty or only whitespace (or only a `<think>` block).
    #[error("the answer is blank")]
    Blank,
    /// Nothing in the answer parses as a JSON object.
    #[error("no JSON object in the answer: {}", snippet(.raw))]
    NoObject {
        /// The answer as received.
        raw: String,
    },
    /// The answer is a JSON array of several objects where one was expected.
    #[error("the answer is an array of {count} objects, expected exactly one")]
    SeveralObjects {
        /// How many objects the array holds.
        count: usize,
        /// The answer as received.
        raw: String,
    },
}

impl AnswerError {
    /// The raw answer, when the error keeps it.
    pub fn raw(&self) -> Option<&str> {
        match self {
            AnswerError::Blank => None,
            AnswerError::NoObject { raw } | AnswerError::SeveralObjects { raw, .. } => Some(raw),
        }
    }
}

struct FailureList<'a>(&'a [ProviderFailure]);

impl fmt::Display for FailureList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no provider was tried");
        }
        for (i, failure) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{failure}")?;
        }
        Ok(())
    }
}

/// The first 200 characters of a text, for one-line messages.
fn snippet(text: &str) -> String {
    const MAX: usize = 200;
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match one_line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}
