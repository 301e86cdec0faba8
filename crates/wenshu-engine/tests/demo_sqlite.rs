//! The demo on SQLite: made in a temporary file, queried read-only through every demo tool's template.

mod demo_support;

use serde_json::json;
use wenshu_engine::db::{Database, Dialect, QueryLimits};

/// A recursive count that runs for minutes unless stopped.
const SLOW_SQL: &str =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT COUNT(*) FROM c";

fn temp_db(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    std::env::temp_dir().join(format!("wenshu_{name}_{}_{nanos}.db", std::process::id()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_tools_run_on_sqlite() {
    let path = temp_db("demo");
    let write_url = format!("sqlite://{}", path.display());
    let read_url = format!("sqlite:{}", path.display());
    let demo = demo_support::make_demo(&write_url, &read_url).await;
    assert_eq!(demo.db.dialect(), Dialect::Sqlite);
    assert!(demo.db.is_read_only());
    demo_support::check_all(&demo, SLOW_SQL).await;
    demo.db.close().await;
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn in_memory_database_keeps_its_data_across_queries() {
    let db = Database::connect("sqlite::memory:").await.expect("memory");
    db.execute_batch("CREATE TABLE t (id INTEGER, name TEXT, price REAL, data BLOB); INSERT INTO t VALUES (1, '甲', 2.5, x'ff00'), (2, NULL, NULL, NULL)")
        .await
        .expect("script");
    let rows = db
        .query(
            "SELECT id, name, price, data FROM t WHERE id >= ? ORDER BY id",
            &[json!(1)],
            QueryLimits::default(),
        )
        .await
        .expect("rows");
    assert_eq!(rows.columns, ["id", "name", "price", "data"]);
    assert_eq!(rows.rows[0], vec![json!(1), json!("甲"), json!(2.5), json!("ff00")]);
    assert_eq!(rows.rows[1], vec![json!(2), json!(null), json!(null), json!(null)]);
    let typed = db
        .query(
            "SELECT ? AS b, ? AS f, ? AS s, ? AS n",
            &[json!(true), json!(1.5), json!("x"), json!(null)],
            QueryLimits::default(),
        )
        .await
        .expect("binds");
    assert_eq!(typed.rows[0], vec![json!(1), json!(1.5), json!("x"), json!(null)]);
}

#[tokio::test]
async fn a_broken_query_names_the_driver_message() {
    let db = Database::connect("sqlite::memory:").await.expect("memory");
    let err = db
        .query("SELECT * FROM nowhere", &[], QueryLimits::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no such table"), "{err}");
}

#[tokio::test]
async fn unsupported_schemes_and_missing_files_fail_to_connect() {
    let err = Database::connect("oracle://scott:tiger@db/orcl").await.unwrap_err();
    assert!(err.to_string().contains("oracle://scott:***@db/orcl"), "{err}");
    assert!(!err.to_string().contains("tiger"));
    let missing = temp_db("missing");
    let err = Database::connect_read_only(&format!("sqlite:{}", missing.display()))
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("cannot connect"), "{err}");
}
