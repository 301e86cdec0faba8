//! Bounded results (issue #24): a result over the cap per value or per result is refused as too large while its
//! rows stream in — the statement cancelled, never an abort — on SQLite (in-process) and on PostgreSQL and
//! MariaDB/MySQL when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` name a server. The process's peak memory
//! (VmHWM) grows by less than three times the cap per result under each hostile statement, plus, on MariaDB/MySQL,
//! the server's `max_allowed_packet` (the protocol sends a row as one packet, read whole before its values can be
//! counted; the server never sends a longer one); the growth is printed.
//! The statements go to the database layer directly: the guard may refuse some of them before they run.

use std::time::Duration;

use wenshu_sql::db::{ByteCap, ByteCaps, Database, DbError, QueryLimits};

/// The caps of these tests: the defaults.
const CAPS: ByteCaps = ByteCaps {
    cell: ByteCaps::DEFAULT_CELL,
    result: ByteCaps::DEFAULT_RESULT,
};

fn limits() -> QueryLimits {
    QueryLimits {
        row_cap: 1000,
        timeout: Duration::from_secs(30),
        bytes: CAPS,
    }
}

/// The process's peak resident memory so far, in bytes (`VmHWM` of /proc/self/status); `None` where there is none.
fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What a hostile statement must end with.
#[derive(Debug, Clone, Copy)]
enum Ends {
    /// Refused as too large over this cap.
    TooLarge(ByteCap),
    /// A NULL: SQLite's `printf` answers NULL for a string longer than `SQLITE_LIMIT_LENGTH` (it never builds it).
    Null,
}

/// Runs `sql` on `db`: it must end as `ends` says, and the peak memory must grow by less than three times the cap
/// per result, plus `packet` (the longest row the server sends at once). Returns the growth in bytes.
async fn bounded_by(db: &Database, label: &str, sql: &str, ends: Ends, packet: usize) -> usize {
    let before = peak_rss();
    let result = db.query(sql, &[], limits()).await;
    let after = peak_rss();
    match (&result, ends) {
        (Err(error @ DbError::TooLarge { cap: got, limit }), Ends::TooLarge(cap)) => {
            let want = match cap {
                ByteCap::Cell => CAPS.cell,
                ByteCap::Result => CAPS.result,
            };
            assert_eq!((*got, *limit), (cap, want), "{label}: {error}");
            let text = error.to_string();
            assert!(
                text.contains("too large") && text.contains(cap.key()),
                "{label}: {text}"
            );
        }
        (Ok(rows), Ends::Null) => assert_eq!(rows.rows, vec![vec![serde_json::Value::Null]], "{label}"),
        (other, _) => panic!("{label}: {sql} must end {ends:?}, got {other:?}"),
    }
    let growth = match (before, after) {
        (Some(before), Some(after)) => after.saturating_sub(before),
        _ => 0,
    };
    println!(
        "{label}: {ends:?}; peak memory {} MiB, grew {:.1} MiB",
        after.unwrap_or(0) / (1024 * 1024),
        growth as f64 / (1024.0 * 1024.0)
    );
    assert!(
        growth < 3 * CAPS.result + packet,
        "{label}: peak memory grew {growth} bytes, over three times the cap per result plus {packet}"
    );
    // The pool still answers.
    let after = db
        .query("SELECT 1", &[], limits())
        .await
        .expect("the pool answers after");
    assert_eq!(after.rows.len(), 1, "{label}");
    growth
}

/// [`bounded_by`] for a database that streams values (SQLite, PostgreSQL).
async fn bounded(db: &Database, label: &str, sql: &str, ends: Ends) -> usize {
    bounded_by(db, label, sql, ends, 0).await
}

async fn sqlite() -> Database {
    Database::connect_read_only("sqlite::memory:").await.unwrap()
}

async fn server(var: &str) -> Option<Database> {
    let Ok(url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return None;
    };
    Some(Database::connect_read_only(&url).await.unwrap())
}

/// Every hostile statement of the issue, one after the other (the peak memory is the process's: nothing else of
/// this file runs beside them).
#[tokio::test]
async fn oversized_results_are_refused_with_bounded_memory() {
    let db = sqlite().await;
    bounded(
        &db,
        "sqlite printf",
        "SELECT printf('%.*c', 999999999, 'x')",
        Ends::Null,
    )
    .await;
    let too_big = Ends::TooLarge(ByteCap::Cell);
    bounded(&db, "sqlite zeroblob", "SELECT zeroblob(999999999)", too_big).await;
    let built = "SELECT replace(printf('%.*c', 1000, 'x'), 'x', printf('%.*c', 1000000, 'y'))";
    bounded(&db, "sqlite replace", built, too_big).await;
    bounded(
        &db,
        "sqlite many rows",
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) \
         SELECT printf('%.*c', 100000, 'x') FROM n",
        Ends::TooLarge(ByteCap::Result),
    )
    .await;
    if let Some(db) = server("WENSHU_TEST_POSTGRES_URL").await {
        bounded(
            &db,
            "postgres lpad",
            "SELECT lpad('x', 10000000, 'x') FROM generate_series(1, 20)",
            too_big,
        )
        .await;
        bounded(
            &db,
            "postgres many rows",
            "SELECT lpad('x', 500000, 'x') FROM generate_series(1, 1000)",
            Ends::TooLarge(ByteCap::Result),
        )
        .await;
    }
    if let Some(db) = server("WENSHU_TEST_MYSQL_URL").await {
        let packet = db
            .query("SELECT @@max_allowed_packet AS packet", &[], limits())
            .await
            .unwrap();
        let packet = packet.rows[0][0].as_u64().unwrap() as usize;
        bounded_by(
            &db,
            "mariadb repeat",
            "SELECT repeat('x', 4000000) AS a, repeat('x', 4000000) AS b, repeat('x', 4000000) AS c, \
             repeat('x', 4000000) AS d",
            too_big,
            packet,
        )
        .await;
        bounded_by(
            &db,
            "mariadb many rows",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) \
             SELECT repeat('x', 500000) FROM n",
            Ends::TooLarge(ByteCap::Result),
            packet,
        )
        .await;
    }
}

/// The caps are the query's own: small caps refuse a small result, and a result under them comes back whole.
#[tokio::test]
async fn the_caps_are_configurable() {
    let db = sqlite().await;
    let small = QueryLimits {
        bytes: ByteCaps {
            cell: 100,
            result: 1000,
        },
        ..QueryLimits::default()
    };
    let cell = db.query("SELECT printf('%.*c', 101, 'x')", &[], small).await;
    assert_eq!(
        cell,
        Err(DbError::TooLarge {
            cap: ByteCap::Cell,
            limit: 100
        })
    );
    let rows = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) \
                SELECT printf('%.*c', 90, 'x') FROM n";
    let result = db.query(rows, &[], small).await;
    assert_eq!(
        result,
        Err(DbError::TooLarge {
            cap: ByteCap::Result,
            limit: 1000
        })
    );
    let fits = db.query(&rows.replace("i < 20", "i < 5"), &[], small).await.unwrap();
    assert_eq!(fits.rows.len(), 5);
    // The SQLite length limit is the query's: a later query with the default caps builds a longer string.
    let longer = db
        .query("SELECT length(printf('%.*c', 5000, 'x'))", &[], QueryLimits::default())
        .await
        .unwrap();
    assert_eq!(longer.rows[0][0], serde_json::json!(5000));
}
