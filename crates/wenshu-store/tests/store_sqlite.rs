//! The store suite on SQLite (memory and file), plus reopening, WAL mode, two instances and a real crash.

mod common;

use std::path::Path;
use std::sync::Arc;

use sqlx::{Connection, SqliteConnection};
use wenshu_store::{GroupCommit, SqliteStore, Store, StoreError, open_store, open_store_with};

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
async fn memory_conversations_open_with_their_first_turn() {
    common::conversations_open_with_their_first_turn(memory().await, 20).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn file_store_without_group_commit_passes_the_suite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("alone.db");
    let store = open_store_with(&format!("sqlite:{}", path.display()), GroupCommit::off())
        .await
        .expect("open");
    common::run_all(store).await;
}

#[tokio::test]
async fn traces_are_stored_deflated_and_rows_from_before_still_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("packed.db");
    let store = SqliteStore::open(&path.display().to_string()).await.expect("open");
    let conversation = store.create_owned_conversation(Some("k-packed")).await.expect("create");
    let mut turn = common::new_turn(&conversation.id, 1);
    turn.trace = serde_json::json!({"steps": (0..50).map(|n| serde_json::json!({
        "step": "route", "input": {"question": "华东区本月的销售额是多少", "n": n}, "output": {"tool": "sales_query"},
    })).collect::<Vec<_>>()});
    let ids = store.append_turn(turn.clone()).await.expect("append");
    let stored = scalar_on_file(
        &path,
        "SELECT typeof(packed) || ' ' || body || ' ' || length(packed) FROM traces",
    )
    .await;
    let [kind, body, length] = stored.split(' ').collect::<Vec<_>>()[..] else {
        panic!("{stored}");
    };
    assert_eq!((kind, body), ("blob", "null"));
    let length: usize = length.parse().expect("length");
    assert!(length * 5 < turn.trace.to_string().len(), "{length} bytes packed");
    assert_eq!(
        store.trace(&ids.trace_id).await.expect("trace"),
        Some(turn.trace.clone())
    );

    // A row written before traces were packed: its JSON in `body`, `packed` NULL.
    let url = format!("sqlite:{}", path.display());
    let mut connection = SqliteConnection::connect(&url).await.expect("connect");
    sqlx::raw_sql(
        "INSERT INTO turns (id, conversation_id, seq, question, rewritten_question, kind, outcome, conclusion, \
         trace_id, created_at) SELECT 'oldturn', conversation_id, 2, 'q', 'q', 'answered', '{}', 'c', 'oldtrace', \
         created_at FROM turns; \
         INSERT INTO traces (id, turn_id, body, created_at) VALUES ('oldtrace', 'oldturn', \
         '{\"steps\":[{\"step\":\"route\"}],\"engine\":\"lexicon\"}', '2026-01-01T00:00:00Z')",
    )
    .execute(&mut connection)
    .await
    .expect("an old row");
    connection.close().await.expect("close");
    let old = serde_json::json!({"steps": [{"step": "route"}], "engine": "lexicon"});
    assert_eq!(store.trace("oldtrace").await.expect("trace"), Some(old.clone()));
    let owned = store.owned_trace("oldtrace").await.expect("trace").expect("found");
    assert_eq!((owned.owner.as_deref(), owned.body), (Some("k-packed"), old));
    let owned = store.owned_trace(&ids.trace_id).await.expect("trace").expect("found");
    assert_eq!(owned.body, turn.trace);
    store.close().await;
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

/// The environment variable that makes [`crash_child_under_load`] run: the store file's path.
const LOAD_CHILD: &str = "WENSHU_STORE_LOAD_CHILD";

/// How many asks the child under load keeps in flight.
const LOAD_ASKERS: usize = 32;

/// The principal whose audit entries the child under load writes.
const LOAD_PRINCIPAL: &str = "k-crash-load";

/// In a child process only: asks without end from many tasks at once, with group commit — each ask a new
/// conversation with a turn and its audit entry, opened in one write or made first — and appends a line with the
/// ids of every acknowledged turn to a file beside the store, until it is killed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crash_child_under_load() {
    let Ok(path) = std::env::var(LOAD_CHILD) else {
        return;
    };
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.expect("open"));
    let ids = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(format!("{path}.ids"))
        .expect("ids file");
    let ids = Arc::new(std::sync::Mutex::new(ids));
    let askers: Vec<_> = (0..LOAD_ASKERS)
        .map(|asker| {
            let (store, ids) = (Arc::clone(&store), Arc::clone(&ids));
            tokio::spawn(async move {
                for n in 1.. {
                    let audit = common::audit_of(LOAD_PRINCIPAL, &format!("ask {asker}-{n}"));
                    // Half the asks open their conversation with the turn (one write), half make it first (two).
                    let (conversation, stored) = if n % 2 == 0 {
                        let turn = common::new_turn("", n);
                        let opened = store.open_conversation_audited(Some(LOAD_PRINCIPAL), turn, audit);
                        opened.await.expect("open")
                    } else {
                        let conversation = store
                            .create_owned_conversation(Some(LOAD_PRINCIPAL))
                            .await
                            .expect("create");
                        let turn = common::new_turn(&conversation.id, n);
                        let stored = store.append_turn_audited(turn, audit).await.expect("append");
                        (conversation, stored)
                    };
                    let line = format!("{} {} {} {n}\n", conversation.id, stored.turn_id, stored.trace_id);
                    let mut file = ids.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    std::io::Write::write_all(&mut *file, line.as_bytes()).expect("write ids");
                }
            })
        })
        .collect();
    for asker in askers {
        asker.await.expect("asker");
    }
}

/// The complete lines of the ids file (a line cut by the kill is left out).
fn acknowledged_lines(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{path}.ids")).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete.lines().map(str::to_string).collect()
}

#[test]
fn a_kill_under_load_loses_no_acknowledged_turn_or_audit_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("load.db").display().to_string();
    let mut child = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "crash_child_under_load",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(LOAD_CHILD, &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run the child");
    // Killed (SIGKILL) in the middle of its load, once it has had a few hundred turns acknowledged.
    let mut waited = 0;
    while acknowledged_lines(&path).len() < 400 {
        let exited = child.try_wait().expect("child status");
        assert!(exited.is_none(), "the child stopped by itself: {exited:?}");
        assert!(waited < 6000, "the child acknowledged too few turns to test");
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
    child.kill().expect("kill -9 the child");
    child.wait().expect("reap the child");
    let lines = acknowledged_lines(&path);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.expect("reopen after the kill");
        let mut audited = std::collections::HashSet::new();
        let mut filter = wenshu_store::AuditFilter {
            principal: Some(LOAD_PRINCIPAL.to_string()),
            limit: wenshu_store::MAX_AUDIT_PAGE,
            ..wenshu_store::AuditFilter::default()
        };
        loop {
            let page = store.audit(&filter).await.expect("audit");
            audited.extend(page.entries.into_iter().filter_map(|entry| entry.turn_id));
            match page.next_before {
                Some(before) => filter.before = Some(before),
                None => break,
            }
        }
        for line in &lines {
            let [conversation_id, turn_id, trace_id, n] = line.split(' ').collect::<Vec<_>>()[..] else {
                panic!("ids line: {line}");
            };
            let n: usize = n.parse().expect("turn number");
            let full = store
                .conversation(conversation_id)
                .await
                .expect("read")
                .unwrap_or_else(|| panic!("acknowledged conversation {conversation_id} lost"));
            assert_eq!(full.turns.len(), 1, "{line}");
            assert_eq!(full.turns[0].id, turn_id, "{line}");
            assert_eq!(
                store.trace(trace_id).await.expect("trace"),
                Some(common::new_turn("", n).trace),
                "{line}"
            );
            assert!(audited.contains(turn_id), "the audit entry of {turn_id} is lost");
        }
        assert!(audited.len() >= lines.len());
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
