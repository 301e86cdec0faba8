//! The audit log on a SQLite file (always) and PostgreSQL (when `WENSHU_TEST_POSTGRES_URL` is set): an entry is
//! written with its turn in the turn's transaction (a failing turn write leaves none), or alone; it survives the
//! conversation's deletion; filters, paging newest first, and the purge by age.

mod common;

use std::sync::Arc;

use serde_json::json;
use sqlx::{AssertSqlSafe, Connection, PgConnection, SqliteConnection};
use wenshu_store::{AuditFilter, AuditPrincipal, GroupCommit, NewAudit, Store, open_store, open_store_with};

/// Where raw statements go, beside the store: the same database.
enum Raw {
    Sqlite(String),
    Postgres(String),
}

impl Raw {
    /// Runs `statements` in order on a connection of their own.
    async fn run(&self, statements: &[String]) {
        match self {
            Self::Sqlite(url) => {
                let mut connection = SqliteConnection::connect(url).await.expect("connect");
                for statement in statements {
                    sqlx::raw_sql(AssertSqlSafe(statement.clone()))
                        .execute(&mut connection)
                        .await
                        .expect(statement);
                }
                connection.close().await.expect("close");
            }
            Self::Postgres(url) => {
                let mut connection = PgConnection::connect(url).await.expect("connect");
                for statement in statements {
                    sqlx::raw_sql(AssertSqlSafe(statement.clone()))
                        .execute(&mut connection)
                        .await
                        .expect(statement);
                }
                connection.close().await.expect("close");
            }
        }
    }

    /// Makes every insert of a trace whose turn's question holds `marker` fail, on this backend (the trace is the
    /// last row of a turn's write, and its body is packed).
    fn failing_traces(&self, marker: &str, name: &str) -> Vec<String> {
        match self {
            Self::Sqlite(_) => vec![format!(
                "CREATE TRIGGER {name} BEFORE INSERT ON traces \
                 WHEN (SELECT question FROM turns WHERE id = NEW.turn_id) LIKE '%{marker}%' \
                 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )],
            Self::Postgres(_) => vec![
                format!(
                    "CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                     IF EXISTS (SELECT 1 FROM turns WHERE id = NEW.turn_id AND question LIKE '%{marker}%') THEN \
                     RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$"
                ),
                format!("CREATE TRIGGER {name} BEFORE INSERT ON traces FOR EACH ROW EXECUTE FUNCTION {name}()"),
            ],
        }
    }

    /// Undoes [`Raw::failing_traces`].
    fn drop_failing_traces(&self, name: &str) -> Vec<String> {
        match self {
            Self::Sqlite(_) => vec![format!("DROP TRIGGER {name}")],
            Self::Postgres(_) => vec![
                format!("DROP TRIGGER {name} ON traces"),
                format!("DROP FUNCTION {name}()"),
            ],
        }
    }
}

/// An entry by `principal` (id `id`) about `tool`.
fn audit(id: &str, name: &str, tool: &str, outcome: &str) -> NewAudit {
    NewAudit {
        principal: AuditPrincipal {
            id: Some(id.to_string()),
            name: Some(name.to_string()),
            role: "user".to_string(),
        },
        door: "api".to_string(),
        conversation_id: None,
        question: format!("{tool} 的问题"),
        tool: Some(tool.to_string()),
        params: json!({"region": "华东", "top": 5}),
        sql: vec![json!({"sql": "SELECT region, SUM(amount) FROM sales WHERE region = ?", "binds": ["华东"]})],
        rows: Some(3),
        outcome: outcome.to_string(),
        step: Some("execute".to_string()),
    }
}

/// The whole case on one store; names are unique, so it may share a database with other runs.
/// How many entries `filter` reads.
async fn count(store: &Arc<dyn Store>, filter: &AuditFilter) -> usize {
    store.audit(filter).await.expect("read").entries.len()
}

async fn audit_case(store: Arc<dyn Store>, raw: Raw) {
    let me = common::unique("k-me");
    let other = common::unique("k-other");
    let tool = common::unique("tool");
    let mine = AuditFilter {
        principal: Some(me.clone()),
        ..AuditFilter::default()
    };

    // An entry written with its turn carries the conversation and the turn, and every field comes back.
    let conversation = store.create_owned_conversation(Some(&me)).await.expect("create");
    let ids = store
        .append_turn_audited(
            common::new_turn(&conversation.id, 1),
            audit(&me, "alice", &tool, "answered"),
        )
        .await
        .expect("append");
    let page = store.audit(&mine).await.expect("read");
    assert_eq!(page.entries.len(), 1, "{page:?}");
    let entry = &page.entries[0];
    assert_eq!(entry.turn_id.as_deref(), Some(ids.turn_id.as_str()));
    assert_eq!(entry.conversation_id.as_deref(), Some(conversation.id.as_str()));
    assert_eq!(entry.principal.id.as_deref(), Some(me.as_str()));
    assert_eq!(entry.principal.name.as_deref(), Some("alice"));
    assert_eq!(entry.principal.role, "user");
    assert_eq!(entry.tool.as_deref(), Some(tool.as_str()));
    assert_eq!(entry.params, json!({"region": "华东", "top": 5}));
    assert_eq!(entry.sql[0]["binds"], json!(["华东"]));
    assert_eq!((entry.rows, entry.outcome.as_str()), (Some(3), "answered"));
    assert_eq!(entry.step.as_deref(), Some("execute"));
    assert!(entry.created_at.parse::<jiff::Timestamp>().is_ok());
    assert_eq!(page.next_before, None);

    // A turn whose write fails leaves no entry: the entry is in the turn's transaction.
    let marker = common::unique("refuse");
    let trigger = format!("audit_refuse_{}", marker.rsplit('_').next().unwrap_or("0"));
    raw.run(&raw.failing_traces(&marker, &trigger)).await;
    let mut refused = common::new_turn(&conversation.id, 2);
    refused.question = marker.clone();
    let mut refused_audit = audit(&me, "alice", &tool, "stopped");
    refused_audit.question = marker.clone();
    let failed = store.append_turn_audited(refused, refused_audit).await;
    raw.run(&raw.drop_failing_traces(&trigger)).await;
    assert!(failed.is_err(), "the trigger refuses the trace");
    let page = store.audit(&mine).await.expect("read");
    assert!(page.entries.iter().all(|e| e.question != marker), "{page:?}");
    assert_eq!(page.entries.len(), 1);
    let turns = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(turns.turns.len(), 1, "nor the turn");

    // Asked at once (in one group, with group commit), the refused turn fails alone: the others are stored with
    // their entries.
    let mut refused = common::new_turn(&conversation.id, 3);
    refused.question = marker.clone();
    raw.run(&raw.failing_traces(&marker, &trigger)).await;
    let (failed, one, two) = tokio::join!(
        store.append_turn_audited(refused, audit(&me, "alice", &tool, "stopped")),
        store.append_turn(common::new_turn(&conversation.id, 4)),
        store.append_turn(common::new_turn(&conversation.id, 5)),
    );
    raw.run(&raw.drop_failing_traces(&trigger)).await;
    assert!(failed.is_err(), "the trigger refuses the trace");
    let turns = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("found");
    let stored: Vec<&str> = turns.turns.iter().map(|t| t.id.as_str()).collect();
    let (one, two) = (one.expect("stored"), two.expect("stored"));
    assert_eq!(stored[1..], [one.turn_id.as_str(), two.turn_id.as_str()], "{stored:?}");
    assert_eq!(store.audit(&mine).await.expect("read").entries.len(), 1);

    // An ask that keeps no turn writes its entry alone; an unknown conversation is still refused for a turn.
    let mut alone = audit(&me, "alice", &tool, "need");
    alone.door = "mcp".to_string();
    alone.rows = None;
    alone.sql = Vec::new();
    alone.params = serde_json::Value::Null;
    let alone_id = store.record_audit(alone).await.expect("record");
    assert!(
        store
            .append_turn_audited(
                common::new_turn("0000000000000000", 1),
                audit(&me, "alice", &tool, "answered")
            )
            .await
            .is_err()
    );
    for n in 0..3 {
        store
            .record_audit(audit(&other, "bob", &tool, if n == 0 { "stopped" } else { "answered" }))
            .await
            .expect("record");
    }

    // Newest first; by principal id, principal name, tool, outcome.
    let page = store.audit(&mine).await.expect("read");
    assert_eq!(page.entries.len(), 2);
    assert_eq!(page.entries[0].id, alone_id);
    assert!(page.entries[0].id > page.entries[1].id);
    assert_eq!(page.entries[0].turn_id, None);
    assert_eq!((page.entries[0].door.as_str(), page.entries[0].rows), ("mcp", None));
    assert!(page.entries[0].sql.is_empty());
    let by_name = AuditFilter {
        principal_name: Some("bob".to_string()),
        tool: Some(tool.clone()),
        ..AuditFilter::default()
    };
    assert_eq!(count(&store, &by_name).await, 3);
    // A name is not an id: `principal` matches ids only.
    let name_as_id = AuditFilter {
        principal: Some("bob".to_string()),
        tool: Some(tool.clone()),
        ..AuditFilter::default()
    };
    assert_eq!(count(&store, &name_as_id).await, 0);
    let by_tool = AuditFilter {
        tool: Some(tool.clone()),
        ..AuditFilter::default()
    };
    assert_eq!(count(&store, &by_tool).await, 5);
    let stopped = AuditFilter {
        outcome: Some("stopped".to_string()),
        ..by_tool.clone()
    };
    let stopped = store.audit(&stopped).await.expect("read");
    assert_eq!(stopped.entries.len(), 1);
    assert_eq!(stopped.entries[0].principal.id.as_deref(), Some(other.as_str()));

    // Paging: two, then the rest, with no entry twice and none left out.
    let first = store
        .audit(&AuditFilter {
            limit: 2,
            ..by_tool.clone()
        })
        .await
        .expect("read");
    assert_eq!(first.entries.len(), 2);
    let before = first.next_before.expect("more");
    let rest = store
        .audit(&AuditFilter {
            limit: 10,
            before: Some(before),
            ..by_tool.clone()
        })
        .await
        .expect("read");
    assert_eq!(rest.entries.len(), 3);
    assert_eq!(rest.next_before, None);
    assert!(rest.entries.iter().all(|e| e.id < before));

    // Time windows: since is inclusive, until exclusive.
    let now = jiff::Timestamp::now();
    let hour = jiff::SignedDuration::from_hours(1);
    let window = |since: Option<jiff::Timestamp>, until: Option<jiff::Timestamp>| AuditFilter {
        since,
        until,
        ..by_tool.clone()
    };
    assert_eq!(count(&store, &window(now.checked_sub(hour).ok(), None)).await, 5);
    assert_eq!(count(&store, &window(now.checked_add(hour).ok(), None)).await, 0);
    assert_eq!(count(&store, &window(None, now.checked_sub(hour).ok())).await, 0);

    // Deleting the conversation keeps its entry.
    assert!(store.delete_conversation(&conversation.id).await.expect("delete"));
    assert_eq!(count(&store, &mine).await, 2);

    // The purge deletes entries older than the retention, and only those.
    let old = store
        .record_audit(audit(&me, "alice", &tool, "choose"))
        .await
        .expect("record");
    raw.run(&[format!(
        "UPDATE audit_log SET created_at = '2001-01-01T00:00:00.000000Z' WHERE seq = {old}"
    )])
    .await;
    assert!(store.purge_audit_older_than(30).await.expect("purge") >= 1);
    let page = store.audit(&by_tool).await.expect("read");
    assert_eq!(page.entries.len(), 5);
    assert!(page.entries.iter().all(|e| e.id != old));
}

#[tokio::test]
async fn audit_on_a_sqlite_file() {
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite:{}", dir.path().join("audit.db").display());
    let store = open_store(&url).await.expect("open");
    audit_case(store, Raw::Sqlite(url)).await;
}

#[tokio::test]
async fn audit_on_a_sqlite_file_without_group_commit() {
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite:{}", dir.path().join("audit.db").display());
    let store = open_store_with(&url, GroupCommit::off()).await.expect("open");
    audit_case(store, Raw::Sqlite(url)).await;
}

#[tokio::test]
async fn audit_on_postgres() {
    let Ok(url) = std::env::var("WENSHU_TEST_POSTGRES_URL") else {
        eprintln!("skipped: WENSHU_TEST_POSTGRES_URL is not set");
        return;
    };
    let store = open_store(&url).await.expect("connect");
    audit_case(store, Raw::Postgres(url)).await;
}
