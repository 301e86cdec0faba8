//! The SQLite store: a file in WAL mode with full syncs, or a private in-memory database.

mod backend;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::Mutex;

use crate::commit::GroupCommit;
use crate::error::StoreError;
use crate::sql::group::{Place, Writer};
use crate::sql::queries::Queries;
use crate::sql::store::OnPool;
use crate::url;

/// How long a statement waits for another connection's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections a file store keeps at most.
const FILE_CONNECTIONS: u32 = 4;

/// A [`Store`](crate::Store) on SQLite: a file (WAL mode, created if missing) or memory.
#[derive(Debug)]
pub struct SqliteStore {
    /// The connection pool (one connection for an in-memory database).
    pool: SqlitePool,
    /// Serializes this process's write transactions, so they queue here instead of spinning on SQLite's lock.
    writes: Arc<Mutex<()>>,
    /// The group writer of asks' writes; `None` with group commit off.
    writer: Option<Writer>,
}

impl SqliteStore {
    /// Opens (creating the file if missing) the store at a file path or a `sqlite:` URL, and applies its migrations;
    /// group commit with its default window.
    pub async fn open(path_or_url: &str) -> Result<Self, StoreError> {
        Self::open_with(path_or_url, GroupCommit::default()).await
    }

    /// Opens the store like [`SqliteStore::open`], gathering asks' writes as `commit` says.
    pub async fn open_with(path_or_url: &str, commit: GroupCommit) -> Result<Self, StoreError> {
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
            connect_file(options).await
        }
        .map_err(|error| StoreError::database(&format!("cannot open SQLite store `{path_or_url}`"), error))?;
        Sqlite::migrate(&pool).await?;
        tracing::debug!(store = path_or_url, "SQLite store open");
        let writes = Arc::new(Mutex::new(()));
        let writer = match commit.is_on() {
            true => Some(Writer::spawn(
                pool.clone(),
                Some(Arc::clone(&writes)),
                commit,
                Place::Thread,
            )?),
            false => None,
        };
        Ok(Self { pool, writes, writer })
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

impl OnPool for SqliteStore {
    type Db = Sqlite;

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    fn writes(&self) -> Option<&Mutex<()>> {
        Some(&self.writes)
    }

    fn writer(&self) -> Option<&Writer> {
        self.writer.as_ref()
    }
}

/// How often opening a file is tried while another process holds the lock switching it to WAL mode.
const OPEN_ATTEMPTS: u32 = 50;

/// Connects a pool to a file. Switching a new file to WAL mode takes an exclusive lock that SQLite does not wait
/// for through the busy timeout, so two instances starting at once may see "database is locked": that one error is
/// retried with a short, bounded pause.
async fn connect_file(options: SqliteConnectOptions) -> Result<SqlitePool, sqlx::Error> {
    let mut attempt = 0;
    loop {
        // A file's connection does not break while it waits in the pool: no ping (a round trip to its thread)
        // before each use.
        let result = SqlitePoolOptions::new()
            .max_connections(FILE_CONNECTIONS)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await;
        match result {
            Err(error) if attempt + 1 < OPEN_ATTEMPTS && is_locked(&error) => {
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20 * u64::from(attempt.min(10)))).await;
            }
            other => return other,
        }
    }
}

fn is_locked(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("5") || db.message().contains("locked"))
}
