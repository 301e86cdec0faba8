//! What the database says of a table's columns: names and declared types, from each dialect's catalog.

use serde_json::Value;

use super::{Database, DbError, Pool, QueryLimits};

/// One column of a table as the database declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredColumn {
    /// The column's name.
    pub name: String,
    /// Its declared type, upper case (`INTEGER`, `CHARACTER VARYING`; empty when SQLite declares none).
    pub ty: String,
}

/// What [`Database::columns`] answers: the columns of `table` in the connection's default schema, in order.
pub(super) async fn columns(db: &Database, table: &str) -> Result<Vec<DeclaredColumn>, DbError> {
    let sql = match &db.pool {
        Pool::Sqlite(_) => "SELECT name, type FROM pragma_table_info(?) ORDER BY cid",
        Pool::Postgres(_) => {
            "SELECT column_name::text, data_type::text FROM information_schema.columns \
             WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position"
        }
        Pool::MySql(..) => {
            "SELECT column_name, data_type FROM information_schema.columns \
             WHERE table_name = ? AND table_schema = DATABASE() ORDER BY ordinal_position"
        }
    };
    let rows = db.query(sql, &[Value::from(table)], QueryLimits::default()).await?;
    Ok(rows
        .rows
        .iter()
        .filter_map(|row| {
            let text = |i: usize| row.get(i).and_then(Value::as_str).map(str::to_string);
            Some(DeclaredColumn {
                name: text(0)?,
                ty: text(1).unwrap_or_default().to_ascii_uppercase(),
            })
        })
        .collect())
}
