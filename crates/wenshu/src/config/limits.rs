//! `[limits]` of `wenshu.toml`: what one tool call or Text-to-SQL query may take — time, rows and bytes. Over a byte
//! cap the query is cancelled while its rows come in and the answer says the result was too large.
//!
//! ```toml
//! [limits]
//! query_timeout_secs = 10        # one tool call or fallback statement
//! max_rows = 1000                # rows of a tool call's result (more are cut, and the answer says so)
//! max_cell_bytes = 1048576       # one value of a result (1 MiB)
//! max_result_bytes = 8388608     # a whole result (8 MiB); also HTTP response bodies, MCP tool results
//! ```

use std::time::Duration;

use anyhow::bail;
use serde::Deserialize;
use wenshu_sql::db::{ByteCaps, QueryLimits};

/// `[limits]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// Seconds one tool call or fallback statement may run (default 10).
    pub query_timeout_secs: Option<u64>,
    /// Rows of a tool call's result (default 1000).
    pub max_rows: Option<usize>,
    /// Bytes of one value of a result (default 1 MiB).
    pub max_cell_bytes: Option<usize>,
    /// Bytes of a whole result (default 8 MiB).
    pub max_result_bytes: Option<usize>,
}

impl LimitsSection {
    /// The limits, checked: every value from 1, and the cap per value no larger than the cap per result.
    pub fn query_limits(&self) -> anyhow::Result<QueryLimits> {
        for (key, value) in [
            ("query_timeout_secs", self.query_timeout_secs.map(|v| v as usize)),
            ("max_rows", self.max_rows),
            ("max_cell_bytes", self.max_cell_bytes),
            ("max_result_bytes", self.max_result_bytes),
        ] {
            if value == Some(0) {
                bail!("[limits] {key} = 0: it must be a whole number from 1 (or left out for the default)");
            }
        }
        let defaults = QueryLimits::default();
        let bytes = ByteCaps {
            cell: self.max_cell_bytes.unwrap_or(ByteCaps::DEFAULT_CELL),
            result: self.max_result_bytes.unwrap_or(ByteCaps::DEFAULT_RESULT),
        };
        if bytes.cell > bytes.result {
            bail!(
                "[limits] max_cell_bytes = {} is larger than max_result_bytes = {}: one value cannot be larger than \
                 the whole result",
                bytes.cell,
                bytes.result
            );
        }
        Ok(QueryLimits {
            row_cap: self.max_rows.unwrap_or(defaults.row_cap),
            timeout: self.query_timeout_secs.map_or(defaults.timeout, Duration::from_secs),
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_checked_and_defaulted() {
        let section: LimitsSection =
            toml::from_str("query_timeout_secs = 5\nmax_rows = 50\nmax_cell_bytes = 1000\nmax_result_bytes = 4000")
                .unwrap();
        let limits = section.query_limits().unwrap();
        assert_eq!(limits.timeout, Duration::from_secs(5));
        assert_eq!(limits.row_cap, 50);
        assert_eq!(
            limits.bytes,
            ByteCaps {
                cell: 1000,
                result: 4000
            }
        );
        assert_eq!(LimitsSection::default().query_limits().unwrap(), QueryLimits::default());
        let zero: LimitsSection = toml::from_str("max_result_bytes = 0").unwrap();
        assert!(
            zero.query_limits()
                .unwrap_err()
                .to_string()
                .contains("max_result_bytes")
        );
        let inverted: LimitsSection = toml::from_str("max_cell_bytes = 10\nmax_result_bytes = 5").unwrap();
        assert!(
            inverted
                .query_limits()
                .unwrap_err()
                .to_string()
                .contains("max_cell_bytes = 10")
        );
        assert!(toml::from_str::<LimitsSection>("max_bytes = 9").is_err());
    }

    #[test]
    fn the_readme_example_loads() {
        let readme = include_str!("../../../../README.md");
        let start = readme.find("\n[limits]").expect("README shows [limits]");
        let block: String = readme[start + 1..]
            .lines()
            .skip(1)
            .take_while(|line| !line.trim().is_empty())
            .map(|line| format!("{line}\n"))
            .collect();
        let section: LimitsSection = toml::from_str(&block).unwrap();
        assert_eq!(section.max_cell_bytes, Some(1_048_576));
        assert_eq!(section.query_limits().unwrap(), QueryLimits::default());
    }
}
