//! `wenshu init --file data.csv`: CSV files and `.xlsx` workbooks ([`super::xlsx`], every sheet) loaded into an
//! embedded SQLite database beside the draft, one table per file or sheet, so the draft is made from it as from
//! any database. Each column's type is inferred from every value
//! (integers, decimals, days — `2025-03-04`, `2025/3/4`, or a timestamp at midnight —, timestamps, else text); a
//! header that is not an ASCII identifier is written as one (`Order Date` → `Order_Date`, `订单金额` → `c3`) and
//! kept as the column's comment, which labels it.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, bail};
use wenshu_sql::db::Database;

use super::naming::is_identifier;

/// What loading the files made: the database's URL, each table's and column's original names, what was done.
pub struct Loaded {
    /// `sqlite:PATH` of the database written.
    pub url: String,
    /// Per table, the names other than ASCII of the file and its headers.
    pub comments: HashMap<String, TableComments>,
    /// One line per table: its name, rows and column types.
    pub decisions: Vec<String>,
}

/// The original names of one loaded table.
#[derive(Default)]
pub struct TableComments {
    /// The file's name when it is not ASCII.
    pub table: Option<String>,
    /// Column → its header, when that is not ASCII.
    pub columns: HashMap<String, String>,
}

/// What a column holds, inferred from every value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inferred {
    Integer,
    Real,
    Day,
    Timestamp,
    Text,
}

impl Inferred {
    fn declared(self) -> &'static str {
        match self {
            Inferred::Integer => "INTEGER",
            Inferred::Real => "REAL",
            Inferred::Day => "DATE",
            Inferred::Timestamp => "DATETIME",
            Inferred::Text => "TEXT",
        }
    }
}

/// Loads `files` into a new SQLite database at `db_path` (replaced when it exists).
pub async fn load(files: &[std::path::PathBuf], db_path: &Path) -> anyhow::Result<Loaded> {
    if db_path.exists() {
        std::fs::remove_file(db_path).with_context(|| format!("cannot replace {}", db_path.display()))?;
    }
    let url = format!("sqlite:{}", std::path::absolute(db_path)?.display());
    let db = Database::connect(&url)
        .await
        .with_context(|| format!("cannot create {}", db_path.display()))?;
    let mut loaded = Loaded {
        url: url.clone(),
        comments: HashMap::new(),
        decisions: Vec::new(),
    };
    let mut taken: Vec<String> = Vec::new();
    let mut sources: Vec<(String, String, Vec<Vec<String>>)> = Vec::new();
    for file in files {
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("data").to_string();
        let xlsx = file
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("xlsx"));
        if xlsx {
            let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
            let sheets = super::xlsx::sheets(&bytes).with_context(|| format!("reading {}", file.display()))?;
            for sheet in sheets.into_iter().filter(|s| !s.rows.is_empty()) {
                sources.push((format!("{} [{}]", file.display(), sheet.name), sheet.name, sheet.rows));
            }
        } else {
            let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
            sources.push((
                file.display().to_string(),
                stem,
                parse_csv(text.trim_start_matches('\u{feff}')),
            ));
        }
    }
    if sources.is_empty() {
        db.close().await;
        bail!("no sheet with rows to load");
    }
    for (shown, stem, records) in sources {
        let stem = stem.as_str();
        let table = unique(identifier(stem, "data"), &mut taken);
        let result = load_table(&db, &table, &records).await;
        let (rows, header, columns) = match result {
            Ok(done) => done,
            Err(e) => {
                db.close().await;
                return Err(e.context(format!("loading {shown}")));
            }
        };
        // Names other than ASCII (a Chinese header) are kept as comments, which label them; an ASCII one labels
        // itself through its words.
        let mut comments = TableComments {
            table: (!stem.is_ascii()).then(|| stem.to_string()),
            columns: HashMap::new(),
        };
        for ((name, _), original) in columns.iter().zip(&header) {
            if !original.is_ascii() {
                comments.columns.insert(name.clone(), original.clone());
            }
        }
        loaded.decisions.push(format!(
            "{shown}: loaded into table `{table}` — {rows} rows; {}",
            columns
                .iter()
                .map(|(name, ty)| format!("{name} {}", ty.declared()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        loaded.comments.insert(table, comments);
    }
    db.close().await;
    Ok(loaded)
}

/// Creates and fills one table from records, the first the header: its row count, the headers, the columns with
/// their types.
async fn load_table(
    db: &Database,
    table: &str,
    records: &[Vec<String>],
) -> anyhow::Result<(usize, Vec<String>, Vec<(String, Inferred)>)> {
    let Some((header, rows)) = records.split_first() else {
        bail!("the file is empty: a header line and rows are needed");
    };
    if header.iter().all(|h| h.trim().is_empty()) {
        bail!("the first line is no header");
    }
    let mut taken = Vec::new();
    let names: Vec<String> = header
        .iter()
        .enumerate()
        .map(|(i, h)| unique(identifier(h.trim(), &format!("c{}", i + 1)), &mut taken))
        .collect();
    let width = names.len();
    if let Some((n, row)) = rows.iter().enumerate().find(|(_, r)| r.len() > width) {
        bail!(
            "line {} has {} values, more than the header's {width}",
            n + 2,
            row.len()
        );
    }
    let types: Vec<Inferred> = (0..width)
        .map(|c| infer(rows.iter().filter_map(|r| r.get(c)).map(|v| v.trim())))
        .collect();
    let q = |name: &str| format!("\"{}\"", name.replace('"', "\"\""));
    let mut sql = format!(
        "CREATE TABLE {} ({});\nBEGIN;\n",
        q(table),
        names
            .iter()
            .zip(&types)
            .map(|(n, t)| format!("{} {}", q(n), t.declared()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for row in rows {
        let values: Vec<String> = (0..width)
            .map(|c| literal(row.get(c).map_or("", |v| v.trim()), types[c]))
            .collect();
        sql.push_str(&format!("INSERT INTO {} VALUES ({});\n", q(table), values.join(", ")));
    }
    sql.push_str("COMMIT;");
    db.execute_batch(&sql).await.context("writing the rows")?;
    let header = header.iter().map(|h| h.trim().to_string()).collect();
    Ok((rows.len(), header, names.into_iter().zip(types).collect()))
}

/// A value as a SQL literal of its column's type (empty → NULL; days as ISO text).
fn literal(value: &str, ty: Inferred) -> String {
    if value.is_empty() {
        return "NULL".into();
    }
    match ty {
        Inferred::Integer | Inferred::Real => value.to_string(),
        Inferred::Day => quoted(&day(value).unwrap_or_default()),
        Inferred::Timestamp | Inferred::Text => quoted(value),
    }
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The type every non-empty value fits; text when a column has no value.
fn infer<'a>(values: impl Iterator<Item = &'a str> + Clone) -> Inferred {
    let present = values.filter(|v| !v.is_empty());
    if present.clone().next().is_none() {
        return Inferred::Text;
    }
    if present.clone().all(is_integer) {
        Inferred::Integer
    } else if present.clone().all(|v| is_integer(v) || is_decimal(v)) {
        Inferred::Real
    } else if present.clone().all(|v| day(v).is_some()) {
        Inferred::Day
    } else if present.clone().all(|v| timestamp(v).is_some()) {
        Inferred::Timestamp
    } else {
        Inferred::Text
    }
}

/// An integer as SQL writes it; a leading zero (`007`, a code) is text.
fn is_integer(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v);
    !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(digits.len() > 1 && digits.starts_with('0'))
}

/// A decimal number as SQL writes it (`12.5`, `-0.25`).
fn is_decimal(v: &str) -> bool {
    let body = v.strip_prefix('-').unwrap_or(v);
    let Some((whole, fraction)) = body.split_once('.') else {
        return false;
    };
    !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && (whole == "0" || is_integer(whole) || whole.is_empty())
}

/// A day written `YYYY-MM-DD`, `YYYY/M/D` or as a timestamp at midnight, as ISO text.
fn day(v: &str) -> Option<String> {
    let (date, time) = match v.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (v, None),
    };
    if time.is_some_and(|t| {
        !t.trim_end_matches('Z')
            .split(':')
            .all(|p| p.chars().all(|c| c == '0' || c == '.'))
    }) {
        return None;
    }
    let parts: Vec<&str> = date.split(['-', '/']).collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    let number = |s: &str, len: std::ops::RangeInclusive<usize>| {
        (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i16>().ok())
            .flatten()
    };
    let (y, m, d) = (number(y, 4..=4)?, number(m, 1..=2)?, number(d, 1..=2)?);
    jiff::civil::Date::new(y, m as i8, d as i8)
        .ok()
        .map(|day| day.to_string())
}

/// A timestamp `YYYY-MM-DD HH:MM[:SS]` (or with `T`).
fn timestamp(v: &str) -> Option<()> {
    let (date, time) = v.split_once([' ', 'T'])?;
    day(date)?;
    let parts: Vec<&str> = time.trim_end_matches('Z').split(':').collect();
    (parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == '.')))
    .then_some(())
}

/// A header or file name as an identifier: ASCII letters, digits and `_` kept, other ASCII characters `_`;
/// `fallback` when it has other characters (Chinese) or nothing is left.
fn identifier(text: &str, fallback: &str) -> String {
    if !text.is_ascii() {
        return fallback.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    if out.is_empty() {
        fallback.to_string()
    } else if is_identifier(&out) {
        out
    } else {
        format!("c_{out}")
    }
}

/// `name`, or `name_2`, `name_3`… when taken (case-insensitively, as SQLite compares names).
fn unique(name: String, taken: &mut Vec<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while taken.iter().any(|t| t.eq_ignore_ascii_case(&candidate)) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    taken.push(candidate.clone());
    candidate
}

/// The records of CSV text (RFC 4180: quoted fields with `""`, line breaks inside quotes, CRLF); the separator is
/// the header's most frequent of `,`, `;` and tab. Blank lines are skipped.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let first = text.lines().next().unwrap_or_default();
    let separator = [',', ';', '\t']
        .into_iter()
        .max_by_key(|s| first.matches(*s).count())
        .unwrap_or(',');
    let mut records = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' && field.trim().is_empty() {
            field.clear();
            quoted = true;
        } else if c == separator {
            record.push(std::mem::take(&mut field));
        } else if c == '\n' || c == '\r' {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            record.push(std::mem::take(&mut field));
            if !(record.len() == 1 && record[0].trim().is_empty()) {
                records.push(std::mem::take(&mut record));
            }
            record.clear();
        } else {
            field.push(c);
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        if !(record.len() == 1 && record[0].trim().is_empty()) {
            records.push(record);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_with_quotes_and_separators() {
        let r = parse_csv("a,b,c\r\n1,\"x, \"\"y\"\"\",3\n\n4,\"two\nlines\",\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1], vec!["1", "x, \"y\"", "3"]);
        assert_eq!(r[2], vec!["4", "two\nlines", ""]);
        assert_eq!(parse_csv("a;b\n1;2")[1], vec!["1", "2"]);
    }

    #[test]
    fn types_are_inferred_from_every_value() {
        assert_eq!(infer(["1", "-20", ""].into_iter()), Inferred::Integer);
        assert_eq!(infer(["1", "2.50"].into_iter()), Inferred::Real);
        assert_eq!(infer(["007", "12"].into_iter()), Inferred::Text);
        assert_eq!(infer(["2025-03-04", "2025/3/5"].into_iter()), Inferred::Day);
        assert_eq!(infer(["2025-03-04 00:00:00"].into_iter()), Inferred::Day);
        assert_eq!(infer(["2025-03-04 10:30:00"].into_iter()), Inferred::Timestamp);
        assert_eq!(infer(["2025-02-30"].into_iter()), Inferred::Text);
        assert_eq!(day("2025/3/5").as_deref(), Some("2025-03-05"));
    }

    #[test]
    fn headers_become_identifiers() {
        assert_eq!(identifier("Order Date", "c1"), "Order_Date");
        assert_eq!(identifier("订单金额", "c3"), "c3");
        assert_eq!(identifier("2024 sales", "c1"), "c_2024_sales");
        let mut taken = Vec::new();
        assert_eq!(unique("a".into(), &mut taken), "a");
        assert_eq!(unique("A".into(), &mut taken), "A_2");
    }
}
