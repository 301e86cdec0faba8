//! The store suite every backend must pass, generic over `Arc<dyn Store>`.
//!
//! Each case makes its own conversation and uses names no other case uses, so the cases can share one store.

#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use wenshu_store::{AuditPrincipal, HistoryRound, NewAudit, NewTurn, Store, StoreError, SubjectRef};

/// A turn numbered `n` for a conversation.
pub fn new_turn(conversation_id: &str, n: usize) -> NewTurn {
    NewTurn {
        conversation_id: conversation_id.to_string(),
        question: format!("question {n}"),
        rewritten_question: format!("rewritten question {n}"),
        kind: "answered".to_string(),
        tool: Some(format!("tool_{n}")),
        outcome: json!({"rows": [[n, "甲"]], "n": n}),
        conclusion: format!("conclusion {n}"),
        trace: json!({"steps": [{"step": "route", "n": n}], "note": "问数"}),
        subject: None,
    }
}

/// An audit entry of `principal` (an id) for `question`, answered by one SQL statement.
pub fn audit_of(principal: &str, question: &str) -> NewAudit {
    NewAudit {
        principal: AuditPrincipal {
            id: Some(principal.to_string()),
            name: None,
            role: "user".to_string(),
        },
        door: "api".to_string(),
        conversation_id: None,
        question: question.to_string(),
        tool: Some("sales_query".to_string()),
        params: json!({"region": "华东"}),
        sql: vec![json!({"sql": "SELECT SUM(amount) FROM sales WHERE region = ?", "binds": ["华东"]})],
        rows: Some(1),
        outcome: "answered".to_string(),
        step: Some("execute".to_string()),
    }
}

/// The migration versions a fresh store applies: 1..=N for the N files of `migrations/sqlite`, in order.
pub fn migration_versions() -> Vec<i64> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/sqlite");
    let files = std::fs::read_dir(dir)
        .expect("migrations folder")
        .filter(|entry| {
            entry
                .as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "sql"))
        })
        .count();
    (1..=i64::try_from(files).unwrap_or(i64::MAX)).collect()
}

/// A name no other case (or run) uses.
pub fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{prefix}_{}_{nanos}", std::process::id())
}

/// Conversations come back with their turns in order, every field kept.
pub async fn conversation_with_turns(store: Arc<dyn Store>) {
    let conversation = store.create_conversation().await.expect("create");
    assert_eq!(conversation.id.len(), 16);
    assert!(
        conversation.created_at.parse::<jiff::Timestamp>().is_ok(),
        "{}",
        conversation.created_at
    );
    let empty = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("exists");
    assert!(empty.turns.is_empty());
    assert_eq!(empty.created_at, conversation.created_at);

    let mut stored = Vec::new();
    for n in 1..=3 {
        stored.push(store.append_turn(new_turn(&conversation.id, n)).await.expect("append"));
    }
    let mut stopped = new_turn(&conversation.id, 4);
    stopped.kind = "stopped".to_string();
    stopped.tool = None;
    stored.push(store.append_turn(stopped).await.expect("append"));

    let full = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(full.id, conversation.id);
    assert_eq!(full.turns.len(), 4);
    for (index, (turn, ids)) in full.turns.iter().zip(&stored).enumerate() {
        let n = index + 1;
        assert_eq!(turn.id, ids.turn_id);
        assert_eq!(turn.trace_id, ids.trace_id);
        assert_eq!(turn.question, format!("question {n}"));
        assert_eq!(turn.rewritten_question, format!("rewritten question {n}"));
        assert_eq!(turn.conclusion, format!("conclusion {n}"));
        assert_eq!(turn.outcome, json!({"rows": [[n, "甲"]], "n": n}));
        assert!(
            turn.created_at.parse::<jiff::Timestamp>().is_ok(),
            "{}",
            turn.created_at
        );
    }
    assert_eq!(full.turns[0].kind, "answered");
    assert_eq!(full.turns[0].tool.as_deref(), Some("tool_1"));
    assert_eq!(full.turns[3].kind, "stopped");
    assert_eq!(full.turns[3].tool, None);

    let wire = serde_json::to_value(&full).expect("serialize");
    let first = &wire["turns"][0];
    for key in [
        "id",
        "question",
        "rewrittenQuestion",
        "kind",
        "tool",
        "outcome",
        "conclusion",
        "traceId",
        "createdAt",
    ] {
        assert!(first.get(key).is_some(), "turn JSON lacks {key}: {first}");
    }
    assert!(wire.get("createdAt").is_some());

    assert_eq!(store.conversation("no-such-conversation").await.expect("read"), None);
}

/// History is the last N rounds, oldest first.
pub async fn history_is_last_rounds_oldest_first(store: Arc<dyn Store>) {
    let conversation = store.create_conversation().await.expect("create");
    assert!(store.history(&conversation.id, 3).await.expect("history").is_empty());
    for n in 1..=5 {
        store.append_turn(new_turn(&conversation.id, n)).await.expect("append");
    }
    let round = |n: usize| HistoryRound {
        question: format!("question {n}"),
        conclusion: format!("conclusion {n}"),
        kind: "answered".to_string(),
        subject: None,
    };
    assert_eq!(
        store.history(&conversation.id, 3).await.expect("history"),
        vec![round(3), round(4), round(5)]
    );
    assert_eq!(
        store.history(&conversation.id, 1).await.expect("history"),
        vec![round(5)]
    );
    assert_eq!(store.history(&conversation.id, 100).await.expect("history").len(), 5);
    assert!(store.history(&conversation.id, 0).await.expect("history").is_empty());
    assert!(
        store
            .history(&conversation.id, usize::MAX)
            .await
            .expect("history")
            .len()
            == 5
    );
    assert!(
        store
            .history("no-such-conversation", 3)
            .await
            .expect("history")
            .is_empty()
    );
}

/// A trace comes back by id, exactly as stored.
pub async fn trace_by_id(store: Arc<dyn Store>) {
    let conversation = store.create_conversation().await.expect("create");
    let mut turn = new_turn(&conversation.id, 1);
    let trace = json!({"steps": [{"step": "route", "ok": true}, {"step": "bind", "params": {"a": 1.5, "b": null}}],
                       "text": "引号 \" and \\ backslash"});
    turn.trace = trace.clone();
    let ids = store.append_turn(turn).await.expect("append");
    assert_ne!(ids.turn_id, ids.trace_id);
    assert_eq!(store.trace(&ids.trace_id).await.expect("trace"), Some(trace));
    assert_eq!(store.trace("no-such-trace").await.expect("trace"), None);
}

/// Appending to a conversation that does not exist is NotFound, and stores nothing.
pub async fn unknown_conversation_is_not_found(store: Arc<dyn Store>) {
    let error = store
        .append_turn(new_turn("no-such-conversation", 1))
        .await
        .expect_err("unknown");
    assert_eq!(
        error,
        StoreError::NotFound {
            what: "conversation".to_string(),
            id: "no-such-conversation".to_string()
        }
    );
    assert_eq!(store.conversation("no-such-conversation").await.expect("read"), None);
}

/// Tool states are inserted, then updated in place.
pub async fn tool_states_upsert(store: Arc<dyn Store>) {
    let a = unique("tool_a");
    let b = unique("tool_b");
    store.set_tool_enabled(&a, true).await.expect("set");
    store.set_tool_enabled(&b, false).await.expect("set");
    store.set_tool_enabled(&a, false).await.expect("set");
    store.set_tool_enabled(&b, true).await.expect("set");
    let states = store.tool_states().await.expect("states");
    let mine: Vec<_> = states.iter().filter(|s| s.name == a || s.name == b).collect();
    assert_eq!(mine.len(), 2, "{states:?}");
    assert_eq!(mine[0].name, a);
    assert!(!mine[0].enabled);
    assert_eq!(mine[1].name, b);
    assert!(mine[1].enabled);
    assert!(mine.iter().all(|s| s.updated_at.parse::<jiff::Timestamp>().is_ok()));
    let names: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "tool states come by name");
}

/// Entity catalogs round-trip and a second save replaces the first.
pub async fn entity_catalogs_round_trip(store: Arc<dyn Store>) {
    let city = unique("city");
    let company = unique("company");
    let first = json!([{"id": "110000", "name": "北京"}, {"id": "310000", "name": "上海"}]);
    let second = json!([{"id": "440300", "name": "深圳", "aliases": ["鹏城"]}]);
    let companies = json!({"items": [{"id": 7, "name": "甲公司"}], "version": 2});
    store.save_entity_catalog(&city, first).await.expect("save");
    store
        .save_entity_catalog(&company, companies.clone())
        .await
        .expect("save");
    store.save_entity_catalog(&city, second.clone()).await.expect("save");
    let catalogs = store.entity_catalogs().await.expect("catalogs");
    let mine: Vec<_> = catalogs
        .iter()
        .filter(|(t, _)| *t == city || *t == company)
        .cloned()
        .collect();
    assert_eq!(mine, vec![(city, second), (company, companies)]);
}

/// Many tasks appending to one conversation at once all land, each with its own place in order.
pub async fn concurrent_appends_all_land(store: Arc<dyn Store>, tasks: usize) {
    let conversation = store.create_conversation().await.expect("create");
    let handles: Vec<_> = (1..=tasks)
        .map(|n| {
            let store = Arc::clone(&store);
            let id = conversation.id.clone();
            tokio::spawn(async move { store.append_turn(new_turn(&id, n)).await })
        })
        .collect();
    let mut stored = Vec::new();
    for handle in handles {
        stored.push(handle.await.expect("task").expect("append"));
    }
    let full = store
        .conversation(&conversation.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(full.turns.len(), tasks);
    let turn_ids: HashSet<&str> = full.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(turn_ids.len(), tasks);
    let acknowledged: HashSet<&str> = stored.iter().map(|s| s.turn_id.as_str()).collect();
    assert_eq!(turn_ids, acknowledged);
    let questions: HashSet<String> = full.turns.iter().map(|t| t.question.clone()).collect();
    let expected: HashSet<String> = (1..=tasks).map(|n| format!("question {n}")).collect();
    assert_eq!(questions, expected);
    for ids in &stored {
        let trace: Value = store.trace(&ids.trace_id).await.expect("trace").expect("exists");
        assert!(trace.get("steps").is_some());
    }
    assert_eq!(
        store.history(&conversation.id, tasks).await.expect("history").len(),
        tasks
    );
}

/// Two stores on one database append `appends` turns to one new conversation, alternating, all at once; they all
/// land. Returns the conversation's id.
pub async fn two_instances_append_at_once(one: &Arc<dyn Store>, two: &Arc<dyn Store>, appends: usize) -> String {
    let conversation = one.create_conversation().await.expect("create");
    let handles: Vec<_> = (1..=appends)
        .map(|n| {
            let store = Arc::clone(if n % 2 == 0 { one } else { two });
            let id = conversation.id.clone();
            tokio::spawn(async move { store.append_turn(new_turn(&id, n)).await })
        })
        .collect();
    for handle in handles {
        handle.await.expect("task").expect("append");
    }
    let seen_by_two = two.conversation(&conversation.id).await.expect("read").expect("exists");
    assert_eq!(seen_by_two.turns.len(), appends);
    conversation.id
}

/// A turn's subject comes back with its history round, its ID keeping its JSON type (21 stays a number, "A-1" a
/// string); a turn without one has none.
pub async fn history_keeps_subject_ids(store: Arc<dyn Store>) {
    let conversation = store.create_conversation().await.expect("create");
    let subjects = [
        Some(SubjectRef {
            entity_type: unique("film"),
            id: json!(21),
            name: "同名之作".into(),
        }),
        None,
        Some(SubjectRef {
            entity_type: unique("site"),
            id: json!("A-1"),
            name: "一号站".into(),
        }),
    ];
    for (n, subject) in subjects.iter().enumerate() {
        let mut turn = new_turn(&conversation.id, n);
        turn.subject = subject.clone();
        store.append_turn(turn).await.expect("append");
    }
    let rounds = store.history(&conversation.id, 3).await.expect("history");
    let got: Vec<Option<SubjectRef>> = rounds.into_iter().map(|r| r.subject).collect();
    assert_eq!(got, subjects.to_vec());
}

/// A conversation keeps its owner; pages come newest last with the cursor of the older page; a trace carries its
/// conversation's owner.
pub async fn owned_pages(store: Arc<dyn Store>) {
    let owner = unique("k-");
    let conversation = store.create_owned_conversation(Some(&owner)).await.unwrap();
    let mut ids = Vec::new();
    for n in 1..=5 {
        ids.push(store.append_turn(new_turn(&conversation.id, n)).await.unwrap());
    }
    let info = store.conversation_info(&conversation.id).await.unwrap().unwrap();
    assert_eq!((info.owner.as_deref(), info.turns), (Some(owner.as_str()), 5));
    let page = store
        .conversation_page(&conversation.id, 2, None)
        .await
        .unwrap()
        .unwrap();
    let got: Vec<&str> = page.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(got, [ids[3].turn_id.as_str(), ids[4].turn_id.as_str()]);
    assert_eq!(page.next_before.as_deref(), Some(ids[3].turn_id.as_str()));
    let older = store
        .conversation_page(&conversation.id, 10, page.next_before.as_deref())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(older.turns.len(), 3);
    assert_eq!(
        (older.turns[0].id.as_str(), older.next_before),
        (ids[0].turn_id.as_str(), None)
    );
    assert!(matches!(
        store.conversation_page(&conversation.id, 2, Some("nope")).await,
        Err(wenshu_store::StoreError::NotFound { .. })
    ));
    assert!(store.conversation_page("nope", 2, None).await.unwrap().is_none());
    let trace = store.owned_trace(&ids[0].trace_id).await.unwrap().unwrap();
    assert_eq!(trace.owner.as_deref(), Some(owner.as_str()));
    let anonymous = store.create_owned_conversation(None).await.unwrap();
    assert_eq!(
        store.conversation_info(&anonymous.id).await.unwrap().unwrap().owner,
        None
    );
}

/// Many asks at once each open a conversation with its first turn and audit entry in one write: every
/// conversation exists with its owner and that one turn, whose trace reads back, and every entry names both.
pub async fn conversations_open_with_their_first_turn(store: Arc<dyn Store>, tasks: usize) {
    let owner = unique("k-open-");
    let handles: Vec<_> = (1..=tasks)
        .map(|n| {
            let (store, owner) = (Arc::clone(&store), owner.clone());
            tokio::spawn(async move {
                let audit = audit_of(&owner, &format!("question {n}"));
                let opened = store.open_conversation_audited(Some(&owner), new_turn("ignored", n), audit);
                (n, opened.await)
            })
        })
        .collect();
    let mut opened = Vec::new();
    for handle in handles {
        let (n, result) = handle.await.expect("task");
        opened.push((n, result.expect("open")));
    }
    let filter = wenshu_store::AuditFilter {
        principal: Some(owner.clone()),
        limit: wenshu_store::MAX_AUDIT_PAGE,
        ..wenshu_store::AuditFilter::default()
    };
    let entries = store.audit(&filter).await.expect("audit").entries;
    assert_eq!(entries.len(), tasks);
    for (n, (conversation, ids)) in &opened {
        let info = store
            .conversation_info(&conversation.id)
            .await
            .expect("info")
            .expect("exists");
        assert_eq!((info.owner.as_deref(), info.turns), (Some(owner.as_str()), 1));
        let full = store
            .conversation(&conversation.id)
            .await
            .expect("read")
            .expect("exists");
        assert_eq!(full.created_at, conversation.created_at);
        assert_eq!(full.turns[0].id, ids.turn_id);
        assert_eq!(full.turns[0].question, format!("question {n}"));
        let trace = store.trace(&ids.trace_id).await.expect("trace");
        assert_eq!(trace, Some(new_turn("", *n).trace));
        let entry = entries
            .iter()
            .find(|entry| entry.turn_id.as_deref() == Some(ids.turn_id.as_str()))
            .unwrap_or_else(|| panic!("no audit entry for turn {}", ids.turn_id));
        assert_eq!(entry.conversation_id.as_deref(), Some(conversation.id.as_str()));
    }
    let later = store
        .append_turn(new_turn(&opened[0].1.0.id, 2))
        .await
        .expect("a second turn");
    let full = store
        .conversation(&opened[0].1.0.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(
        full.turns.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        [opened[0].1.1.turn_id.as_str(), later.turn_id.as_str()]
    );
}

/// Every case above, one after another, on one store.
pub async fn run_all(store: Arc<dyn Store>) {
    conversation_with_turns(Arc::clone(&store)).await;
    history_is_last_rounds_oldest_first(Arc::clone(&store)).await;
    history_keeps_subject_ids(Arc::clone(&store)).await;
    trace_by_id(Arc::clone(&store)).await;
    unknown_conversation_is_not_found(Arc::clone(&store)).await;
    tool_states_upsert(Arc::clone(&store)).await;
    entity_catalogs_round_trip(Arc::clone(&store)).await;
    owned_pages(Arc::clone(&store)).await;
    conversations_open_with_their_first_turn(Arc::clone(&store), 30).await;
    concurrent_appends_all_land(store, 50).await;
}
