//! A fact table whose only time is a timestamp with times of day (a `DATETIME` / `TIMESTAMP`; in SQLite, ISO text
//! after a day) is drafted by `wenshu init` with that column as its time, read as its day (`"type":
//! "timestamp"`): questions by month over a period are answered, and a record late on the last day of the period
//! is within it — checked against SQL by hand on SQLite, and on PostgreSQL and MariaDB when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use wenshu_contract::{Catalog, bind};
use wenshu_engine::db::{Database, Dialect, QueryLimits, ensure_database};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues, build_query};
use wenshu_engine::resolve::EntityCatalogs;

/// Runs the binary; its exit status, stdout and stderr.
fn wenshu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(args)
        .output()
        .expect("run wenshu");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Rows of `(key, number)` as a map; a single-column answer under the key "".
fn as_map(rows: &[Vec<Value>]) -> BTreeMap<String, f64> {
    rows.iter()
        .map(|r| match r.as_slice() {
            [only] => (String::new(), number(only)),
            [k, .., v] => (k.as_str().map_or_else(|| k.to_string(), str::to_string), number(v)),
            [] => panic!("an empty row"),
        })
        .collect()
}

fn assert_close(asked: &str, got: &BTreeMap<String, f64>, want: &BTreeMap<String, f64>) {
    assert!(!want.is_empty(), "{asked}: the check SQL found nothing");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{asked}: got {got:?}, want {want:?}"
    );
    for (k, w) in want {
        assert!((got[k] - w).abs() < 0.01, "{asked} [{k}]: got {}, want {w}", got[k]);
    }
}

/// Drafts `url` (a table of sessions timed to the second) into `dir` and asks by month and for one last day.
async fn times_of_day_are_read_as_days(url: &str, dialect: Dialect, dir: &Path) {
    let stamp = if dialect == Dialect::Postgres {
        "TIMESTAMP"
    } else {
        "DATETIME"
    };
    let text = if dialect == Dialect::MySql {
        "VARCHAR(40)"
    } else {
        "TEXT"
    };
    let mut script = format!(
        "DROP TABLE IF EXISTS sessions; CREATE TABLE sessions (id INT PRIMARY KEY, started_at {stamp}, \
         channel {text}, spend DECIMAL(10,2));"
    );
    for i in 0..150u32 {
        let month = i % 12 + 1;
        // Late in the day on the 28th (the 31st in May), and mid-morning on the other days.
        let (day, time) = match (i % 10, month) {
            (0, 5) => (31, "23:59:30"),
            (0, _) => (28, "23:59:30"),
            _ => (i % 28 + 1, "10:15:00"),
        };
        script.push_str(&format!(
            "INSERT INTO sessions VALUES ({}, '2025-{month:02}-{day:02} {time}', '{}', {}.25);",
            i + 1,
            ["web", "app"][(i % 2) as usize],
            i % 40 + 1
        ));
    }
    let db = Database::connect(url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let (ok, stdout, stderr) = wenshu(&[
        "init",
        "--db",
        url,
        "--tables",
        "sessions",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("started_at is the time column (timestamp, 2025-01-"),
        "{stdout}"
    );
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(dir.join("catalog.json")).unwrap()).unwrap();
    let tool = catalog.get("sessions_metrics").expect("the sessions tool");
    let reader = Database::connect_read_only(url).await.unwrap();
    let values = MetricValues::load(&reader, &catalog, &EntityCatalogs::new())
        .await
        .unwrap();
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(reader.clone(), shared);
    let today = jiff::civil::date(2026, 6, 1);
    let (month, day) = match dialect {
        Dialect::Postgres => ("TO_CHAR(started_at, 'YYYY-MM')", "TO_CHAR(started_at, 'YYYY-MM-DD')"),
        Dialect::MySql => (
            "DATE_FORMAT(started_at, '%Y-%m')",
            "DATE_FORMAT(started_at, '%Y-%m-%d')",
        ),
        Dialect::Sqlite | Dialect::Custom(_) => ("SUBSTR(started_at, 1, 7)", "SUBSTR(started_at, 1, 10)"),
    };
    let cases = [
        (
            "spend by month from 2025-03-01 to 2025-05-31",
            format!(
                "SELECT {month}, SUM(spend) FROM sessions WHERE {day} BETWEEN '2025-03-01' AND '2025-05-31' \
                 GROUP BY {month}"
            ),
        ),
        (
            "spend from 2025-05-31 to 2025-05-31",
            format!("SELECT SUM(spend) FROM sessions WHERE {day} = '2025-05-31'"),
        ),
    ];
    for (question, sql) in &cases {
        let query = match build_query(tool, &values, question, today) {
            MetricBuild::Query { query } => query,
            MetricBuild::Unmet { reasons } => panic!("`{question}` is not answered: {reasons:?}"),
        };
        let call = bind(tool, &query_params(&query)).unwrap();
        let result = executor.execute(tool, &call, &ExecContext::new(today)).await.unwrap();
        let want = reader.query(sql, &[], QueryLimits::default()).await.unwrap();
        assert_close(question, &as_map(&result.rows), &as_map(&want.rows));
    }
    // The last day's records are late in the day: compared as stored, they would fall outside it.
    let late = reader
        .query(
            &format!("SELECT COUNT(*) FROM sessions WHERE {day} = '2025-05-31'"),
            &[],
            QueryLimits::default(),
        )
        .await
        .unwrap();
    assert!(number(&late.rows[0][0]) > 0.0, "the data has records on 2025-05-31");
    reader.close().await;
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wenshu-init-stamps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn sqlite_timestamps_with_times_of_day_are_read_as_days() {
    let dir = temp_dir("sqlite");
    let url = format!("sqlite:{}", dir.join("sessions.db").display());
    times_of_day_are_read_as_days(&url, Dialect::Sqlite, &dir.join("draft")).await;
    let _ = std::fs::remove_dir_all(&dir);
}

async fn server(var: &str) -> Option<String> {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return None;
    };
    Some(ensure_database(&admin_url, "wenshu_init27_times").await.unwrap())
}

#[tokio::test]
async fn postgres_timestamps_with_times_of_day_are_read_as_days() {
    let Some(url) = server("WENSHU_TEST_POSTGRES_URL").await else {
        return;
    };
    let dir = temp_dir("postgres");
    times_of_day_are_read_as_days(&url, Dialect::Postgres, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn mariadb_timestamps_with_times_of_day_are_read_as_days() {
    let Some(url) = server("WENSHU_TEST_MYSQL_URL").await else {
        return;
    };
    let dir = temp_dir("mysql");
    times_of_day_are_read_as_days(&url, Dialect::MySql, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}
