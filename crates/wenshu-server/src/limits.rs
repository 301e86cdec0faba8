//! Per-client rate limit: a token bucket per API key (or per address without one).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use crate::auth::bearer;
use crate::error::ApiError;
use crate::state::AppState;

/// Token buckets by client.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    /// A limiter allowing `per_minute` requests per client (0: unlimited).
    pub fn new(per_minute: u32) -> Self {
        Self {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `client`; `false` when its bucket is empty.
    pub fn allow(&self, client: &str) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        let capacity = f64::from(self.per_minute);
        let mut buckets = self.buckets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        let (tokens, last) = buckets.entry(client.to_string()).or_insert((capacity, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * capacity / 60.0).min(capacity);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Answers 429 when a client is over its rate.
pub async fn rate_limit(State(state): State<AppState>, request: Request, next: Next) -> Result<Response, ApiError> {
    let client = match bearer(request.headers()) {
        Some(key) => format!("key:{key}"),
        None => request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "anonymous".to_string(), |c| format!("addr:{}", c.0.ip())),
    };
    if state.limiter().allow(&client) {
        return Ok(next.run(request).await);
    }
    Err(ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        "too many requests: try again in a moment",
    ))
}
