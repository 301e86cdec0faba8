//! The library on SQLite (always) and PostgreSQL (when `WENSHU_TEST_POSTGRES_URL` is set): the conversation list
//! by owner, rename, delete with everything under it, a turn with its owner, and feedback stored with the turn.

mod common;

use std::sync::Arc;

use serde_json::json;
use wenshu_store::{SqliteStore, Store, open_store};

/// Every library operation on one store; owners are unique, so the case can share a database with other runs.
async fn library_case(store: Arc<dyn Store>) {
    let owner = common::unique("owner");
    let other = common::unique("other");
    let first = store.create_owned_conversation(Some(&owner)).await.expect("create");
    let second = store.create_owned_conversation(Some(&owner)).await.expect("create");
    let empty = store.create_owned_conversation(Some(&owner)).await.expect("create");
    let foreign = store.create_owned_conversation(Some(&other)).await.expect("create");
    let mut turn = common::new_turn(&first.id, 1);
    turn.outcome = json!({"kind": "answered", "params": {"region": "华东"}, "rows": [[1]]});
    let kept = store.append_turn(turn).await.expect("append");
    store.append_turn(common::new_turn(&first.id, 2)).await.expect("append");
    store
        .append_turn(common::new_turn(&second.id, 3))
        .await
        .expect("append");
    store
        .append_turn(common::new_turn(&foreign.id, 4))
        .await
        .expect("append");

    // Only the owner's conversations with turns, newest activity first, titled by their first question.
    let list = store.list_conversations(Some(&owner), 10).await.expect("list");
    let ids: Vec<&str> = list.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str(), first.id.as_str()], "{list:?}");
    assert!(!ids.contains(&empty.id.as_str()));
    assert_eq!(list[1].title, "question 1");
    assert_eq!(list[1].turn_count, 2);
    assert!(!list[1].renamed);
    assert_eq!(store.list_conversations(Some(&owner), 1).await.expect("list").len(), 1);

    // A rename is kept and shown; an unknown id is false.
    assert!(store.rename_conversation(&first.id, "华东月报").await.expect("rename"));
    assert!(
        !store
            .rename_conversation("0000000000000000", "x")
            .await
            .expect("rename")
    );
    let list = store.list_conversations(Some(&owner), 10).await.expect("list");
    let renamed = list.iter().find(|c| c.id == first.id).expect("listed");
    assert_eq!((renamed.title.as_str(), renamed.renamed), ("华东月报", true));

    // A turn comes back with its conversation and owner.
    let owned = store.owned_turn(&kept.turn_id).await.expect("turn").expect("found");
    assert_eq!(owned.conversation_id, first.id);
    assert_eq!(owned.owner.as_deref(), Some(owner.as_str()));
    assert_eq!(owned.turn.question, "question 1");
    assert!(store.owned_turn("nope").await.expect("turn").is_none());

    // Feedback is one verdict per turn (the last wins), listed with the question and the plan.
    store
        .set_feedback(&kept.turn_id, "down", Some("区域不对"))
        .await
        .expect("feedback");
    let stored = store.set_feedback(&kept.turn_id, "up", None).await.expect("feedback");
    assert_eq!(stored.verdict, "up");
    // The page of the conversation carries the verdict of its turn, so a reload shows it again.
    let page = store
        .conversation_page(&first.id, 100, None)
        .await
        .expect("page")
        .expect("conversation");
    let verdicts: Vec<(&str, &str)> = page
        .feedback
        .iter()
        .map(|f| (f.turn_id.as_str(), f.verdict.as_str()))
        .collect();
    assert_eq!(verdicts, [(kept.turn_id.as_str(), "up")]);
    let all = store.feedback(1000).await.expect("list");
    let mine: Vec<_> = all.iter().filter(|f| f.feedback.turn_id == kept.turn_id).collect();
    assert_eq!(mine.len(), 1, "{all:?}");
    assert_eq!(mine[0].feedback.verdict, "up");
    assert_eq!(mine[0].feedback.note, None);
    assert_eq!(mine[0].question, "question 1");
    assert_eq!(mine[0].params, json!({"region": "华东"}));
    assert_eq!(mine[0].owner.as_deref(), Some(owner.as_str()));
    assert!(store.set_feedback("no-such-turn", "up", None).await.is_err());

    // A delete takes the turns, traces and feedback with it; a second delete finds nothing.
    assert!(store.delete_conversation(&first.id).await.expect("delete"));
    assert!(!store.delete_conversation(&first.id).await.expect("delete"));
    assert!(store.conversation_info(&first.id).await.expect("info").is_none());
    assert!(store.owned_turn(&kept.turn_id).await.expect("turn").is_none());
    let all = store.feedback(1000).await.expect("list");
    assert!(all.iter().all(|f| f.feedback.turn_id != kept.turn_id));
    let ids: Vec<String> = store
        .list_conversations(Some(&owner), 10)
        .await
        .expect("list")
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, std::slice::from_ref(&second.id));
    assert_eq!(store.list_conversations(Some(&other), 10).await.expect("list").len(), 1);
}

#[tokio::test]
async fn library_on_sqlite() {
    library_case(Arc::new(SqliteStore::memory().await.expect("memory"))).await;
}

#[tokio::test]
async fn library_on_a_sqlite_file_without_owners() {
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite:{}", dir.path().join("s.db").display());
    let store = open_store(&url).await.expect("open");
    let one = store.create_owned_conversation(None).await.expect("create");
    store.append_turn(common::new_turn(&one.id, 1)).await.expect("append");
    let list = store.list_conversations(None, 10).await.expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].id, one.id);
}

#[tokio::test]
async fn library_on_postgres() {
    let Ok(url) = std::env::var("WENSHU_TEST_POSTGRES_URL") else {
        eprintln!("skipped: WENSHU_TEST_POSTGRES_URL is not set");
        return;
    };
    library_case(open_store(&url).await.expect("connect")).await;
}
