//! Bounded MCP sessions over streamable HTTP: at most `max_sessions` live at once, each closed after `idle`
//! without a request (rmcp's session `keep_alive` ends its worker; this gate also forgets it and frees its slot).
//! A new session over the cap gets a 503 with `Retry-After` and the contract's JSON error body. rmcp offers the
//! idle expiry but no cap, hence this gate in front of its session manager.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The header that names an MCP session.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// Limits on MCP sessions.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// The most sessions live at once.
    pub max_sessions: usize,
    /// How long a session is kept without a request.
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: 1000,
            idle: Duration::from_secs(300),
        }
    }
}

#[derive(Debug, Default)]
struct Book {
    /// Live sessions by id, with when each was last used.
    used: HashMap<String, Instant>,
    /// New sessions admitted and not yet answered.
    pending: usize,
    /// When idle sessions were last looked for.
    pruned: Option<Instant>,
}

/// The gate: counts live sessions, admits or refuses new ones, and closes idle ones.
#[derive(Debug)]
pub struct SessionGate {
    manager: Arc<LocalSessionManager>,
    limits: SessionLimits,
    book: Mutex<Book>,
}

impl SessionGate {
    /// A gate over `manager` with `limits`.
    pub fn new(manager: Arc<LocalSessionManager>, limits: SessionLimits) -> Self {
        Self {
            manager,
            limits,
            book: Mutex::new(Book::default()),
        }
    }

    /// How many sessions are live (admitted and not closed or expired).
    pub fn live(&self) -> usize {
        self.lock().used.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes a slot for a new session; `false` when every slot is taken (after closing idle sessions).
    async fn admit(&self) -> bool {
        self.prune(false).await;
        if !self.has_room() {
            self.prune(true).await;
        }
        let mut book = self.lock();
        if book.used.len() + book.pending < self.limits.max_sessions {
            book.pending += 1;
            true
        } else {
            false
        }
    }

    fn has_room(&self) -> bool {
        let book = self.lock();
        book.used.len() + book.pending < self.limits.max_sessions
    }

    /// Gives back an admitted slot, recording the session it made (if the response named one).
    fn settle(&self, made: Option<String>) {
        let mut book = self.lock();
        book.pending = book.pending.saturating_sub(1);
        if let Some(id) = made {
            book.used.insert(id, Instant::now());
        }
    }

    /// Marks a session as used now.
    fn touch(&self, id: &str) {
        if let Some(used) = self.lock().used.get_mut(id) {
            *used = Instant::now();
        }
    }

    /// Forgets a session the client closed.
    fn forget(&self, id: &str) {
        self.lock().used.remove(id);
    }

    /// Closes the sessions idle for longer than the limit; at most every quarter of it unless `now`.
    async fn prune(&self, now: bool) {
        let idle = self.limits.idle;
        let expired: Vec<String> = {
            let mut book = self.lock();
            let due = book.pruned.is_none_or(|at| at.elapsed() >= idle / 4);
            if !now && !due {
                return;
            }
            book.pruned = Some(Instant::now());
            let expired: Vec<String> = book
                .used
                .iter()
                .filter(|(_, used)| used.elapsed() >= idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &expired {
                book.used.remove(id);
            }
            expired
        };
        for id in expired {
            let id: SessionId = id.into();
            let _ = self.manager.close_session(&id).await;
        }
    }

    /// Handles one request through `inner`, admitting, touching or forgetting its session.
    pub async fn handle<F, Fut>(&self, request: Request<F>, inner: impl FnOnce(Request<F>) -> Fut) -> BoxResponse
    where
        Fut: Future<Output = BoxResponse>,
    {
        let session = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let method = request.method().clone();
        match session {
            Some(id) => {
                self.touch(&id);
                let response = inner(request).await;
                if method == Method::DELETE && response.status().is_success() {
                    self.forget(&id);
                }
                response
            }
            None if method == Method::POST => {
                if !self.admit().await {
                    return full(self.limits.max_sessions);
                }
                // The slot is given back even when the client hangs up before the answer (the future is dropped).
                let mut slot = Slot { gate: self, made: None };
                let response = inner(request).await;
                slot.made = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                drop(slot);
                response
            }
            None => inner(request).await,
        }
    }
}

/// An admitted slot: given back when dropped, recording the session it made, if any.
struct Slot<'a> {
    gate: &'a SessionGate,
    made: Option<String>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.gate.settle(self.made.take());
    }
}

/// The response type of the MCP service.
pub type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// The 503 for a new session over the cap.
fn full(max: usize) -> BoxResponse {
    let body = serde_json::json!({"error": {
        "code": "too_many_sessions",
        "message": format!("the server holds its most MCP sessions ({max}): close one or try again later"),
    }})
    .to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post() -> Request<()> {
        Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .body(())
            .unwrap_or_default()
    }

    fn answered(session: Option<&str>) -> BoxResponse {
        let mut response = Response::new(Full::new(Bytes::new()).boxed());
        if let Some(id) = session
            && let Ok(value) = HeaderValue::from_str(id)
        {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        response
    }

    #[tokio::test]
    async fn a_hung_up_initialize_gives_its_slot_back_and_the_cap_holds() {
        let limits = SessionLimits {
            max_sessions: 1,
            idle: Duration::from_secs(60),
        };
        let gate = SessionGate::new(Arc::new(LocalSessionManager::default()), limits);
        for _ in 0..3 {
            let hung = gate.handle(post(), |_| std::future::pending::<BoxResponse>());
            assert!(tokio::time::timeout(Duration::from_millis(5), hung).await.is_err());
        }
        let made = gate.handle(post(), |_| async { answered(Some("s1")) }).await;
        assert_eq!(made.status(), StatusCode::OK);
        assert_eq!(gate.live(), 1);
        let refused = gate.handle(post(), |_| async { answered(Some("s2")) }).await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
}
