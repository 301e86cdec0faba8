//! Executors: run a bound call of a tool behind one trait — a SQL template ([`SqlTemplateExecutor`], from the
//! tool's `x-sql`, see [`sql_template`]) or an HTTP endpoint ([`HttpExecutor`], from the tool's `x-http`) — and
//! find the executor of a tool by its name ([`Executors`]).

mod error;
mod http;
mod joined;
mod registry;
mod sent;
mod sql;
pub mod sql_template;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::Date;
use serde::Serialize;
use serde_json::Value;
use wenshu_contract::{BoundCall, Tool};

use crate::scope::BoundScope;
use wenshu_sql::db::{ByteCaps, QueryLimits};

pub use sent::sent_sql;

pub use error::ExecError;
pub use http::{HttpExecutor, json_to_rows};
pub use joined::Reached;
pub use registry::Executors;
pub use sql::SqlTemplateExecutor;
pub use sql_template::{SqlTemplate, read_sql_templates};

/// What every execution needs besides the call: the day (for periods such as 本月), the time limit, the row cap,
/// the byte caps, and the asking viewer's row scope.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecContext {
    /// Today, for the periods of enum parameters (`:period_start`, `:period_end`).
    pub today: Date,
    /// The longest a call may run.
    pub timeout: Duration,
    /// The most rows returned.
    pub row_cap: usize,
    /// The most bytes per value and per result: over either the call is stopped and refused as too large.
    pub bytes: ByteCaps,
    /// The row scope bound to the viewer: SQL templates read scoped tables through scoped subqueries, metric
    /// queries add its conditions to WHERE (empty: every row).
    pub scope: Arc<BoundScope>,
}

impl ExecContext {
    /// A context for `today` with the default limits (10 s, 1000 rows).
    pub fn new(today: Date) -> Self {
        Self {
            today,
            timeout: wenshu_sql::db::QueryLimits::DEFAULT_TIMEOUT,
            row_cap: wenshu_sql::db::QueryLimits::DEFAULT_ROW_CAP,
            bytes: ByteCaps::default(),
            scope: Arc::new(BoundScope::unscoped()),
        }
    }

    /// The same context under `scope`.
    pub fn with_scope(mut self, scope: Arc<BoundScope>) -> Self {
        self.scope = scope;
        self
    }

    /// The time limit in whole milliseconds.
    pub fn timeout_ms(&self) -> u64 {
        u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX)
    }

    /// The limits of a database query made for this call.
    pub fn query_limits(&self) -> QueryLimits {
        QueryLimits {
            row_cap: self.row_cap,
            timeout: self.timeout,
            bytes: self.bytes,
        }
    }
}

/// What a tool returned: rows as JSON, and what was sent, for the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    /// The column names.
    pub columns: Vec<String>,
    /// The rows, one value per column.
    pub rows: Vec<Vec<Value>>,
    /// Whether more rows existed than the row cap let through.
    pub truncated: bool,
    /// What was sent: the SQL and its binds, or the HTTP request.
    pub detail: Value,
    /// How long the call took, in milliseconds.
    pub duration_ms: f64,
}

/// The future an executor returns.
pub type ExecFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolResult, ExecError>> + Send + 'a>>;

/// Runs bound calls of the tools it serves.
pub trait Executor: Send + Sync {
    /// Runs `call` of `tool` under `ctx`.
    fn execute<'a>(&'a self, tool: &'a Tool, call: &'a BoundCall, ctx: &'a ExecContext) -> ExecFuture<'a>;
}

/// Refuses a call that is not of `tool`.
pub(crate) fn check_call(tool: &Tool, call: &BoundCall) -> Result<(), ExecError> {
    if call.tool == tool.name() {
        return Ok(());
    }
    Err(ExecError::Invalid {
        tool: tool.name().to_string(),
        reason: format!("the call is of tool `{}`", call.tool),
    })
}

/// Milliseconds since `start`, as a float.
pub(crate) fn elapsed_ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
