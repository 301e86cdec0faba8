//! The statements of owned reads, paging and retention, written once for every [`Backend`]: conversations with
//! their owner, one page of turns, a trace with its owner, and the purge of old turns.

use sqlx::{Pool, Postgres, Sqlite};

use super::Backend;
use super::queries::{TURN_COLUMNS, failed, get, turn_from_row};
use crate::access::{ConversationInfo, OwnedTrace, TurnPage};
use crate::error::StoreError;
use crate::ids;
use crate::library::Feedback;
use crate::model::Conversation;
use crate::store::BoxFuture;

/// The statements that differ between backends (placeholders only).
pub(crate) struct OwnedStatements {
    /// Inserts a conversation: id, created_at, owner.
    insert: &'static str,
    /// Selects `id, created_at, owner, turns` of one conversation by id.
    info: &'static str,
    /// Selects the `seq` of a turn: conversation id, turn id.
    seq_of: &'static str,
    /// What follows `SELECT {TURN_COLUMNS}`: the newest turns below a seq, oldest first: conversation id, seq,
    /// limit.
    page: &'static str,
    /// Selects `turn_id, verdict, note, created_at` of the verdicts on a conversation's turns numbered from a seq
    /// up to (not including) another: conversation id, first seq, seq bound.
    page_feedback: &'static str,
    /// Selects `owner, body` of a trace by id.
    trace: &'static str,
    /// Counts turns created before a time.
    count_old: &'static str,
    /// Deletes the traces of turns created before a time.
    purge_traces: &'static str,
    /// Deletes turns created before a time.
    purge_turns: &'static str,
    /// Deletes conversations created before a time that hold no turn.
    purge_conversations: &'static str,
}

/// A backend's owned-read statements.
pub(crate) trait OwnedSql: Backend {
    /// The statements.
    const OWNED: OwnedStatements;
}

impl OwnedSql for Sqlite {
    const OWNED: OwnedStatements = OwnedStatements {
        insert: "INSERT INTO conversations (id, created_at, owner) VALUES (?, ?, ?)",
        info: "SELECT c.id, c.created_at, c.owner, (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) \
               AS turns FROM conversations c WHERE c.id = ?",
        seq_of: "SELECT seq FROM turns WHERE conversation_id = ? AND id = ?",
        page: "FROM (SELECT * FROM turns WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?) \
               ORDER BY seq",
        page_feedback: "SELECT f.turn_id, f.verdict, f.note, f.created_at FROM feedback f JOIN turns t ON t.id = f.turn_id \
                        WHERE t.conversation_id = ? AND t.seq >= ? AND t.seq < ? ORDER BY t.seq",
        trace: "SELECT c.owner, tr.body, tr.packed FROM traces tr JOIN turns t ON t.id = tr.turn_id \
                JOIN conversations c ON c.id = t.conversation_id WHERE tr.id = ?",
        count_old: "SELECT COUNT(*) FROM turns WHERE created_at < ?",
        purge_traces: "DELETE FROM traces WHERE turn_id IN (SELECT id FROM turns WHERE created_at < ?)",
        purge_turns: "DELETE FROM turns WHERE created_at < ?",
        purge_conversations: "DELETE FROM conversations WHERE created_at < ? AND NOT EXISTS \
                              (SELECT 1 FROM turns t WHERE t.conversation_id = conversations.id)",
    };
}

impl OwnedSql for Postgres {
    const OWNED: OwnedStatements = OwnedStatements {
        insert: "INSERT INTO conversations (id, created_at, owner) VALUES ($1, $2, $3)",
        info: "SELECT c.id, c.created_at, c.owner, (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) \
               AS turns FROM conversations c WHERE c.id = $1",
        seq_of: "SELECT seq FROM turns WHERE conversation_id = $1 AND id = $2",
        page: "FROM (SELECT * FROM turns WHERE conversation_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) \
               AS page ORDER BY seq",
        page_feedback: "SELECT f.turn_id, f.verdict, f.note, f.created_at FROM feedback f JOIN turns t ON t.id = f.turn_id \
                        WHERE t.conversation_id = $1 AND t.seq >= $2 AND t.seq < $3 ORDER BY t.seq",
        trace: "SELECT c.owner, tr.body, tr.packed FROM traces tr JOIN turns t ON t.id = tr.turn_id \
                JOIN conversations c ON c.id = t.conversation_id WHERE tr.id = $1",
        count_old: "SELECT COUNT(*) FROM turns WHERE created_at < $1",
        purge_traces: "DELETE FROM traces WHERE turn_id IN (SELECT id FROM turns WHERE created_at < $1)",
        purge_turns: "DELETE FROM turns WHERE created_at < $1",
        purge_conversations: "DELETE FROM conversations WHERE created_at < $1 AND NOT EXISTS \
                              (SELECT 1 FROM turns t WHERE t.conversation_id = conversations.id)",
    };
}

/// The owned reads, paging and retention on a pool of one backend.
pub(crate) trait OwnedQueries: OwnedSql {
    /// Inserts a conversation owned by `owner`.
    fn create_owned<'a>(
        pool: &'a Pool<Self>,
        owner: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>>;
    /// Inserts a conversation owned by `owner` on `connection` (inside the caller's transaction, if any).
    fn insert_owned<'a>(
        connection: &'a mut Self::Connection,
        owner: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>>;
    /// A conversation's owner and turn count.
    fn info<'a>(pool: &'a Pool<Self>, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationInfo>, StoreError>>;
    /// The newest `limit` turns before turn `before` (or the newest), oldest first; `None` for an unknown
    /// conversation, [`StoreError::NotFound`] for an unknown `before` turn.
    fn page<'a>(
        pool: &'a Pool<Self>,
        id: &'a str,
        limit: usize,
        before: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TurnPage>, StoreError>>;
    /// A trace with its owner.
    fn owned_trace<'a>(
        pool: &'a Pool<Self>,
        trace_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<OwnedTrace>, StoreError>>;
    /// Deletes turns (with their traces) created more than `days` days ago, and the conversations they leave
    /// empty that are as old, in one write transaction; the number of turns deleted.
    fn purge(pool: &Pool<Self>, days: u32) -> BoxFuture<'_, Result<u64, StoreError>>;
}

on_every_backend! {
    impl<DB: OwnedSql> OwnedQueries for DB {
        fn create_owned<'a>(
            pool: &'a Pool<Self>,
            owner: Option<&'a str>,
        ) -> BoxFuture<'a, Result<Conversation, StoreError>> {
            Box::pin(async move {
                let mut connection = pool.acquire().await.map_err(failed("cannot create a conversation"))?;
                <Self as OwnedQueries>::insert_owned(&mut *connection, owner).await
            })
        }

        fn insert_owned<'a>(
            connection: &'a mut Self::Connection,
            owner: Option<&'a str>,
        ) -> BoxFuture<'a, Result<Conversation, StoreError>> {
            Box::pin(async move {
                let conversation = Conversation {
                    id: ids::new_id(),
                    created_at: ids::now(),
                };
                sqlx::query(DB::OWNED.insert)
                    .bind(conversation.id.as_str())
                    .bind(conversation.created_at.as_str())
                    .bind(owner)
                    .execute(&mut *connection)
                    .await
                    .map_err(failed("cannot create a conversation"))?;
                Ok(conversation)
            })
        }

        fn info<'a>(pool: &'a Pool<Self>, id: &'a str) -> BoxFuture<'a, Result<Option<ConversationInfo>, StoreError>> {
            Box::pin(async move {
                let row = sqlx::query(DB::OWNED.info)
                    .bind(id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot read a conversation"))?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let turns: i64 = get(&row, "turns")?;
                Ok(Some(ConversationInfo {
                    id: get(&row, "id")?,
                    created_at: get(&row, "created_at")?,
                    owner: get(&row, "owner")?,
                    turns: u64::try_from(turns).unwrap_or(0),
                }))
            })
        }

        fn page<'a>(
            pool: &'a Pool<Self>,
            id: &'a str,
            limit: usize,
            before: Option<&'a str>,
        ) -> BoxFuture<'a, Result<Option<TurnPage>, StoreError>> {
            Box::pin(async move {
                let Some(info) = <Self as OwnedQueries>::info(pool, id).await? else {
                    return Ok(None);
                };
                let below: i64 = match before {
                    None => i64::MAX,
                    Some(turn) => sqlx::query_scalar(DB::OWNED.seq_of)
                        .bind(id)
                        .bind(turn)
                        .fetch_optional(pool)
                        .await
                        .map_err(failed("cannot find the `before` turn"))?
                        .ok_or_else(|| StoreError::NotFound {
                            what: "turn".to_string(),
                            id: turn.to_string(),
                        })?,
                };
                let limit = i64::try_from(limit).unwrap_or(i64::MAX);
                let tail = DB::OWNED.page;
                let rows = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {TURN_COLUMNS} {tail}")))
                    .bind(id)
                    .bind(below)
                    .bind(limit)
                    .fetch_all(pool)
                    .await
                    .map_err(failed("cannot read a page of turns"))?;
                let turns = rows.iter().map(turn_from_row::<DB>).collect::<Result<Vec<_>, _>>()?;
                let seq_of_first: Option<i64> = match turns.first() {
                    Some(first) => sqlx::query_scalar(DB::OWNED.seq_of)
                        .bind(id)
                        .bind(first.id.as_str())
                        .fetch_optional(pool)
                        .await
                        .map_err(failed("cannot number a turn"))?,
                    None => None,
                };
                let next_before = match (seq_of_first, turns.first()) {
                    (Some(seq), Some(first)) if seq > 1 => Some(first.id.clone()),
                    _ => None,
                };
                let feedback = match seq_of_first {
                    Some(first) => sqlx::query(DB::OWNED.page_feedback)
                        .bind(id)
                        .bind(first)
                        .bind(below)
                        .fetch_all(pool)
                        .await
                        .map_err(failed("cannot read the verdicts of a page"))?
                        .iter()
                        .map(|row| {
                            Ok(Feedback {
                                turn_id: get(row, "turn_id")?,
                                verdict: get(row, "verdict")?,
                                note: get(row, "note")?,
                                created_at: get(row, "created_at")?,
                            })
                        })
                        .collect::<Result<Vec<_>, StoreError>>()?,
                    None => Vec::new(),
                };
                Ok(Some(TurnPage {
                    info,
                    turns,
                    next_before,
                    feedback,
                }))
            })
        }

        fn owned_trace<'a>(
            pool: &'a Pool<Self>,
            trace_id: &'a str,
        ) -> BoxFuture<'a, Result<Option<OwnedTrace>, StoreError>> {
            Box::pin(async move {
                let row = sqlx::query(DB::OWNED.trace)
                    .bind(trace_id)
                    .fetch_optional(pool)
                    .await
                    .map_err(failed("cannot read a trace"))?;
                let Some(row) = row else {
                    return Ok(None);
                };
                Ok(Some(OwnedTrace {
                    owner: get(&row, "owner")?,
                    body: super::queries::trace_from_row::<DB>(&row)?,
                }))
            })
        }

        fn purge(pool: &Pool<Self>, days: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
            Box::pin(async move {
                let age = jiff::SignedDuration::from_hours(24 * i64::from(days));
                let cutoff = jiff::Timestamp::now().checked_sub(age).unwrap_or(jiff::Timestamp::MIN);
                let cutoff = format!("{cutoff:.6}");
                let mut tx = super::begin_write(pool)
                    .await
                    .map_err(failed("cannot begin the purge"))?;
                let count: i64 = sqlx::query_scalar(DB::OWNED.count_old)
                    .bind(cutoff.as_str())
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(failed("cannot count old turns"))?;
                for statement in [
                    DB::OWNED.purge_traces,
                    DB::OWNED.purge_turns,
                    DB::OWNED.purge_conversations,
                ] {
                    sqlx::query(statement)
                        .bind(cutoff.as_str())
                        .execute(&mut *tx)
                        .await
                        .map_err(failed("cannot purge old turns"))?;
                }
                tx.commit().await.map_err(failed("cannot commit the purge"))?;
                Ok(u64::try_from(count).unwrap_or(0))
            })
        }
    }
}
