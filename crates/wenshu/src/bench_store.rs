//! The store of `wenshu bench ask --compare`'s no-store server: it keeps nothing, so that one run shows what
//! the store costs an ask. Writes give fresh ids, reads find nothing. For the benchmark only (a hidden option).

use serde_json::Value;
use wenshu_store::{
    AuditFilter, AuditPage, BoxFuture, Conversation, ConversationInfo, ConversationSummary, ConversationWithTurns,
    Feedback, FeedbackEntry, HistoryRound, NewAudit, NewTurn, OwnedTrace, OwnedTurn, StoreError, StoredIds, ToolState,
    TurnPage,
};

/// A [`wenshu_store::Store`] that keeps nothing.
#[derive(Debug, Default)]
pub struct NoStore;

/// A fresh id, like the store's: 16 hex characters.
fn fresh_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{:016x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A future that is ready with `value`.
fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, Result<T, StoreError>> {
    Box::pin(std::future::ready(Ok(value)))
}

/// A new conversation, kept nowhere.
fn conversation() -> Conversation {
    Conversation {
        id: fresh_id(),
        created_at: jiff::Timestamp::now().to_string(),
    }
}

/// The ids of a turn and trace, kept nowhere.
fn stored_ids() -> StoredIds {
    StoredIds {
        turn_id: fresh_id(),
        trace_id: fresh_id(),
    }
}

impl wenshu_store::Store for NoStore {
    fn create_conversation(&self) -> BoxFuture<'_, Result<Conversation, StoreError>> {
        ready(conversation())
    }

    fn conversation<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>> {
        ready(None)
    }

    fn history<'a>(&'a self, _: &'a str, _: usize) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>> {
        ready(Vec::new())
    }

    fn append_turn<'a>(&'a self, _: NewTurn) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
        ready(stored_ids())
    }

    fn append_turn_audited<'a>(&'a self, turn: NewTurn, _: NewAudit) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
        self.append_turn(turn)
    }

    fn open_conversation_audited<'a>(
        &'a self,
        _: Option<&'a str>,
        _: NewTurn,
        _: NewAudit,
    ) -> BoxFuture<'a, Result<(Conversation, StoredIds), StoreError>> {
        ready((conversation(), stored_ids()))
    }

    fn record_audit<'a>(&'a self, _: NewAudit) -> BoxFuture<'a, Result<i64, StoreError>> {
        ready(0)
    }

    fn audit<'a>(&'a self, _: &'a AuditFilter) -> BoxFuture<'a, Result<AuditPage, StoreError>> {
        ready(AuditPage {
            entries: Vec::new(),
            next_before: None,
        })
    }

    fn purge_audit_older_than(&self, _: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
        ready(0)
    }

    fn trace<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        ready(None)
    }

    fn tool_states(&self) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>> {
        ready(Vec::new())
    }

    fn set_tool_enabled<'a>(&'a self, _: &'a str, _: bool) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(())
    }

    fn save_entity_catalog<'a>(&'a self, _: &'a str, _: Value) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(())
    }

    fn entity_catalogs(&self) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>> {
        ready(Vec::new())
    }

    fn create_owned_conversation<'a>(&'a self, _: Option<&'a str>) -> BoxFuture<'a, Result<Conversation, StoreError>> {
        ready(conversation())
    }

    fn conversation_info<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<ConversationInfo>, StoreError>> {
        ready(None)
    }

    fn conversation_page<'a>(
        &'a self,
        _: &'a str,
        _: usize,
        _: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TurnPage>, StoreError>> {
        ready(None)
    }

    fn owned_trace<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<OwnedTrace>, StoreError>> {
        ready(None)
    }

    fn purge_older_than(&self, _: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
        ready(0)
    }

    fn list_conversations<'a>(
        &'a self,
        _: Option<&'a str>,
        _: usize,
    ) -> BoxFuture<'a, Result<Vec<ConversationSummary>, StoreError>> {
        ready(Vec::new())
    }

    fn rename_conversation<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        ready(false)
    }

    fn delete_conversation<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        ready(false)
    }

    fn owned_turn<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<OwnedTurn>, StoreError>> {
        ready(None)
    }

    fn set_feedback<'a>(
        &'a self,
        turn_id: &'a str,
        _: &'a str,
        _: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Feedback, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::NotFound {
            what: "turn".to_string(),
            id: turn_id.to_string(),
        })))
    }

    fn feedback(&self, _: usize) -> BoxFuture<'_, Result<Vec<FeedbackEntry>, StoreError>> {
        ready(Vec::new())
    }
}
