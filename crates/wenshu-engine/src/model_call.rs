//! One call of the chat model, recorded for the trace: what was sent, what came back, what it cost. The stages
//! that ask a model (route, extract, fallback) each keep their calls as these.

use jiff::civil::{Date, Weekday};
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::Instant;
use wenshu_llm::ProviderError;
use wenshu_llm::client::{Attempt, ChatClient, ChatRequest, Message, Usage};

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

/// The Chinese name of a weekday (星期一 … 星期日), for prompts.
pub fn chinese_weekday(date: Date) -> &'static str {
    match date.weekday() {
        Weekday::Monday => "星期一",
        Weekday::Tuesday => "星期二",
        Weekday::Wednesday => "星期三",
        Weekday::Thursday => "星期四",
        Weekday::Friday => "星期五",
        Weekday::Saturday => "星期六",
        Weekday::Sunday => "星期日",
    }
}
