//! The records of a person's library: the conversation list, a turn with its owner (for export and feedback), and
//! the 👍/👎 verdicts kept with each turn.

use serde::Serialize;
use serde_json::Value;

use crate::model::Turn;

/// One conversation as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSummary {
    /// The conversation's id.
    pub id: String,
    /// The title a rename gave it, else its first question.
    pub title: String,
    /// Whether [`ConversationSummary::title`] was set by a rename.
    pub renamed: bool,
    /// When it was created, RFC 3339 (UTC).
    pub created_at: String,
    /// When its newest turn was stored, RFC 3339 (UTC).
    pub updated_at: String,
    /// How many turns it holds.
    pub turn_count: u64,
}

/// A stored turn with its conversation and the owner of that conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedTurn {
    /// The conversation the turn belongs to.
    pub conversation_id: String,
    /// Who made that conversation.
    pub owner: Option<String>,
    /// The turn.
    pub turn: Turn,
}

/// A person's verdict on one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feedback {
    /// The turn it is about.
    pub turn_id: String,
    /// `up` or `down`.
    pub verdict: String,
    /// What the person added, if anything.
    pub note: Option<String>,
    /// When it was given (or last changed), RFC 3339 (UTC).
    pub created_at: String,
}

/// A verdict with what it judged: the question, and the plan (tool and parameters) that answered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackEntry {
    /// The verdict.
    #[serde(flatten)]
    pub feedback: Feedback,
    /// The conversation of the turn.
    pub conversation_id: String,
    /// Who made that conversation.
    pub owner: Option<String>,
    /// The question as the person asked it.
    pub question: String,
    /// The question rewritten to stand alone.
    pub rewritten_question: String,
    /// How the turn ended (`answered`, `choose`, …).
    pub kind: String,
    /// The tool that was called, if one was.
    pub tool: Option<String>,
    /// The parameters the tool was called with (`null` when none ran).
    pub params: Value,
}
