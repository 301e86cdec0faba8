//! The PostgreSQL store, shared by several wenshu instances.

mod backend;

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::{Connection, Postgres};
use tokio::sync::Mutex;

use crate::commit::GroupCommit;
use crate::error::StoreError;
use crate::sql::group::{Place, Writer};
use crate::sql::queries::Queries;
use crate::sql::store::OnPool;
use crate::url;

/// How long taking a connection from the pool may wait.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections one instance keeps at most.
const MAX_CONNECTIONS: u32 = 8;

/// A [`Store`](crate::Store) on PostgreSQL; several instances may share one database.
#[derive(Debug)]
pub struct PgStore {
    /// The connection pool.
    pool: PgPool,
    /// The group writer of asks' writes; `None` with group commit off.
    writer: Option<Writer>,
}

impl PgStore {
    /// Connects to the database at a `postgres://` URL and applies its migrations (safe with others at once);
    /// group commit with its default window.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, GroupCommit::default()).await
    }

    /// Connects like [`PgStore::connect`], gathering asks' writes as `commit` says.
    pub async fn connect_with(url: &str, commit: GroupCommit) -> Result<Self, StoreError> {
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
        Postgres::migrate(&pool).await?;
        tracing::debug!(store = %url::redact(url), "PostgreSQL store open");
        let writer = match commit.is_on() {
            true => Some(Writer::spawn(pool.clone(), None, commit, Place::Runtime)?),
            false => None,
        };
        Ok(Self { pool, writer })
    }

    /// Closes every connection, waiting for those in use to come back.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

impl OnPool for PgStore {
    type Db = Postgres;

    fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// None: the database's own locks order concurrent appends.
    fn writes(&self) -> Option<&Mutex<()>> {
        None
    }

    fn writer(&self) -> Option<&Writer> {
        self.writer.as_ref()
    }
}
