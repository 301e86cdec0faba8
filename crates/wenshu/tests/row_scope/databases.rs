//! The three databases of the matrix: a SQLite file, and this suite's own database on the PostgreSQL and MariaDB
//! servers named by `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` (skipped with a note when unset), each
//! holding the demo data made for the test's day; and the truth read from them with SQL written here.

use std::path::Path;

use jiff::civil::Date;
use serde_json::Value;
use wenshu_engine::db::{Database, QueryLimits, ensure_database};

/// The database these tests make on each server (their own, so no other suite's demo tables are replaced).
const DB_NAME: &str = "wenshu_scope18";

/// One database the matrix runs on.
pub struct Backend {
    /// A short name for the report (`sqlite`, `postgres`, `mariadb`).
    pub name: &'static str,
    /// Its URL.
    pub url: String,
}

/// The SQLite backend: a file in `dir` with the demo made for `today`.
pub async fn sqlite(dir: &Path, today: Date) -> Backend {
    let url = format!("sqlite://{}", dir.join("demo.sqlite").display());
    wenshu_demo::create_at(&url, today)
        .await
        .expect("the demo data on SQLite");
    Backend { name: "sqlite", url }
}

/// A server backend from `var` (`None`, with a printed note, when it is unset): this suite's own database made
/// when absent, the demo made afresh in it for `today`.
pub async fn server(var: &str, name: &'static str, today: Date) -> Option<Backend> {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped {name}: set {var} to run the row-scope matrix on it");
        return None;
    };
    let url = ensure_database(&admin_url, DB_NAME)
        .await
        .unwrap_or_else(|e| panic!("{name} at {var}: {e}"));
    wenshu_demo::create_at(&url, today)
        .await
        .unwrap_or_else(|e| panic!("the demo data on {name}: {e}"));
    Some(Backend { name, url })
}

/// The truth of a backend: SQL written here, run on a read-only connection of its own.
pub struct Truth {
    db: Database,
}

impl Truth {
    /// Connects read-only to `backend`.
    pub async fn connect(backend: &Backend) -> Self {
        Self {
            db: Database::connect_read_only(&backend.url).await.unwrap(),
        }
    }

    /// Every row of `sql` (no parameters).
    pub async fn rows(&self, sql: &str) -> Vec<Vec<Value>> {
        self.db
            .query(sql, &[], QueryLimits::default())
            .await
            .unwrap_or_else(|e| panic!("truth SQL {sql}: {e}"))
            .rows
    }

    /// The one number `sql` returns.
    pub async fn number(&self, sql: &str) -> f64 {
        let rows = self.rows(sql).await;
        rows.first()
            .and_then(|r| r.first())
            .and_then(number)
            .unwrap_or_else(|| panic!("truth SQL {sql} gave no number: {rows:?}"))
    }

    /// Closes the connection.
    pub async fn close(self) {
        self.db.close().await;
    }
}

/// A JSON value as a number: a number, or a string holding one (PostgreSQL's NUMERIC, MariaDB's DECIMAL).
pub fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether two sums agree to a cent.
pub fn same(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.005_f64.max(b.abs() * 1e-9)
}
