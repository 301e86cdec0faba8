//! Database access: connections by URL (SQLite, PostgreSQL, MySQL/MariaDB), read-only queries with a timeout and a
//! row cap, rows as JSON.
//!
//! - [`Database::connect_read_only`] is what queries use: SQLite opens the file read-only with
//!   `PRAGMA query_only = ON`; PostgreSQL and MySQL run every query in a read-only transaction that is rolled back.
//! - [`Database::query`] binds JSON values (never concatenates them), stops the statement at its timeout (on the
//!   client, and on the server where it can: `statement_timeout`, `max_execution_time`/`max_statement_time`, a
//!   SQLite progress handler), reads at most the row cap and converts every column to JSON by its type, counting
//!   the bytes as rows come in ([`bytes`]): over the cap per value or per result ([`ByteCaps`]) the statement is
//!   cancelled (its connection closed) and the query fails with [`DbError::TooLarge`].
//! - [`Database::connect`] is writable, for making the demo ([`Database::execute_all`], [`Database::execute_batch`]).
//! - [`rewrite_named`] turns `:name` placeholders into the dialect's positional ones.

mod authorizer;
pub mod bytes;
mod collect;
mod columns;
pub mod convert;
mod driver;
mod error;
mod mysql;
mod postgres;
mod privileges;
mod rows;
mod run;
mod server;
mod sqlite;
mod url;
mod write;

use std::time::Duration;

use serde_json::Value;
use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;

pub use crate::placeholder::{PlaceholderError, Positional, placeholder_names, rewrite_named};
pub use authorizer::ReadScope;
pub use columns::DeclaredColumn;
pub use error::{ByteCap, DbError};
pub use privileges::tables_beyond;
pub use rows::{ByteCaps, QueryLimits, Rows};
pub use server::ensure_database;
pub use url::{ALLOWED_SCHEMES, Dialect, dialect_of, redact};

/// How to open a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbOptions {
    /// Refuse every write (see the module documentation for how, per dialect).
    pub read_only: bool,
    /// The most connections the pool holds.
    pub max_connections: u32,
    /// How long to wait for a connection (when connecting, and for a free one from the pool).
    pub connect_timeout: Duration,
    /// SQLite: what the connection's authorizer lets statements read and call (the database refuses the rest).
    pub scope: Option<ReadScope>,
    /// PostgreSQL: the role every query runs as (`SET LOCAL ROLE`).
    pub role: Option<String>,
}

impl Default for DbOptions {
    fn default() -> Self {
        Self {
            read_only: false,
            max_connections: 5,
            connect_timeout: Duration::from_secs(10),
            scope: None,
            role: None,
        }
    }
}

/// The SQL type a NULL bind carries. PostgreSQL must know the type of every parameter, also of one that is only
/// tested with `IS NULL` (`($1 IS NULL OR id = $1)`); SQLite and MySQL ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NullType {
    /// A NULL text (the default).
    #[default]
    Text,
    /// A NULL 64-bit integer.
    Integer,
    /// A NULL double.
    Float,
    /// A NULL boolean.
    Bool,
}

/// One bound value, and the type it carries when it is NULL.
#[derive(Debug, Clone, PartialEq)]
pub struct Bind {
    /// The value (null, bool, integer, float, string; arrays and objects go as JSON text).
    pub value: Value,
    /// The type of a NULL value.
    pub null_type: NullType,
}

impl Bind {
    /// A value whose NULL is text.
    pub fn new(value: Value) -> Self {
        Self {
            value,
            null_type: NullType::Text,
        }
    }

    /// A value whose NULL has the type `null_type`.
    pub fn typed(value: Value, null_type: NullType) -> Self {
        Self { value, null_type }
    }
}

/// Values bound with NULL as text.
pub(crate) fn untyped(values: &[Value]) -> Vec<Bind> {
    values.iter().cloned().map(Bind::new).collect()
}

/// One write statement with its binds (positional placeholders of the dialect).
#[derive(Debug, Clone, PartialEq)]
pub struct WriteStatement {
    /// The SQL.
    pub sql: String,
    /// The values bound to its placeholders, in order.
    pub binds: Vec<Value>,
}

#[derive(Debug, Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
    MySql(MySqlPool, mysql::Flavor),
}

/// A pool of connections to one database, by URL. Cloning shares the pool.
#[derive(Debug, Clone)]
pub struct Database {
    pool: Pool,
    read_only: bool,
    url: String,
    role: Option<String>,
}

impl Database {
    /// Opens a writable database (`sqlite:PATH`, `sqlite://PATH`, `sqlite::memory:`, `postgres://…`,
    /// `mysql://…`, `mariadb://…`); a SQLite file is created when missing.
    pub async fn connect(url: &str) -> Result<Self, DbError> {
        Self::connect_with(url, &DbOptions::default()).await
    }

    /// Opens a database that refuses every write.
    pub async fn connect_read_only(url: &str) -> Result<Self, DbError> {
        let options = DbOptions {
            read_only: true,
            ..DbOptions::default()
        };
        Self::connect_with(url, &options).await
    }

    /// Opens a database with explicit options.
    pub async fn connect_with(url: &str, options: &DbOptions) -> Result<Self, DbError> {
        let pool = match dialect_of(url)? {
            Dialect::Sqlite => Pool::Sqlite(sqlite::connect(url, options).await?),
            Dialect::Postgres => Pool::Postgres(postgres::connect(url, options).await?),
            Dialect::MySql => {
                let (pool, flavor) = mysql::connect(url, options).await?;
                Pool::MySql(pool, flavor)
            }
            Dialect::Custom(_) => {
                return Err(DbError::UnsupportedScheme {
                    value: redact(url),
                    allowed: ALLOWED_SCHEMES,
                });
            }
        };
        Ok(Self {
            pool,
            read_only: options.read_only,
            url: redact(url),
            role: options.role.clone(),
        })
    }

    /// The SQL dialect.
    pub fn dialect(&self) -> Dialect {
        match self.pool {
            Pool::Sqlite(_) => Dialect::Sqlite,
            Pool::Postgres(_) => Dialect::Postgres,
            Pool::MySql(..) => Dialect::MySql,
        }
    }

    /// Whether this connection refuses writes.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The URL, with its password hidden.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Runs one query: `sql` with the dialect's positional placeholders, `binds` bound in order (null, bool,
    /// integer, float, string; arrays and objects as JSON text; a NULL is a NULL text), under `limits`.
    pub async fn query(&self, sql: &str, binds: &[Value], limits: QueryLimits) -> Result<Rows, DbError> {
        self.query_binds(sql, &untyped(binds), limits).await
    }

    /// Runs one query like [`Database::query`], each NULL with its own type.
    pub async fn query_binds(&self, sql: &str, binds: &[Bind], limits: QueryLimits) -> Result<Rows, DbError> {
        match &self.pool {
            Pool::Sqlite(pool) => sqlite::query(pool, sql, binds, limits).await,
            Pool::Postgres(pool) => {
                postgres::query(pool, sql, binds, limits, self.read_only, self.role.as_deref()).await
            }
            Pool::MySql(pool, flavor) => mysql::query(pool, *flavor, sql, binds, limits, self.read_only).await,
        }
    }

    /// Runs write statements in one transaction; returns the rows affected. Refused on a read-only connection.
    pub async fn execute_all(&self, statements: &[WriteStatement]) -> Result<u64, DbError> {
        self.refuse_if_read_only()?;
        match &self.pool {
            Pool::Sqlite(pool) => write::execute_all(pool, statements).await,
            Pool::Postgres(pool) => write::execute_all(pool, statements).await,
            Pool::MySql(pool, _) => write::execute_all(pool, statements).await,
        }
    }

    /// Runs a script of statements without binds. Refused on a read-only connection.
    pub async fn execute_batch(&self, sql: &str) -> Result<(), DbError> {
        self.refuse_if_read_only()?;
        match &self.pool {
            Pool::Sqlite(pool) => write::execute_batch(pool, sql).await,
            Pool::Postgres(pool) => write::execute_batch(pool, sql).await,
            Pool::MySql(pool, _) => write::execute_batch(pool, sql).await,
        }
    }

    /// The tables this connection can read, as `schema.table` (the least-privilege check): PostgreSQL asks
    /// `has_any_column_privilege` over the catalog (as the configured role), MySQL reads `SHOW GRANTS` and the
    /// tables it may see; SQLite answers with none (its authorizer, see [`ReadScope`], is the bound there).
    pub async fn readable_tables(&self) -> Result<Vec<String>, DbError> {
        privileges::readable_tables(self).await
    }

    /// The columns of `table` in the connection's default schema, in order, as the database declares them.
    pub async fn columns(&self, table: &str) -> Result<Vec<DeclaredColumn>, DbError> {
        columns::columns(self, table).await
    }

    /// The readable tables (see [`Database::readable_tables`]) that are not among `allowed`: what a least-privilege
    /// account would not let this connection read.
    pub async fn tables_beyond(&self, allowed: &[String]) -> Result<Vec<String>, DbError> {
        let readable = privileges::readable_tables(self).await?;
        let schema = privileges::default_schema(self).await?;
        Ok(tables_beyond(&readable, allowed, schema.as_deref()))
    }

    /// Closes every connection of the pool (clones included).
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(pool) => pool.close().await,
            Pool::Postgres(pool) => pool.close().await,
            Pool::MySql(pool, _) => pool.close().await,
        }
    }

    fn refuse_if_read_only(&self) -> Result<(), DbError> {
        if self.read_only {
            return Err(DbError::ReadOnly {
                message: "this connection was opened read-only".into(),
            });
        }
        Ok(())
    }
}
