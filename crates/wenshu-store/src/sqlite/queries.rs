//! The SQLite statements behind each [`Store`](crate::Store) method; JSON travels as TEXT.

use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::error::StoreError;
use crate::ids;
use crate::model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, ToolState, Turn};

/// The turn columns [`turn_from_row`] reads, in a `SELECT` list.
const TURN_COLUMNS: &str = "id, question, rewritten_question, kind, tool, outcome, conclusion, trace_id, created_at";

/// A [`StoreError::Database`] for a failed statement.
fn failed(context: &'static str) -> impl Fn(sqlx::Error) -> StoreError {
    move |error| StoreError::database(context, error)
}

/// Parses a stored JSON text column.
fn parse_json(text: &str, column: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|error| StoreError::database(&format!("stored {column} is not JSON"), error))
}

/// Reads one column of a row.
fn get<'r, T: sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>>(
    row: &'r SqliteRow,
    column: &str,
) -> Result<T, StoreError> {
    row.try_get(column)
        .map_err(|error| StoreError::database(&format!("cannot read column {column}"), error))
}

/// A [`Turn`] from a row with [`TURN_COLUMNS`].
fn turn_from_row(row: &SqliteRow) -> Result<Turn, StoreError> {
    Ok(Turn {
        id: get(row, "id")?,
        question: get(row, "question")?,
        rewritten_question: get(row, "rewritten_question")?,
        kind: get(row, "kind")?,
        tool: get(row, "tool")?,
        outcome: parse_json(&get::<String>(row, "outcome")?, "turns.outcome")?,
        conclusion: get(row, "conclusion")?,
        trace_id: get(row, "trace_id")?,
        created_at: get(row, "created_at")?,
    })
}

/// Inserts a new conversation.
pub(super) async fn create_conversation(pool: &SqlitePool) -> Result<Conversation, StoreError> {
    let conversation = Conversation {
        id: ids::new_id(),
        created_at: ids::now(),
    };
    sqlx::query("INSERT INTO conversations (id, created_at) VALUES (?, ?)")
        .bind(&conversation.id)
        .bind(&conversation.created_at)
        .execute(pool)
        .await
        .map_err(failed("cannot create a conversation"))?;
    Ok(conversation)
}

/// A conversation with its turns by seq.
pub(super) async fn conversation(pool: &SqlitePool, id: &str) -> Result<Option<ConversationWithTurns>, StoreError> {
    let found = sqlx::query("SELECT id, created_at FROM conversations WHERE id = ?")
        .bind(id)
        .fetch_optional(pool)
        .await
        .map_err(failed("cannot read a conversation"))?;
    let Some(row) = found else {
        return Ok(None);
    };
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {TURN_COLUMNS} FROM turns WHERE conversation_id = ? ORDER BY seq"
    )))
    .bind(id)
    .fetch_all(pool)
    .await
    .map_err(failed("cannot read a conversation's turns"))?;
    Ok(Some(ConversationWithTurns {
        id: get(&row, "id")?,
        created_at: get(&row, "created_at")?,
        turns: rows.iter().map(turn_from_row).collect::<Result<_, _>>()?,
    }))
}

/// The last `rounds` turns, oldest first.
pub(super) async fn history(
    pool: &SqlitePool,
    conversation_id: &str,
    rounds: usize,
) -> Result<Vec<HistoryRound>, StoreError> {
    let limit = i64::try_from(rounds).unwrap_or(i64::MAX);
    let rows = sqlx::query(
        "SELECT question, conclusion FROM (SELECT seq, question, conclusion FROM turns \
         WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
    )
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(failed("cannot read history"))?;
    rows.iter()
        .map(|row| {
            Ok(HistoryRound {
                question: get(row, "question")?,
                conclusion: get(row, "conclusion")?,
            })
        })
        .collect()
}

/// Inserts a turn and its trace in one `BEGIN IMMEDIATE` transaction, the turn numbered after the last.
pub(super) async fn append_turn(pool: &SqlitePool, turn: NewTurn) -> Result<StoredIds, StoreError> {
    let mut tx = pool
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(failed("cannot begin appending a turn"))?;
    let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM conversations WHERE id = ?")
        .bind(&turn.conversation_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(failed("cannot look up the conversation"))?;
    if exists.is_none() {
        return Err(StoreError::conversation_not_found(&turn.conversation_id));
    }
    let seq: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE conversation_id = ?")
        .bind(&turn.conversation_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(failed("cannot number the turn"))?;
    let ids = StoredIds {
        turn_id: ids::new_id(),
        trace_id: ids::new_id(),
    };
    let created_at = ids::now();
    sqlx::query(
        "INSERT INTO turns (id, conversation_id, seq, question, rewritten_question, kind, tool, outcome, \
         conclusion, trace_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&ids.turn_id)
    .bind(&turn.conversation_id)
    .bind(seq)
    .bind(&turn.question)
    .bind(&turn.rewritten_question)
    .bind(&turn.kind)
    .bind(&turn.tool)
    .bind(turn.outcome.to_string())
    .bind(&turn.conclusion)
    .bind(&ids.trace_id)
    .bind(&created_at)
    .execute(&mut *tx)
    .await
    .map_err(failed("cannot insert the turn"))?;
    sqlx::query("INSERT INTO traces (id, turn_id, body, created_at) VALUES (?, ?, ?, ?)")
        .bind(&ids.trace_id)
        .bind(&ids.turn_id)
        .bind(turn.trace.to_string())
        .bind(&created_at)
        .execute(&mut *tx)
        .await
        .map_err(failed("cannot insert the trace"))?;
    tx.commit().await.map_err(failed("cannot commit the turn"))?;
    Ok(ids)
}

/// A trace body by id.
pub(super) async fn trace(pool: &SqlitePool, trace_id: &str) -> Result<Option<Value>, StoreError> {
    let body: Option<String> = sqlx::query_scalar("SELECT body FROM traces WHERE id = ?")
        .bind(trace_id)
        .fetch_optional(pool)
        .await
        .map_err(failed("cannot read a trace"))?;
    body.map(|text| parse_json(&text, "traces.body")).transpose()
}

/// Every tool state by name.
pub(super) async fn tool_states(pool: &SqlitePool) -> Result<Vec<ToolState>, StoreError> {
    let rows = sqlx::query("SELECT name, enabled, updated_at FROM tool_states ORDER BY name")
        .fetch_all(pool)
        .await
        .map_err(failed("cannot read tool states"))?;
    rows.iter()
        .map(|row| {
            Ok(ToolState {
                name: get(row, "name")?,
                enabled: get(row, "enabled")?,
                updated_at: get(row, "updated_at")?,
            })
        })
        .collect()
}

/// Inserts or updates one tool state.
pub(super) async fn set_tool_enabled(pool: &SqlitePool, name: &str, enabled: bool) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO tool_states (name, enabled, updated_at) VALUES (?, ?, ?) \
         ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
    )
    .bind(name)
    .bind(enabled)
    .bind(ids::now())
    .execute(pool)
    .await
    .map_err(failed("cannot set a tool state"))?;
    Ok(())
}

/// Inserts or replaces one entity catalog.
pub(super) async fn save_entity_catalog(
    pool: &SqlitePool,
    entity_type: &str,
    entities: &Value,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO entity_catalogs (entity_type, body, updated_at) VALUES (?, ?, ?) \
         ON CONFLICT (entity_type) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
    )
    .bind(entity_type)
    .bind(entities.to_string())
    .bind(ids::now())
    .execute(pool)
    .await
    .map_err(failed("cannot save an entity catalog"))?;
    Ok(())
}

/// Every entity catalog by entity type.
pub(super) async fn entity_catalogs(pool: &SqlitePool) -> Result<Vec<(String, Value)>, StoreError> {
    let rows = sqlx::query("SELECT entity_type, body FROM entity_catalogs ORDER BY entity_type")
        .fetch_all(pool)
        .await
        .map_err(failed("cannot read entity catalogs"))?;
    rows.iter()
        .map(|row| {
            let entity_type: String = get(row, "entity_type")?;
            let body = parse_json(&get::<String>(row, "body")?, "entity_catalogs.body")?;
            Ok((entity_type, body))
        })
        .collect()
}
