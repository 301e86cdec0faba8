//! The PostgreSQL store, shared by several wenshu instances.

mod migrate;
mod queries;

use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};

use crate::error::StoreError;
use crate::model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, ToolState};
use crate::store::{BoxFuture, Store};
use crate::url;

/// How long taking a connection from the pool may wait.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections one instance keeps at most.
const MAX_CONNECTIONS: u32 = 8;

/// A [`Store`] on PostgreSQL; several instances may share one database.
#[derive(Debug)]
pub struct PgStore {
    /// The connection pool.
    pool: PgPool,
}

impl PgStore {
    /// Connects to the database at a `postgres://` URL and applies its migrations (safe with others at once).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).map_err(|_| url::invalid(url))?;
        let cannot_connect = |error: sqlx::Error| StoreError::Database {
            message: format!(
                "cannot connect to PostgreSQL store `{}`: {}",
                url::redact(url),
                url::scrub(&error.to_string(), url)
            ),
        };
        // One direct connection first: a wrong address or password fails at once with the server's own words,
        // where a pool would keep retrying until its acquire timeout.
        let probe = PgConnection::connect_with(&options).await.map_err(cannot_connect)?;
        if let Err(error) = probe.close().await {
            tracing::debug!(%error, "closing the PostgreSQL probe connection failed");
        }
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(options);
        migrate::run(&pool).await?;
        tracing::debug!(store = %url::redact(url), "PostgreSQL store open");
        Ok(Self { pool })
    }

    /// Closes every connection, waiting for those in use to come back.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

impl Store for PgStore {
    fn create_conversation(&self) -> BoxFuture<'_, Result<Conversation, StoreError>> {
        Box::pin(queries::create_conversation(&self.pool))
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
        Box::pin(queries::append_turn(&self.pool, turn))
    }

    fn trace<'a>(&'a self, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        Box::pin(queries::trace(&self.pool, trace_id))
    }

    fn tool_states(&self) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>> {
        Box::pin(queries::tool_states(&self.pool))
    }

    fn set_tool_enabled<'a>(&'a self, name: &'a str, enabled: bool) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(queries::set_tool_enabled(&self.pool, name, enabled))
    }

    fn save_entity_catalog<'a>(
        &'a self,
        entity_type: &'a str,
        entities: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { queries::save_entity_catalog(&self.pool, entity_type, &entities).await })
    }

    fn entity_catalogs(&self) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>> {
        Box::pin(queries::entity_catalogs(&self.pool))
    }
}
