//! A chosen subject over real HTTP: an ID the question's name cannot mean is a 422 naming `subjectId` (nothing is
//! stored), and after the user picks one of two same-named films, the follow-up uses that ID from the store.

mod common;

use serde_json::{Value, json};

use common::{Options, Server, start};

async fn ask(server: &Server, body: Value) -> (u16, Value) {
    let response = server
        .client
        .post(format!("{}/api/ask", server.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn an_id_of_another_film_is_a_422_naming_subject_id() {
    let server = start(Options::default()).await;
    let (_, first) = ask(&server, json!({"question": "英雄上周的票房"})).await;
    assert_eq!(first["kind"], "choose");
    let conversation = first["conversationId"].clone();
    for (id, code) in [(json!(2), "subject_mismatch"), (json!(999), "unknown_subject")] {
        let (status, body) = ask(
            &server,
            json!({"question": "英雄上周的票房", "subjectId": id, "conversationId": conversation}),
        )
        .await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(
            (body["error"]["code"].as_str(), body["error"]["param"].as_str()),
            (Some(code), Some("subjectId"))
        );
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(&id.to_string()), "{message}");
    }
    let stored = server
        .store
        .conversation(conversation.as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.turns.len(), 1, "a rejected request stores no turn");
}

#[tokio::test]
async fn the_follow_up_uses_the_chosen_id() {
    let server = start(Options::default()).await;
    let (_, first) = ask(&server, json!({"question": "英雄上周的票房"})).await;
    let conversation = first["conversationId"].clone();
    let (status, chosen) = ask(
        &server,
        json!({"question": "英雄上周的票房", "subjectId": 22, "conversationId": conversation}),
    )
    .await;
    assert_eq!(
        (status, chosen["params"]["movieId"].as_i64()),
        (200, Some(22)),
        "{chosen}"
    );
    let (status, follow_up) = ask(
        &server,
        json!({"question": "那它的评分呢", "conversationId": conversation}),
    )
    .await;
    assert_eq!(status, 200, "{follow_up}");
    assert_eq!(
        (follow_up["kind"].as_str(), follow_up["tool"].as_str()),
        (Some("answered"), Some("movie_rating")),
        "{follow_up}"
    );
    assert_eq!(follow_up["params"]["movieId"], 22);
}

#[tokio::test]
async fn a_whole_number_written_with_a_fraction_part_is_the_same_id_and_a_fraction_is_a_422() {
    let server = start(Options::default()).await;
    let (_, first) = ask(&server, json!({"question": "英雄上周的票房"})).await;
    let conversation = first["conversationId"].clone();
    let (status, chosen) = ask(
        &server,
        json!({"question": "英雄上周的票房", "subjectId": 22.0, "conversationId": conversation}),
    )
    .await;
    assert_eq!(
        (status, chosen["params"]["movieId"].as_i64()),
        (200, Some(22)),
        "{chosen}"
    );
    for id in [
        json!(21.5),
        json!(-4.7898382105757804e26),
        json!(9_007_199_254_740_992_u64),
        json!(-9_007_199_254_740_992_i64),
    ] {
        let (status, body) = ask(
            &server,
            json!({"question": "英雄上周的票房", "subjectId": id, "conversationId": conversation}),
        )
        .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (422, Some("invalid_type")),
            "{body}"
        );
    }
}
