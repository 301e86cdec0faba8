//! The schema description the Text-to-SQL model reads: each allowed table's columns and types, column comments,
//! a few sample values of enum-like text columns, and the configured join paths. The sample values are read through
//! the viewer's row scope ([`ScopedSchema`], one description per scope): a description, and the trace that keeps
//! the prompt, never holds another scope's values.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::scope::BoundScope;
use crate::scope::read::{ScopeCache, scope_key, scoped_statement};
use wenshu_sql::db::{Database, DbError, QueryLimits};

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

/// One column of a schema description, read back from its text: what the fallback's checks know of the schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribedColumn {
    /// The table.
    pub table: String,
    /// The column's name.
    pub name: String,
    /// Its comment, when the administrator gave one.
    pub comment: Option<String>,
    /// Its values, for an enum-like text column.
    pub values: Vec<String>,
}

/// The columns of a description written by [`describe_schema`] (its `表 t(` blocks, one column a line).
pub fn described_columns(description: &str) -> Vec<DescribedColumn> {
    let mut columns = Vec::new();
    let mut table: Option<&str> = None;
    for line in description.lines() {
        if let Some(name) = line.strip_prefix("表 ").and_then(|rest| rest.strip_suffix('(')) {
            table = Some(name.trim());
            continue;
        }
        if line.trim() == ")" {
            table = None;
            continue;
        }
        let (Some(table), Some(body)) = (table, line.strip_prefix("  ")) else {
            continue;
        };
        let (body, values) = match body.split_once(" 取值: ") {
            Some((body, values)) => (body, values.split(", ").map(str::to_string).collect()),
            None => (body, Vec::new()),
        };
        let (body, comment) = match body.split_once(" -- ") {
            Some((body, comment)) => (body, Some(comment.trim().to_string())),
            None => (body, None),
        };
        let Some(name) = body.split_whitespace().next() else {
            continue;
        };
        columns.push(DescribedColumn {
            table: table.to_string(),
            name: name.to_string(),
            comment,
            values,
        });
    }
    columns
}

/// A schema description and its columns read back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Described {
    /// The text the model reads.
    pub text: String,
    /// Its columns ([`described_columns`] of the text).
    pub columns: Vec<DescribedColumn>,
}

impl Described {
    /// A description from its text.
    pub fn new(text: String) -> Self {
        Self {
            columns: described_columns(&text),
            text,
        }
    }
}

/// The description of some tables per viewer scope, each scope's read once and kept (see
/// [`crate::scope::read::ScopeCache`]); unscoped viewers share one.
#[derive(Debug)]
pub struct ScopedSchema {
    db: Arc<Database>,
    tables: Vec<String>,
    notes: SchemaNotes,
    cache: ScopeCache<Described>,
}

impl ScopedSchema {
    /// Describes `tables` of `db` (read-only) with `notes`, per scope.
    pub fn new(db: Arc<Database>, tables: Vec<String>, notes: SchemaNotes) -> Self {
        Self {
            db,
            tables,
            notes,
            cache: ScopeCache::default(),
        }
    }

    /// The description as `scope` sees it: sample values only of the viewer's rows.
    pub async fn describe(&self, scope: &BoundScope) -> Result<Arc<Described>, DbError> {
        let key = scope_key(scope);
        if let Some(described) = self.cache.get(&key) {
            return Ok(described);
        }
        let text = describe_schema_scoped(&self.db, &self.tables, &self.notes, scope).await?;
        let described = Arc::new(Described::new(text));
        self.cache.insert(key, described.clone());
        Ok(described)
    }
}

/// Where a fallback's schema description comes from: a fixed text, or read per scope.
#[derive(Debug)]
pub enum SchemaSource {
    /// The same text for every viewer (written without the data's values of scoped tables, or for one scope).
    Fixed(Arc<Described>),
    /// Read through each viewer's scope.
    Scoped(ScopedSchema),
}

impl SchemaSource {
    /// A fixed description.
    pub fn fixed(text: String) -> Self {
        Self::Fixed(Arc::new(Described::new(text)))
    }

    /// The description `scope`'s viewer reads.
    pub async fn describe(&self, scope: &BoundScope) -> Result<Arc<Described>, DbError> {
        match self {
            Self::Fixed(described) => Ok(described.clone()),
            Self::Scoped(schema) => schema.describe(scope).await,
        }
    }
}

/// Describes `tables` of `db` for a prompt, for a viewer who sees every row.
pub async fn describe_schema(db: &Database, tables: &[String], notes: &SchemaNotes) -> Result<String, DbError> {
    describe_schema_scoped(db, tables, notes, &BoundScope::unscoped()).await
}

/// Describes `tables` of `db` for a prompt as `scope`'s viewer sees them: sample values are read through the
/// viewer's row scope (none of a table the viewer is denied).
pub async fn describe_schema_scoped(
    db: &Database,
    tables: &[String],
    notes: &SchemaNotes,
    scope: &BoundScope,
) -> Result<String, DbError> {
    let mut out = String::new();
    for table in tables {
        let columns = db.columns(table).await?;
        out.push_str(&format!("表 {table}(\n"));
        for column in &columns {
            let mut line = format!("  {} {}", column.name, column.ty);
            let key = format!("{table}.{}", column.name);
            if let Some((_, comment)) = notes.comments.iter().find(|(k, _)| *k == key) {
                line.push_str(&format!(" -- {comment}"));
            }
            if is_text(&column.ty)
                && let Some(values) = sample_values(db, table, &column.name, scope).await?
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

fn is_text(ty: &str) -> bool {
    ["TEXT", "CHAR", "VARCHAR", "CHARACTER VARYING", "STRING"]
        .iter()
        .any(|t| ty.contains(t))
}

/// The distinct values of an enum-like column in the rows `scope` lets through, or `None` when it has more than
/// [`ENUM_LIKE_MAX`] (or the viewer may read none of the table).
async fn sample_values(
    db: &Database,
    table: &str,
    column: &str,
    scope: &BoundScope,
) -> Result<Option<Vec<String>>, DbError> {
    let quote = |ident: &str| db.dialect().quote_identifier(ident);
    let sql = format!(
        "SELECT DISTINCT {col} FROM {table} WHERE {col} IS NOT NULL LIMIT {limit}",
        col = quote(column),
        table = quote(table),
        limit = ENUM_LIKE_MAX + 1
    );
    let Ok((sql, binds)) = scoped_statement(&sql, db.dialect(), scope) else {
        return Ok(None);
    };
    let rows = db.query(&sql, &binds, QueryLimits::default()).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_reads_back_as_its_columns() {
        let text =
            "表 orders(\n  id INTEGER\n  fee REAL -- 运费, 元\n  state TEXT 取值: done, open\n)\n关联: a.b = c.d\n";
        let columns = described_columns(text);
        assert_eq!(columns.len(), 3);
        assert_eq!((columns[0].table.as_str(), columns[0].name.as_str()), ("orders", "id"));
        assert_eq!(columns[1].comment.as_deref(), Some("运费, 元"));
        assert_eq!(columns[2].values, ["done", "open"]);
        assert!(described_columns("关联: x").is_empty());
    }
}
