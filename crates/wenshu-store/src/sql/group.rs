//! The group writer: one writer per store takes the writes of concurrent asks from a queue, gathers them for at
//! most the window (or the most writes a group holds), writes them in one write transaction — many rows to a
//! statement; when the group fails, it is rolled back and each write is tried alone, so one failing write fails
//! alone — and answers every caller only once its transaction has committed (with SQLite's full syncs, once the log
//! is on disk). A crash loses only writes no one was answered for. SQLite's writer runs on a thread of its own (its
//! statements and sync on the driver's connection thread), PostgreSQL's as a task that only awaits its socket: the
//! write path never blocks the runtime's workers, nor waits behind their tasks.

use std::sync::Arc;

use sqlx::Pool;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::owned::OwnedQueries;
use super::queries::Queries;
use super::rows::{ConversationRow, TurnRow};
use crate::audit::NewAudit;
use crate::commit::GroupCommit;
use crate::error::StoreError;
use crate::ids;
use crate::model::{Conversation, NewTurn, StoredIds};
use crate::store::BoxFuture;

/// How many writes may wait in the queue before callers wait to add theirs.
const QUEUE: usize = 4096;

/// One write of an ask.
pub(crate) enum Write {
    /// A new conversation with its owner.
    Conversation { owner: Option<String> },
    /// A turn, its trace (packed by the asking task, so the writer spends its time writing) and (when given) its
    /// audit entry.
    Turn {
        turn: Box<NewTurn>,
        audit: Option<Box<NewAudit>>,
        packed: Vec<u8>,
        /// The new conversation the turn is the first of, written in the same group before it.
        opens: Option<Box<Opening>>,
    },
    /// An audit entry alone.
    Audit { audit: Box<NewAudit> },
}

/// A new conversation that a turn opens: created with it, in one write.
pub(crate) struct Opening {
    /// The new conversation.
    pub(crate) conversation: Conversation,
    /// Its owner.
    pub(crate) owner: Option<String>,
}

impl Opening {
    /// A new conversation owned by `owner`, with `turn` moved into it.
    pub(crate) fn new(owner: Option<&str>, turn: &mut NewTurn) -> Self {
        let conversation = fresh_conversation();
        turn.conversation_id = conversation.id.clone();
        Self {
            conversation,
            owner: owner.map(str::to_string),
        }
    }

    /// Its row to insert.
    pub(crate) fn row(&self) -> ConversationRow<'_> {
        ConversationRow {
            conversation: &self.conversation,
            owner: self.owner.as_deref(),
        }
    }
}

/// What a write gave back.
pub(crate) enum Written {
    /// The new conversation.
    Conversation(Conversation),
    /// The ids of the new turn and trace.
    Turn(StoredIds),
    /// The new audit entry's number.
    Audit(i64),
}

/// A queued write and the caller waiting for its answer.
pub(crate) struct Job {
    write: Write,
    done: oneshot::Sender<Result<Written, StoreError>>,
}

/// Where a group writer runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// On a thread of its own, with a runtime of its own.
    Thread,
    /// As a task of the runtime that opens the store.
    Runtime,
}

/// The queue of a store's group writer.
#[derive(Debug)]
pub(crate) struct Writer {
    jobs: mpsc::Sender<Job>,
}

/// The error of a write whose writer is gone (its runtime shut down).
fn writer_gone() -> StoreError {
    StoreError::Database {
        message: "the store's group writer has stopped".to_string(),
    }
}

/// The error of an answer of the wrong kind, or of none (never expected).
fn mismatched() -> StoreError {
    StoreError::Database {
        message: "the store's group writer answered another kind of write".to_string(),
    }
}

impl Writer {
    /// Starts the writer of `pool`: on a thread of its own (`Place::Thread`), where its many short waits on the
    /// database never queue behind the runtime's other tasks, or as a task of the current runtime
    /// (`Place::Runtime`, for a driver whose connections belong to that runtime); `lock` is the store's write lock,
    /// taken for each group.
    pub(crate) fn spawn<DB: GroupWrites>(
        pool: Pool<DB>,
        lock: Option<Arc<Mutex<()>>>,
        commit: GroupCommit,
        place: Place,
    ) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::channel(QUEUE);
        let writer = run(pool, lock, commit, queue);
        match place {
            Place::Runtime => {
                let runtime = tokio::runtime::Handle::try_current().map_err(|error| StoreError::Database {
                    message: format!("the store's group writer needs a Tokio runtime: {error}"),
                })?;
                runtime.spawn(writer);
            }
            Place::Thread => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .map_err(|error| StoreError::database("cannot start the store's group writer", error))?;
                std::thread::Builder::new()
                    .name("wenshu-store-writer".to_string())
                    .spawn(move || runtime.block_on(writer))
                    .map_err(|error| StoreError::database("cannot start the store's group writer", error))?;
            }
        }
        Ok(Self { jobs })
    }

    /// Creates a conversation owned by `owner`, answered after its group commits.
    pub(crate) async fn conversation(&self, owner: Option<&str>) -> Result<Conversation, StoreError> {
        let owner = owner.map(str::to_string);
        match self.submit(Write::Conversation { owner }).await? {
            Written::Conversation(conversation) => Ok(conversation),
            Written::Turn(_) | Written::Audit(_) => Err(mismatched()),
        }
    }

    /// Appends a turn (with its audit entry), answered after its group commits.
    pub(crate) async fn turn(&self, turn: NewTurn, audit: Option<NewAudit>) -> Result<StoredIds, StoreError> {
        self.turn_opening(turn, audit, None).await
    }

    /// Creates a conversation owned by `owner` with `turn` (and its audit entry) as its first, in one write,
    /// answered after its group commits.
    pub(crate) async fn open(
        &self,
        owner: Option<&str>,
        mut turn: NewTurn,
        audit: NewAudit,
    ) -> Result<(Conversation, StoredIds), StoreError> {
        let opening = Opening::new(owner, &mut turn);
        let conversation = opening.conversation.clone();
        let ids = self.turn_opening(turn, Some(audit), Some(opening)).await?;
        Ok((conversation, ids))
    }

    /// Appends a turn (with its audit entry, after the conversation it opens), answered after its group commits.
    async fn turn_opening(
        &self,
        turn: NewTurn,
        audit: Option<NewAudit>,
        opens: Option<Opening>,
    ) -> Result<StoredIds, StoreError> {
        let write = Write::Turn {
            packed: crate::pack::pack(&turn.trace),
            turn: Box::new(turn),
            audit: audit.map(Box::new),
            opens: opens.map(Box::new),
        };
        match self.submit(write).await? {
            Written::Turn(ids) => Ok(ids),
            Written::Conversation(_) | Written::Audit(_) => Err(mismatched()),
        }
    }

    /// Writes an audit entry alone, answered after its group commits.
    pub(crate) async fn audit(&self, audit: NewAudit) -> Result<i64, StoreError> {
        let write = Write::Audit { audit: Box::new(audit) };
        match self.submit(write).await? {
            Written::Audit(id) => Ok(id),
            Written::Conversation(_) | Written::Turn(_) => Err(mismatched()),
        }
    }

    /// Queues `write` and waits for its group to commit.
    async fn submit(&self, write: Write) -> Result<Written, StoreError> {
        let (done, answer) = oneshot::channel();
        self.jobs.send(Job { write, done }).await.map_err(|_| writer_gone())?;
        answer.await.map_err(|_| writer_gone())?
    }
}

/// The writer's loop: a group is the first queued write and those that follow within the window, up to the most a
/// group holds; it ends when the store (every sender) is gone.
async fn run<DB: GroupWrites>(
    pool: Pool<DB>,
    lock: Option<Arc<Mutex<()>>>,
    commit: GroupCommit,
    mut queue: mpsc::Receiver<Job>,
) {
    let most = commit.max_writes.max(1);
    while let Some(first) = queue.recv().await {
        let mut group = vec![first];
        let deadline = tokio::time::Instant::now() + commit.window;
        while group.len() < most {
            // The queue is read before the deadline is checked: what is already queued joins even after it.
            match tokio::time::timeout_at(deadline, queue.recv()).await {
                Ok(Some(job)) => group.push(job),
                Ok(None) | Err(_) => break,
            }
        }
        let _writing = match &lock {
            Some(lock) => Some(lock.lock().await),
            None => None,
        };
        metrics::histogram!("wenshu_store_group_writes").record(group.len() as f64);
        DB::commit_group(&pool, group).await;
    }
}

/// Writing a group in one transaction, on one backend.
pub(crate) trait GroupWrites: Queries + OwnedQueries {
    /// Writes `group` in one write transaction and answers every caller after the commit; when the group fails
    /// (a refused row, a failed commit), it is rolled back and each write is tried alone, so one failing write fails
    /// alone.
    fn commit_group(pool: &Pool<Self>, group: Vec<Job>) -> BoxFuture<'_, ()>;

    /// Writes `group` on `connection`, inside the group's transaction, many rows to a statement: each write's
    /// answer (a turn of an unknown conversation is [`StoreError::NotFound`] and writes nothing), or the error
    /// that fails the whole group.
    fn write_group<'a>(
        connection: &'a mut Self::Connection,
        group: &'a [Job],
    ) -> BoxFuture<'a, Result<Vec<Result<Written, StoreError>>, StoreError>>;

    /// Does one write alone, in a transaction of its own.
    fn write_alone(pool: &Pool<Self>, write: Write) -> BoxFuture<'_, Result<Written, StoreError>>;
}

on_every_backend! {
    impl<DB: Queries + OwnedQueries> GroupWrites for DB {
        fn commit_group(pool: &Pool<Self>, group: Vec<Job>) -> BoxFuture<'_, ()> {
            Box::pin(async move {
                let written = match super::begin_write(pool).await {
                    Ok(mut tx) => match <Self as GroupWrites>::write_group(&mut *tx, &group).await {
                        Ok(answers) => tx
                            .commit()
                            .await
                            .map(|()| answers)
                            .map_err(|error| StoreError::database("cannot commit a group of writes", error)),
                        Err(error) => {
                            if let Err(error) = tx.rollback().await {
                                tracing::warn!(%error, "rolling back a failed group of writes failed");
                            }
                            Err(error)
                        }
                    },
                    Err(error) => Err(StoreError::database("cannot begin a group of writes", error)),
                };
                match written {
                    Ok(answers) => {
                        for (job, answer) in group.into_iter().zip(answers) {
                            let _ = job.done.send(answer);
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, writes = group.len(), "a group of writes failed: each is tried alone");
                        for job in group {
                            let answer = <Self as GroupWrites>::write_alone(pool, job.write).await;
                            let _ = job.done.send(answer);
                        }
                    }
                }
            })
        }

        fn write_group<'a>(
            connection: &'a mut Self::Connection,
            group: &'a [Job],
        ) -> BoxFuture<'a, Result<Vec<Result<Written, StoreError>>, StoreError>> {
            Box::pin(async move {
                let mut answers: Vec<Option<Result<Written, StoreError>>> = group.iter().map(|_| None).collect();
                // New conversations, many to a statement.
                let conversations: Vec<(usize, Conversation, Option<&str>)> = group
                    .iter()
                    .enumerate()
                    .filter_map(|(at, job)| match &job.write {
                        Write::Conversation { owner } => Some((at, fresh_conversation(), owner.as_deref())),
                        Write::Turn { .. } | Write::Audit { .. } => None,
                    })
                    .collect();
                // With those a turn opens (answered with the turn).
                let opened = group.iter().filter_map(|job| match &job.write {
                    Write::Turn { opens: Some(opening), .. } => Some(opening.row()),
                    Write::Turn { .. } | Write::Conversation { .. } | Write::Audit { .. } => None,
                });
                let rows: Vec<ConversationRow<'_>> = conversations
                    .iter()
                    .map(|(_, conversation, owner)| ConversationRow { conversation, owner: *owner })
                    .chain(opened)
                    .collect();
                Self::insert_conversations(&mut *connection, &rows).await?;
                for (at, conversation, _) in conversations {
                    answers[at] = Some(Ok(Written::Conversation(conversation)));
                }
                // Audit entries alone, one by one (their numbers are their answers).
                for (at, job) in group.iter().enumerate() {
                    if let Write::Audit { audit } = &job.write {
                        let id = Self::insert_audit(&mut *connection, audit, None, None).await?;
                        answers[at] = Some(Ok(Written::Audit(id)));
                    }
                }
                // Turns: numbered after their conversation's last, many to a statement.
                let turns: Vec<(usize, &NewTurn, Option<&NewAudit>, &[u8])> = group
                    .iter()
                    .enumerate()
                    .filter_map(|(at, job)| match &job.write {
                        Write::Turn { turn, audit, packed, .. } => Some((at, &**turn, audit.as_deref(), &packed[..])),
                        Write::Conversation { .. } | Write::Audit { .. } => None,
                    })
                    .collect();
                let named: Vec<&str> = turns.iter().map(|(_, turn, ..)| turn.conversation_id.as_str()).collect();
                let mut last = Self::last_seqs(&mut *connection, &named).await?;
                let created_at = ids::now();
                let mut numbered = Vec::with_capacity(turns.len());
                for (at, turn, audit, packed) in turns {
                    match last.get_mut(turn.conversation_id.as_str()) {
                        Some(seq) => {
                            *seq += 1;
                            let ids = StoredIds {
                                turn_id: ids::new_id(),
                                trace_id: ids::new_id(),
                            };
                            numbered.push((at, ids, *seq, turn, audit, packed));
                        }
                        None => answers[at] = Some(Err(StoreError::conversation_not_found(&turn.conversation_id))),
                    }
                }
                let rows: Vec<TurnRow<'_>> = numbered
                    .iter()
                    .map(|(_, ids, seq, turn, audit, packed)| TurnRow {
                        ids,
                        seq: *seq,
                        created_at: &created_at,
                        turn,
                        audit: *audit,
                        packed,
                    })
                    .collect();
                Self::insert_turns(&mut *connection, &rows).await?;
                for (at, ids, ..) in numbered {
                    answers[at] = Some(Ok(Written::Turn(ids)));
                }
                Ok(answers
                    .into_iter()
                    .map(|answer| answer.unwrap_or_else(|| Err(mismatched())))
                    .collect())
            })
        }

        fn write_alone(pool: &Pool<Self>, write: Write) -> BoxFuture<'_, Result<Written, StoreError>> {
            Box::pin(async move {
                match write {
                    Write::Conversation { owner } => Self::create_owned(pool, owner.as_deref())
                        .await
                        .map(Written::Conversation),
                    Write::Turn { turn, audit, opens, .. } => {
                        let opening = opens.as_deref().map(Opening::row);
                        <Self as Queries>::append_turn(pool, *turn, audit.as_deref(), opening)
                            .await
                            .map(Written::Turn)
                    }
                    Write::Audit { audit } => Self::record_audit(pool, &audit).await.map(Written::Audit),
                }
            })
        }
    }
}

/// A new conversation's id and time.
fn fresh_conversation() -> Conversation {
    Conversation {
        id: ids::new_id(),
        created_at: ids::now(),
    }
}
