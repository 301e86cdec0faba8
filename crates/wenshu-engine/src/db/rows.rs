//! What a query returns (rows as JSON) and the limits it runs under.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// The limits of one query: how many rows come back, how long it may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    /// The most rows returned; more are not fetched and the result is marked truncated.
    pub row_cap: usize,
    /// The longest the statement may run.
    pub timeout: Duration,
}

impl QueryLimits {
    /// The default row cap.
    pub const DEFAULT_ROW_CAP: usize = 1000;
    /// The default statement timeout.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

    /// The timeout in whole milliseconds (at least 1).
    pub fn timeout_ms(&self) -> u64 {
        u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX).max(1)
    }
}

impl Default for QueryLimits {
    fn default() -> Self {
        Self {
            row_cap: Self::DEFAULT_ROW_CAP,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }
}

/// The result of a query: column names and rows of JSON values.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rows {
    /// The column names, in order.
    pub columns: Vec<String>,
    /// The rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
    /// Whether more rows existed than the row cap let through.
    pub truncated: bool,
}
