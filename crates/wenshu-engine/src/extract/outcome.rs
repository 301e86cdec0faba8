//! What an extraction ends in, and the record of how it got there.

use serde::Serialize;
use serde_json::{Map, Value};
use std::time::Instant;
use wenshu_contract::Coercion;

use wenshu_llm::ProviderError;
use wenshu_llm::client::{Attempt, ChatClient, ChatRequest, Message, Usage};

use super::grounding::GroundingCheck;
use super::unmatched::UnmatchedCheck;

/// How an extraction ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ExtractOutcome {
    /// The tool can be called with these parameters (defaults filled).
    Ok {
        /// The bound parameters, in schema order.
        params: Map<String, Value>,
    },
    /// Required parameters the question does not give and that have no default: ask the user.
    Missing {
        /// Their names.
        params: Vec<String>,
    },
    /// The question names a value the tool cannot take: the orchestrator degrades.
    Unsupported {
        /// The parameter.
        param: String,
        /// The value the question names.
        value: String,
    },
    /// Extraction failed; the reason is for the administrator.
    Failed {
        /// What went wrong.
        reason: String,
    },
}

/// One call of the chat model: what was sent, what came back, and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelCall {
    /// The messages sent, in order.
    pub messages: Vec<Message>,
    /// The answer text, when one came back.
    pub raw_answer: Option<String>,
    /// The JSON object taken out of the answer.
    pub parsed: Option<Map<String, Value>>,
    /// What went wrong with this call (transport, parsing or binding), if anything.
    pub error: Option<String>,
    /// The provider that answered.
    pub provider: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Token usage the server reported.
    pub usage: Option<Usage>,
    /// Wall time of the call, in milliseconds.
    pub latency_ms: f64,
    /// Every HTTP attempt behind the call (retries and failovers).
    pub attempts: Vec<Attempt>,
    /// Whether a provider was reached and answered nothing (no content, no tool call): worth one re-ask.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub empty_answer: bool,
}

impl ModelCall {
    /// Sends `chat` on `client` and records the call: the answer's text, or the error in words (`what` names the
    /// call, e.g. "the model call").
    pub async fn send(client: &ChatClient, chat: &ChatRequest, what: &str) -> (ModelCall, Result<String, String>) {
        let started = Instant::now();
        let mut call = ModelCall {
            messages: chat.messages.clone(),
            ..ModelCall::default()
        };
        let result = client.complete(chat).await;
        call.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(response) => {
                call.raw_answer = Some(response.text.clone());
                call.provider = Some(response.provider);
                call.model = Some(response.model);
                call.usage = response.usage;
                call.attempts = response.attempts;
                (call, Ok(response.text))
            }
            Err(e) => {
                call.error = Some(e.to_string());
                call.attempts = e.attempts().to_vec();
                call.empty_answer = e
                    .failures()
                    .iter()
                    .any(|f| matches!(f.error, ProviderError::EmptyAnswer { .. }));
                (call, Err(format!("{what} failed: {e}")))
            }
        }
    }

    /// Whether the model service failed (no answer came back), as opposed to the answer being unusable.
    pub fn service_failed(&self) -> bool {
        self.raw_answer.is_none() && self.error.is_some()
    }
}

/// The trace of one extraction.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExtractTrace {
    /// `model` or `lexicon`.
    pub engine: &'static str,
    /// The parameters code filled (hidden from the model).
    pub fixed: Map<String, Value>,
    /// Each model call, the corrective re-ask included.
    pub calls: Vec<ModelCall>,
    /// The coercions binding made to the answer's values.
    pub coercions: Vec<Coercion>,
    /// The grounding verdict on each value.
    pub grounding: Vec<GroundingCheck>,
    /// Keys the answer held that the tool does not declare.
    pub unknown_keys: Vec<String>,
    /// The words the model listed as `unmatched` (conditions the tool cannot express), each with its verdict.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<UnmatchedCheck>,
    /// The parameters that went into the final binding.
    pub bound_from: Option<Map<String, Value>>,
}

/// An outcome and its trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    /// How it ended.
    pub outcome: ExtractOutcome,
    /// How it got there.
    pub trace: ExtractTrace,
}
