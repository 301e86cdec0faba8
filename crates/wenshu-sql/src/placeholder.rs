//! Named placeholders: `:name` in a SQL template becomes the dialect's positional form (`?`, or `$1` on
//! PostgreSQL), with the ordered list of names to bind.
//!
//! Text inside single-quoted strings, double-quoted or back-quoted identifiers and comments is left alone, and so
//! is a `::` cast. A positional placeholder written in the template itself (`?`, `$1`) is refused: its bind could
//! not be told apart from the named ones.

use crate::dialect::Dialect;

/// A template rewritten for one dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Positional {
    /// The SQL with positional placeholders.
    pub sql: String,
    /// The names to bind, one per positional placeholder: every occurrence in order for `?`; each name once,
    /// in order of first use, for PostgreSQL's `$n` (a name used twice reuses its number).
    pub binds: Vec<String>,
}

/// Why a template cannot be rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlaceholderError {
    /// A `?` or `$1` in the template itself.
    #[error("positional placeholder `{found}` at byte {at}; write named placeholders (`:name`) only")]
    Positional {
        /// What was found.
        found: String,
        /// Its byte offset.
        at: usize,
    },
    /// A string, identifier or comment that is never closed.
    #[error("unterminated {what} starting at byte {at}")]
    Unterminated {
        /// `string`, `quoted identifier` or `comment`.
        what: &'static str,
        /// Its byte offset.
        at: usize,
    },
}

/// The named placeholders of a template, every occurrence, in order.
pub fn placeholder_names(template: &str) -> Result<Vec<String>, PlaceholderError> {
    Ok(rewrite_named(template, Dialect::Sqlite)?.binds)
}

/// Rewrites `:name` placeholders of `template` into `dialect`'s positional form.
pub fn rewrite_named(template: &str, dialect: Dialect) -> Result<Positional, PlaceholderError> {
    let bytes = template.as_bytes();
    let mut sql = String::with_capacity(template.len() + 8);
    let mut binds: Vec<String> = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    // Only MySQL reads a backslash inside a string as an escape.
    let backslash = dialect.rules().backslash_escapes();
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => i = skip_quoted(bytes, i, b'\'', backslash, "string")?,
            b'"' => i = skip_quoted(bytes, i, b'"', false, "quoted identifier")?,
            b'`' => i = skip_quoted(bytes, i, b'`', false, "quoted identifier")?,
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |p| i + p + 1);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = template[i + 2..]
                    .find("*/")
                    .ok_or(PlaceholderError::Unterminated { what: "comment", at: i })?;
                i = i + 2 + end + 2;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => i += 2,
            b':' if bytes.get(i + 1).is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_') => {
                let start = i + 1;
                let end = bytes[start..]
                    .iter()
                    .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                    .map_or(bytes.len(), |p| start + p);
                let name = &template[start..end];
                sql.push_str(&template[copied..i]);
                let index = match binds.iter().position(|n| n == name) {
                    Some(index) if dialect.rules().numbered_placeholders() => index,
                    _ => {
                        binds.push(name.to_string());
                        binds.len() - 1
                    }
                };
                sql.push_str(&dialect.placeholder(index));
                i = end;
                copied = end;
            }
            b'?' => {
                return Err(PlaceholderError::Positional {
                    found: "?".into(),
                    at: i,
                });
            }
            b'$' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let end = bytes[i + 1..]
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .map_or(bytes.len(), |p| i + 1 + p);
                return Err(PlaceholderError::Positional {
                    found: template[i..end].to_string(),
                    at: i,
                });
            }
            _ => i += 1,
        }
    }
    sql.push_str(&template[copied..]);
    Ok(Positional { sql, binds })
}

/// The offset just past a quoted run starting at `start`; a doubled quote inside is an escaped quote, and so is a
/// backslash-escaped one where `backslash` says so.
fn skip_quoted(
    bytes: &[u8],
    start: usize,
    quote: u8,
    backslash: bool,
    what: &'static str,
) -> Result<usize, PlaceholderError> {
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return Ok(i + 1);
        }
        if backslash && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        i += 1;
    }
    Err(PlaceholderError::Unterminated { what, at: start })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn question_marks_for_sqlite_and_mysql() {
        let p = rewrite_named(
            "SELECT * FROM t WHERE (:r IS NULL OR r = :r) AND d >= :start_1",
            Dialect::MySql,
        )
        .unwrap();
        assert_eq!(p.sql, "SELECT * FROM t WHERE (? IS NULL OR r = ?) AND d >= ?");
        assert_eq!(p.binds, names(&["r", "r", "start_1"]));
    }

    #[test]
    fn numbered_for_postgres_reusing_a_name() {
        let p = rewrite_named(
            "SELECT * FROM t WHERE (:r IS NULL OR r = :r) LIMIT :limit",
            Dialect::Postgres,
        )
        .unwrap();
        assert_eq!(p.sql, "SELECT * FROM t WHERE ($1 IS NULL OR r = $1) LIMIT $2");
        assert_eq!(p.binds, names(&["r", "limit"]));
    }

    #[test]
    fn casts_strings_and_comments_are_left_alone() {
        let template = "SELECT x::text, ':no', 'it''s :no', \":no\" -- :no\n/* :no */ FROM t WHERE a = :yes";
        let p = rewrite_named(template, Dialect::Postgres).unwrap();
        assert_eq!(
            p.sql,
            "SELECT x::text, ':no', 'it''s :no', \":no\" -- :no\n/* :no */ FROM t WHERE a = $1"
        );
        assert_eq!(p.binds, names(&["yes"]));
    }

    #[test]
    fn cast_directly_on_a_placeholder() {
        let p = rewrite_named("SELECT CAST(:a AS TEXT), :b::int", Dialect::Postgres).unwrap();
        assert_eq!(p.sql, "SELECT CAST($1 AS TEXT), $2::int");
        assert_eq!(p.binds, names(&["a", "b"]));
    }

    #[test]
    fn time_literals_and_non_identifiers_are_not_placeholders() {
        let p = rewrite_named("SELECT '10:30', a :1 FROM t", Dialect::Sqlite).unwrap();
        assert_eq!(p.sql, "SELECT '10:30', a :1 FROM t");
        assert!(p.binds.is_empty());
    }

    #[test]
    fn positional_placeholders_are_refused() {
        assert!(matches!(
            rewrite_named("SELECT ? ", Dialect::Sqlite),
            Err(PlaceholderError::Positional { at: 7, .. })
        ));
        assert!(matches!(
            rewrite_named("SELECT $12", Dialect::Postgres),
            Err(PlaceholderError::Positional { ref found, .. }) if found == "$12"
        ));
        assert!(rewrite_named("SELECT '?', '$1'", Dialect::Postgres).is_ok());
    }

    #[test]
    fn unterminated_runs_are_reported() {
        assert!(matches!(
            rewrite_named("SELECT 'abc", Dialect::Sqlite),
            Err(PlaceholderError::Unterminated { what: "string", at: 7 })
        ));
        assert!(matches!(
            rewrite_named("SELECT 1 /* x", Dialect::Sqlite),
            Err(PlaceholderError::Unterminated { what: "comment", .. })
        ));
    }

    #[test]
    fn backslash_escapes_only_on_mysql() {
        let template = r"SELECT 'a\' , :x";
        assert_eq!(rewrite_named(template, Dialect::Postgres).unwrap().binds, names(&["x"]));
        assert!(rewrite_named(template, Dialect::MySql).is_err());
        let p = rewrite_named(r"SELECT 'it\'s :no', :x", Dialect::MySql).unwrap();
        assert_eq!(p.binds, names(&["x"]));
    }

    #[test]
    fn unicode_text_is_kept() {
        let p = rewrite_named("SELECT '华东:x' AS 地区, :地 FROM t WHERE r = :region", Dialect::Sqlite).unwrap();
        assert_eq!(p.sql, "SELECT '华东:x' AS 地区, :地 FROM t WHERE r = ?");
        assert_eq!(p.binds, names(&["region"]));
    }
}
