//! The store suite on a real PostgreSQL, in a database made for this run and dropped after it.
//!
//! Runs when `WENSHU_TEST_POSTGRES_URL` names a server (e.g. `postgres://postgres@127.0.0.1:5432/postgres`) whose
//! user may create databases; prints "skipped" otherwise.

mod common;

use std::sync::Arc;

use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};
use wenshu_store::{PgStore, Store, open_store};

/// The variable naming the test server.
const URL_VARIABLE: &str = "WENSHU_TEST_POSTGRES_URL";

/// `base` with its database name replaced by `database`.
fn with_database(base: &str, database: &str) -> String {
    let (head, query) = match base.find('?') {
        Some(at) => (&base[..at], &base[at..]),
        None => (base, ""),
    };
    let authority_start = head.find("://").map_or(0, |at| at + 3);
    let server = match head[authority_start..].find('/') {
        Some(slash) => &head[..authority_start + slash],
        None => head,
    };
    format!("{server}/{database}{query}")
}

/// The whole suite, two instances at once, and a reconnect after a drop, on one fresh database.
async fn suite(url: String) {
    let (one, two) = tokio::join!(PgStore::connect(&url), PgStore::connect(&url));
    let (one, two): (Arc<dyn Store>, Arc<dyn Store>) = (Arc::new(one.expect("one")), Arc::new(two.expect("two")));

    common::run_all(Arc::clone(&one)).await;

    // Two instances share data, and their appends to one conversation interleave without clashing.
    let conversation_id = common::two_instances_append_at_once(&one, &two, 20).await;
    two.set_tool_enabled("shared_tool", false).await.expect("set");
    assert!(
        one.tool_states()
            .await
            .expect("states")
            .iter()
            .any(|s| s.name == "shared_tool" && !s.enabled)
    );

    // Dropped without closing, then a third instance: the turn and its trace are there, migrations ran once.
    let ids = one
        .append_turn(common::new_turn(&conversation_id, 21))
        .await
        .expect("append");
    drop(one);
    drop(two);
    let three = open_store(&url).await.expect("reconnect");
    let full = three
        .conversation(&conversation_id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(full.turns.len(), 21);
    assert_eq!(full.turns[20].id, ids.turn_id);
    assert_eq!(
        three.trace(&ids.trace_id).await.expect("trace"),
        Some(common::new_turn("", 21).trace)
    );
    let mut connection = PgConnection::connect(&url).await.expect("connect");
    let versions: Vec<i64> = sqlx::query_scalar("SELECT version FROM wenshu_schema_version ORDER BY version")
        .fetch_all(&mut connection)
        .await
        .expect("versions");
    assert_eq!(versions, common::migration_versions());
    let outcome_type: String = sqlx::query_scalar(
        "SELECT data_type FROM information_schema.columns WHERE table_name = 'turns' AND column_name = 'outcome'",
    )
    .fetch_one(&mut connection)
    .await
    .expect("column type");
    assert_eq!(outcome_type, "jsonb");
    connection.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_passes_the_suite() {
    let Ok(base) = std::env::var(URL_VARIABLE) else {
        println!("skipped: set {URL_VARIABLE} (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run");
        return;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let database = format!("wenshu_store_test_{}_{nanos}", std::process::id());
    let mut admin = PgConnection::connect(&base).await.expect("connect to the test server");
    admin
        .execute(AssertSqlSafe(format!("CREATE DATABASE \"{database}\"")))
        .await
        .expect("create the test database");

    let outcome = tokio::spawn(suite(with_database(&base, &database))).await;

    admin
        .execute(AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{database}\" WITH (FORCE)"
        )))
        .await
        .expect("drop the test database");
    admin.close().await.expect("close");
    if let Err(error) = outcome {
        std::panic::resume_unwind(error.into_panic());
    }
}

#[tokio::test]
async fn connection_errors_hide_the_password() {
    // Port 1 on loopback refuses at once; no server is needed.
    let Err(error) = PgStore::connect("postgres://wenshu:s3cret-pw@127.0.0.1:1/db?connect_timeout=2").await else {
        panic!("nothing listens on port 1");
    };
    assert!(matches!(error, wenshu_store::StoreError::Database { .. }), "{error:?}");
    let message = error.to_string();
    assert!(!message.contains("s3cret-pw"), "{message}");
    assert!(message.contains("***"), "{message}");
    let Err(error) = PgStore::connect("postgres://wenshu:s3cret-pw@127.0.0.1:5432/db?sslmode=nonsense").await else {
        panic!("a bad sslmode is refused");
    };
    assert!(!error.to_string().contains("s3cret-pw"), "{error}");
}

#[test]
fn database_names_are_replaced() {
    assert_eq!(with_database("postgres://u@h:5432/test", "x"), "postgres://u@h:5432/x");
    assert_eq!(
        with_database("postgres://u@h/test?sslmode=disable", "x"),
        "postgres://u@h/x?sslmode=disable"
    );
    assert_eq!(with_database("postgres://u@h", "x"), "postgres://u@h/x");
}
