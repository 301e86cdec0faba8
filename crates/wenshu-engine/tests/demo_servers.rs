//! The demo on real PostgreSQL and MySQL/MariaDB servers, when `WENSHU_TEST_POSTGRES_URL` /
//! `WENSHU_TEST_MYSQL_URL` name one (e.g. `postgres://postgres@127.0.0.1:5432/test`,
//! `mysql://root@127.0.0.1:3306/test`). Each run makes a fresh database `wenshu_test_<pid>_<n>` and drops it at
//! the end, so parallel runs do not clash; without the variable the test says it is skipped.

mod demo_support;

use serde_json::json;
use wenshu_engine::db::{Bind, Database, Dialect, NullType, QueryLimits};

/// A database name of this run.
fn scratch_name(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("wenshu_test_{tag}_{}_{nanos}", std::process::id())
}

/// `url` with its database (the path) replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let authority_start = url.find("://").map_or(0, |i| i + 3);
    let path_start = url[authority_start..]
        .find('/')
        .map_or(url.len(), |i| authority_start + i);
    let query_start = url[path_start..].find('?').map_or(url.len(), |i| path_start + i);
    format!("{}/{name}{}", &url[..path_start], &url[query_start..])
}

/// Makes a scratch database on the server of `admin_url`, runs the checks there, drops it (also when a check
/// fails: the checks run in their own task and a panic is passed on after the cleanup).
async fn run_on_server(admin_url: &str, dialect: Dialect, slow_sql: &'static str) {
    let admin = Database::connect(admin_url).await.expect("admin connection");
    assert_eq!(admin.dialect(), dialect);
    let name = scratch_name(dialect.name());
    let create = match dialect {
        Dialect::MySql => format!("CREATE DATABASE {name} CHARACTER SET utf8mb4"),
        _ => format!("CREATE DATABASE {name}"),
    };
    admin.execute_batch(&create).await.expect("scratch database");
    let url = with_database(admin_url, &name);
    let checks = tokio::spawn(async move {
        let demo = demo_support::make_demo(&url, &url).await;
        assert_eq!(demo.db.dialect(), dialect);
        demo_support::check_all(&demo, slow_sql).await;
        check_types(&demo.db, dialect).await;
        check_fallback(&demo.db).await;
        demo.db.close().await;
    })
    .await;
    let drop = match dialect {
        Dialect::Postgres => format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        _ => format!("DROP DATABASE IF EXISTS {name}"),
    };
    admin.execute_batch(&drop).await.expect("drop scratch database");
    admin.close().await;
    if let Err(failed) = checks {
        std::panic::resume_unwind(failed.into_panic());
    }
}

/// Column types become the JSON they mean: numbers, decimals, dates and times as ISO text, NULLs.
async fn check_types(db: &Database, dialect: Dialect) {
    let sql = match dialect {
        Dialect::Postgres => {
            "SELECT CAST(12.50 AS NUMERIC(10,2)) AS d, CAST('2026-11-29' AS DATE) AS day, \
             CAST('2026-11-29 13:05:09' AS TIMESTAMP) AS ts, CAST(NULL AS TEXT) AS n, TRUE AS b, \
             CAST(7 AS SMALLINT) AS s, CAST(1.5 AS REAL) AS r, CAST('{\"a\":1}' AS JSONB) AS j, \
             SUM(x) AS total FROM (VALUES (1), (2)) AS v(x)"
        }
        _ => {
            "SELECT CAST(12.50 AS DECIMAL(10,2)) AS d, CAST('2026-11-29' AS DATE) AS day, \
             CAST('2026-11-29 13:05:09' AS DATETIME) AS ts, NULL AS n, TRUE AS b, \
             CAST(7 AS SIGNED) AS s, CAST(1.5 AS DOUBLE) AS r, JSON_OBJECT('a', 1) AS j, \
             SUM(x) AS total FROM (SELECT 1 AS x UNION ALL SELECT 2) AS v"
        }
    };
    let rows = db.query(sql, &[], QueryLimits::default()).await.expect("types");
    assert_eq!(rows.columns, ["d", "day", "ts", "n", "b", "s", "r", "j", "total"]);
    let row = &rows.rows[0];
    assert_eq!(row[0], json!(12.5), "{row:?}");
    assert_eq!(row[1], json!("2026-11-29"), "{row:?}");
    assert_eq!(row[2], json!("2026-11-29T13:05:09"), "{row:?}");
    assert_eq!(row[3], json!(null), "{row:?}");
    assert!(row[4] == json!(true) || row[4] == json!(1), "{row:?}");
    assert_eq!(row[5], json!(7), "{row:?}");
    assert_eq!(row[6], json!(1.5), "{row:?}");
    match dialect {
        Dialect::Postgres => assert_eq!(row[7], json!({"a": 1}), "{row:?}"),
        _ => assert!(row[7] == json!({"a": 1}) || row[7] == json!("{\"a\": 1}"), "{row:?}"),
    }
    assert_eq!(row[8], json!(3), "{row:?}");
    // A NULL bind typed like the column it is compared with.
    let sql = match dialect {
        Dialect::Postgres => "SELECT COUNT(*) FROM ratings WHERE ($1 IS NULL OR movie_id = $1)",
        _ => "SELECT COUNT(*) FROM ratings WHERE (? IS NULL OR movie_id = ?)",
    };
    let null = Bind::typed(json!(null), NullType::Integer);
    let binds = match dialect {
        Dialect::Postgres => vec![null],
        _ => vec![null.clone(), null],
    };
    let all = db
        .query_binds(sql, &binds, QueryLimits::default())
        .await
        .expect("null bind");
    assert_eq!(all.rows[0][0], json!(22));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_tools_run_on_postgres() {
    let Ok(url) = std::env::var("WENSHU_TEST_POSTGRES_URL") else {
        println!("skipped: set WENSHU_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run");
        return;
    };
    run_on_server(&url, Dialect::Postgres, "SELECT pg_sleep(5)").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_tools_run_on_mysql() {
    let Ok(url) = std::env::var("WENSHU_TEST_MYSQL_URL") else {
        println!("skipped: set WENSHU_TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test) to run");
        return;
    };
    run_on_server(&url, Dialect::MySql, "SELECT BENCHMARK(10000000000, MD5('wenshu'))").await;
}

#[tokio::test]
async fn refused_connections_are_connect_errors_without_the_password() {
    use std::time::Duration;
    use wenshu_engine::db::DbOptions;
    let options = DbOptions {
        connect_timeout: Duration::from_millis(500),
        ..DbOptions::default()
    };
    for url in ["postgres://u:s3cret@127.0.0.1:1/db", "mysql://u:s3cret@127.0.0.1:1/db"] {
        let err = Database::connect_with(url, &options).await.unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("cannot connect to"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
    }
}

#[test]
fn database_names_are_replaced_in_urls() {
    assert_eq!(with_database("postgres://u@h:5432/test", "x"), "postgres://u@h:5432/x");
    assert_eq!(
        with_database("mysql://root@h:3306/test?ssl-mode=disabled", "x"),
        "mysql://root@h:3306/x?ssl-mode=disabled"
    );
}

/// The Text-to-SQL fallback on this server: a scripted model's query passes the guard in the server's dialect and
/// runs read-only; a write the guard refuses is corrected once.
async fn check_fallback(db: &Database) {
    use std::sync::Arc;
    use std::time::Duration;
    use wenshu_engine::fallback::SqlFallback;
    use wenshu_engine::fallback::schema::{SchemaNotes, describe_schema};
    use wenshu_engine::sql_guard::GuardPolicy;
    use wenshu_llm::client::ChatClient;
    use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
    use wenshu_llm::prompt::PromptTemplates;
    use wenshu_testkit::{Reply, ScriptedChatServer};

    let top_ten = "SELECT m.name AS movie, SUM(b.revenue) AS revenue FROM box_office b JOIN movies m ON m.id = b.movie_id \
                   WHERE b.day >= '2026-01-01' GROUP BY m.name ORDER BY revenue DESC LIMIT 10";
    let replies = vec![
        Reply::content(json!({"sql": "DELETE FROM sales", "explanation": "x"}).to_string()),
        Reply::content(json!({"sql": top_ten, "explanation": "top ten"}).to_string()),
    ];
    let server = ScriptedChatServer::start(replies).await;
    let provider = ProviderConfig::new("scripted", server.base_url(), "m").with_timeout(Duration::from_secs(2));
    let client = Arc::new(ChatClient::new(vec![provider], RetryConfig::default(), BreakerConfig::default()).unwrap());
    let tables: Vec<String> = wenshu_demo::TABLES.iter().map(|t| t.to_string()).collect();
    let read_only = Database::connect_read_only(db.url())
        .await
        .expect("read-only connection");
    let schema = describe_schema(&read_only, &tables, &SchemaNotes::default())
        .await
        .expect("schema");
    assert!(schema.contains("box_office") && schema.contains("revenue"), "{schema}");
    let fallback = SqlFallback::new(
        client,
        Arc::new(PromptTemplates::embedded()),
        Arc::new(read_only),
        GuardPolicy::new(&tables),
        schema,
    );
    let run = fallback
        .run("今年票房最高的十部电影是哪些", demo_support::today())
        .await;
    assert_eq!(run.attempts.len(), 2, "{:?}", run.reasons);
    let rows = run.rows.expect("rows after one correction");
    assert_eq!(rows.rows.len(), 10);
}
