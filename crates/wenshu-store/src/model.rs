//! The records the store keeps and hands back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A conversation without its turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// The conversation's id: URL-safe, 16 lowercase hex characters.
    pub id: String,
    /// When it was created, RFC 3339 (UTC).
    pub created_at: String,
}

/// A conversation with all its turns, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationWithTurns {
    /// The conversation's id.
    pub id: String,
    /// When it was created, RFC 3339 (UTC).
    pub created_at: String,
    /// Its turns in the order they were appended.
    pub turns: Vec<Turn>,
}

/// One stored question and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// The turn's id.
    pub id: String,
    /// The question as the person asked it.
    pub question: String,
    /// The question rewritten to stand alone.
    pub rewritten_question: String,
    /// How the turn ended: `answered`, `choose`, `need` or `stopped`.
    pub kind: String,
    /// The tool that was called, if one was.
    pub tool: Option<String>,
    /// The turn's outcome as the server gave it.
    pub outcome: Value,
    /// The one-line conclusion that later rounds see as history.
    pub conclusion: String,
    /// The id of the turn's trace.
    pub trace_id: String,
    /// When it was stored, RFC 3339 (UTC).
    pub created_at: String,
}

/// A turn to append to a conversation, with its trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewTurn {
    /// The conversation it belongs to; it must exist.
    pub conversation_id: String,
    /// The question as the person asked it.
    pub question: String,
    /// The question rewritten to stand alone.
    pub rewritten_question: String,
    /// How the turn ended: `answered`, `choose`, `need` or `stopped`.
    pub kind: String,
    /// The tool that was called, if one was.
    pub tool: Option<String>,
    /// The turn's outcome as the server gives it.
    pub outcome: Value,
    /// The one-line conclusion that later rounds see as history.
    pub conclusion: String,
    /// The full trace of the turn, stored beside it.
    pub trace: Value,
    /// The subject the turn was about, resolved to its ID, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<SubjectRef>,
}

/// The subject a turn was about: its entity type, its ID and its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubjectRef {
    /// The entity type (`movie`, `warehouse`).
    pub entity_type: String,
    /// The entity's ID as the data source has it (an integer or a string).
    pub id: Value,
    /// The entity's name.
    pub name: String,
}

/// The ids given to an appended turn and its trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredIds {
    /// The new turn's id.
    pub turn_id: String,
    /// The new trace's id.
    pub trace_id: String,
}

/// One earlier round as later questions see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRound {
    /// The question as the person asked it.
    pub question: String,
    /// The turn's conclusion.
    pub conclusion: String,
    /// How the turn ended: `answered`, `choose`, `need` or `stopped`.
    #[serde(default)]
    pub kind: String,
    /// The subject the turn was about, resolved to its ID, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<SubjectRef>,
}

/// Whether a tool is switched on, as an administrator last set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolState {
    /// The tool's name.
    pub name: String,
    /// Whether it may be called.
    pub enabled: bool,
    /// When it was last set, RFC 3339 (UTC).
    pub updated_at: String,
}
