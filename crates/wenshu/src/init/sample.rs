//! Sampling the data, read-only: row counts, the distinct values of text columns (at most a cap) and the range of
//! day columns. In SQLite, a text column whose every value is an ISO day (`YYYY-MM-DD`) counts as a day column; a
//! `DATETIME`/`TIMESTAMP` column counts as one when every value is a day (no time of day), else it is marked
//! [`ColumnSample::timed`].

use std::collections::HashMap;

use anyhow::Context;
use serde_json::Value;
use wenshu_sql::db::{Database, Dialect, QueryLimits};

use wenshu_lexicon::column_words::name_words;

use super::schema::{ColumnKind, Table, text};

/// The most distinct values a text column may have to be drafted as a dimension with its values.
pub const VALUE_CAP: usize = 30;

/// What the data of one column shows.
#[derive(Debug, Clone, Default)]
pub struct ColumnSample {
    /// The distinct values, when there are at most [`VALUE_CAP`]; `None` when there are more.
    pub values: Option<Vec<String>>,
    /// The first and last day, for day columns.
    pub range: Option<(String, String)>,
    /// A timestamp column some of whose values have a time of day (not a day column).
    pub timed: bool,
    /// For timestamps with times of day (a `TIMESTAMP`, or in SQLite ISO text after a day): the first and last day.
    pub stamps: Option<(String, String)>,
    /// The least and greatest value of a discount column (whether it is a fraction or something else).
    pub bounds: Option<(f64, f64)>,
}

/// What the data of one table shows.
#[derive(Debug, Clone, Default)]
pub struct TableSample {
    /// The number of rows.
    pub rows: u64,
    /// Per column name.
    pub columns: HashMap<String, ColumnSample>,
    /// Per foreign-key column, the rows of the table inner-joined along it (equal to `rows` when the join keeps
    /// every row once); per `first>second`, the rows after a second hop from the joined table.
    pub joined: HashMap<String, u64>,
    /// Per foreign-key column, its distinct values (how many rows of the referenced table its rows reach).
    pub distinct: HashMap<String, u64>,
}

async fn rows(db: &Database, sql: &str) -> anyhow::Result<Vec<Vec<Value>>> {
    let limits = QueryLimits {
        row_cap: VALUE_CAP + 1,
        timeout: std::time::Duration::from_secs(60),
        ..QueryLimits::default()
    };
    Ok(db
        .query(sql, &[], limits)
        .await
        .with_context(|| format!("sampling with `{sql}`"))?
        .rows)
}

/// Samples `table`: its row count, its text columns' values and its day columns' ranges.
pub async fn sample_table(db: &Database, table: &Table) -> anyhow::Result<TableSample> {
    let dialect = db.dialect();
    let t = dialect.quote_identifier(&table.name);
    let count = rows(db, &format!("SELECT COUNT(*) FROM {t}")).await?;
    let rows_n = count
        .first()
        .and_then(|r| r.first())
        .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
        .unwrap_or(0);
    let mut sample = TableSample {
        rows: rows_n,
        columns: HashMap::new(),
        joined: HashMap::new(),
        distinct: HashMap::new(),
    };
    for column in &table.columns {
        let c = dialect.quote_identifier(&column.name);
        let mut found = ColumnSample::default();
        let day_text = |c: &str| dialect.rules().date_text(c);
        match column.kind {
            ColumnKind::Number if name_words(&column.name).iter().any(|w| w == "discount") => {
                let r = rows(db, &format!("SELECT MIN({c}), MAX({c}) FROM {t}")).await?;
                let number = |v: Option<&Value>| v.and_then(|v| v.as_f64().or_else(|| v.as_str()?.parse().ok()));
                found.bounds = r.first().and_then(|r| Some((number(r.first())?, number(r.get(1))?)));
            }
            ColumnKind::Text => {
                let values = rows(
                    db,
                    &format!("SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL ORDER BY {c}"),
                )
                .await?;
                let values: Vec<String> = values.iter().filter_map(|r| r.first().and_then(text)).collect();
                if values.len() <= VALUE_CAP {
                    found.values = Some(values);
                }
                if dialect == Dialect::Sqlite {
                    found.range = iso_day_range(db, &t, &c).await?;
                    if found.range.is_none() {
                        found.stamps = iso_stamp_range(db, &t, &c).await?;
                    }
                }
            }
            ColumnKind::Date => {
                let sql = format!("SELECT MIN({d}), MAX({d}) FROM {t}", d = day_text(&c));
                let r = rows(db, &sql).await?;
                found.range = r.first().and_then(|r| Some((text(r.first()?)?, text(r.get(1)?)?)));
                if dialect == Dialect::Sqlite && found.range.as_ref().is_none_or(|(a, b)| !is_day(a) || !is_day(b)) {
                    found.range = iso_day_range(db, &t, &c).await?;
                }
            }
            ColumnKind::Timestamp if dialect == Dialect::Sqlite => {
                found.range = iso_day_range(db, &t, &c).await?;
                found.timed = found.range.is_none();
                if found.timed {
                    found.stamps = iso_stamp_range(db, &t, &c).await?;
                }
            }
            ColumnKind::Timestamp => {
                // A day is a timestamp equal to its own date; a range compared as days holds only those.
                let sql = format!(
                    "SELECT MIN({d}), MAX({d}), SUM(CASE WHEN {c} <> CAST({c} AS DATE) THEN 1 ELSE 0 END) \
                     FROM {t} WHERE {c} IS NOT NULL",
                    d = day_text(&c)
                );
                let r = rows(db, &sql).await?;
                let row = r.first();
                let timed = row
                    .and_then(|r| r.get(2))
                    .and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
                    .unwrap_or(0);
                let days = row
                    .and_then(|r| Some((text(r.first()?)?, text(r.get(1)?)?)))
                    .filter(|(a, b)| is_day(a) && is_day(b));
                found.timed = timed > 0;
                if found.timed {
                    found.stamps = days;
                } else {
                    found.range = days;
                }
            }
            _ => continue,
        }
        sample.columns.insert(column.name.clone(), found);
    }
    Ok(sample)
}

/// Counts, for each single-column foreign key of `table` to a table of `tables`, the rows its inner join makes:
/// fewer than the table's rows when the key is empty or dangling, more when the referenced column repeats.
pub async fn count_joins(
    db: &Database,
    table: &Table,
    tables: &[Table],
    sample: &mut TableSample,
) -> anyhow::Result<()> {
    let dialect = db.dialect();
    let q = |name: &str| dialect.quote_identifier(name);
    for key in &table.foreign_keys {
        if !tables.iter().any(|t| t.name == key.table) || key.target.is_empty() {
            continue;
        }
        let sql = format!(
            "SELECT COUNT(*) FROM {t} f JOIN {r} j ON f.{c} = j.{k}",
            t = q(&table.name),
            r = q(&key.table),
            c = q(&key.column),
            k = q(&key.target)
        );
        let r = rows(db, &sql).await?;
        let n = r
            .first()
            .and_then(|r| r.first())
            .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())));
        if let Some(n) = n {
            sample.joined.insert(key.column.clone(), n);
        }
        let sql = format!(
            "SELECT COUNT(DISTINCT {c}) FROM {t}",
            t = q(&table.name),
            c = q(&key.column)
        );
        if let Some(n) = first_count(&rows(db, &sql).await?) {
            sample.distinct.insert(key.column.clone(), n);
        }
        // A second hop from the joined table, keyed `first>second`.
        let Some(joined) = tables.iter().find(|t| t.name == key.table) else {
            continue;
        };
        for next in &joined.foreign_keys {
            if next.table == table.name || next.table == joined.name || next.target.is_empty() {
                continue;
            }
            if !tables.iter().any(|t| t.name == next.table) {
                continue;
            }
            let sql = format!(
                "SELECT COUNT(*) FROM {t} f JOIN {r} j ON f.{c} = j.{k} JOIN {s} s ON j.{c2} = s.{k2}",
                t = q(&table.name),
                r = q(&key.table),
                c = q(&key.column),
                k = q(&key.target),
                s = q(&next.table),
                c2 = q(&next.column),
                k2 = q(&next.target)
            );
            let r = rows(db, &sql).await?;
            if let Some(n) = r
                .first()
                .and_then(|r| r.first())
                .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
            {
                sample.joined.insert(format!("{}>{}", key.column, next.column), n);
            }
        }
    }
    Ok(())
}

/// The count in the first cell of a `SELECT COUNT(…)`.
fn first_count(rows: &[Vec<Value>]) -> Option<u64> {
    rows.first()
        .and_then(|r| r.first())
        .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
}

/// The range of a SQLite text column when every value is an ISO day.
async fn iso_day_range(db: &Database, t: &str, c: &str) -> anyhow::Result<Option<(String, String)>> {
    let sql = format!(
        "SELECT MIN({c}), MAX({c}), SUM(CASE WHEN {c} GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]' \
         THEN 0 ELSE 1 END) FROM {t} WHERE {c} IS NOT NULL"
    );
    let r = rows(db, &sql).await?;
    let Some(row) = r.first() else { return Ok(None) };
    let bad = row.get(2).and_then(Value::as_i64).unwrap_or(1);
    match (row.first().and_then(text), row.get(1).and_then(text)) {
        (Some(a), Some(b)) if bad == 0 && is_day(&a) && is_day(&b) => Ok(Some((a, b))),
        _ => Ok(None),
    }
}

/// The first and last day of a SQLite text column when every value is an ISO timestamp (`YYYY-MM-DD` and a time).
async fn iso_stamp_range(db: &Database, t: &str, c: &str) -> anyhow::Result<Option<(String, String)>> {
    let sql = format!(
        "SELECT MIN(SUBSTR({c}, 1, 10)), MAX(SUBSTR({c}, 1, 10)), SUM(CASE WHEN {c} GLOB \
         '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9][ T][0-2][0-9]:[0-5][0-9]*' THEN 0 ELSE 1 END) FROM {t} \
         WHERE {c} IS NOT NULL"
    );
    let r = rows(db, &sql).await?;
    let Some(row) = r.first() else { return Ok(None) };
    let bad = row.get(2).and_then(Value::as_i64).unwrap_or(1);
    match (row.first().and_then(text), row.get(1).and_then(text)) {
        (Some(a), Some(b)) if bad == 0 && is_day(&a) && is_day(&b) => Ok(Some((a, b))),
        _ => Ok(None),
    }
}

/// Whether `s` is an ISO day (`YYYY-MM-DD`).
pub fn is_day(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}
