//! The HTTP executor against a real loopback server serving `POST /orders/{id}`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use jiff::civil::date;
use serde_json::{Map, Value, json};
use wenshu_contract::{bind, demo_catalog};
use wenshu_engine::db::{ByteCap, ByteCaps};
use wenshu_engine::execute::{ExecContext, ExecError, Executor, Executors, HttpExecutor};

/// What the server saw: path id, raw query, body.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Value)>>>;

async fn order(
    State(seen): State<Seen>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    Json(body): Json<Value>,
) -> Response {
    if let Ok(mut seen) = seen.lock() {
        seen.push((id.clone(), query.clone(), body.clone()));
    }
    match id.as_str() {
        "missing" => (StatusCode::NOT_FOUND, "no such order: missing").into_response(),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Json(json!([])).into_response()
        }
        "one" => Json(json!({"orderId": id, "total": 99.5})).into_response(),
        // About 2 MB of rows, streamed without a length.
        "big" => {
            let row = json!({"orderId": id, "note": "x".repeat(1000)}).to_string();
            let chunks = (0..2000).map(move |i| {
                let sep = if i == 0 { "[" } else { "," };
                Ok::<_, std::convert::Infallible>(format!("{sep}{row}"))
            });
            let body = futures_util::stream::iter(chunks.chain(std::iter::once(Ok("]".to_string()))));
            axum::body::Body::from_stream(body).into_response()
        }
        _ => Json(json!([
            {"orderId": id, "status": "shipped", "city": body["address"]["city"]},
            {"orderId": format!("{id}-2"), "status": "shipped", "note": "second"}
        ]))
        .into_response(),
    }
}

async fn serve() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/api/orders/{id}", post(order))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/api"), seen)
}

fn ctx(timeout: Duration) -> ExecContext {
    ExecContext {
        timeout,
        ..ExecContext::new(date(2026, 11, 29))
    }
}

fn raw(order_id: &str) -> Map<String, Value> {
    json!({"orderId": order_id, "status": "shipped", "address": {"province": "广东", "city": "深圳"}})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn order_query_sends_path_query_and_body_and_reads_rows() {
    let (base, seen) = serve().await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let call = bind(tool, &raw("ord 123")).unwrap();
    let executor = HttpExecutor::new(&base).unwrap();
    let result = executor
        .execute(tool, &call, &ctx(Duration::from_secs(5)))
        .await
        .unwrap();
    assert_eq!(result.columns, ["orderId", "status", "city", "note"]);
    assert_eq!(
        result.rows,
        vec![
            vec![json!("ord 123"), json!("shipped"), json!("深圳"), Value::Null],
            vec![json!("ord 123-2"), json!("shipped"), Value::Null, json!("second")],
        ]
    );
    assert!(!result.truncated);
    assert_eq!(result.detail["method"], json!("POST"));
    assert_eq!(
        result.detail["url"],
        json!(format!("{base}/orders/ord%20123?status=shipped"))
    );
    assert_eq!(result.detail["status"], json!(200));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, "ord 123");
    assert_eq!(seen[0].1.as_deref(), Some("status=shipped"));
    assert_eq!(seen[0].2, json!({"address": {"province": "广东", "city": "深圳"}}));
}

#[tokio::test]
async fn an_object_is_one_row_and_the_row_cap_applies() {
    let (base, _) = serve().await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let executor = HttpExecutor::new(&base).unwrap();
    let one = bind(tool, &raw("one")).unwrap();
    let result = executor
        .execute(tool, &one, &ctx(Duration::from_secs(5)))
        .await
        .unwrap();
    assert_eq!(result.columns, ["orderId", "total"]);
    assert_eq!(result.rows, vec![vec![json!("one"), json!(99.5)]]);
    let two = bind(tool, &raw("two")).unwrap();
    let capped = ExecContext {
        row_cap: 1,
        ..ctx(Duration::from_secs(5))
    };
    let result = executor.execute(tool, &two, &capped).await.unwrap();
    assert_eq!(result.rows.len(), 1);
    assert!(result.truncated);
}

#[tokio::test]
async fn a_non_2xx_answer_is_an_http_error_with_status_and_body() {
    let (base, _) = serve().await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let call = bind(tool, &raw("missing")).unwrap();
    let err = HttpExecutor::new(&base)
        .unwrap()
        .execute(tool, &call, &ctx(Duration::from_secs(5)))
        .await
        .unwrap_err();
    match &err {
        ExecError::Http { status, message } => {
            assert_eq!(*status, Some(404));
            assert!(message.contains("no such order"), "{message}");
        }
        other => panic!("expected an HTTP error, got {other:?}"),
    }
    assert_eq!(err.code(), "http");
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_a_timeout() {
    let (base, _) = serve().await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let call = bind(tool, &raw("slow")).unwrap();
    let started = std::time::Instant::now();
    let err = HttpExecutor::new(&base)
        .unwrap()
        .execute(tool, &call, &ctx(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert_eq!(err, ExecError::Timeout { after_ms: 300 });
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_refused_connection_is_an_http_error_without_status() {
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let call = bind(tool, &raw("x")).unwrap();
    let err = HttpExecutor::new("http://127.0.0.1:1")
        .unwrap()
        .execute(tool, &call, &ctx(Duration::from_secs(2)))
        .await
        .unwrap_err();
    assert!(matches!(err, ExecError::Http { status: None, .. }), "{err:?}");
}

#[tokio::test]
async fn executors_route_by_tool_name_and_report_missing_ones() {
    let (base, _) = serve().await;
    let catalog = demo_catalog().unwrap();
    let mut executors = Executors::new();
    executors.register("query_order", Arc::new(HttpExecutor::new(&base).unwrap()));
    assert_eq!(executors.tool_names(), ["query_order"]);
    let tool = catalog.get("query_order").unwrap();
    let call = bind(tool, &raw("ord_1")).unwrap();
    let result = executors
        .execute(tool, &call, &ctx(Duration::from_secs(5)))
        .await
        .unwrap();
    assert_eq!(result.rows.len(), 2);
    let fallback = catalog.get("text_to_sql").unwrap();
    let question = json!({"question": "x"}).as_object().cloned().unwrap();
    let call = bind(fallback, &question).unwrap();
    let err = executors
        .execute(fallback, &call, &ctx(Duration::from_secs(5)))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ExecError::NotConfigured {
            tool: "text_to_sql".into()
        }
    );
}

#[tokio::test]
async fn a_body_or_a_value_over_its_byte_cap_is_refused_as_too_large() {
    let (base, _) = serve().await;
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("query_order").unwrap();
    let executor = HttpExecutor::new(&base).unwrap();
    let capped = |cell, result| ExecContext {
        bytes: ByteCaps { cell, result },
        ..ctx(Duration::from_secs(5))
    };
    let big = bind(tool, &raw("big")).unwrap();
    let error = executor.execute(tool, &big, &capped(2000, 100_000)).await.unwrap_err();
    assert_eq!(
        error,
        ExecError::TooLarge {
            cap: ByteCap::Result,
            limit: 100_000
        }
    );
    assert_eq!(error.code(), "too_large");
    assert!(error.to_string().contains("too large"), "{error}");
    let read = executor.execute(tool, &big, &capped(2000, 4_000_000)).await.unwrap();
    assert_eq!(
        read.rows.len(),
        1000,
        "under the caps the rows come back (to the row cap)"
    );
    let error = executor.execute(tool, &big, &capped(500, 4_000_000)).await.unwrap_err();
    assert_eq!(
        error,
        ExecError::TooLarge {
            cap: ByteCap::Cell,
            limit: 500
        }
    );
}
