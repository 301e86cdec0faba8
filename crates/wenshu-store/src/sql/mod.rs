//! What the SQL backends share: the [`Backend`] trait (each backend's statements and JSON column handling), the
//! queries and migrations written once over it, and the [`Store`](crate::Store) implementation on top.

/// Writes `impl<DB: Sql> Trait for DB { … }` with the driver bounds every statement written once over a
/// [`Backend`] needs, so they are stated here only.
macro_rules! on_every_backend {
    (impl<DB: $sql:ident $(+ $more:ident)*> $trait:ident for DB { $($body:tt)* }) => {
        impl<DB> $trait for DB
        where
            DB: $sql $(+ $more)*,
            for<'c> &'c mut DB::Connection: ::sqlx::Executor<'c, Database = DB>,
            DB::Arguments: ::sqlx::IntoArguments<DB>,
            for<'c> &'c str: ::sqlx::ColumnIndex<DB::Row> + ::sqlx::Encode<'c, DB> + ::sqlx::Type<DB>,
            for<'c> Option<&'c str>: ::sqlx::Encode<'c, DB> + ::sqlx::Type<DB>,
            for<'c> Option<i64>: ::sqlx::Encode<'c, DB> + ::sqlx::Type<DB>,
            usize: ::sqlx::ColumnIndex<DB::Row>,
            for<'r> String: ::sqlx::Decode<'r, DB> + ::sqlx::Type<DB>,
            for<'r> i64: ::sqlx::Decode<'r, DB> + ::sqlx::Encode<'r, DB> + ::sqlx::Type<DB>,
            for<'r> bool: ::sqlx::Decode<'r, DB> + ::sqlx::Encode<'r, DB> + ::sqlx::Type<DB>,
            for<'r> Vec<u8>: ::sqlx::Decode<'r, DB> + ::sqlx::Encode<'r, DB> + ::sqlx::Type<DB>,
        {
            $($body)*
        }
    };
}

pub(crate) mod audit;
pub(crate) mod group;
pub(crate) mod library;
pub(crate) mod migrate;
pub(crate) mod owned;
pub(crate) mod queries;
pub(crate) mod rows;
pub(crate) mod store;

use serde_json::Value;
use sqlx::query::Query;
use sqlx::{Decode, Pool, Transaction, Type};

use crate::error::StoreError;
use crate::migrations::Migration;

/// The statements that differ between backends (placeholders, locking, transaction start).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Statements {
    /// The statement that starts a write transaction; `None` for the driver's plain `BEGIN`.
    pub(crate) begin_write: Option<&'static str>,
    /// Inserts a conversation: id, created_at.
    pub(crate) insert_conversation: &'static str,
    /// Selects `id, created_at` of one conversation by id.
    pub(crate) select_conversation: &'static str,
    /// What follows the turn columns in the `SELECT` of a conversation's turns by conversation id, by seq.
    pub(crate) turns_of_conversation: &'static str,
    /// Selects `question, conclusion, subject_type, subject_id, subject_name` of the last N turns of a
    /// conversation, oldest first: conversation id, N.
    pub(crate) select_history: &'static str,
    /// What ends a `SELECT` of conversations to lock them until the transaction ends (` FOR UPDATE`); empty where
    /// the write transaction already holds the whole database (SQLite).
    pub(crate) lock_rows: &'static str,
    /// Selects a trace's `body, packed` by id.
    pub(crate) select_trace: &'static str,
    /// Inserts or updates a tool state: name, enabled, updated_at.
    pub(crate) upsert_tool_state: &'static str,
    /// Inserts or replaces an entity catalog: entity type, body, updated_at.
    pub(crate) upsert_entity_catalog: &'static str,
    /// A statement that serializes migrations across instances, bound with [`Statements::migration_lock_key`].
    pub(crate) migration_lock: Option<&'static str>,
    /// The key bound to [`Statements::migration_lock`].
    pub(crate) migration_lock_key: i64,
    /// Records an applied migration: version, name, applied_at.
    pub(crate) insert_schema_version: &'static str,
}

/// One SQL backend of the store: its driver, its statements and how it keeps JSON.
pub(crate) trait Backend: sqlx::Database {
    /// The backend's name in log lines (`PostgreSQL`, `SQLite`).
    const LABEL: &'static str;
    /// The backend's name in warnings about the schema (`postgres`, `sqlite`).
    const BACKEND: &'static str;
    /// Its numbered migrations, oldest first.
    const MIGRATIONS: &'static [Migration];
    /// Its statements.
    const SQL: Statements;

    /// How a JSON column decodes: a JSON value (JSONB), or its text.
    type Json: for<'r> Decode<'r, Self> + Type<Self> + Send + Unpin;

    /// Binds a JSON value the way the backend stores it.
    fn bind_json<'q>(query: Query<'q, Self, Self::Arguments>, value: &Value) -> Query<'q, Self, Self::Arguments>;

    /// The JSON value of a stored column; `column` (`table.column`) names it in messages.
    fn json_value(stored: Self::Json, column: &str) -> Result<Value, StoreError>;
}

/// Starts a write transaction the way the backend wants it ([`Statements::begin_write`]).
pub(crate) async fn begin_write<DB: Backend>(pool: &Pool<DB>) -> Result<Transaction<'static, DB>, sqlx::Error> {
    match DB::SQL.begin_write {
        Some(begin) => pool.begin_with(begin).await,
        None => pool.begin().await,
    }
}
