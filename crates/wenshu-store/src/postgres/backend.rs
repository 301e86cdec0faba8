//! The PostgreSQL statements of the store; JSON travels as JSONB.

use serde_json::Value;
use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;

use crate::error::StoreError;
use crate::migrations::{Migration, POSTGRES};
use crate::sql::{Backend, Statements};

impl Backend for Postgres {
    const LABEL: &'static str = "PostgreSQL";
    const BACKEND: &'static str = "postgres";
    const MIGRATIONS: &'static [Migration] = POSTGRES;
    const SQL: Statements = Statements {
        begin_write: None,
        insert_conversation: "INSERT INTO conversations (id, created_at) VALUES ($1, $2)",
        select_conversation: "SELECT id, created_at FROM conversations WHERE id = $1",
        turns_of_conversation: "FROM turns WHERE conversation_id = $1 ORDER BY seq",
        select_history: "SELECT question, conclusion, kind, subject_type, subject_id, subject_name FROM (SELECT seq, \
                         question, conclusion, kind, subject_type, subject_id, subject_name FROM turns \
                         WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2) AS recent ORDER BY seq",
        // The conversation rows stay locked until the append commits, so turns number one after another.
        lock_rows: " FOR UPDATE",
        select_trace: "SELECT body, packed FROM traces WHERE id = $1",
        upsert_tool_state: "INSERT INTO tool_states (name, enabled, updated_at) VALUES ($1, $2, $3) \
                            ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        upsert_entity_catalog: "INSERT INTO entity_catalogs (entity_type, body, updated_at) VALUES ($1, $2, $3) \
                                ON CONFLICT (entity_type) DO UPDATE SET body = excluded.body, \
                                updated_at = excluded.updated_at",
        // Instances starting at once take turns on this transaction-scoped advisory lock.
        migration_lock: Some("SELECT pg_advisory_xact_lock($1)"),
        // `wenshu-st` as bytes.
        migration_lock_key: 0x7765_6e73_6875_2d73,
        insert_schema_version: "INSERT INTO wenshu_schema_version (version, name, applied_at) VALUES ($1, $2, $3)",
    };

    type Json = Value;

    fn bind_json<'q>(query: Query<'q, Self, PgArguments>, value: &Value) -> Query<'q, Self, PgArguments> {
        query.bind(value)
    }

    fn json_value(stored: Value, _column: &str) -> Result<Value, StoreError> {
        Ok(stored)
    }
}
