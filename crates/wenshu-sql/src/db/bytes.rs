//! The bytes of a result counted as it comes in: each value against the cap per value, the running sum against
//! the cap per result. Shared by every executor (database rows, HTTP and MCP results).

use serde_json::Value;

use super::error::{ByteCap, DbError};
use super::rows::ByteCaps;

/// The bytes a JSON value takes as text, near enough (strings without escapes, numbers at most 24 bytes); walked
/// without recursion.
pub fn value_bytes(value: &Value) -> usize {
    let mut total = 0usize;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        total = total.saturating_add(match value {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 24,
            Value::String(text) => text.len() + 2,
            Value::Array(items) => {
                pending.extend(items);
                2 + items.len()
            }
            Value::Object(map) => {
                pending.extend(map.values());
                2 + map.keys().map(|k| k.len() + 4).sum::<usize>()
            }
        });
    }
    total
}

/// The bytes of one result so far, under its caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteBudget {
    caps: ByteCaps,
    used: usize,
}

impl ByteBudget {
    /// A budget of `caps`, nothing used.
    pub fn new(caps: ByteCaps) -> Self {
        Self { caps, used: 0 }
    }

    /// The bytes counted so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Checks one value's size before it is read (`len` raw bytes): over the cap per value, or what is left of
    /// the result, is refused.
    pub fn check_raw(&self, len: usize) -> Result<(), DbError> {
        self.check(len, self.used.saturating_add(len))
    }

    /// Counts a row's values; the first over the cap per value, or the sum over the cap per result, is refused.
    pub fn add_row(&mut self, row: &[Value]) -> Result<(), DbError> {
        for value in row {
            let len = value_bytes(value);
            let used = self.used.saturating_add(len);
            self.check(len, used)?;
            self.used = used;
        }
        Ok(())
    }

    fn check(&self, len: usize, used: usize) -> Result<(), DbError> {
        if len > self.caps.cell {
            return Err(DbError::TooLarge {
                cap: ByteCap::Cell,
                limit: self.caps.cell,
            });
        }
        if used > self.caps.result {
            return Err(DbError::TooLarge {
                cap: ByteCap::Result,
                limit: self.caps.result,
            });
        }
        Ok(())
    }
}

/// Checks rows already in memory (an HTTP or MCP result) against `caps`.
pub fn check_rows(rows: &[Vec<Value>], caps: ByteCaps) -> Result<(), DbError> {
    let mut budget = ByteBudget::new(caps);
    rows.iter().try_for_each(|row| budget.add_row(row))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const CAPS: ByteCaps = ByteCaps { cell: 10, result: 25 };

    #[test]
    fn a_value_over_the_cell_cap_is_refused() {
        let mut budget = ByteBudget::new(CAPS);
        assert_eq!(budget.add_row(&[json!("abc")]), Ok(()));
        assert_eq!(budget.used(), 5);
        let error = budget.add_row(&[json!("x".repeat(20))]).unwrap_err();
        assert_eq!(
            error,
            DbError::TooLarge {
                cap: ByteCap::Cell,
                limit: 10
            }
        );
        assert!(error.to_string().contains("too large") && error.to_string().contains("max_cell_bytes"));
        assert!(budget.check_raw(11).is_err());
        assert!(budget.check_raw(10).is_ok());
    }

    #[test]
    fn the_sum_over_the_result_cap_is_refused() {
        let rows = vec![vec![json!("abcdef")]; 4];
        assert_eq!(
            check_rows(&rows, CAPS),
            Err(DbError::TooLarge {
                cap: ByteCap::Result,
                limit: 25
            })
        );
        assert_eq!(check_rows(&rows[..3], CAPS), Ok(()));
    }

    #[test]
    fn nested_values_are_counted_whole() {
        let nested = json!({"a": ["xxxx", {"bb": "yyyy"}]});
        assert!(value_bytes(&nested) > 8 + 2 + 4);
        assert!(check_rows(&[vec![json!([["x".repeat(12)]])]], CAPS).is_err());
    }
}
