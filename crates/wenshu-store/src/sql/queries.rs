//! The statements behind each [`Store`](crate::Store) method, written once for every [`Backend`].

use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Pool, Row, Type};

use super::Backend;
use super::audit::AuditQueries;
use super::rows::{ConversationRow, RowWrites, TurnRow};
use crate::audit::NewAudit;
use crate::error::StoreError;
use crate::model::{
    Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, SubjectRef, ToolState, Turn,
};
use crate::store::BoxFuture;
use crate::{ids, pack};

/// The turn columns [`turn_from_row`] reads, in a `SELECT` list.
pub(super) const TURN_COLUMNS: &str =
    "id, question, rewritten_question, kind, tool, outcome, conclusion, trace_id, created_at";

/// A [`StoreError::Database`] for a failed statement.
pub(super) fn failed(context: &'static str) -> impl Fn(sqlx::Error) -> StoreError {
    move |error| StoreError::database(context, error)
}

/// Reads one column of a row.
pub(super) fn get<'r, R: Row, T: Decode<'r, R::Database> + Type<R::Database>>(
    row: &'r R,
    column: &str,
) -> Result<T, StoreError>
where
    for<'c> &'c str: ColumnIndex<R>,
{
    row.try_get(column)
        .map_err(|error| StoreError::database(&format!("cannot read column {column}"), error))
}

/// Reads one JSON column of a row; `what` (`table.column`) names it in messages.
pub(super) fn get_json<DB: Backend>(row: &DB::Row, column: &str, what: &str) -> Result<Value, StoreError>
where
    for<'c> &'c str: ColumnIndex<DB::Row>,
{
    DB::json_value(get(row, column)?, what)
}

/// A [`Turn`] from a row with [`TURN_COLUMNS`].
pub(super) fn turn_from_row<DB: Backend>(row: &DB::Row) -> Result<Turn, StoreError>
where
    for<'c> &'c str: ColumnIndex<DB::Row>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
{
    Ok(Turn {
        id: get(row, "id")?,
        question: get(row, "question")?,
        rewritten_question: get(row, "rewritten_question")?,
        kind: get(row, "kind")?,
        tool: get(row, "tool")?,
        outcome: get_json::<DB>(row, "outcome", "turns.outcome")?,
        conclusion: get(row, "conclusion")?,
        trace_id: get(row, "trace_id")?,
        created_at: get(row, "created_at")?,
    })
}

/// The trace of a row with `body, packed`: the packed trace where the row has one, else the JSON of `body` (rows
/// written before traces were packed).
pub(super) fn trace_from_row<DB: Backend>(row: &DB::Row) -> Result<Value, StoreError>
where
    for<'c> &'c str: ColumnIndex<DB::Row>,
    for<'r> Vec<u8>: Decode<'r, DB> + Type<DB>,
{
    let packed: Option<Vec<u8>> = get(row, "packed")?;
    match packed {
        Some(packed) => pack::unpack(&packed),
        None => get_json::<DB>(row, "body", "traces.body"),
    }
}

/// The subject of a history row (`subject_type, subject_id, subject_name`), when the turn had one.
fn subject_from_row<DB: Backend>(row: &DB::Row) -> Result<Option<SubjectRef>, StoreError>
where
    for<'c> &'c str: ColumnIndex<DB::Row>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
{
    let entity_type: Option<String> = get(row, "subject_type")?;
    let id: Option<String> = get(row, "subject_id")?;
    let name: Option<String> = get(row, "subject_name")?;
    let (Some(entity_type), Some(id), Some(name)) = (entity_type, id, name) else {
        return Ok(None);
    };
    let id = serde_json::from_str(&id).map_err(|e| StoreError::database("cannot read column subject_id", e))?;
    Ok(Some(SubjectRef { entity_type, id, name }))
}

/// The statements behind each [`Store`](crate::Store) method, on a pool of one backend.
pub(crate) trait Queries: AuditQueries + RowWrites {
    /// Brings the schema up to date (see [`super::migrate`]).
    fn migrate(pool: &Pool<Self>) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Inserts a new conversation.
    fn create_conversation(pool: &Pool<Self>) -> BoxFuture<'_, Result<Conversation, StoreError>>;

    /// A conversation with its turns by seq.
    fn conversation<'a>(
        pool: &'a Pool<Self>,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>>;

    /// The last `rounds` turns, oldest first.
    fn history<'a>(
        pool: &'a Pool<Self>,
        conversation_id: &'a str,
        rounds: usize,
    ) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>>;

    /// Inserts a turn, its trace and (when given) its audit entry in one write transaction, the turn numbered
    /// after the last; after `opening`, the new conversation it is the first of, when given.
    fn append_turn<'a>(
        pool: &'a Pool<Self>,
        turn: NewTurn,
        audit: Option<&'a NewAudit>,
        opening: Option<ConversationRow<'a>>,
    ) -> BoxFuture<'a, Result<StoredIds, StoreError>>;

    /// Inserts a turn, its packed trace and (when given) its audit entry on `connection`, inside the caller's
    /// write transaction, the turn numbered after the last (the conversation locked where the backend locks rows).
    fn write_turn<'a>(
        connection: &'a mut Self::Connection,
        turn: &'a NewTurn,
        audit: Option<&'a NewAudit>,
    ) -> BoxFuture<'a, Result<StoredIds, StoreError>>;

    /// A trace body by id.
    fn trace<'a>(pool: &'a Pool<Self>, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;

    /// Every tool state by name.
    fn tool_states(pool: &Pool<Self>) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>>;

    /// Inserts or updates one tool state.
    fn set_tool_enabled<'a>(
        pool: &'a Pool<Self>,
        name: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Inserts or replaces one entity catalog.
    fn save_entity_catalog<'a>(
        pool: &'a Pool<Self>,
        entity_type: &'a str,
        entities: &'a Value,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Every entity catalog by entity type.
    fn entity_catalogs(pool: &Pool<Self>) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>>;
}

on_every_backend! {
    impl<DB: Backend> Queries for DB {
        fn migrate(pool: &Pool<Self>) -> BoxFuture<'_, Result<(), StoreError>> {
            Box::pin(super::migrate::run(pool))
        }

        fn create_conversation(pool: &Pool<Self>) -> BoxFuture<'_, Result<Conversation, StoreError>> {
            Box::pin(async move {
                let conversation = Conversation {
                    id: ids::new_id(),
                    created_at: ids::now(),
                };
                sqlx::query(DB::SQL.insert_conversation)
                    .bind(conversation.id.as_str())
                    .bind(conversation.created_at.as_str())
                    .execute(pool)
                    .await
                    .map_err(failed("cannot create a conversation"))?;
                Ok(conversation)
            })
        }

        fn conversation<'a>(
            pool: &'a Pool<Self>,
            id: &'a str,
        ) -> BoxFuture<'a, Result<Option<ConversationWithTurns>, StoreError>> {
            Box::pin(async move {
                let found = sqlx::query(DB::SQL.select_conversation)
                    .bind(id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot read a conversation"))?;
                let Some(row) = found else {
                    return Ok(None);
                };
                let tail = DB::SQL.turns_of_conversation;
                let rows = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {TURN_COLUMNS} {tail}")))
                    .bind(id)
                    .fetch_all(pool)
                    .await
                    .map_err(failed("cannot read a conversation's turns"))?;
                Ok(Some(ConversationWithTurns {
                    id: get(&row, "id")?,
                    created_at: get(&row, "created_at")?,
                    turns: rows.iter().map(turn_from_row::<DB>).collect::<Result<_, _>>()?,
                }))
            })
        }

        fn history<'a>(
            pool: &'a Pool<Self>,
            conversation_id: &'a str,
            rounds: usize,
        ) -> BoxFuture<'a, Result<Vec<HistoryRound>, StoreError>> {
            Box::pin(async move {
                let limit = i64::try_from(rounds).unwrap_or(i64::MAX);
                let rows = sqlx::query(DB::SQL.select_history)
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
                            kind: get(row, "kind")?,
                            subject: subject_from_row::<DB>(row)?,
                        })
                    })
                    .collect()
            })
        }

        fn append_turn<'a>(
            pool: &'a Pool<Self>,
            turn: NewTurn,
            audit: Option<&'a NewAudit>,
            opening: Option<ConversationRow<'a>>,
        ) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
            Box::pin(async move {
                let mut tx = super::begin_write(pool)
                    .await
                    .map_err(failed("cannot begin appending a turn"))?;
                if let Some(opening) = opening {
                    DB::insert_conversations(&mut *tx, &[opening]).await?;
                }
                let ids = <Self as Queries>::write_turn(&mut *tx, &turn, audit).await?;
                tx.commit().await.map_err(failed("cannot commit the turn"))?;
                Ok(ids)
            })
        }

        fn write_turn<'a>(
            connection: &'a mut Self::Connection,
            turn: &'a NewTurn,
            audit: Option<&'a NewAudit>,
        ) -> BoxFuture<'a, Result<StoredIds, StoreError>> {
            Box::pin(async move {
                let conversation = turn.conversation_id.as_str();
                let last = DB::last_seqs(&mut *connection, &[conversation]).await?;
                let Some(last) = last.get(conversation) else {
                    return Err(StoreError::conversation_not_found(conversation));
                };
                let ids = StoredIds {
                    turn_id: ids::new_id(),
                    trace_id: ids::new_id(),
                };
                let created_at = ids::now();
                let packed = pack::pack(&turn.trace);
                let row = TurnRow {
                    ids: &ids,
                    seq: last + 1,
                    created_at: &created_at,
                    turn,
                    audit,
                    packed: &packed,
                };
                DB::insert_turns(&mut *connection, &[row]).await?;
                Ok(ids)
            })
        }

        fn trace<'a>(pool: &'a Pool<Self>, trace_id: &'a str) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
            Box::pin(async move {
                let row = sqlx::query(DB::SQL.select_trace)
                    .bind(trace_id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot read a trace"))?;
                row.as_ref().map(trace_from_row::<DB>).transpose()
            })
        }

        fn tool_states(pool: &Pool<Self>) -> BoxFuture<'_, Result<Vec<ToolState>, StoreError>> {
            Box::pin(async move {
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
            })
        }

        fn set_tool_enabled<'a>(
            pool: &'a Pool<Self>,
            name: &'a str,
            enabled: bool,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                sqlx::query(DB::SQL.upsert_tool_state)
                    .bind(name)
                    .bind(enabled)
                    .bind(ids::now().as_str())
                    .execute(pool)
                    .await
                    .map_err(failed("cannot set a tool state"))?;
                Ok(())
            })
        }

        fn save_entity_catalog<'a>(
            pool: &'a Pool<Self>,
            entity_type: &'a str,
            entities: &'a Value,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                let upsert = sqlx::query(DB::SQL.upsert_entity_catalog).bind(entity_type);
                DB::bind_json(upsert, entities)
                    .bind(ids::now().as_str())
                    .execute(pool)
                    .await
                    .map_err(failed("cannot save an entity catalog"))?;
                Ok(())
            })
        }

        fn entity_catalogs(pool: &Pool<Self>) -> BoxFuture<'_, Result<Vec<(String, Value)>, StoreError>> {
            Box::pin(async move {
                let rows = sqlx::query("SELECT entity_type, body FROM entity_catalogs ORDER BY entity_type")
                    .fetch_all(pool)
                    .await
                    .map_err(failed("cannot read entity catalogs"))?;
                rows.iter()
                    .map(|row| {
                        let entity_type: String = get(row, "entity_type")?;
                        let body = get_json::<DB>(row, "body", "entity_catalogs.body")?;
                        Ok((entity_type, body))
                    })
                    .collect()
            })
        }
    }
}
