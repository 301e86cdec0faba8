//! The records of the audit log: who asked what, through which door, what ran (tool, bound call, SQL with its
//! binds), how many rows came back and how it ended. An entry is written with its turn, in the turn's transaction
//! ([`Store::append_turn_audited`](crate::Store::append_turn_audited)), or alone for an ask that keeps no turn
//! ([`Store::record_audit`](crate::Store::record_audit)). It never holds a key or a token: a principal is named by
//! its id (a key's fingerprint, a token's subject).

use serde::Serialize;
use serde_json::Value;

/// The most entries one page of the audit log holds.
pub const MAX_AUDIT_PAGE: usize = 500;

/// Who asked, as the audit log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPrincipal {
    /// The principal's id (a key fingerprint `k-…`, a token's subject); `None` when anonymous.
    pub id: Option<String>,
    /// Its display name, when it has one.
    pub name: Option<String>,
    /// Its role (`anonymous`, `guest`, `user`, `admin`, `operator`).
    pub role: String,
}

/// An entry to write; the store gives it its number and time, and (with a turn) the conversation and turn.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAudit {
    /// Who asked.
    pub principal: AuditPrincipal,
    /// Where the question came in (`api`, `mcp`).
    pub door: String,
    /// The conversation, for an entry written alone that belongs to one; a turn's own conversation otherwise.
    pub conversation_id: Option<String>,
    /// The question as asked.
    pub question: String,
    /// The tool that was called (or chosen), if any.
    pub tool: Option<String>,
    /// The bound call's parameters (`null` when no call was bound).
    pub params: Value,
    /// The SQL statements that ran or were tried, each `{"sql": …, "binds": […]}` (empty when none).
    pub sql: Vec<Value>,
    /// How many rows the answer holds, when a tool ran.
    pub rows: Option<u64>,
    /// How it ended: `answered`, `choose`, `need`, `rejected` or `stopped`.
    pub outcome: String,
    /// The step it ended at (`execute`, `fallback`, the step a stop names), when known.
    pub step: Option<String>,
}

/// A stored entry of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// The entry's number: larger is newer; pass it as `before` for the entries older than it.
    pub id: i64,
    /// When it was written, RFC 3339 (UTC).
    pub created_at: String,
    /// Who asked.
    pub principal: AuditPrincipal,
    /// Where the question came in (`api`, `mcp`).
    pub door: String,
    /// The conversation, when the ask kept one.
    pub conversation_id: Option<String>,
    /// The turn, when the ask stored one.
    pub turn_id: Option<String>,
    /// The question as asked.
    pub question: String,
    /// The tool that was called (or chosen), if any.
    pub tool: Option<String>,
    /// The bound call's parameters (`null` when no call was bound).
    pub params: Value,
    /// The SQL statements with their binds.
    pub sql: Vec<Value>,
    /// How many rows the answer held, when a tool ran.
    pub rows: Option<u64>,
    /// How it ended.
    pub outcome: String,
    /// The step it ended at, when known.
    pub step: Option<String>,
}

/// Which entries to read: every given filter must hold; newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only this principal, by its id (a key fingerprint `k-…`, `jwt:` and a token's subject).
    pub principal: Option<String>,
    /// Only entries whose principal has this display name (names are not unique: a token's name claim may copy
    /// another principal's).
    pub principal_name: Option<String>,
    /// Only this tool.
    pub tool: Option<String>,
    /// Only this outcome.
    pub outcome: Option<String>,
    /// Only entries written at or after this time.
    pub since: Option<jiff::Timestamp>,
    /// Only entries written before this time.
    pub until: Option<jiff::Timestamp>,
    /// Only entries older than the entry with this id.
    pub before: Option<i64>,
    /// How many entries at most (1 to [`MAX_AUDIT_PAGE`]; larger values are capped).
    pub limit: usize,
}

impl Default for AuditFilter {
    /// No filter, the newest 50.
    fn default() -> Self {
        Self {
            principal: None,
            principal_name: None,
            tool: None,
            outcome: None,
            since: None,
            until: None,
            before: None,
            limit: 50,
        }
    }
}

/// One page of the audit log, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    /// The entries, newest first.
    pub entries: Vec<AuditEntry>,
    /// The id to pass as `before` for the next (older) page; `None` when this page is the last.
    pub next_before: Option<i64>,
}
