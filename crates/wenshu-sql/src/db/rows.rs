//! What a query returns (rows as JSON) and the limits it runs under.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// The most bytes a result may hold: per value and in all. Over either, the query is stopped and the result
/// refused as too large (never cut silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteCaps {
    /// The most bytes of one value (a cell).
    pub cell: usize,
    /// The most bytes of the whole result (every cell of every row).
    pub result: usize,
}

impl ByteCaps {
    /// The default cap of one value: 1 MiB.
    pub const DEFAULT_CELL: usize = 1024 * 1024;
    /// The default cap of a whole result: 8 MiB.
    pub const DEFAULT_RESULT: usize = 8 * 1024 * 1024;
}

impl Default for ByteCaps {
    fn default() -> Self {
        Self {
            cell: Self::DEFAULT_CELL,
            result: Self::DEFAULT_RESULT,
        }
    }
}

/// The limits of one query: how many rows come back, how long it may run, how many bytes it may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    /// The most rows returned; more are not fetched and the result is marked truncated.
    pub row_cap: usize,
    /// The longest the statement may run.
    pub timeout: Duration,
    /// The most bytes per value and per result; over either the query is cancelled.
    pub bytes: ByteCaps,
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
            bytes: ByteCaps::default(),
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
