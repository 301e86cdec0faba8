//! The SQLite store: a file in WAL mode with full syncs, or a private in-memory database.

mod migrate;
mod queries;

use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::Mutex;

use crate::error::StoreError;
use crate::model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, ToolState};
use crate::store::{BoxFuture, Store};
use crate::url;

/// How long a statement waits for another connection's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections a file store keeps at most.
const FILE_CONNECTIONS: u32 = 4;

/// A [`Store`] on SQLite: a file (WAL mode, created if missing) or memory.
#[derive(Debug)]
pub struct SqliteStore {
    /// The connection pool (one connection for an in-memory database).
    pool: SqlitePool,
    /// Serializes this process's write transactions, so they queue here instead of spinning on SQLite's lock.
    writes: Mutex<()>,
}

impl SqliteStore {
    /// Opens (creating the file if missing) the store at a file path or a `sqlite:` URL, and applies its migrations.
    pub async fn open(path_or_url: &str) -> Result<Self, StoreError> {
        let is_url = path_or_url.trim_start().to_ascii_lowercase().starts_with("sqlite:");
        if !is_url && path_or_url.contains("://") {
            return Err(url::invalid(path_or_url));
        }
        let options = if is_url {
            SqliteConnectOptions::from_str(path_or_url.trim()).map_err(|_| url::invalid(path_or_url))?
        } else {
            SqliteConnectOptions::new().filename(path_or_url)
        };
        let in_memory = is_url && (path_or_url.contains(":memory:") || path_or_url.contains("mode=memory"));
        let options = options.busy_timeout(BUSY_TIMEOUT).foreign_keys(true);
        let pool = if in_memory {
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await
        } else {
            let options = options
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full);
            SqlitePoolOptions::new()
                .max_connections(FILE_CONNECTIONS)
                .connect_with(options)
                .await
        }
        .map_err(|error| StoreError::database(&format!("cannot open SQLite store `{path_or_url}`"), error))?;
        migrate::run(&pool).await?;
        tracing::debug!(store = path_or_url, "SQLite store open");
        Ok(Self {
            pool,
            writes: Mutex::new(()),
        })
    }

    /// Opens a new, private in-memory store (gone when the store is dropped).
    pub async fn memory() -> Result<Self, StoreError> {
        Self::open("sqlite::memory:").await
    }

    /// Closes every connection, waiting for those in use to come back.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

impl Store for SqliteStore {
    fn create_conversation(&self) -> BoxFuture<'_, Result<Conversation, StoreError>> {
        Box::pin(async move {
            let _writing = self.writes.lock().await;
            queries::create_conversation(&self.pool).await
        })
    }

    fn conversation<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>> {
        Box::pin(queries::conversation(&self.pool, id))
    }

    fn history<'a>(
        &'a self,
        conversation_id: &'a str,
        rounds: usize,
    ) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>> {
        Box::pin(queries::history(&self.pool, conversation_id, rounds))
    }

    fn append_turn<'a>(&'a self, turn: NewTurn) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
        Box::pin(async move {
            let _writing = self.writes.lock().await;
            queries::append_turn(&self.pool, turn).await
        })
    }

    fn trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        Box::pin(queries::trace(&self.pool, trace_id))
    }

    fn tool_states(&self) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>> {
        Box::pin(queries::tool_states(&self.pool))
    }

    fn set_tool_enabled<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _writing = self.writes.lock().await;
            queries::set_tool_enabled(&self.pool, name, enabled).await
        })
    }

    fn save_entity_catalog<'a>(
        &'a self,
        entity_type: &'a str,
        entities: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _writing = self.writes.lock().await;
            queries::save_entity_catalog(&self.pool, entity_type, &entities).await
        })
    }

    fn entity_catalogs(&self) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>> {
        Box::pin(queries::entity_catalogs(&self.pool))
    }
}
