//! Chat models for wenshu: an OpenAI-compatible client, prompt templates, and pulling JSON out of an answer.
//!
//! - [`client::ChatClient`] calls any OpenAI-compatible `/chat/completions` endpoint, with retries (exponential
//!   backoff, `Retry-After`), failover across providers in order, and a [`breaker::CircuitBreaker`] per provider.
//! - [`answer::extract_json_object`] takes the JSON object out of what models really send (fences, prose,
//!   `<think>` blocks, double-encoded strings).
//! - [`prompt::PromptTemplates`] renders the shipped minijinja prompts (`prompts/*.j2`), overridable from a folder.
//!
//! The API key is an [`config::ApiKey`]: it never appears in `Debug`, `Display`, errors, traces or logs.

#![warn(missing_docs)]

pub mod answer;
pub mod breaker;
pub mod client;
pub mod config;
pub mod error;
pub mod prompt;

mod redact;
mod wire;

pub use answer::extract_json_object;
pub use breaker::CircuitBreaker;
pub use client::{Attempt, ChatClient, ChatRequest, ChatResponse, Message, Role, Usage};
pub use config::{ApiKey, BreakerConfig, OutputMode, ProviderConfig, RetryConfig};
pub use error::{AnswerError, LlmError, ProviderError, ProviderFailure};
pub use prompt::PromptTemplates;
