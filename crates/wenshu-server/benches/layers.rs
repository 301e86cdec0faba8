//! What the layers every route sits behind cost per request (auth with a key, rate limit, timeouts, the error
//! contract and headers), in process: `GET /api/tools` through the whole stack against the bare handler, next to one
//! `POST /api/ask` through the whole stack (the lexicon engine on the demo database) for scale.

#[path = "../tests/common/mod.rs"]
mod common;

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::routing::get;
use criterion::{Criterion, criterion_group, criterion_main};
use tower::ServiceExt;
use wenshu_server::ServerSettings;

fn request(method: &str, path: &str, body: &'static str) -> Request {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", "Bearer bench-key")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap_or_default();
    let address: SocketAddr = ([127, 0, 0, 1], 40000).into();
    request.extensions_mut().insert(ConnectInfo(address));
    request
}

fn layers(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let server = runtime.block_on(common::start(common::Options {
        settings: ServerSettings {
            rate_per_minute: 1_000_000_000,
            ..common::keyed(&["bench-key"], &[])
        },
        ..common::Options::default()
    }));
    let full = wenshu_server::router(server.state.clone());
    let bare = Router::new()
        .route("/api/tools", get(wenshu_server::api::tools::list))
        .with_state(server.state.clone());
    c.bench_function("tools through every layer", |b| {
        b.to_async(&runtime)
            .iter(|| full.clone().oneshot(request("GET", "/api/tools", "")))
    });
    c.bench_function("tools, bare handler", |b| {
        b.to_async(&runtime)
            .iter(|| bare.clone().oneshot(request("GET", "/api/tools", "")))
    });
    let question = r#"{"question":"华东区本月的销售额是多少"}"#;
    c.bench_function("ask through every layer", |b| {
        b.to_async(&runtime)
            .iter(|| full.clone().oneshot(request("POST", "/api/ask", question)))
    });
}

criterion_group!(benches, layers);
criterion_main!(benches);
