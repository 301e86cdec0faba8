//! The demo as truth: the demo data on an SQLite file of the test's own (where truth queries run), and the same
//! data on a PostgreSQL or MariaDB server named by an environment variable (where the engine's queries run).

use std::path::PathBuf;

use wenshu_engine::db::Database;

/// The day the demo is made for.
const TODAY: &str = "2026-11-29";

/// The demo on a fresh SQLite file under a folder named for `test` and `name`, opened read-only, and the folder.
pub async fn demo_sqlite(test: &str, name: &str) -> (Database, PathBuf) {
    let dir = std::env::temp_dir().join(format!("wenshu-{test}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("demo.sqlite").display());
    wenshu_demo::create_at(&url, TODAY.parse().unwrap())
        .await
        .expect("demo data");
    (Database::connect_read_only(&url).await.unwrap(), dir)
}

/// The demo on the server `env` names, opened read-only, with the SQLite truth beside it and its folder; `None`
/// (the suite skipped, said on stderr) when `env` is not set.
pub async fn demo_on_server(test: &str, env: &str) -> Option<(Database, Database, PathBuf)> {
    let Ok(url) = std::env::var(env) else {
        eprintln!("{env} not set: skipped");
        return None;
    };
    let (truth, dir) = demo_sqlite(test, env).await;
    let writable = Database::connect(&url).await.expect("server database");
    wenshu_demo::create(&writable, TODAY.parse().unwrap())
        .await
        .expect("demo data on the server");
    writable.close().await;
    Some((Database::connect_read_only(&url).await.unwrap(), truth, dir))
}

/// A number as a server returns it (PostgreSQL's NUMERIC comes back as text).
pub fn number(v: &serde_json::Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// Whether two cells hold the same value: numbers within half a percent, text equal.
pub fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= 0.005 * y.abs().max(1.0),
        _ => a == b || a.as_str().zip(b.as_str()).is_some_and(|(x, y)| x == y),
    }
}

/// Asks each question of the demo catalog with the lexicon's metric build on `db` and checks its rows against its
/// truth SQL run on `truth_db`: as many rows, in the truth's order, each holding the truth's cells.
#[allow(dead_code, reason = "used by some of the suites that include this module")]
pub async fn answers_equal_truth(db: Database, truth_db: &Database, cases: &[(&str, &str)]) {
    use std::sync::Arc;
    use wenshu_engine::execute::{ExecContext, Executor};
    use wenshu_engine::metric::build::choose;
    use wenshu_engine::metric::execute::query_params;
    use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues};

    let today: jiff::civil::Date = TODAY.parse().unwrap();
    let catalog = wenshu_contract::demo_catalog().unwrap();
    let entities = wenshu_engine::resolve::EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap();
    let values = MetricValues::load(&db, &catalog, &entities).await.expect("values");
    let shared = SharedValues::new();
    shared.set(values);
    let executor = Arc::new(MetricExecutor::new(db, shared.clone()));
    for (question, truth_sql) in cases {
        let truth = truth_db
            .query(truth_sql, &[], wenshu_engine::db::QueryLimits::default())
            .await
            .expect("truth")
            .rows;
        let Some((tool, MetricBuild::Query { query })) = choose(&catalog, &shared.get(), question, today) else {
            panic!("{question}: not answered");
        };
        let call = wenshu_contract::bind(tool, &query_params(&query)).expect("binds");
        let result = executor
            .execute(tool, &call, &ExecContext::new(today))
            .await
            .expect("runs");
        let rows = result.rows;
        assert_eq!(
            rows.len(),
            truth.len(),
            "{question}: {query:?} → {rows:?}, truth {truth:?}"
        );
        for (row, want) in rows.iter().zip(&truth) {
            assert!(
                want.iter().all(|cell| row.iter().any(|c| close(c, cell))),
                "{question}: {row:?} is not {want:?} (rows {rows:?})"
            );
        }
    }
}

/// [`answers_equal_truth`] on the demo: on an SQLite file of its own (its own truth) when `env` is none, else on
/// the server `env` names against the SQLite truth (skipped, said on stderr, when `env` is not set).
#[allow(dead_code, reason = "used by some of the suites that include this module")]
pub async fn cases_equal_truth(test: &str, env: Option<&str>, cases: &[(&str, &str)]) {
    let (db, truth, dir) = match env {
        None => {
            let (db, dir) = demo_sqlite(test, "sqlite").await;
            (db.clone(), db, dir)
        }
        Some(env) => match demo_on_server(test, env).await {
            Some(found) => found,
            None => return,
        },
    };
    answers_equal_truth(db, &truth, cases).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// The three suites of a file's demo cases, against the truth: on SQLite, PostgreSQL and MariaDB (the servers'
/// suites skip, said on stderr, when their variable is not set).
#[allow(unused_macros, reason = "used by some of the suites that include this module")]
macro_rules! demo_cases_on_every_dialect {
    ($tag:literal, $cases:expr) => {
        #[tokio::test]
        async fn demo_cases_on_sqlite_equal_the_truth() {
            demo_truth::cases_equal_truth($tag, None, $cases).await;
        }

        #[tokio::test]
        async fn demo_cases_on_postgres_equal_the_truth() {
            demo_truth::cases_equal_truth($tag, Some("WENSHU_TEST_POSTGRES_URL"), $cases).await;
        }

        #[tokio::test]
        async fn demo_cases_on_mysql_equal_the_truth() {
            demo_truth::cases_equal_truth($tag, Some("WENSHU_TEST_MYSQL_URL"), $cases).await;
        }
    };
}

/// Why the demo sales model refuses a metric query written as JSON: the field at fault.
#[allow(dead_code, reason = "used by some of the suites that include this module")]
pub fn refused_field(query: serde_json::Value) -> String {
    let catalog = wenshu_contract::demo_catalog().unwrap();
    let model = catalog
        .get("sales_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let query: wenshu_contract::metric::MetricQuery = serde_json::from_value(query).expect("a metric query");
    query.resolve(&model).expect_err("refused").field
}
