//! Principals over real HTTP on 127.0.0.1: configured keys with attributes become the viewer every door hands the
//! engine; two principals keep their own conversations; JWT bearer tokens signed here (HS256, and RS256/ES256 from
//! a JWKS file) are admitted or refused with a 401 saying why, throttled as wrong keys are; `/mcp` takes them too.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::routing;
use axum::{Extension, Json, Router};
use common::{Options, Server, start};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};
use wenshu_engine::scope::Viewer;
use wenshu_server::ServerSettings;
use wenshu_server::jwt::{JwtKey, JwtSettings, JwtVerifier};
use wenshu_server::principal::KeyPrincipal;

const SECRET: &str = "the-test-secret-of-more-than-32-bytes";
const ISSUER: &str = "https://sso.test";
const QUESTION: &str = "华东区本月的销售额是多少";

fn principal(name: &str, key: &str, admin: bool, attributes: Value) -> KeyPrincipal {
    KeyPrincipal::new(name, key, admin, serde_json::from_value(attributes).unwrap()).unwrap()
}

fn jwt(key: JwtKey) -> Arc<JwtVerifier> {
    Arc::new(
        JwtVerifier::new(JwtSettings {
            issuer: ISSUER.into(),
            audience: "wenshu".into(),
            key,
            leeway_secs: 5,
            name_claim: Some("name".into()),
            role_claim: Some("roles".into()),
            admin_values: vec!["admin".into()],
            attributes: BTreeMap::from([("region".to_string(), "region".to_string())]),
        })
        .unwrap(),
    )
}

fn settings() -> ServerSettings {
    ServerSettings {
        principals: vec![
            principal("alice", "alice-key", false, json!({"region": "华东", "tenant_id": 7})),
            principal("bob", "bob-key", false, json!({"region": "华南"})),
            principal("root", "root-key", true, json!({})),
        ],
        jwt: Some(jwt(JwtKey::Secret(SECRET.into()))),
        ..ServerSettings::default()
    }
}

fn now() -> i64 {
    jsonwebtoken::get_current_timestamp() as i64
}

fn claims(sub: &str, extra: Value) -> Value {
    let mut claims = json!({"iss": ISSUER, "aud": "wenshu", "sub": sub, "exp": now() + 600, "region": "华北"});
    claims
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    claims
}

fn hs256(claims: &Value, secret: &str) -> String {
    encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

/// POSTs a question with `token`: (status, body).
async fn ask(server: &Server, token: &str, body: Value) -> (u16, Value) {
    let response = server
        .client
        .post(format!("{}/api/ask", server.base))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let (status, auth) = (
        response.status().as_u16(),
        response.headers().get("www-authenticate").cloned(),
    );
    if status == 401 {
        assert_eq!(
            auth.and_then(|v| v.to_str().ok().map(str::to_string)).as_deref(),
            Some("Bearer")
        );
    }
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn get(server: &Server, path: &str, token: &str) -> (u16, Value) {
    let response = server
        .client
        .get(format!("{}{path}", server.base))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

/// The same state behind the same layers with one more route, `/viewer`, that answers the viewer the auth layer
/// put into the request (a test route: the server itself has none).
async fn viewer_echo(server: &Server) -> String {
    async fn echo(Extension(viewer): Extension<Viewer>) -> Json<Viewer> {
        Json(viewer)
    }
    let app = wenshu_server::app(server.state.clone(), Router::new().route("/viewer", routing::get(echo)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(wenshu_server::serve_with(listener, app, Default::default()));
    base
}

#[tokio::test]
async fn keys_and_tokens_become_the_viewer_the_auth_layer_hands_on() {
    let server = start(Options {
        settings: settings(),
        ..Options::default()
    })
    .await;
    let base = viewer_echo(&server).await;
    let viewer = |token: String| {
        let (client, url) = (server.client.clone(), format!("{base}/viewer"));
        async move {
            let response = client.get(url).bearer_auth(token).send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()
        }
    };
    let alice = viewer("alice-key".into()).await;
    assert_eq!(alice["unscoped"], false);
    assert_eq!(alice["name"], "alice");
    assert_eq!(alice["attributes"], json!({"region": "华东", "tenant_id": 7}));
    assert!(alice["id"].as_str().unwrap().starts_with("k-"));
    let root = viewer("root-key".into()).await;
    assert_eq!(root["unscoped"], true);
    let token = viewer(hs256(&claims("u-9", json!({"name": "Li"})), SECRET)).await;
    assert_eq!(token["id"], "jwt:u-9");
    assert_eq!(
        (token["name"].as_str(), token["unscoped"].as_bool()),
        (Some("Li"), Some(false))
    );
    assert_eq!(token["attributes"], json!({"region": "华北"}));
    let admin = viewer(hs256(&claims("u-0", json!({"roles": ["admin"]})), SECRET)).await;
    assert_eq!(admin["unscoped"], true);
}

#[tokio::test]
async fn two_principals_keep_their_own_conversations_keys_and_tokens_alike() {
    let server = start(Options {
        settings: settings(),
        ..Options::default()
    })
    .await;
    let carol = hs256(&claims("carol", json!({})), SECRET);
    let (mut ids, mut turns) = (Vec::new(), Vec::new());
    for token in ["alice-key", "bob-key", carol.as_str()] {
        let (status, body) = ask(&server, token, json!({"question": QUESTION})).await;
        assert_eq!(status, 200, "{body}");
        ids.push(body["conversationId"].as_str().unwrap().to_string());
        turns.push(body["turnId"].clone());
    }
    // Feedback on a turn is its owner's: the token's subject may judge its own turn, not alice's.
    let feedback = |turn: &Value, token: &str| {
        let request = server
            .client
            .put(format!("{}/api/turns/{}/feedback", server.base, turn.as_str().unwrap()))
            .bearer_auth(token)
            .json(&json!({"verdict": "up"}));
        async move { request.send().await.unwrap().status().as_u16() }
    };
    assert!(matches!(feedback(&turns[2], &carol).await, 200 | 204));
    assert_eq!(feedback(&turns[0], &carol).await, 404);
    let info = server.store.conversation_info(&ids[2]).await.unwrap().unwrap();
    assert_eq!(info.owner.as_deref(), Some("jwt:carol"));
    for (own, token) in ["alice-key", "bob-key", carol.as_str()].into_iter().enumerate() {
        for (at, id) in ids.iter().enumerate() {
            let (status, _) = get(&server, &format!("/api/conversations/{id}"), token).await;
            assert_eq!(
                status,
                if at == own { 200 } else { 404 },
                "principal {own} reading conversation {at}"
            );
        }
        let (_, list) = get(&server, "/api/conversations", token).await;
        let listed: Vec<&str> = list["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["id"].as_str())
            .collect();
        assert_eq!(listed, [ids[own].as_str()]);
        // Continuing another's conversation is 404, as if it did not exist.
        let other = &ids[(own + 1) % 3];
        let (status, _) = ask(&server, token, json!({"question": QUESTION, "conversationId": other})).await;
        assert_eq!(status, 404);
    }
    // The same subject in a later token is the same owner.
    let again = hs256(&claims("carol", json!({"exp": now() + 900})), SECRET);
    let (status, _) = get(&server, &format!("/api/conversations/{}", ids[2]), &again).await;
    assert_eq!(status, 200);
    let (status, _) = get(&server, &format!("/api/conversations/{}", ids[0]), "root-key").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn tokens_are_admitted_or_refused_with_why_and_never_echoed() {
    let server = start(Options {
        settings: ServerSettings {
            auth_failures_per_minute: 100,
            ..settings()
        },
        ..Options::default()
    })
    .await;
    let valid = hs256(&claims("u-1", json!({})), SECRET);
    let (status, body) = ask(&server, &valid, json!({"question": QUESTION})).await;
    assert_eq!(status, 200, "{body}");
    let wrong_audience = claims("u-1", json!({"aud": ["another-app"]}));
    for (token, why) in [
        (hs256(&claims("u-1", json!({"exp": now() - 120})), SECRET), "expired"),
        (
            hs256(&claims("u-1", json!({})), "not-the-secret-but-as-long-as-one-is"),
            "signature",
        ),
        (hs256(&wrong_audience, SECRET), "audience"),
        (
            hs256(&claims("u-1", json!({"iss": "https://elsewhere"})), SECRET),
            "issuer",
        ),
        ("bm90.anNvbg.c2ln".to_string(), "well-formed"),
    ] {
        let (status, body) = ask(&server, &token, json!({"question": QUESTION})).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (401, Some("invalid_token")),
            "{why}: {body}"
        );
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{why}: {message}");
        assert!(!body.to_string().contains(&token), "the token is not echoed");
    }
    // A key that is not a JWT is still an API key.
    let (status, body) = ask(&server, "not-a-key", json!({"question": QUESTION})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_key")));
    // Public routes stay open to a bad token.
    let response = server
        .client
        .get(format!("{}/healthz", server.base))
        .bearer_auth("a.b.c")
        .send()
        .await;
    assert_eq!(response.unwrap().status(), 200);
}

#[tokio::test]
async fn wrong_tokens_are_throttled_like_wrong_keys() {
    let server = start(Options {
        settings: ServerSettings {
            auth_failures_per_minute: 2,
            ..settings()
        },
        ..Options::default()
    })
    .await;
    let forged = hs256(&claims("u-1", json!({})), "not-the-secret-but-as-long-as-one-is");
    for _ in 0..2 {
        assert_eq!(ask(&server, &forged, json!({"question": QUESTION})).await.0, 401);
    }
    let (status, body) = ask(&server, &forged, json!({"question": QUESTION})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (429, Some("rate_limited")));
    // A valid token from the same address is still answered (D19).
    let valid = hs256(&claims("u-1", json!({})), SECRET);
    assert_eq!(ask(&server, &valid, json!({"question": QUESTION})).await.0, 200);
}

#[tokio::test]
async fn a_jwks_file_verifies_rs256_and_es256_tokens_on_the_api_and_mcp() {
    let jwks = include_str!("fixtures/jwt-test-jwks.json");
    let server = start(Options {
        settings: ServerSettings {
            jwt: Some(jwt(JwtKey::Jwks(jwks.into()))),
            ..ServerSettings::default()
        },
        ..Options::default()
    })
    .await;
    let sign = |alg, kid: &str, key: &EncodingKey| {
        let mut header = Header::new(alg);
        header.kid = Some(kid.to_string());
        encode(&header, &claims("rs-user", json!({})), key).unwrap()
    };
    let rsa = EncodingKey::from_rsa_der(include_bytes!("fixtures/jwt-test-rsa.der"));
    let ec = EncodingKey::from_ec_der(include_bytes!("fixtures/jwt-test-ec.p8.der"));
    let rs256 = sign(Algorithm::RS256, "test-rsa", &rsa);
    let (status, body) = ask(&server, &rs256, json!({"question": QUESTION})).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = ask(
        &server,
        &sign(Algorithm::ES256, "test-ec", &ec),
        json!({"question": QUESTION}),
    )
    .await;
    assert_eq!(status, 200);
    // A symmetric token made with the published keys as its secret is refused.
    let forged = sign(Algorithm::HS256, "test-rsa", &EncodingKey::from_secret(jwks.as_bytes()));
    let (status, body) = ask(&server, &forged, json!({"question": QUESTION})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_token")));
    // `/mcp` sits behind the same layer: no token 401, the RS256 token opens a session.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "principals", "version": "0"}}});
    let mcp = |token: Option<String>| {
        let mut request = server
            .client
            .post(format!("{}/mcp", server.base))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    // With tokens only, an admin is a token whose role claim names one: it may change tools, a user may not.
    let switch = |token: String| {
        let request = server
            .client
            .patch(format!("{}/api/tools/movie_rating", server.base))
            .bearer_auth(token)
            .json(&json!({"enabled": true}));
        async move { request.send().await.unwrap().status().as_u16() }
    };
    let admin = {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("test-rsa".into());
        encode(&header, &claims("ops", json!({"roles": "admin"})), &rsa).unwrap()
    };
    assert_eq!(switch(admin).await, 200);
    assert_eq!(switch(rs256.clone()).await, 403);
    assert_eq!(mcp(None).await.unwrap().status(), 401);
    assert_eq!(mcp(Some(forged)).await.unwrap().status(), 401);
    let opened = mcp(Some(rs256)).await.unwrap();
    assert_eq!(opened.status(), 200);
    assert!(opened.headers().contains_key("mcp-session-id"));
}
