//! The rows an ask writes — a conversation, a turn with its trace and audit entry — inserted many to a statement
//! (`INSERT … VALUES (…), (…)` with numbered `$N` placeholders, which both drivers read), and the turn numbers of
//! conversations, read for many at once; written once for every [`Backend`]. A group commit writes its whole group
//! in a few statements; a write alone is a group of one.

use std::collections::HashMap;

use serde_json::Value;
use sqlx::query::Query;

use super::Backend;
use super::queries::{failed, get};
use crate::audit::NewAudit;
use crate::error::StoreError;
use crate::model::{Conversation, NewTurn, StoredIds};
use crate::store::BoxFuture;

/// The most rows one statement inserts (or ids one statement reads).
const ROWS_PER_STATEMENT: usize = 64;

/// The columns of an audit entry, in the order [`RowWrites::bind_audit`] binds them.
pub(super) const AUDIT_COLUMNS: &str = "audit_log (created_at, principal_id, principal_name, principal_role, door, \
    conversation_id, turn_id, question, tool, params, statements, row_count, outcome, step)";

/// A conversation to insert, with its owner.
pub(crate) struct ConversationRow<'a> {
    /// The new conversation.
    pub(crate) conversation: &'a Conversation,
    /// Its owner.
    pub(crate) owner: Option<&'a str>,
}

/// A turn to insert with its trace and (when given) its audit entry.
pub(crate) struct TurnRow<'a> {
    /// The ids the turn and its trace get.
    pub(crate) ids: &'a StoredIds,
    /// Its number in its conversation.
    pub(crate) seq: i64,
    /// When it is stored.
    pub(crate) created_at: &'a str,
    /// The turn.
    pub(crate) turn: &'a NewTurn,
    /// Its audit entry.
    pub(crate) audit: Option<&'a NewAudit>,
    /// Its trace as stored (`pack::pack`), packed before the write on the asking task.
    pub(crate) packed: &'a [u8],
}

/// `{head} VALUES ($1, …), (…)`: `rows` rows of `columns` placeholders.
fn values(head: &str, columns: usize, rows: usize) -> String {
    let mut text = format!("INSERT INTO {head} VALUES ");
    for row in 0..rows {
        let placeholders: Vec<String> = (1..=columns).map(|n| format!("${}", row * columns + n)).collect();
        if row > 0 {
            text.push_str(", ");
        }
        text.push('(');
        text.push_str(&placeholders.join(", "));
        text.push(')');
    }
    text
}

/// `$1, $2, …, $n`.
fn list(n: usize) -> String {
    (1..=n).map(|n| format!("${n}")).collect::<Vec<_>>().join(", ")
}

/// Inserting an ask's rows, many to a statement, on one backend.
pub(crate) trait RowWrites: Backend {
    /// Binds an audit entry's columns ([`AUDIT_COLUMNS`]), with the turn it belongs to, if any.
    fn bind_audit<'q>(
        query: Query<'q, Self, Self::Arguments>,
        audit: &'q NewAudit,
        conversation_id: Option<&'q str>,
        turn_id: Option<&'q str>,
        created_at: &'q str,
    ) -> Query<'q, Self, Self::Arguments>;

    /// Inserts conversations.
    fn insert_conversations<'a>(
        connection: &'a mut Self::Connection,
        rows: &'a [ConversationRow<'a>],
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Inserts turns, then their audit entries, then their packed traces.
    fn insert_turns<'a>(
        connection: &'a mut Self::Connection,
        rows: &'a [TurnRow<'a>],
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The last turn number (0 for none) of each of `conversations` that exists, locked until the transaction ends
    /// where the backend locks rows; an unknown conversation is missing from the map.
    fn last_seqs<'a>(
        connection: &'a mut Self::Connection,
        conversations: &'a [&'a str],
    ) -> BoxFuture<'a, Result<HashMap<String, i64>, StoreError>>;
}

on_every_backend! {
    impl<DB: Backend> RowWrites for DB {
        fn bind_audit<'q>(
            query: Query<'q, Self, Self::Arguments>,
            audit: &'q NewAudit,
            conversation_id: Option<&'q str>,
            turn_id: Option<&'q str>,
            created_at: &'q str,
        ) -> Query<'q, Self, Self::Arguments> {
            let rows = audit.rows.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
            let query = query
                .bind(created_at)
                .bind(audit.principal.id.as_deref())
                .bind(audit.principal.name.as_deref())
                .bind(audit.principal.role.as_str())
                .bind(audit.door.as_str())
                .bind(conversation_id.or(audit.conversation_id.as_deref()))
                .bind(turn_id)
                .bind(audit.question.as_str())
                .bind(audit.tool.as_deref());
            let query = DB::bind_json(query, &audit.params);
            DB::bind_json(query, &Value::Array(audit.sql.clone()))
                .bind(rows)
                .bind(audit.outcome.as_str())
                .bind(audit.step.as_deref())
        }

        fn insert_conversations<'a>(
            connection: &'a mut Self::Connection,
            rows: &'a [ConversationRow<'a>],
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                    let text = values("conversations (id, created_at, owner)", 3, chunk.len());
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
                    for row in chunk {
                        query = query
                            .bind(row.conversation.id.as_str())
                            .bind(row.conversation.created_at.as_str())
                            .bind(row.owner);
                    }
                    query
                        .execute(&mut *connection)
                        .await
                        .map_err(failed("cannot create a conversation"))?;
                }
                Ok(())
            })
        }

        fn insert_turns<'a>(
            connection: &'a mut Self::Connection,
            rows: &'a [TurnRow<'a>],
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                    let head = "turns (id, conversation_id, seq, question, rewritten_question, kind, tool, outcome, \
                                conclusion, trace_id, created_at, subject_type, subject_id, subject_name)";
                    let subject_ids: Vec<Option<String>> =
                        chunk.iter().map(|row| row.turn.subject.as_ref().map(|s| s.id.to_string())).collect();
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(values(head, 14, chunk.len())));
                    for (row, subject_id) in chunk.iter().zip(&subject_ids) {
                        let (turn, subject) = (row.turn, row.turn.subject.as_ref());
                        query = query
                            .bind(row.ids.turn_id.as_str())
                            .bind(turn.conversation_id.as_str())
                            .bind(row.seq)
                            .bind(turn.question.as_str())
                            .bind(turn.rewritten_question.as_str())
                            .bind(turn.kind.as_str())
                            .bind(turn.tool.as_deref());
                        query = DB::bind_json(query, &turn.outcome)
                            .bind(turn.conclusion.as_str())
                            .bind(row.ids.trace_id.as_str())
                            .bind(row.created_at)
                            .bind(subject.map(|s| s.entity_type.as_str()))
                            .bind(subject_id.as_deref())
                            .bind(subject.map(|s| s.name.as_str()));
                    }
                    query.execute(&mut *connection).await.map_err(failed("cannot insert the turn"))?;
                    let audited: Vec<&TurnRow<'_>> = chunk.iter().filter(|row| row.audit.is_some()).collect();
                    if !audited.is_empty() {
                        let mut query = sqlx::query(sqlx::AssertSqlSafe(values(AUDIT_COLUMNS, 14, audited.len())));
                        for row in &audited {
                            if let Some(audit) = row.audit {
                                let conversation = Some(row.turn.conversation_id.as_str());
                                let turn_id = Some(row.ids.turn_id.as_str());
                                query = DB::bind_audit(query, audit, conversation, turn_id, row.created_at);
                            }
                        }
                        query
                            .execute(&mut *connection)
                            .await
                            .map_err(failed("cannot write the audit entry"))?;
                    }
                    let head = "traces (id, turn_id, body, packed, created_at)";
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(values(head, 5, chunk.len())));
                    for row in chunk {
                        query = query.bind(row.ids.trace_id.as_str()).bind(row.ids.turn_id.as_str());
                        query = DB::bind_json(query, &Value::Null).bind(row.packed.to_vec()).bind(row.created_at);
                    }
                    query.execute(&mut *connection).await.map_err(failed("cannot insert the trace"))?;
                }
                Ok(())
            })
        }

        fn last_seqs<'a>(
            connection: &'a mut Self::Connection,
            conversations: &'a [&'a str],
        ) -> BoxFuture<'a, Result<HashMap<String, i64>, StoreError>> {
            Box::pin(async move {
                let mut sorted = conversations.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                let mut last = HashMap::new();
                for chunk in sorted.chunks(ROWS_PER_STATEMENT) {
                    let ids = list(chunk.len());
                    // In id order, so that two writers lock conversations in one order.
                    let text = format!("SELECT id FROM conversations WHERE id IN ({ids}) ORDER BY id{}", DB::SQL.lock_rows);
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
                    for id in chunk {
                        query = query.bind(*id);
                    }
                    for row in query
                        .fetch_all(&mut *connection)
                        .await
                        .map_err(failed("cannot look up the conversation"))?
                    {
                        last.insert(get::<_, String>(&row, "id")?, 0);
                    }
                    let text = format!(
                        "SELECT conversation_id, MAX(seq) AS last FROM turns WHERE conversation_id IN ({ids}) \
                         GROUP BY conversation_id"
                    );
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
                    for id in chunk {
                        query = query.bind(*id);
                    }
                    for row in query
                        .fetch_all(&mut *connection)
                        .await
                        .map_err(failed("cannot number the turn"))?
                    {
                        let id: String = get(&row, "conversation_id")?;
                        if let Some(seq) = last.get_mut(&id) {
                            *seq = get(&row, "last")?;
                        }
                    }
                }
                Ok(last)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_on_across_rows() {
        assert_eq!(
            values("t (a, b)", 2, 2),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"
        );
        assert_eq!(list(3), "$1, $2, $3");
    }
}
