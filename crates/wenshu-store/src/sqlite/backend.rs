//! The SQLite statements of the store; JSON travels as TEXT.

use serde_json::Value;
use sqlx::Sqlite;
use sqlx::query::Query;
use sqlx::sqlite::SqliteArguments;

use crate::error::StoreError;
use crate::migrations::{Migration, SQLITE};
use crate::sql::{Backend, Statements};

impl Backend for Sqlite {
    const LABEL: &'static str = "SQLite";
    const BACKEND: &'static str = "sqlite";
    const MIGRATIONS: &'static [Migration] = SQLITE;
    const SQL: Statements = Statements {
        // Takes the write lock at once: a second process opening the same file waits for the first.
        begin_write: Some("BEGIN IMMEDIATE"),
        insert_conversation: "INSERT INTO conversations (id, created_at) VALUES (?, ?)",
        select_conversation: "SELECT id, created_at FROM conversations WHERE id = ?",
        turns_of_conversation: "FROM turns WHERE conversation_id = ? ORDER BY seq",
        select_history: "SELECT question, conclusion, kind, subject_type, subject_id, subject_name FROM (SELECT seq, \
                         question, conclusion, kind, subject_type, subject_id, subject_name FROM turns \
                         WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
        lock_rows: "",
        select_trace: "SELECT body, packed FROM traces WHERE id = ?",
        upsert_tool_state: "INSERT INTO tool_states (name, enabled, updated_at) VALUES (?, ?, ?) \
                            ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        upsert_entity_catalog: "INSERT INTO entity_catalogs (entity_type, body, updated_at) VALUES (?, ?, ?) \
                                ON CONFLICT (entity_type) DO UPDATE SET body = excluded.body, \
                                updated_at = excluded.updated_at",
        migration_lock: None,
        migration_lock_key: 0,
        insert_schema_version: "INSERT INTO wenshu_schema_version (version, name, applied_at) VALUES (?, ?, ?)",
    };

    type Json = String;

    fn bind_json<'q>(query: Query<'q, Self, SqliteArguments>, value: &Value) -> Query<'q, Self, SqliteArguments> {
        query.bind(value.to_string())
    }

    fn json_value(stored: String, column: &str) -> Result<Value, StoreError> {
        serde_json::from_str(&stored)
            .map_err(|error| StoreError::database(&format!("stored {column} is not JSON"), error))
    }
}
