//! Storage for wenshu: conversations, turns, traces, the audit log, tool states and entity catalogs behind one
//! [`Store`] trait.
//!
//! - [`SqliteStore`] is the embedded default: a file in WAL mode (or memory), nothing to run.
//! - [`PgStore`] is for several wenshu instances sharing one PostgreSQL database.
//! - [`open_store`] picks one by URL: `sqlite:PATH`, `sqlite::memory:`, `postgres://…`.
//!
//! Each backend applies its numbered SQL migrations (embedded from `migrations/<backend>/`) when it opens, recording
//! them in `wenshu_schema_version`; opening again, or two instances at once, is safe. A turn, its trace and its audit
//! entry (when it has one) are written in one transaction, so an acknowledged turn is never half stored; with
//! [`GroupCommit`] (the default) the writes of concurrent asks share that transaction and its sync to disk, and each
//! is acknowledged only once it has committed. Traces are stored deflated (the same JSON comes back). The store
//! depends on no other wenshu crate: it keeps the JSON values it is given. Error messages never carry a database
//! password.

#![warn(missing_docs)]

pub mod access;
pub mod audit;
pub mod commit;
pub mod error;
pub mod library;
pub mod model;
pub mod open;
pub mod postgres;
pub mod sqlite;
pub mod store;

mod ids;
mod migrations;
mod pack;
mod sql;
mod url;

pub use access::{ConversationInfo, OwnedTrace, TurnPage};
pub use audit::{AuditEntry, AuditFilter, AuditPage, AuditPrincipal, MAX_AUDIT_PAGE, NewAudit};
pub use commit::GroupCommit;
pub use error::StoreError;
pub use library::{ConversationSummary, Feedback, FeedbackEntry, OwnedTurn};
pub use model::{Conversation, ConversationWithTurns, HistoryRound, NewTurn, StoredIds, SubjectRef, ToolState, Turn};
pub use open::{open_store, open_store_with};
pub use postgres::PgStore;
pub use sqlite::SqliteStore;
pub use store::{BoxFuture, Store};
