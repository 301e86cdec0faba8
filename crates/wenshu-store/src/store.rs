//! The [`Store`] trait every backend implements.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::access::{ConversationInfo, OwnedTrace, TurnPage};
use crate::audit::{AuditFilter, AuditPage, NewAudit};
use crate::error::StoreError;
use crate::library::{ConversationSummary, Feedback, FeedbackEntry, OwnedTurn};
use crate::model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, ToolState};

/// A boxed, sendable future, so that [`Store`] can be used as `Arc<dyn Store>`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Conversations, turns, traces, tool states and entity catalogs.
pub trait Store: Send + Sync {
    /// Creates an empty conversation with a new id.
    fn create_conversation(&self) -> BoxFuture<'_, Result<Conversation, StoreError>>;

    /// The conversation with all its turns, oldest first; `None` when there is no such conversation.
    fn conversation<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>>;

    /// The last `rounds` turns of a conversation, oldest first; empty for an unknown conversation.
    fn history<'a>(
        &'a self,
        conversation_id: &'a str,
        rounds: usize,
    ) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>>;

    /// Appends a turn and its trace in one transaction; an unknown conversation is [`StoreError::NotFound`].
    fn append_turn<'a>(&'a self, turn: NewTurn) -> BoxFuture<'a, Result<StoredIds, StoreError>>;

    /// Appends a turn, its trace and its audit entry in one transaction: all three are stored or none is.
    fn append_turn_audited<'a>(
        &'a self,
        turn: NewTurn,
        audit: NewAudit,
    ) -> BoxFuture<'a, Result<StoredIds, StoreError>>;

    /// Creates a conversation owned by `owner` with its first turn, trace and audit entry in one transaction (one
    /// write where there would be two: all are stored or none is); `turn.conversation_id` is replaced by the new
    /// conversation's id, and so is the entry's.
    fn open_conversation_audited<'a>(
        &'a self,
        owner: Option<&'a str>,
        turn: NewTurn,
        audit: NewAudit,
    ) -> BoxFuture<'a, Result<(Conversation, StoredIds), StoreError>>;

    /// Writes the audit entry of an ask that stores no turn, in a transaction of its own; the entry's id.
    fn record_audit<'a>(&'a self, audit: NewAudit) -> BoxFuture<'a, Result<i64, StoreError>>;

    /// One page of the audit log matching `filter`, newest first.
    fn audit<'a>(&'a self, filter: &'a AuditFilter) -> BoxFuture<'a, Result<AuditPage, StoreError>>;

    /// Deletes audit entries older than `days` days; how many were deleted.
    fn purge_audit_older_than(&self, days: u32) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// The trace with this id; `None` when there is none.
    fn trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;

    /// Every tool state that was ever set, by name.
    fn tool_states(&self) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>>;

    /// Switches a tool on or off (inserted or updated).
    fn set_tool_enabled<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Saves (inserts or replaces) the entity catalog of one entity type.
    fn save_entity_catalog<'a>(
        &'a self,
        entity_type: &'a str,
        entities: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Every saved entity catalog as `(entity type, entities)`, by entity type.
    fn entity_catalogs(&self) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>>;

    /// Creates an empty conversation owned by `owner` (an API key's fingerprint; `None`: no owner).
    fn create_owned_conversation<'a>(
        &'a self,
        owner: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>>;

    /// A conversation's owner and turn count; `None` when there is no such conversation.
    fn conversation_info<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationInfo>, StoreError>>;

    /// The newest `limit` turns before the turn `before` (else the newest), oldest first; `None` for an unknown
    /// conversation, [`StoreError::NotFound`] for an unknown `before` turn.
    fn conversation_page<'a>(
        &'a self,
        id: &'a str,
        limit: usize,
        before: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TurnPage>, StoreError>>;

    /// A trace with the owner of its conversation; `None` when there is none.
    fn owned_trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTrace>, StoreError>>;

    /// Deletes turns and traces older than `days` days and the conversations left empty; the turns deleted.
    fn purge_older_than(&self, days: u32) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// The newest `limit` conversations that hold turns and are owned by `owner` (`None`: those without an owner),
    /// newest activity first.
    fn list_conversations<'a>(
        &'a self,
        owner: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ConversationSummary>, StoreError>>;

    /// Gives a conversation a title; `false` when there is no such conversation.
    fn rename_conversation<'a>(&'a self, id: &'a str, title: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Deletes a conversation with its turns, traces and feedback; `false` when there was no such conversation.
    fn delete_conversation<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// A turn with its conversation and that conversation's owner; `None` when there is no such turn.
    fn owned_turn<'a>(&'a self, turn_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTurn>, StoreError>>;

    /// Stores (or replaces) the verdict (`up`/`down`) and note of a turn, which must exist.
    fn set_feedback<'a>(
        &'a self,
        turn_id: &'a str,
        verdict: &'a str,
        note: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Feedback, StoreError>>;

    /// The newest `limit` verdicts with the question and the plan each judged.
    fn feedback(&self, limit: usize) -> BoxFuture<'_, Result<Vec<FeedbackEntry>, StoreError>>;
}
