//! Per-client rate limits: a token bucket per verified principal (its key fingerprint, or the client address when
//! no keys are configured), never per unverified token. The map of buckets is bounded: when it is full, buckets
//! that have refilled are dropped (a full bucket is the same as none), then the longest-idle one. A bucket
//! remembers that it locked (its first refusal) until it refills, so that a lock-out is reported once
//! ([`RateLimiter::take_noting_lock`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The most buckets a limiter keeps by default.
pub const DEFAULT_MAX_BUCKETS: usize = 10_000;

/// Token buckets by client, at most `max_buckets` of them.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    max_buckets: usize,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// One client's bucket: its tokens, when they were counted, and whether it has refused since it was last full.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
    locked: bool,
}

/// A refusal of [`RateLimiter::take_noting_lock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locked {
    /// How long until a token is back.
    pub wait: Duration,
    /// Whether this is the bucket's first refusal since it was last full (the moment it locked).
    pub newly: bool,
}

impl RateLimiter {
    /// A limiter allowing `per_minute` requests per client (0: unlimited), keeping [`DEFAULT_MAX_BUCKETS`].
    pub fn new(per_minute: u32) -> Self {
        Self::bounded(per_minute, DEFAULT_MAX_BUCKETS)
    }

    /// A limiter allowing `per_minute` requests per client, keeping at most `max_buckets` clients.
    pub fn bounded(per_minute: u32, max_buckets: usize) -> Self {
        Self {
            per_minute,
            max_buckets: max_buckets.max(1),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `client`; `Err(wait)` when its bucket is empty, with how long until one is back.
    pub fn take(&self, client: &str) -> Result<(), Duration> {
        self.check(client, true).map_err(|locked| locked.wait)
    }

    /// Takes one token for `client`; when its bucket is empty, says how long to wait and whether the bucket has
    /// just locked (its first refusal since it was last full).
    pub fn take_noting_lock(&self, client: &str) -> Result<(), Locked> {
        self.check(client, true)
    }

    /// Whether `client` has a token left, without taking it; `Err(wait)` as [`RateLimiter::take`].
    pub fn peek(&self, client: &str) -> Result<(), Duration> {
        self.check(client, false).map_err(|locked| locked.wait)
    }

    /// Takes one token for `client`; `false` when its bucket is empty.
    pub fn allow(&self, client: &str) -> bool {
        self.take(client).is_ok()
    }

    /// How many clients have a bucket now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no client has a bucket.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Bucket>> {
        self.buckets.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn check(&self, client: &str, consume: bool) -> Result<(), Locked> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let refill = |tokens: f64, last: Instant, now: Instant| {
            (tokens + now.duration_since(last).as_secs_f64() * capacity / 60.0).min(capacity)
        };
        let now = Instant::now();
        let mut buckets = self.lock();
        if !buckets.contains_key(client) {
            if !consume {
                return Ok(());
            }
            if buckets.len() >= self.max_buckets {
                buckets.retain(|_, bucket| refill(bucket.tokens, bucket.last, now) < capacity);
            }
            if buckets.len() >= self.max_buckets
                && let Some(oldest) = buckets
                    .iter()
                    .min_by_key(|(_, bucket)| bucket.last)
                    .map(|(k, _)| k.clone())
            {
                buckets.remove(&oldest);
            }
            buckets.insert(
                client.to_string(),
                Bucket {
                    tokens: capacity,
                    last: now,
                    locked: false,
                },
            );
        }
        let Some(bucket) = buckets.get_mut(client) else {
            return Ok(());
        };
        bucket.tokens = refill(bucket.tokens, bucket.last, now);
        bucket.last = now;
        if bucket.tokens >= capacity {
            bucket.locked = false;
        }
        if bucket.tokens >= 1.0 {
            if consume {
                bucket.tokens -= 1.0;
            }
            Ok(())
        } else {
            let newly = consume && !bucket.locked;
            if consume {
                bucket.locked = true;
            }
            Err(Locked {
                wait: Duration::from_secs_f64((1.0 - bucket.tokens) * 60.0 / capacity),
                newly,
            })
        }
    }
}

/// Requests in flight by client, at most `max` each; an [`Entered`] slot is given back when dropped.
#[derive(Debug)]
pub struct InFlight {
    max: usize,
    counts: Mutex<HashMap<String, usize>>,
}

/// One request in flight, counted against its client.
#[derive(Debug)]
pub struct Entered<'a> {
    book: &'a InFlight,
    client: String,
}

impl InFlight {
    /// A count allowing `max` requests in flight per client (at least 1).
    pub fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one more request of `client`; `None` when it already has its most in flight.
    pub fn enter(&self, client: &str) -> Option<Entered<'_>> {
        let mut counts = self.lock();
        let count = counts.entry(client.to_string()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Entered {
            book: self,
            client: client.to_string(),
        })
    }

    /// How many requests `client` has in flight.
    pub fn in_flight(&self, client: &str) -> usize {
        self.lock().get(client).copied().unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.counts.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut counts = self.book.lock();
        if let Some(count) = counts.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.client);
            }
        }
    }
}

/// A 429 with `Retry-After` (whole seconds, at least 1) and the contract's JSON body.
pub fn too_many(wait: Duration, message: &str) -> Response {
    let seconds = wait.as_secs_f64().ceil().max(1.0);
    let mut response = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("{seconds:.0}")) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// Answers 429 when the request's principal is over its rate (after the auth layer made the principal); the
/// public routes are not limited.
pub async fn rate_limit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if crate::auth::is_public(request.uri().path()) {
        return next.run(request).await;
    }
    let bucket = request
        .extensions()
        .get::<Principal>()
        .map_or_else(|| "anonymous".to_string(), Principal::bucket);
    match state.limiter().take(&bucket) {
        Ok(()) => next.run(request).await,
        Err(wait) => too_many(wait, "too many requests: try again after the Retry-After seconds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_says_when_to_retry() {
        let limiter = RateLimiter::bounded(2, 3);
        assert!(limiter.allow("a") && limiter.allow("a"));
        let wait = limiter.take("a").unwrap_err();
        assert!(
            wait > Duration::from_secs(20) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        for i in 0..100 {
            assert!(limiter.allow(&format!("c{i}")));
        }
        assert!(limiter.len() <= 3);
        assert!(limiter.peek("new").is_ok());
        assert!(RateLimiter::new(0).allow("x"));
    }

    #[test]
    fn in_flight_is_capped_per_client_and_given_back() {
        let book = InFlight::new(2);
        let (a1, a2) = (book.enter("a"), book.enter("a"));
        assert!(a1.is_some() && a2.is_some());
        assert!(book.enter("a").is_none());
        assert!(book.enter("b").is_some());
        drop(a1);
        assert_eq!(book.in_flight("a"), 1);
        assert!(book.enter("a").is_some());
        drop(a2);
        assert_eq!(book.in_flight("a"), 0);
    }

    #[test]
    fn a_lock_is_noted_once_until_the_bucket_refills() {
        let limiter = RateLimiter::new(2);
        assert_eq!(limiter.take_noting_lock("a"), Ok(()));
        assert_eq!(limiter.take_noting_lock("a"), Ok(()));
        assert!(limiter.take_noting_lock("a").unwrap_err().newly);
        assert!(!limiter.take_noting_lock("a").unwrap_err().newly);
        assert!(limiter.take_noting_lock("b").is_ok());
    }
}
