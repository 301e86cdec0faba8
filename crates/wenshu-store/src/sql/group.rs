//! The group writer: one task per store takes the writes of concurrent asks from a queue, gathers them for at most
//! the window (or the most writes a group holds), writes them in one write transaction — each inside a savepoint
//! of its own, so one failing write fails alone — and answers every caller only once that transaction has
//! committed (with SQLite's full syncs, once the log is on disk). A crash loses only writes no one was answered
//! for. The writer only awaits: the statements and the sync run on the driver's connection thread (SQLite) or
//! socket (PostgreSQL), never blocking the runtime's workers.

use std::sync::Arc;

use sqlx::{Acquire, Pool};
use tokio::sync::{Mutex, mpsc, oneshot};

use super::owned::OwnedQueries;
use super::queries::Queries;
use crate::audit::NewAudit;
use crate::commit::GroupCommit;
use crate::error::StoreError;
use crate::model::{Conversation, NewTurn, StoredIds};
use crate::store::BoxFuture;

/// How many writes may wait in the queue before callers wait to add theirs.
const QUEUE: usize = 4096;

/// One write of an ask.
pub(crate) enum Write {
    /// A new conversation with its owner.
    Conversation { owner: Option<String> },
    /// A turn, its trace and (when given) its audit entry.
    Turn {
        turn: Box<NewTurn>,
        audit: Option<Box<NewAudit>>,
    },
    /// An audit entry alone.
    Audit { audit: Box<NewAudit> },
}

impl Write {
    /// The conversation a turn locks; `None` for writes that lock none.
    fn locks(&self) -> Option<&str> {
        match self {
            Self::Turn { turn, .. } => Some(turn.conversation_id.as_str()),
            Self::Conversation { .. } | Self::Audit { .. } => None,
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

/// The error of an answer of the wrong kind (never expected).
fn mismatched() -> StoreError {
    StoreError::Database {
        message: "the store's group writer answered another kind of write".to_string(),
    }
}

impl Writer {
    /// Starts the writer of `pool` on the current runtime; `lock` is the store's write lock, taken for each group.
    pub(crate) fn spawn<DB: GroupWrites>(
        pool: Pool<DB>,
        lock: Option<Arc<Mutex<()>>>,
        commit: GroupCommit,
    ) -> Result<Self, StoreError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|error| StoreError::Database {
            message: format!("the store's group writer needs a Tokio runtime: {error}"),
        })?;
        let (jobs, queue) = mpsc::channel(QUEUE);
        runtime.spawn(run(pool, lock, commit, queue));
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
        let write = Write::Turn {
            turn: Box::new(turn),
            audit: audit.map(Box::new),
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
    /// Writes `group` in one write transaction, each write in a savepoint, and answers every caller after the
    /// commit (a failed commit fails them all).
    fn commit_group(pool: &Pool<Self>, group: Vec<Job>) -> BoxFuture<'_, ()>;

    /// Does one write on `connection`, inside the group's transaction.
    fn write<'a>(connection: &'a mut Self::Connection, write: &'a Write) -> BoxFuture<'a, Result<Written, StoreError>>;
}

on_every_backend! {
    impl<DB: Queries + OwnedQueries> GroupWrites for DB {
        fn commit_group(pool: &Pool<Self>, mut group: Vec<Job>) -> BoxFuture<'_, ()> {
            Box::pin(async move {
                // Turns in the order of their conversations (a stable sort: each conversation's own order kept),
                // so two instances' groups lock conversations in one order.
                group.sort_by(|a, b| a.write.locks().cmp(&b.write.locks()));
                let mut tx = match super::begin_write(pool).await {
                    Ok(tx) => tx,
                    Err(error) => {
                        let error = StoreError::database("cannot begin a group of writes", error);
                        for job in group {
                            let _ = job.done.send(Err(error.clone()));
                        }
                        return;
                    }
                };
                let mut answers = Vec::with_capacity(group.len());
                for job in group {
                    let result = match (&mut tx).begin().await {
                        Ok(mut savepoint) => {
                            let result = <Self as GroupWrites>::write(&mut *savepoint, &job.write).await;
                            let closed = match result {
                                Ok(_) => savepoint.commit().await,
                                Err(_) => savepoint.rollback().await,
                            };
                            closed
                                .map_err(|error| StoreError::database("cannot close a write's savepoint", error))
                                .and(result)
                        }
                        Err(error) => Err(StoreError::database("cannot open a write's savepoint", error)),
                    };
                    answers.push((job.done, result));
                }
                match tx.commit().await {
                    Ok(()) => {
                        for (done, result) in answers {
                            let _ = done.send(result);
                        }
                    }
                    Err(error) => {
                        let error = StoreError::database("cannot commit a group of writes", error);
                        for (done, _) in answers {
                            let _ = done.send(Err(error.clone()));
                        }
                    }
                }
            })
        }

        fn write<'a>(
            connection: &'a mut Self::Connection,
            write: &'a Write,
        ) -> BoxFuture<'a, Result<Written, StoreError>> {
            Box::pin(async move {
                match write {
                    Write::Conversation { owner } => {
                        <Self as OwnedQueries>::insert_owned(connection, owner.as_deref())
                            .await
                            .map(Written::Conversation)
                    }
                    Write::Turn { turn, audit } => <Self as Queries>::write_turn(connection, turn, audit.as_deref())
                        .await
                        .map(Written::Turn),
                    Write::Audit { audit } => Self::insert_audit(connection, audit, None, None)
                        .await
                        .map(Written::Audit),
                }
            })
        }
    }
}
