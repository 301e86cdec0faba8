//! The schema description the Text-to-SQL model reads: each allowed table's columns and types, column comments,
//! a few sample values of enum-like text columns, and the configured join paths.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::{Database, DbError, Dialect, QueryLimits};

/// How many distinct values make a text column enum-like (its values are listed).
pub const ENUM_LIKE_MAX: usize = 8;

/// What an administrator adds to the introspected schema.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaNotes {
    /// `table.column` → a comment (units, meaning).
    #[serde(default)]
    pub comments: Vec<(String, String)>,
    /// Join paths, e.g. `box_office.movie_id = movies.id`.
    #[serde(default)]
    pub joins: Vec<String>,
}

/// One column as introspected.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    name: String,
    ty: String,
}

/// Describes `tables` of `db` for a prompt.
pub async fn describe_schema(db: &Database, tables: &[String], notes: &SchemaNotes) -> Result<String, DbError> {
    let mut out = String::new();
    for table in tables {
        let columns = columns_of(db, table).await?;
        out.push_str(&format!("表 {table}(\n"));
        for column in &columns {
            let mut line = format!("  {} {}", column.name, column.ty);
            let key = format!("{table}.{}", column.name);
            if let Some((_, comment)) = notes.comments.iter().find(|(k, _)| *k == key) {
                line.push_str(&format!(" -- {comment}"));
            }
            if is_text(&column.ty)
                && let Some(values) = sample_values(db, table, &column.name).await?
            {
                line.push_str(&format!(" 取值: {}", values.join(", ")));
            }
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(")\n");
    }
    if !notes.joins.is_empty() {
        out.push_str(&format!("关联: {}\n", notes.joins.join("; ")));
    }
    Ok(out)
}

async fn columns_of(db: &Database, table: &str) -> Result<Vec<Column>, DbError> {
    let (sql, binds) = match db.dialect() {
        Dialect::Sqlite => (
            "SELECT name, type FROM pragma_table_info(?) ORDER BY cid".to_string(),
            vec![Value::from(table)],
        ),
        Dialect::Postgres => (
            "SELECT column_name::text, data_type::text FROM information_schema.columns \
             WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position"
                .to_string(),
            vec![Value::from(table)],
        ),
        Dialect::MySql => (
            "SELECT column_name, data_type FROM information_schema.columns \
             WHERE table_name = ? AND table_schema = DATABASE() ORDER BY ordinal_position"
                .to_string(),
            vec![Value::from(table)],
        ),
    };
    let rows = db.query(&sql, &binds, QueryLimits::default()).await?;
    Ok(rows
        .rows
        .iter()
        .filter_map(|row| {
            let text = |i: usize| row.get(i).and_then(Value::as_str).map(str::to_string);
            Some(Column {
                name: text(0)?,
                ty: text(1).unwrap_or_default().to_ascii_uppercase(),
            })
        })
        .collect())
}

fn is_text(ty: &str) -> bool {
    ["TEXT", "CHAR", "VARCHAR", "CHARACTER VARYING", "STRING"]
        .iter()
        .any(|t| ty.contains(t))
}

/// The distinct values of an enum-like column, or `None` when it has more than [`ENUM_LIKE_MAX`].
async fn sample_values(db: &Database, table: &str, column: &str) -> Result<Option<Vec<String>>, DbError> {
    let quote = |ident: &str| match db.dialect() {
        Dialect::MySql => format!("`{}`", ident.replace('`', "``")),
        _ => format!("\"{}\"", ident.replace('"', "\"\"")),
    };
    let sql = format!(
        "SELECT DISTINCT {col} FROM {table} WHERE {col} IS NOT NULL LIMIT {limit}",
        col = quote(column),
        table = quote(table),
        limit = ENUM_LIKE_MAX + 1
    );
    let rows = db.query(&sql, &[], QueryLimits::default()).await?;
    if rows.rows.len() > ENUM_LIKE_MAX || rows.rows.is_empty() {
        return Ok(None);
    }
    let mut values: Vec<String> = rows
        .rows
        .iter()
        .filter_map(|r| r.first()?.as_str().map(str::to_string))
        .collect();
    values.sort();
    Ok(Some(values))
}
