//! The least-privilege check: which tables a connection can read, and which of them lie outside the allowed ones.

use serde_json::Value;

use super::Database;
use super::Pool;
use super::error::DbError;
use super::rows::QueryLimits;

/// Every table, view and foreign table outside the system schemas that the session can SELECT (or SELECT a
/// column of).
const POSTGRES_READABLE: &str = "SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c \
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
     WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') \
     AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' \
     AND has_any_column_privilege(c.oid, 'SELECT') ORDER BY 1, 2";

/// The tables MySQL lets the account see (it lists only those it holds a privilege on).
const MYSQL_VISIBLE: &str = "SELECT table_schema, table_name FROM information_schema.tables \
     WHERE table_schema NOT IN ('information_schema', 'mysql', 'performance_schema', 'sys') ORDER BY 1, 2";

/// What [`Database::readable_tables`] answers for a connection.
pub(super) async fn readable_tables(db: &Database) -> Result<Vec<String>, DbError> {
    match &db.pool {
        Pool::Sqlite(_) => Ok(Vec::new()),
        Pool::Postgres(_) => pairs(db, POSTGRES_READABLE).await,
        Pool::MySql(..) => {
            let mut tables = global_grants(db).await?;
            tables.extend(pairs(db, MYSQL_VISIBLE).await?);
            Ok(tables)
        }
    }
}

/// The schema a bare table name means: PostgreSQL's `current_schema()`, MySQL's `DATABASE()`; none for SQLite.
pub(super) async fn default_schema(db: &Database) -> Result<Option<String>, DbError> {
    let sql = match &db.pool {
        Pool::Sqlite(_) => return Ok(None),
        Pool::Postgres(_) => "SELECT current_schema()::text",
        Pool::MySql(..) => "SELECT DATABASE()",
    };
    let rows = db.query(sql, &[], QueryLimits::default()).await?;
    Ok(rows
        .rows
        .first()
        .and_then(|r| r.first())
        .and_then(Value::as_str)
        .map(str::to_string))
}

/// `schema.table` for each row of a two-column query.
async fn pairs(db: &Database, sql: &str) -> Result<Vec<String>, DbError> {
    let rows = db
        .query(
            sql,
            &[],
            QueryLimits {
                row_cap: 100_000,
                ..QueryLimits::default()
            },
        )
        .await?;
    Ok(rows
        .rows
        .iter()
        .filter_map(|row| match row.as_slice() {
            [Value::String(schema), Value::String(table), ..] => Some(format!("{schema}.{table}")),
            _ => None,
        })
        .collect())
}

/// `*.*` when `SHOW GRANTS` holds a global SELECT (or ALL): every table of every database, the system ones too.
async fn global_grants(db: &Database) -> Result<Vec<String>, DbError> {
    let rows = db.query("SHOW GRANTS", &[], QueryLimits::default()).await?;
    let global = rows
        .rows
        .iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(grants_global_read);
    Ok(if global { vec!["*.*".to_string()] } else { Vec::new() })
}

/// Whether one `SHOW GRANTS` line grants reading every table (`GRANT SELECT, … ON *.* TO …`, `GRANT ALL …`).
fn grants_global_read(line: &str) -> bool {
    let upper = line.to_ascii_uppercase();
    let Some((privileges, rest)) = upper.strip_prefix("GRANT ").and_then(|l| l.split_once(" ON ")) else {
        return false;
    };
    rest.trim_start().starts_with("*.*")
        && privileges
            .split(',')
            .any(|p| matches!(p.trim(), "SELECT" | "ALL" | "ALL PRIVILEGES"))
}

/// The readable tables that are not among `allowed` (a bare name or `schema.name`; PostgreSQL's `public` and
/// MySQL's current database stand for the bare name when `default_schema` names them).
pub fn tables_beyond(readable: &[String], allowed: &[String], default_schema: Option<&str>) -> Vec<String> {
    readable
        .iter()
        .filter(|qualified| {
            let (schema, table) = qualified.split_once('.').unwrap_or(("", qualified.as_str()));
            let bare_ok = default_schema.is_some_and(|d| d.eq_ignore_ascii_case(schema));
            !allowed
                .iter()
                .any(|a| a.eq_ignore_ascii_case(qualified) || (bare_ok && a.eq_ignore_ascii_case(table)))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_grants_are_read_from_show_grants_lines() {
        assert!(grants_global_read(
            "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"
        ));
        assert!(grants_global_read("GRANT SELECT, INSERT ON *.* TO `u`@`%`"));
        assert!(!grants_global_read("GRANT USAGE ON *.* TO `ro`@`%`"));
        assert!(!grants_global_read("GRANT SELECT ON `shop`.`sales` TO `ro`@`%`"));
    }

    #[test]
    fn tables_beyond_the_allowed_ones_are_named() {
        let readable = ["public.sales".to_string(), "public.users".into(), "audit.log".into()];
        let allowed = ["sales".to_string()];
        assert_eq!(
            tables_beyond(&readable, &allowed, Some("public")),
            ["public.users", "audit.log"]
        );
        assert_eq!(tables_beyond(&readable, &allowed, None).len(), 3);
    }
}
