//! Route (seed 003 §三): which tool, which subject (a name), which dates, and the rewritten question — from the
//! user's own words, the last ≤ 3 rounds of history and today's date. The model engine asks a chat model once;
//! the lexicon engine reads the catalog and entity catalogs.

pub mod model;

use std::future::Future;
use std::pin::Pin;

use jiff::civil::Date;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wenshu_contract::Tool;

use crate::model_call::ModelCall;

/// How many earlier rounds a route sees.
pub const MAX_HISTORY: usize = 3;

/// One earlier round of the conversation: the question and the conclusion given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The question as asked.
    pub question: String,
    /// The conclusion (answer or rewritten question) of that round.
    pub answer: String,
    /// The subject the round was about, resolved to its ID (a follow-up keeps what the user chose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<TurnSubject>,
    /// Whether the round ended in a stop (nothing answered): a follow-up never continues it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

impl Turn {
    /// A round with its question and conclusion, about no resolved subject.
    pub fn new(question: impl Into<String>, answer: impl Into<String>) -> Self {
        Self {
            question: question.into(),
            answer: answer.into(),
            subject: None,
            stopped: false,
        }
    }
}

/// The subject an earlier round was about: its entity type, ID and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSubject {
    /// The entity type (`movie`, `warehouse`).
    pub entity_type: String,
    /// The entity's ID as the data source has it.
    pub id: Value,
    /// The entity's name.
    pub name: String,
}

/// What a router reads.
#[derive(Debug, Clone)]
pub struct RouteInput<'a> {
    /// The user's own words (never a rewrite).
    pub question: &'a str,
    /// Earlier rounds, oldest first; only the last [`MAX_HISTORY`] are used.
    pub history: &'a [Turn],
    /// The day the question is asked.
    pub today: Date,
    /// The IANA time zone.
    pub timezone: &'a str,
    /// The tools the router may choose from (enabled, fallback excluded).
    pub tools: Vec<&'a Tool>,
    /// The entity types a subject may have.
    pub subject_types: Vec<String>,
}

impl RouteInput<'_> {
    /// The rounds a router may use: the last [`MAX_HISTORY`].
    pub fn recent_history(&self) -> &[Turn] {
        &self.history[self.history.len().saturating_sub(MAX_HISTORY)..]
    }
}

/// The route as the router gave it, every field unchecked (seed 003's six fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteDecision {
    /// The chosen tool's code.
    pub tool_code: Option<String>,
    /// The subject's entity type.
    pub subject_type: Option<String>,
    /// The subject's name, as the user wrote it.
    pub subject_name: Option<String>,
    /// The first day asked about.
    pub start_date: Option<String>,
    /// The last day asked about.
    pub end_date: Option<String>,
    /// The complete question, references resolved.
    pub rewritten_question: Option<String>,
}

/// What a router produced, with what it did for the trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RouteResult {
    /// The decision, when one could be read.
    pub decision: Option<RouteDecision>,
    /// Why no decision could be read (the call failed, or the answer was not the expected object).
    pub error: Option<String>,
    /// Whether the failure was the model service's (the administrator must act) rather than the answer's.
    pub service_failed: bool,
    /// The model call, for the model engine.
    pub call: Option<ModelCall>,
    /// Engine-specific evidence (the lexicon engine's scores, mentions, …).
    pub evidence: Value,
}

/// A boxed future, for dyn-compatible async traits.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Chooses the tool, subject and dates for a question.
pub trait Router: Send + Sync {
    /// `model` or `lexicon`.
    fn engine(&self) -> &'static str;
    /// Routes one question.
    fn route<'a>(&'a self, input: &'a RouteInput<'a>) -> BoxFuture<'a, RouteResult>;
}
