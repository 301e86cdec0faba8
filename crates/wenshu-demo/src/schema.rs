//! The demo tables: portable DDL (with a MySQL charset) and batched multi-row INSERTs with bound values.

use serde_json::Value;

use wenshu_sql::db::{Dialect, WriteStatement};

/// The demo tables, in the order they are created (dropped in reverse).
pub const TABLES: [&str; 5] = ["movies", "box_office", "ratings", "sales_people", "sales"];

/// Rows per INSERT statement.
const BATCH_ROWS: usize = 200;

/// `CREATE TABLE` statements for the demo, portable across SQLite, PostgreSQL and MySQL/MariaDB.
fn create_tables(dialect: Dialect) -> Vec<String> {
    let suffix = if dialect == Dialect::MySql {
        " DEFAULT CHARSET=utf8mb4"
    } else {
        ""
    };
    [
        "CREATE TABLE movies (id INTEGER PRIMARY KEY, name VARCHAR(64) NOT NULL, year INTEGER NOT NULL, \
         genre VARCHAR(32) NOT NULL)",
        "CREATE TABLE box_office (movie_id INTEGER NOT NULL, day VARCHAR(10) NOT NULL, \
         revenue DOUBLE PRECISION NOT NULL, PRIMARY KEY (movie_id, day))",
        "CREATE TABLE ratings (movie_id INTEGER PRIMARY KEY, score DOUBLE PRECISION NOT NULL, votes INTEGER NOT NULL)",
        "CREATE TABLE sales_people (id INTEGER PRIMARY KEY, name VARCHAR(32) NOT NULL)",
        "CREATE TABLE sales (id INTEGER PRIMARY KEY, day VARCHAR(10) NOT NULL, region VARCHAR(16) NOT NULL, \
         product VARCHAR(16) NOT NULL, sales_person VARCHAR(32) NOT NULL, amount INTEGER NOT NULL, \
         quantity INTEGER NOT NULL)",
    ]
    .iter()
    .map(|ddl| format!("{ddl}{suffix}"))
    .chain(["CREATE INDEX sales_day_idx ON sales (day)".to_string()])
    .collect()
}

/// Statements that drop the demo tables when present, then create them empty.
pub fn recreate(dialect: Dialect) -> Vec<WriteStatement> {
    TABLES
        .iter()
        .rev()
        .map(|table| format!("DROP TABLE IF EXISTS {table}"))
        .chain(create_tables(dialect))
        .map(|sql| WriteStatement { sql, binds: Vec::new() })
        .collect()
}

/// Multi-row INSERTs of `rows` into `table(columns)`, values bound, [`BATCH_ROWS`] rows per statement.
pub fn inserts(dialect: Dialect, table: &str, columns: &[&str], rows: &[Vec<Value>]) -> Vec<WriteStatement> {
    rows.chunks(BATCH_ROWS)
        .map(|chunk| {
            let mut index = 0;
            let tuples: Vec<String> = chunk
                .iter()
                .map(|row| {
                    let marks: Vec<String> = row
                        .iter()
                        .map(|_| {
                            let mark = dialect.placeholder(index);
                            index += 1;
                            mark
                        })
                        .collect();
                    format!("({})", marks.join(", "))
                })
                .collect();
            WriteStatement {
                sql: format!(
                    "INSERT INTO {table} ({}) VALUES {}",
                    columns.join(", "),
                    tuples.join(", ")
                ),
                binds: chunk.iter().flatten().cloned().collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inserts_number_placeholders_per_statement() {
        let rows = vec![vec![json!(1), json!("a")], vec![json!(2), json!("b")]];
        let pg = inserts(Dialect::Postgres, "t", &["id", "name"], &rows);
        assert_eq!(pg.len(), 1);
        assert_eq!(pg[0].sql, "INSERT INTO t (id, name) VALUES ($1, $2), ($3, $4)");
        assert_eq!(pg[0].binds, vec![json!(1), json!("a"), json!(2), json!("b")]);
        let lite = inserts(Dialect::Sqlite, "t", &["id", "name"], &rows);
        assert_eq!(lite[0].sql, "INSERT INTO t (id, name) VALUES (?, ?), (?, ?)");
    }

    #[test]
    fn mysql_tables_are_utf8mb4() {
        let statements = recreate(Dialect::MySql);
        assert!(statements[0].sql.starts_with("DROP TABLE IF EXISTS sales"));
        assert!(
            statements
                .iter()
                .filter(|s| s.sql.starts_with("CREATE TABLE"))
                .all(|s| s.sql.ends_with("utf8mb4"))
        );
    }
}
