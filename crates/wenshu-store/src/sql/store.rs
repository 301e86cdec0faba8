//! The one [`Store`] implementation of the SQL backends: each method runs its [`Queries`] statement on the backend's
//! pool, write methods behind the backend's own write lock where it keeps one.

use std::future::Future;
use std::time::Instant;

use serde_json::Value;
use sqlx::Pool;
use tokio::sync::{Mutex, MutexGuard};

use super::audit::AuditQueries;
use super::group::{GroupWrites, Opening, Writer};
use super::library::LibraryQueries;
use super::owned::OwnedQueries;
use super::queries::Queries;
use crate::access::{ConversationInfo, OwnedTrace, TurnPage};
use crate::audit::{AuditFilter, AuditPage, NewAudit};
use crate::error::StoreError;
use crate::library::{ConversationSummary, Feedback, FeedbackEntry, OwnedTurn};
use crate::model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, ToolState};
use crate::store::{BoxFuture, Store};

/// A store kept in a SQL database through a pool of one [`Queries`] backend.
pub(crate) trait OnPool: Send + Sync {
    /// The backend.
    type Db: Queries + OwnedQueries + LibraryQueries + AuditQueries + GroupWrites;

    /// The connection pool.
    fn pool(&self) -> &Pool<Self::Db>;

    /// The lock this process's write transactions queue on, if the backend wants them serialized here.
    fn writes(&self) -> Option<&Mutex<()>>;

    /// The group writer the writes of asks go through; `None` with group commit off.
    fn writer(&self) -> Option<&Writer>;
}

/// Takes the write lock of `store`, if it has one.
async fn writing<S: OnPool>(store: &S) -> Option<MutexGuard<'_, ()>> {
    match store.writes() {
        Some(writes) => Some(writes.lock().await),
        None => None,
    }
}

/// Awaits one write of an ask until it is acknowledged, recording how long that took (`wenshu_store_write_seconds`
/// in the server's `/metrics`).
async fn acknowledged<T>(write: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    let started = Instant::now();
    let result = write.await;
    metrics::histogram!("wenshu_store_write_seconds").record(started.elapsed().as_secs_f64());
    result
}

impl<S: OnPool> Store for S {
    fn create_conversation(&self) -> BoxFuture<'_, Result<Conversation, StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.conversation(None).await;
            }
            let _writing = writing(self).await;
            S::Db::create_conversation(self.pool()).await
        }))
    }

    fn conversation<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>> {
        S::Db::conversation(self.pool(), id)
    }

    fn history<'a>(
        &'a self,
        conversation_id: &'a str,
        rounds: usize,
    ) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>> {
        S::Db::history(self.pool(), conversation_id, rounds)
    }

    fn append_turn<'a>(&'a self, turn: NewTurn) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.turn(turn, None).await;
            }
            let _writing = writing(self).await;
            S::Db::append_turn(self.pool(), turn, None, None).await
        }))
    }

    fn append_turn_audited<'a>(
        &'a self,
        turn: NewTurn,
        audit: NewAudit,
    ) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.turn(turn, Some(audit)).await;
            }
            let _writing = writing(self).await;
            S::Db::append_turn(self.pool(), turn, Some(&audit), None).await
        }))
    }

    fn open_conversation_audited<'a>(
        &'a self,
        owner: Option<&'a str>,
        mut turn: NewTurn,
        audit: NewAudit,
    ) -> BoxFuture<'a, Result<(Conversation, StoredIds), StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.open(owner, turn, audit).await;
            }
            let _writing = writing(self).await;
            let opening = Opening::new(owner, &mut turn);
            let ids = S::Db::append_turn(self.pool(), turn, Some(&audit), Some(opening.row())).await?;
            Ok((opening.conversation, ids))
        }))
    }

    fn record_audit<'a>(&'a self, audit: NewAudit) -> BoxFuture<'a, Result<i64, StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.audit(audit).await;
            }
            let _writing = writing(self).await;
            S::Db::record_audit(self.pool(), &audit).await
        }))
    }

    fn audit<'a>(&'a self, filter: &'a AuditFilter) -> BoxFuture<'a, Result<AuditPage, StoreError>> {
        S::Db::audit_page(self.pool(), filter)
    }

    fn purge_audit_older_than(&self, days: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::purge_audit(self.pool(), days).await
        })
    }

    fn trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        S::Db::trace(self.pool(), trace_id)
    }

    fn tool_states(&self) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>> {
        S::Db::tool_states(self.pool())
    }

    fn set_tool_enabled<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::set_tool_enabled(self.pool(), name, enabled).await
        })
    }

    fn save_entity_catalog<'a>(
        &'a self,
        entity_type: &'a str,
        entities: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::save_entity_catalog(self.pool(), entity_type, &entities).await
        })
    }

    fn entity_catalogs(&self) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>> {
        S::Db::entity_catalogs(self.pool())
    }

    fn create_owned_conversation<'a>(
        &'a self,
        owner: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>> {
        Box::pin(acknowledged(async move {
            if let Some(writer) = self.writer() {
                return writer.conversation(owner).await;
            }
            let _writing = writing(self).await;
            S::Db::create_owned(self.pool(), owner).await
        }))
    }

    fn conversation_info<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationInfo>, StoreError>> {
        S::Db::info(self.pool(), id)
    }

    fn conversation_page<'a>(
        &'a self,
        id: &'a str,
        limit: usize,
        before: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TurnPage>, StoreError>> {
        S::Db::page(self.pool(), id, limit, before)
    }

    fn owned_trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTrace>, StoreError>> {
        S::Db::owned_trace(self.pool(), trace_id)
    }

    fn purge_older_than(&self, days: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::purge(self.pool(), days).await
        })
    }

    fn list_conversations<'a>(
        &'a self,
        owner: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ConversationSummary>, StoreError>> {
        S::Db::list(self.pool(), owner, limit)
    }

    fn rename_conversation<'a>(&'a self, id: &'a str, title: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::rename(self.pool(), id, title).await
        })
    }

    fn delete_conversation<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::delete(self.pool(), id).await
        })
    }

    fn owned_turn<'a>(&'a self, turn_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTurn>, StoreError>> {
        S::Db::owned_turn(self.pool(), turn_id)
    }

    fn set_feedback<'a>(
        &'a self,
        turn_id: &'a str,
        verdict: &'a str,
        note: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Feedback, StoreError>> {
        Box::pin(async move {
            let _writing = writing(self).await;
            S::Db::set_feedback(self.pool(), turn_id, verdict, note).await
        })
    }

    fn feedback(&self, limit: usize) -> BoxFuture<'_, Result<Vec<FeedbackEntry>, StoreError>> {
        S::Db::feedback(self.pool(), limit)
    }
}
