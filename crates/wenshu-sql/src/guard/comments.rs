//! Comments a database runs: MySQL's `/*! … */` and `/*!50001 … */`, MariaDB's `/*M! … */`, and optimizer hints
//! (`/*+ … */`, which MySQL's `SET_VAR` and PostgreSQL's pg_hint_plan act on). They are refused on the raw text,
//! before parsing and in every dialect, also inside string literals: a parser that reads them as comments and a
//! server that runs them must never disagree about what a statement does.

/// Why `sql` is refused before parsing, if it is.
pub(super) fn refusal(sql: &str) -> Option<String> {
    if sql.contains('\0') {
        return Some("the SQL holds a NUL character".into());
    }
    let bytes = sql.as_bytes();
    for (i, window) in bytes.windows(3).enumerate() {
        if window[0] != b'/' || window[1] != b'*' {
            continue;
        }
        let kind = match window[2] {
            b'!' => Some("an executable comment (/*! … */)"),
            b'+' => Some("an optimizer hint (/*+ … */)"),
            b'M' | b'm' if bytes.get(i + 3) == Some(&b'!') => Some("an executable comment (/*M! … */)"),
            _ => None,
        };
        if let Some(kind) = kind {
            return Some(format!(
                "{kind} is not allowed: the database would run what the guard reads as a comment"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn executable_comments_and_hints_are_refused_plain_comments_are_not() {
        for sql in [
            "SELECT * FROM sales /*! UNION SELECT 1 */",
            "SELECT * FROM sales /*!50001 UNION SELECT 1 */",
            "SELECT * FROM sales /*M! UNION SELECT 1 */",
            "SELECT * FROM sales /*m!100000 UNION SELECT 1 */",
            "SELECT /*+ SET_VAR(sql_mode='') */ * FROM sales",
            "SELECT 'a\0b'",
        ] {
            assert!(refusal(sql).is_some(), "{sql}");
        }
        for sql in [
            "SELECT * FROM sales /* total */",
            "-- note\nSELECT 1",
            "SELECT 2/3*4",
            "SELECT '/*M'",
        ] {
            assert_eq!(refusal(sql), None, "{sql}");
        }
    }
}
