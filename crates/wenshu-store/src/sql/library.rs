//! The statements of a person's library, written once for every [`Backend`]: the conversation list, rename and
//! delete, a turn with its owner, and the 👍/👎 verdicts.

use sqlx::{Pool, Postgres, Sqlite};

use super::Backend;
use super::queries::{failed, get, get_json, turn_from_row};
use crate::error::StoreError;
use crate::ids;
use crate::library::{ConversationSummary, Feedback, FeedbackEntry, OwnedTurn};
use crate::store::BoxFuture;

/// The statements that differ between backends (placeholders and null-safe equality).
pub(crate) struct LibraryStatements {
    /// Selects `id, created_at, title, turns, first_question, updated_at` of the conversations with turns whose
    /// owner is (null-safe) the bound owner, newest activity first: owner, limit.
    list: &'static str,
    /// Sets a conversation's title, returning its id: title, id.
    rename: &'static str,
    /// Selects the id of a conversation (to know a delete has something to delete): id.
    exists: &'static str,
    /// The deletes of one conversation, children first: each bound with the conversation id.
    delete: [&'static str; 4],
    /// Selects a turn with its conversation id and owner: turn id.
    owned_turn: &'static str,
    /// Inserts or replaces the verdict of a turn: turn id, verdict, note, created_at.
    upsert_feedback: &'static str,
    /// Selects every verdict with its turn and owner, newest first: limit.
    list_feedback: &'static str,
}

/// A backend's library statements.
pub(crate) trait LibrarySql: Backend {
    /// The statements.
    const LIBRARY: LibraryStatements;
}

/// The columns of the conversation list, after `SELECT`.
const LIST_COLUMNS: &str = "c.id, c.created_at, c.title, \
    (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) AS turns, \
    (SELECT t.question FROM turns t WHERE t.conversation_id = c.id ORDER BY t.seq LIMIT 1) AS first_question, \
    COALESCE((SELECT MAX(t.created_at) FROM turns t WHERE t.conversation_id = c.id), c.created_at) AS updated_at";

impl LibrarySql for Sqlite {
    const LIBRARY: LibraryStatements = LibraryStatements {
        list: "WHERE c.owner IS ? AND EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = c.id) \
               ORDER BY updated_at DESC, c.id DESC LIMIT ?",
        rename: "UPDATE conversations SET title = ? WHERE id = ? RETURNING id",
        exists: "SELECT id FROM conversations WHERE id = ?",
        delete: [
            "DELETE FROM feedback WHERE turn_id IN (SELECT id FROM turns WHERE conversation_id = ?)",
            "DELETE FROM traces WHERE turn_id IN (SELECT id FROM turns WHERE conversation_id = ?)",
            "DELETE FROM turns WHERE conversation_id = ?",
            "DELETE FROM conversations WHERE id = ?",
        ],
        owned_turn: "SELECT t.id, t.question, t.rewritten_question, t.kind, t.tool, t.outcome, t.conclusion, \
                     t.trace_id, t.created_at, t.conversation_id, c.owner FROM turns t \
                     JOIN conversations c ON c.id = t.conversation_id WHERE t.id = ?",
        upsert_feedback: "INSERT INTO feedback (turn_id, verdict, note, created_at) VALUES (?, ?, ?, ?) \
                          ON CONFLICT (turn_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, \
                          created_at = excluded.created_at",
        list_feedback: "SELECT f.turn_id, f.verdict, f.note, f.created_at, t.conversation_id, c.owner, t.question, \
                        t.rewritten_question, t.kind, t.tool, t.outcome FROM feedback f \
                        JOIN turns t ON t.id = f.turn_id JOIN conversations c ON c.id = t.conversation_id \
                        ORDER BY f.created_at DESC, f.turn_id LIMIT ?",
    };
}

impl LibrarySql for Postgres {
    const LIBRARY: LibraryStatements = LibraryStatements {
        list: "WHERE c.owner IS NOT DISTINCT FROM $1 AND EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = c.id) \
               ORDER BY updated_at DESC, c.id DESC LIMIT $2",
        rename: "UPDATE conversations SET title = $1 WHERE id = $2 RETURNING id",
        exists: "SELECT id FROM conversations WHERE id = $1",
        delete: [
            "DELETE FROM feedback WHERE turn_id IN (SELECT id FROM turns WHERE conversation_id = $1)",
            "DELETE FROM traces WHERE turn_id IN (SELECT id FROM turns WHERE conversation_id = $1)",
            "DELETE FROM turns WHERE conversation_id = $1",
            "DELETE FROM conversations WHERE id = $1",
        ],
        owned_turn: "SELECT t.id, t.question, t.rewritten_question, t.kind, t.tool, t.outcome, t.conclusion, \
                     t.trace_id, t.created_at, t.conversation_id, c.owner FROM turns t \
                     JOIN conversations c ON c.id = t.conversation_id WHERE t.id = $1",
        upsert_feedback: "INSERT INTO feedback (turn_id, verdict, note, created_at) VALUES ($1, $2, $3, $4) \
                          ON CONFLICT (turn_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, \
                          created_at = excluded.created_at",
        list_feedback: "SELECT f.turn_id, f.verdict, f.note, f.created_at, t.conversation_id, c.owner, t.question, \
                        t.rewritten_question, t.kind, t.tool, t.outcome FROM feedback f \
                        JOIN turns t ON t.id = f.turn_id JOIN conversations c ON c.id = t.conversation_id \
                        ORDER BY f.created_at DESC, f.turn_id LIMIT $1",
    };
}

/// The library's reads and writes on a pool of one backend.
pub(crate) trait LibraryQueries: LibrarySql {
    /// The newest `limit` conversations with turns owned (null-safe) by `owner`.
    fn list<'a>(
        pool: &'a Pool<Self>,
        owner: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ConversationSummary>, StoreError>>;
    /// Sets a conversation's title; whether it exists.
    fn rename<'a>(pool: &'a Pool<Self>, id: &'a str, title: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Deletes a conversation with its turns, traces and verdicts; whether it existed.
    fn delete<'a>(pool: &'a Pool<Self>, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// A turn with its conversation and owner.
    fn owned_turn<'a>(pool: &'a Pool<Self>, turn_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTurn>, StoreError>>;
    /// Stores (or replaces) the verdict of a turn.
    fn set_feedback<'a>(
        pool: &'a Pool<Self>,
        turn_id: &'a str,
        verdict: &'a str,
        note: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Feedback, StoreError>>;
    /// The newest `limit` verdicts with what they judged.
    fn feedback(pool: &Pool<Self>, limit: usize) -> BoxFuture<'_, Result<Vec<FeedbackEntry>, StoreError>>;
}

on_every_backend! {
    impl<DB: LibrarySql> LibraryQueries for DB {
        fn list<'a>(
            pool: &'a Pool<Self>,
            owner: Option<&'a str>,
            limit: usize,
        ) -> BoxFuture<'a, Result<Vec<ConversationSummary>, StoreError>> {
            Box::pin(async move {
                let tail = DB::LIBRARY.list;
                let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "SELECT {LIST_COLUMNS} FROM conversations c {tail}"
                )))
                .bind(owner)
                .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                .fetch_all(pool)
                .await
                .map_err(failed("cannot list conversations"))?;
                rows.iter()
                    .map(|row| {
                        let title: Option<String> = get(row, "title")?;
                        let first: Option<String> = get(row, "first_question")?;
                        let turns: i64 = get(row, "turns")?;
                        Ok(ConversationSummary {
                            id: get(row, "id")?,
                            renamed: title.is_some(),
                            title: title.or(first).unwrap_or_default(),
                            created_at: get(row, "created_at")?,
                            updated_at: get(row, "updated_at")?,
                            turn_count: u64::try_from(turns).unwrap_or(0),
                        })
                    })
                    .collect()
            })
        }

        fn rename<'a>(pool: &'a Pool<Self>, id: &'a str, title: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async move {
                let found: Option<String> = sqlx::query_scalar(DB::LIBRARY.rename)
                    .bind(title)
                    .bind(id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot rename a conversation"))?;
                Ok(found.is_some())
            })
        }

        fn delete<'a>(pool: &'a Pool<Self>, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async move {
                let mut tx = super::begin_write(pool)
                    .await
                    .map_err(failed("cannot begin a delete"))?;
                let found: Option<String> = sqlx::query_scalar(DB::LIBRARY.exists)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(failed("cannot find a conversation"))?;
                if found.is_none() {
                    return Ok(false);
                }
                for statement in DB::LIBRARY.delete {
                    sqlx::query(statement)
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(failed("cannot delete a conversation"))?;
                }
                tx.commit().await.map_err(failed("cannot commit a delete"))?;
                Ok(true)
            })
        }

        fn owned_turn<'a>(pool: &'a Pool<Self>, turn_id: &'a str) -> BoxFuture<'a, Result<Option<OwnedTurn>, StoreError>> {
            Box::pin(async move {
                let row = sqlx::query(DB::LIBRARY.owned_turn)
                    .bind(turn_id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot read a turn"))?;
                let Some(row) = row else {
                    return Ok(None);
                };
                Ok(Some(OwnedTurn {
                    conversation_id: get(&row, "conversation_id")?,
                    owner: get(&row, "owner")?,
                    turn: turn_from_row::<DB>(&row)?,
                }))
            })
        }

        fn set_feedback<'a>(
            pool: &'a Pool<Self>,
            turn_id: &'a str,
            verdict: &'a str,
            note: Option<&'a str>,
        ) -> BoxFuture<'a, Result<Feedback, StoreError>> {
            Box::pin(async move {
                let feedback = Feedback {
                    turn_id: turn_id.to_string(),
                    verdict: verdict.to_string(),
                    note: note.map(str::to_string),
                    created_at: ids::now(),
                };
                sqlx::query(DB::LIBRARY.upsert_feedback)
                    .bind(turn_id)
                    .bind(verdict)
                    .bind(note)
                    .bind(feedback.created_at.as_str())
                    .execute(pool)
                    .await
                    .map_err(failed("cannot store feedback"))?;
                Ok(feedback)
            })
        }

        fn feedback(pool: &Pool<Self>, limit: usize) -> BoxFuture<'_, Result<Vec<FeedbackEntry>, StoreError>> {
            Box::pin(async move {
                let rows = sqlx::query(DB::LIBRARY.list_feedback)
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(pool)
                    .await
                    .map_err(failed("cannot list feedback"))?;
                rows.iter()
                    .map(|row| {
                        let outcome = get_json::<DB>(row, "outcome", "turns.outcome")?;
                        Ok(FeedbackEntry {
                            feedback: Feedback {
                                turn_id: get(row, "turn_id")?,
                                verdict: get(row, "verdict")?,
                                note: get(row, "note")?,
                                created_at: get(row, "created_at")?,
                            },
                            conversation_id: get(row, "conversation_id")?,
                            owner: get(row, "owner")?,
                            question: get(row, "question")?,
                            rewritten_question: get(row, "rewritten_question")?,
                            kind: get(row, "kind")?,
                            tool: get(row, "tool")?,
                            params: outcome.get("params").cloned().unwrap_or(serde_json::Value::Null),
                        })
                    })
                    .collect()
            })
        }
    }
}
