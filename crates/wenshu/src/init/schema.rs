//! Reading a database's schema, read-only: tables, columns with their declared types, primary and foreign keys,
//! and comments, for SQLite (`sqlite_master`, `pragma_*`), PostgreSQL (`pg_catalog`) and MySQL/MariaDB
//! (`information_schema`).

use anyhow::Context;
use serde_json::Value;
use wenshu_sql::db::{Database, Dialect, QueryLimits};

/// What a column holds, from its declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Integers and decimals.
    Number,
    /// Character data.
    Text,
    /// Calendar days (SQL `DATE`, or ISO day text in SQLite).
    Date,
    /// Dates with a time of day.
    Timestamp,
    /// Yes/no.
    Boolean,
    /// Anything else (binary, JSON, arrays…).
    Other,
}

/// One column.
#[derive(Debug, Clone)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// The declared type as the database spells it.
    pub declared: String,
    /// What it holds.
    pub kind: ColumnKind,
    /// Its comment, when the database keeps one.
    pub comment: Option<String>,
    /// Part of the primary key.
    pub primary_key: bool,
}

/// A single-column foreign key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The referencing column.
    pub column: String,
    /// The referenced table.
    pub table: String,
    /// The referenced column.
    pub target: String,
}

/// One table or view.
#[derive(Debug, Clone)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// Its comment, when the database keeps one.
    pub comment: Option<String>,
    /// Its columns, in order.
    pub columns: Vec<Column>,
    /// Its single-column foreign keys.
    pub foreign_keys: Vec<ForeignKey>,
    /// Foreign keys over several columns (not drafted; named in the output).
    pub composite_keys: Vec<String>,
    /// A view, not a base table.
    pub view: bool,
}

impl Table {
    /// The foreign key starting at `column`, if any.
    pub fn foreign_key(&self, column: &str) -> Option<&ForeignKey> {
        self.foreign_keys.iter().find(|f| f.column == column)
    }
}

/// Reads every table of the connection's schema (or only `only`, in that order).
pub async fn read_schema(db: &Database, only: &[String]) -> anyhow::Result<Vec<Table>> {
    let mut tables = match db.dialect() {
        Dialect::Sqlite => read_sqlite(db).await?,
        Dialect::Postgres => read_postgres(db).await?,
        Dialect::MySql => read_mysql(db).await?,
        Dialect::Custom(rules) => anyhow::bail!("no database connects in the dialect `{}`", rules.name()),
    };
    if !only.is_empty() {
        let missing: Vec<&String> = only.iter().filter(|n| !tables.iter().any(|t| &t.name == *n)).collect();
        if !missing.is_empty() {
            let known: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
            anyhow::bail!(
                "--tables names {} not in the database; its tables are: {}",
                missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                known.join(", ")
            );
        }
        tables.retain(|t| only.contains(&t.name));
    }
    Ok(tables)
}

async fn rows(db: &Database, sql: &str, binds: &[Value]) -> anyhow::Result<Vec<Vec<Value>>> {
    let limits = QueryLimits {
        row_cap: 1_000_000,
        timeout: std::time::Duration::from_secs(60),
        // A large schema is read whole; each value still under the cap per value.
        bytes: wenshu_sql::db::ByteCaps {
            result: usize::MAX,
            ..wenshu_sql::db::ByteCaps::default()
        },
    };
    let rows = db
        .query(sql, binds, limits)
        .await
        .with_context(|| format!("reading the schema with `{sql}`"))?;
    Ok(rows.rows)
}

/// A cell as text (`None` for NULL and empty text).
pub fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.trim().to_string()),
        other => Some(other.to_string()),
    }
}

fn cell(row: &[Value], i: usize) -> String {
    row.get(i).and_then(text).unwrap_or_default()
}

async fn read_sqlite(db: &Database) -> anyhow::Result<Vec<Table>> {
    let names = rows(
        db,
        "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' \
         ORDER BY name",
        &[],
    )
    .await?;
    let mut tables = Vec::new();
    for row in names {
        let name = cell(&row, 0);
        let view = cell(&row, 1) == "view";
        let bind = [Value::String(name.clone())];
        let columns = rows(
            db,
            "SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid",
            &bind,
        )
        .await?;
        let columns = columns
            .iter()
            .map(|r| {
                let declared = cell(r, 1);
                Column {
                    name: cell(r, 0),
                    kind: classify(&declared, Dialect::Sqlite),
                    declared,
                    comment: None,
                    primary_key: r.get(2).and_then(Value::as_i64).is_some_and(|p| p > 0),
                }
            })
            .collect();
        let keys = rows(
            db,
            "SELECT id, \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
            &bind,
        )
        .await?;
        let keyed: Vec<(String, String, String, String)> = keys
            .iter()
            .map(|r| (cell(r, 0), cell(r, 1), cell(r, 2), cell(r, 3)))
            .collect();
        let mut table = Table {
            name,
            comment: None,
            columns,
            foreign_keys: Vec::new(),
            composite_keys: Vec::new(),
            view,
        };
        add_keys(&mut table, keyed);
        if let Some(pk) = table.columns.iter().find(|c| c.primary_key).map(|c| c.name.clone()) {
            // `REFERENCES t` without a column names the primary key.
            for key in &mut table.foreign_keys {
                if key.target.is_empty() {
                    key.target = pk.clone();
                }
            }
        }
        tables.push(table);
    }
    fill_missing_targets(&mut tables);
    Ok(tables)
}

/// A SQLite `REFERENCES t` without a column refers to `t`'s primary key.
fn fill_missing_targets(tables: &mut [Table]) {
    let pks: Vec<(String, Option<String>)> = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.columns.iter().find(|c| c.primary_key).map(|c| c.name.clone()),
            )
        })
        .collect();
    for table in tables.iter_mut() {
        for key in &mut table.foreign_keys {
            if key.target.is_empty()
                && let Some((_, Some(pk))) = pks.iter().find(|(n, _)| *n == key.table)
            {
                key.target = pk.clone();
            }
        }
    }
}

/// One column of a key: `(column, referenced table, referenced column)`.
type KeyColumn = (String, String, String);

/// Groups `(constraint, column, table, target)` rows: one-column keys are kept, others named.
fn add_keys(table: &mut Table, rows: Vec<(String, String, String, String)>) {
    let mut groups: Vec<(String, Vec<KeyColumn>)> = Vec::new();
    for (id, column, target_table, target) in rows {
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, list)) => list.push((column, target_table, target)),
            None => groups.push((id, vec![(column, target_table, target)])),
        }
    }
    for (_, list) in groups {
        match list.as_slice() {
            [(column, target_table, target)] => {
                let key = ForeignKey {
                    column: column.clone(),
                    table: target_table.clone(),
                    target: target.clone(),
                };
                // The same key declared twice (inline and as a constraint) joins once.
                if !table.foreign_keys.contains(&key) {
                    table.foreign_keys.push(key);
                }
            }
            many => table.composite_keys.push(format!(
                "({}) → {}",
                many.iter().map(|m| m.0.as_str()).collect::<Vec<_>>().join(", "),
                many[0].1
            )),
        }
    }
}

async fn read_postgres(db: &Database) -> anyhow::Result<Vec<Table>> {
    let names = rows(
        db,
        "SELECT c.relname::text, obj_description(c.oid, 'pg_class')::text, c.relkind IN ('v', 'm') FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p') ORDER BY 1",
        &[],
    )
    .await?;
    let columns = rows(
        db,
        "SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod)::text, \
         col_description(c.oid, a.attnum)::text FROM pg_attribute a \
         JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p') AND a.attnum > 0 \
         AND NOT a.attisdropped ORDER BY c.relname, a.attnum",
        &[],
    )
    .await?;
    let keys = rows(
        db,
        "SELECT cl.relname::text, con.contype::text, con.conname::text, a.attname::text, fc.relname::text, \
         fa.attname::text FROM pg_constraint con \
         JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace \
         CROSS JOIN LATERAL unnest(con.conkey, coalesce(con.confkey, con.conkey)) AS k(attnum, fattnum) \
         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum \
         LEFT JOIN pg_class fc ON fc.oid = con.confrelid \
         LEFT JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fattnum \
         WHERE n.nspname = current_schema() AND con.contype IN ('p', 'f') ORDER BY 1, 3",
        &[],
    )
    .await?;
    Ok(assemble(names, columns, keys, Dialect::Postgres))
}

async fn read_mysql(db: &Database) -> anyhow::Result<Vec<Table>> {
    let names = rows(
        db,
        "SELECT TABLE_NAME, TABLE_COMMENT, TABLE_TYPE = 'VIEW' FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = DATABASE() \
         ORDER BY TABLE_NAME",
        &[],
    )
    .await?;
    let columns = rows(
        db,
        "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, COLUMN_COMMENT FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION",
        &[],
    )
    .await?;
    let keys = rows(
        db,
        "SELECT TABLE_NAME, CASE WHEN CONSTRAINT_NAME = 'PRIMARY' THEN 'p' ELSE 'f' END, CONSTRAINT_NAME, \
         COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
         WHERE TABLE_SCHEMA = DATABASE() AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) \
         ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
        &[],
    )
    .await?;
    Ok(assemble(names, columns, keys, Dialect::MySql))
}

/// Tables from catalog rows: `(table, comment, is a view)`, `(table, column, type, comment)` and
/// `(table, 'p'|'f', constraint, column, referenced table, referenced column)`.
fn assemble(names: Vec<Vec<Value>>, columns: Vec<Vec<Value>>, keys: Vec<Vec<Value>>, dialect: Dialect) -> Vec<Table> {
    let mut tables: Vec<Table> = names
        .iter()
        .map(|r| Table {
            name: cell(r, 0),
            comment: r.get(1).and_then(text),
            columns: Vec::new(),
            foreign_keys: Vec::new(),
            composite_keys: Vec::new(),
            view: r
                .get(2)
                .is_some_and(|v| v.as_bool().unwrap_or_else(|| v.as_i64() == Some(1))),
        })
        .collect();
    for r in &columns {
        let Some(table) = tables.iter_mut().find(|t| t.name == cell(r, 0)) else {
            continue;
        };
        let declared = cell(r, 2);
        table.columns.push(Column {
            name: cell(r, 1),
            kind: classify(&declared, dialect),
            declared,
            comment: r.get(3).and_then(text),
            primary_key: false,
        });
    }
    for table in &mut tables {
        let mine: Vec<&Vec<Value>> = keys.iter().filter(|r| cell(r, 0) == table.name).collect();
        for r in mine.iter().filter(|r| cell(r, 1) == "p") {
            let column = cell(r, 3);
            if let Some(c) = table.columns.iter_mut().find(|c| c.name == column) {
                c.primary_key = true;
            }
        }
        let foreign = mine
            .iter()
            .filter(|r| cell(r, 1) == "f")
            .map(|r| (cell(r, 2), cell(r, 3), cell(r, 4), cell(r, 5)))
            .collect();
        add_keys(table, foreign);
    }
    tables
}

/// What a declared type holds, per dialect (SQLite by its affinity rules).
pub fn classify(declared: &str, dialect: Dialect) -> ColumnKind {
    let t = declared.to_ascii_lowercase();
    let t = t.trim();
    if t.starts_with("tinyint(1)") || t.starts_with("bool") || t == "bit" || t == "bit(1)" {
        return ColumnKind::Boolean;
    }
    if t == "date" {
        return ColumnKind::Date;
    }
    if t.starts_with("timestamp") || t.starts_with("datetime") {
        return ColumnKind::Timestamp;
    }
    if t.starts_with("time") || t.starts_with("interval") || t.starts_with("year") {
        return ColumnKind::Other;
    }
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if dialect == Dialect::Sqlite {
        return if any(&["int"]) {
            ColumnKind::Number
        } else if any(&["char", "clob", "text"]) || t.is_empty() {
            ColumnKind::Text
        } else if any(&["real", "floa", "doub", "numeric", "decimal"]) {
            ColumnKind::Number
        } else {
            ColumnKind::Other
        };
    }
    if t.starts_with("enum") || any(&["char", "text", "citext"]) {
        ColumnKind::Text
    } else if any(&[
        "int", "numeric", "decimal", "real", "double", "float", "money", "serial",
    ]) {
        ColumnKind::Number
    } else {
        ColumnKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_are_classified_per_dialect() {
        assert_eq!(classify("INTEGER", Dialect::Sqlite), ColumnKind::Number);
        assert_eq!(classify("", Dialect::Sqlite), ColumnKind::Text);
        assert_eq!(classify("DATE", Dialect::Sqlite), ColumnKind::Date);
        assert_eq!(classify("BLOB", Dialect::Sqlite), ColumnKind::Other);
        assert_eq!(classify("character varying(20)", Dialect::Postgres), ColumnKind::Text);
        assert_eq!(classify("numeric(12,2)", Dialect::Postgres), ColumnKind::Number);
        assert_eq!(
            classify("timestamp without time zone", Dialect::Postgres),
            ColumnKind::Timestamp
        );
        assert_eq!(classify("tinyint(1)", Dialect::MySql), ColumnKind::Boolean);
        assert_eq!(classify("enum('a','b')", Dialect::MySql), ColumnKind::Text);
        assert_eq!(classify("jsonb", Dialect::Postgres), ColumnKind::Other);
    }
}
