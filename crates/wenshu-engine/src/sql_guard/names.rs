//! How each dialect folds names: what a table or CTE name written in a statement refers to.

use sqlparser::ast::Ident;

use super::policy::{SYSTEM_SCHEMAS, SqlDialect};

/// A table or schema name as the database looks it up: PostgreSQL folds unquoted names to lower case and keeps
/// quoted ones; SQLite ignores ASCII case; MySQL is compared ignoring ASCII case (its `lower_case_table_names`
/// decides on the server; a least-privilege account covers servers that tell `Sales` from `sales`).
pub(super) fn fold(ident: &Ident, dialect: SqlDialect) -> String {
    match (dialect, ident.quote_style) {
        (SqlDialect::Postgres, Some(_)) => ident.value.clone(),
        _ => ident.value.to_ascii_lowercase(),
    }
}

/// The key a CTE name is matched by. Only a match the database is sure to make counts (a miss makes the name a
/// table, which the allow list then checks): PostgreSQL folds as for tables, SQLite ignores ASCII case, MySQL
/// compares as written.
pub(super) fn cte_key(ident: &Ident, dialect: SqlDialect) -> String {
    match dialect {
        SqlDialect::Mysql => ident.value.clone(),
        SqlDialect::Postgres | SqlDialect::Sqlite => fold(ident, dialect),
    }
}

/// Whether a schema qualifier names the connection's own default schema (`main` on SQLite, `public` on
/// PostgreSQL); MySQL's qualifier names another database, never the default.
pub(super) fn is_default_schema(schema: &Ident, dialect: SqlDialect) -> bool {
    let folded = fold(schema, dialect);
    match dialect {
        SqlDialect::Sqlite => folded == "main",
        SqlDialect::Postgres => folded == "public",
        SqlDialect::Mysql => false,
    }
}

/// Whether a (folded) table name is a system catalog of some dialect.
pub(super) fn is_system_table(table: &str) -> bool {
    let lower = table.to_ascii_lowercase();
    lower.starts_with("sqlite_") || lower.starts_with("pg_") || SYSTEM_SCHEMAS.contains(&lower.as_str())
}

/// Bare keywords that read the session (`SELECT current_user`): PostgreSQL's SQL-standard ones (where `user` is
/// one), MySQL's `current_user`.
pub(super) fn is_session_keyword(lower: &str, dialect: SqlDialect) -> bool {
    match dialect {
        SqlDialect::Postgres => matches!(
            lower,
            "current_user" | "session_user" | "current_role" | "user" | "current_catalog" | "current_schema"
        ),
        SqlDialect::Mysql => matches!(lower, "current_user" | "current_role"),
        SqlDialect::Sqlite => false,
    }
}
