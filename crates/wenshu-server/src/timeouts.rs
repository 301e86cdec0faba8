//! Request timeouts: the whole body must arrive within the body-read timeout (a slow body is cut off with 408),
//! and the whole request must be answered within the request deadline (503). A streamed answer's deadline ends
//! when its events start.

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// The request timeouts.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// How long the whole request body may take to arrive.
    pub body_read: Duration,
    /// How long a request may take to be answered (to its response head, for a stream).
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            body_read: Duration::from_secs(10),
            request: Duration::from_secs(60),
        }
    }
}

/// Reads a request's body within the body-read timeout (and the body cap), then passes it on in memory.
pub async fn read_body(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS | Method::DELETE
    ) && !request.headers().contains_key(header::CONTENT_LENGTH)
        && !request.headers().contains_key(header::TRANSFER_ENCODING)
    {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let max = state.settings().max_body_bytes;
    let limit = state.timeouts().body_read;
    let bytes = match tokio::time::timeout(limit, axum::body::to_bytes(body, max)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return closing(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("the body is over the cap or broken off; at most {max} bytes are accepted"),
            ));
        }
        Err(_) => {
            return closing(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                format!("the body did not arrive within {} s", limit.as_secs_f64()),
            ));
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Answers 503 when a request is not answered within the request deadline; its work is dropped.
pub async fn deadline(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limit = state.timeouts().request;
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "deadline",
            format!("the request was not answered within {} s", limit.as_secs_f64()),
        )
        .into_response(),
    }
}

/// An error response that closes the connection (its body may be half read).
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
