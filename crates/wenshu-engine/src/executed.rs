//! What a step ran, typed: the tool, its bound call, and every SQL statement sent with its binds. The execute and
//! fallback steps carry it beside their JSON (a trace step's `ran`), so the audit reads what ran from
//! the engine's own values, never from the trace's JSON by key.

use serde_json::{Map, Value};

/// The call a step ran and the SQL it sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Executed {
    /// The tool.
    pub tool: String,
    /// The bound call's parameters (empty for the fallback, whose call is its SQL).
    pub params: Map<String, Value>,
    /// The SQL statements sent or tried, in order (none for an HTTP or MCP tool).
    pub statements: Vec<SentSql>,
}

/// One SQL statement a step sent, or tried and did not run.
#[derive(Debug, Clone, PartialEq)]
pub struct SentSql {
    /// The statement as sent (the guard's rewrite), or as written when it did not run.
    pub sql: String,
    /// The values bound to its placeholders, in order.
    pub binds: Vec<Value>,
    /// A metric query's period this statement reads (`current`, `previous`; `Some(Null)` when it names none);
    /// `None` for a statement that is not a metric query's.
    pub period: Option<Value>,
    /// Whether it ran (a fallback's attempt the guard or the check refused did not).
    pub ran: bool,
    /// Why it did not run, when it did not and a reason was given.
    pub error: Option<String>,
}

impl SentSql {
    /// A statement that ran with `binds` (`period`: a metric query's, `None` for any other statement).
    pub fn ran(sql: String, binds: Vec<Value>, period: Option<Value>) -> Self {
        SentSql {
            sql,
            binds,
            period,
            ran: true,
            error: None,
        }
    }

    /// A statement written and not run, with why when a reason was given.
    pub fn not_run(sql: String, error: Option<String>) -> Self {
        SentSql {
            sql,
            binds: Vec::new(),
            period: None,
            ran: false,
            error,
        }
    }
}
