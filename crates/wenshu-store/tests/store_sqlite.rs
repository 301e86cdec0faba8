//! The store suite on SQLite (memory and file), plus reopening, WAL mode, two instances and a real crash.

mod common;

use std::path::Path;
use std::sync::Arc;

use sqlx::{Connection, SqliteConnection};
use wenshu_store::{SqliteStore, Store, StoreError, open_store};

/// A fresh in-memory store.
async fn memory() -> Arc<dyn Store> {
    Arc::new(SqliteStore::memory().await.expect("memory store"))
}

/// Runs one SQL scalar query on the store file through a connection of its own.
async fn scalar_on_file(path: &Path, sql: &'static str) -> String {
    let url = format!("sqlite:{}", path.display());
    let mut connection = SqliteConnection::connect(&url).await.expect("connect");
    let value: String = sqlx::query_scalar(sql).fetch_one(&mut connection).await.expect("query");
    connection.close().await.expect("close");
    value
}

#[tokio::test]
async fn owned_pages() {
    common::owned_pages(memory().await).await;
}

#[tokio::test]
async fn purge_removes_old_turns_traces_and_emptied_conversations() {
    let store = memory().await;
    let conversation = store.create_owned_conversation(None).await.unwrap();
    let ids = store.append_turn(common::new_turn(&conversation.id, 1)).await.unwrap();
    assert_eq!(store.purge_older_than(1).await.unwrap(), 0);
    assert!(store.trace(&ids.trace_id).await.unwrap().is_some());
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    assert_eq!(store.purge_older_than(0).await.unwrap(), 1);
    assert!(store.trace(&ids.trace_id).await.unwrap().is_none());
    assert!(store.conversation_info(&conversation.id).await.unwrap().is_none());
}

#[tokio::test]
async fn memory_conversation_with_turns() {
    common::conversation_with_turns(memory().await).await;
}

#[tokio::test]
async fn memory_history_is_last_rounds_oldest_first() {
    common::history_is_last_rounds_oldest_first(memory().await).await;
}

#[tokio::test]
async fn memory_history_keeps_subject_ids() {
    common::history_keeps_subject_ids(memory().await).await;
}

#[tokio::test]
async fn memory_trace_by_id() {
    common::trace_by_id(memory().await).await;
}

#[tokio::test]
async fn memory_unknown_conversation_is_not_found() {
    common::unknown_conversation_is_not_found(memory().await).await;
}

#[tokio::test]
async fn memory_tool_states_upsert() {
    common::tool_states_upsert(memory().await).await;
}

#[tokio::test]
async fn memory_entity_catalogs_round_trip() {
    common::entity_catalogs_round_trip(memory().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_concurrent_appends_all_land() {
    common::concurrent_appends_all_land(memory().await, 50).await;
}

#[tokio::test]
async fn memory_stores_are_private() {
    let one = memory().await;
    let two = memory().await;
    let conversation = one.create_conversation().await.expect("create");
    assert!(two.conversation(&conversation.id).await.expect("read").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn file_store_passes_the_suite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("wenshu.db");
    let store = open_store(&format!("sqlite:{}", path.display())).await.expect("open");
    common::run_all(store).await;
}

#[tokio::test]
async fn file_store_is_in_wal_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("wal.db");
    let store = SqliteStore::open(&path.display().to_string()).await.expect("open");
    assert!(path.exists(), "the file is created");
    assert_eq!(scalar_on_file(&path, "PRAGMA journal_mode").await, "wal");
    store.close().await;
}

#[tokio::test]
async fn reopening_keeps_everything_and_migrates_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("reopen.db");
    let path_text = path.display().to_string();
    let store = SqliteStore::open(&path_text).await.expect("open");
    let conversation = store.create_conversation().await.expect("create");
    let ids = store
        .append_turn(common::new_turn(&conversation.id, 1))
        .await
        .expect("append");
    store.set_tool_enabled("weather", false).await.expect("set");
    store
        .save_entity_catalog("city", serde_json::json!(["北京"]))
        .await
        .expect("save");
    store.close().await;
    drop(store);

    for _ in 0..2 {
        let store = SqliteStore::open(&format!("sqlite://{path_text}"))
            .await
            .expect("reopen");
        let full = store
            .conversation(&conversation.id)
            .await
            .expect("read")
            .expect("exists");
        assert_eq!(full.turns.len(), 1);
        assert_eq!(full.turns[0].id, ids.turn_id);
        assert!(store.trace(&ids.trace_id).await.expect("trace").is_some());
        let states = store.tool_states().await.expect("states");
        assert_eq!(states.len(), 1);
        assert!(!states[0].enabled);
        assert_eq!(store.entity_catalogs().await.expect("catalogs").len(), 1);
        store.close().await;
    }
    let versions = scalar_on_file(&path, "SELECT group_concat(version) FROM wenshu_schema_version").await;
    let expected: Vec<String> = common::migration_versions().iter().map(i64::to_string).collect();
    assert_eq!(versions, expected.join(","));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_open_one_file_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("shared.db").display().to_string();
    let (one, two) = tokio::join!(SqliteStore::open(&path), SqliteStore::open(&path));
    let (one, two): (Arc<dyn Store>, Arc<dyn Store>) = (Arc::new(one.expect("one")), Arc::new(two.expect("two")));
    common::two_instances_append_at_once(&one, &two, 20).await;
}

#[tokio::test]
async fn dropped_without_closing_keeps_the_turn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("dropped.db").display().to_string();
    let store = SqliteStore::open(&path).await.expect("open");
    let conversation = store.create_conversation().await.expect("create");
    let ids = store
        .append_turn(common::new_turn(&conversation.id, 1))
        .await
        .expect("append");
    drop(store);

    let store = SqliteStore::open(&path).await.expect("reopen");
    let full = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(full.turns.len(), 1);
    assert_eq!(full.turns[0].trace_id, ids.trace_id);
    assert!(store.trace(&ids.trace_id).await.expect("trace").is_some());
}

/// The environment variable that makes [`crash_child`] run: the store file's path.
const CRASH_CHILD: &str = "WENSHU_STORE_CRASH_CHILD";

/// In a child process only: appends a turn, writes its ids beside the store, and aborts without any cleanup.
#[tokio::test]
async fn crash_child() {
    let Ok(path) = std::env::var(CRASH_CHILD) else {
        return;
    };
    let store = SqliteStore::open(&path).await.expect("open");
    let conversation = store.create_conversation().await.expect("create");
    let ids = store
        .append_turn(common::new_turn(&conversation.id, 1))
        .await
        .expect("append");
    let line = format!("{} {} {}", conversation.id, ids.turn_id, ids.trace_id);
    std::fs::write(format!("{path}.ids"), line).expect("write ids");
    std::process::abort();
}

#[test]
fn a_process_crash_loses_no_acknowledged_turn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("crash.db").display().to_string();
    let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "crash_child", "--test-threads", "1", "--nocapture"])
        .env(CRASH_CHILD, &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run the child");
    assert!(!status.success(), "the child aborts");
    let ids = std::fs::read_to_string(format!("{path}.ids")).expect("the child acknowledged a turn");
    let [conversation_id, turn_id, trace_id] = ids.split(' ').collect::<Vec<_>>()[..] else {
        panic!("ids line: {ids}");
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.expect("reopen after the crash");
        let full = store
            .conversation(conversation_id)
            .await
            .expect("read")
            .expect("exists");
        assert_eq!(full.turns.len(), 1);
        assert_eq!(full.turns[0].id, turn_id);
        assert_eq!(
            store.trace(trace_id).await.expect("trace"),
            Some(common::new_turn("", 1).trace)
        );
    });
}

#[tokio::test]
async fn bad_urls_are_refused_without_passwords() {
    let Err(error) = open_store("mysql://user:s3cret@localhost/db").await else {
        panic!("mysql is not a store backend");
    };
    assert!(matches!(error, StoreError::InvalidUrl { .. }), "{error:?}");
    assert!(!error.to_string().contains("s3cret"), "{error}");
    assert!(open_store("sqlite::memory:").await.is_ok());
    let Err(error) = SqliteStore::open("postgres://user:s3cret@localhost/db").await else {
        panic!("a PostgreSQL URL is not a SQLite path");
    };
    assert!(matches!(error, StoreError::InvalidUrl { .. }), "{error:?}");
    assert!(!error.to_string().contains("s3cret"), "{error}");
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("no/such/dir/x.db").display().to_string();
    assert!(matches!(
        SqliteStore::open(&missing).await,
        Err(StoreError::Database { .. })
    ));
}
