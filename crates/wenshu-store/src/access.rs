//! The records of owned reads: a conversation's owner and size, one page of its turns, a trace with its owner.

use serde::Serialize;
use serde_json::Value;

use crate::library::Feedback;
use crate::model::Turn;

/// A conversation's owner and how many turns it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationInfo {
    /// The conversation's id.
    pub id: String,
    /// When it was created, RFC 3339 (UTC).
    pub created_at: String,
    /// Who made it (an API key's fingerprint); `None` when no keys were configured.
    pub owner: Option<String>,
    /// How many turns it holds.
    pub turns: u64,
}

/// One page of a conversation's turns: the newest `limit` before a turn, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnPage {
    /// The conversation, its owner and its size.
    pub info: ConversationInfo,
    /// The page's turns, oldest first.
    pub turns: Vec<Turn>,
    /// The id to pass as `before` for the page of older turns; `None` when this page reaches the first turn.
    pub next_before: Option<String>,
    /// The 👍/👎 verdicts given on the page's turns (at most one per turn), so a reloaded page shows them again.
    pub feedback: Vec<Feedback>,
}

/// A stored trace with the owner of its conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedTrace {
    /// Who made the conversation the trace belongs to.
    pub owner: Option<String>,
    /// The trace.
    pub body: Value,
}
