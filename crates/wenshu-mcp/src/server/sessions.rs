//! Bounded MCP sessions over streamable HTTP: at most `max_sessions` live at once, at most `per_owner` of them
//! opened by one owner (the principal that opened it, as the server names it from the request's extensions), each
//! closed after `idle` without a request (rmcp's session `keep_alive` ends its worker; this gate also forgets it and
//! frees its slot). A session answers only its owner: any other request naming it, like one naming an unknown or
//! expired session, gets 404 `unknown_session` (the MCP transport's answer to a session the server does not hold,
//! upon which a client opens a new one). A new session over the owner's share gets a 429, over the whole cap a
//! 503, each with `Retry-After` and the contract's JSON error body. rmcp offers the idle expiry but no cap and no
//! owner, hence this gate in front of its session manager.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Extensions, HeaderValue, Method, Request, Response, StatusCode, header};
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
    /// The most sessions live at once that one owner (principal) opened.
    pub per_owner: usize,
    /// How long a session is kept without a request.
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: 1000,
            per_owner: 50,
            idle: Duration::from_secs(300),
        }
    }
}

/// Names the owner of a request from its extensions (what the server's auth layer put there); `None` when it
/// has none, and all such requests share one owner.
pub type OwnerOf = Arc<dyn Fn(&Extensions) -> Option<String> + Send + Sync>;

/// A live session: its owner and when it was last used.
#[derive(Debug, Clone)]
struct Live {
    owner: String,
    used: Instant,
}

#[derive(Debug, Default)]
struct Book {
    /// Live sessions by id.
    used: HashMap<String, Live>,
    /// New sessions admitted and not yet answered, by owner.
    pending: HashMap<String, usize>,
    /// When idle sessions were last looked for.
    pruned: Option<Instant>,
}

impl Book {
    fn pending_total(&self) -> usize {
        self.pending.values().sum()
    }

    fn held_by(&self, owner: &str) -> usize {
        self.used.values().filter(|live| live.owner == owner).count() + self.pending.get(owner).copied().unwrap_or(0)
    }
}

/// Why a new session is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Its owner holds its share.
    Owner,
    /// The server holds its most.
    Full,
}

/// The gate: counts live sessions by owner, admits or refuses new ones, answers each only its owner, and closes
/// idle ones.
pub struct SessionGate {
    manager: Arc<LocalSessionManager>,
    limits: SessionLimits,
    owner_of: OwnerOf,
    book: Mutex<Book>,
}

impl std::fmt::Debug for SessionGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionGate")
            .field("limits", &self.limits)
            .field("book", &self.book)
            .finish_non_exhaustive()
    }
}

impl SessionGate {
    /// A gate over `manager` with `limits`, every request of one owner.
    pub fn new(manager: Arc<LocalSessionManager>, limits: SessionLimits) -> Self {
        Self::owned(manager, limits, Arc::new(|_: &Extensions| None))
    }

    /// A gate over `manager` with `limits`, naming each request's owner with `owner_of`.
    pub fn owned(manager: Arc<LocalSessionManager>, limits: SessionLimits, owner_of: OwnerOf) -> Self {
        Self {
            manager,
            limits,
            owner_of,
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

    /// Takes a slot of `owner` for a new session; refused when the owner's share or every slot is taken (after
    /// closing idle sessions).
    async fn admit(&self, owner: &str) -> Result<(), Refusal> {
        self.prune(false).await;
        if self.room(owner).is_err() {
            self.prune(true).await;
        }
        self.room(owner)?;
        let mut book = self.lock();
        *book.pending.entry(owner.to_string()).or_insert(0) += 1;
        Ok(())
    }

    /// Whether `owner` may open one more session now.
    fn room(&self, owner: &str) -> Result<(), Refusal> {
        let book = self.lock();
        if book.held_by(owner) >= self.limits.per_owner.max(1) {
            Err(Refusal::Owner)
        } else if book.used.len() + book.pending_total() >= self.limits.max_sessions {
            Err(Refusal::Full)
        } else {
            Ok(())
        }
    }

    /// Gives back an admitted slot of `owner`, recording the session it made (if the response named one).
    fn settle(&self, owner: &str, made: Option<String>) {
        let mut book = self.lock();
        if let Some(pending) = book.pending.get_mut(owner) {
            *pending = pending.saturating_sub(1);
            if *pending == 0 {
                book.pending.remove(owner);
            }
        }
        if let Some(id) = made {
            book.used.insert(
                id,
                Live {
                    owner: owner.to_string(),
                    used: Instant::now(),
                },
            );
        }
    }

    /// Marks a session of `owner` as used now; `false` when it is not live (unknown, expired) or not theirs.
    async fn touch(&self, id: &str, owner: &str) -> bool {
        let expired = {
            let mut book = self.lock();
            match book.used.get_mut(id) {
                Some(live) if live.used.elapsed() >= self.limits.idle => {
                    book.used.remove(id);
                    true
                }
                Some(live) if live.owner == owner => {
                    live.used = Instant::now();
                    return true;
                }
                _ => return false,
            }
        };
        if expired {
            let id: SessionId = id.to_string().into();
            let _ = self.manager.close_session(&id).await;
        }
        false
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
                .filter(|(_, live)| live.used.elapsed() >= idle)
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

    /// Handles one request through `inner`, admitting, touching or forgetting its session; a request naming a
    /// session that is not live or not its owner's gets 404 without reaching `inner`.
    pub async fn handle<F, Fut>(&self, request: Request<F>, inner: impl FnOnce(Request<F>) -> Fut) -> BoxResponse
    where
        Fut: Future<Output = BoxResponse>,
    {
        let session = request
            .headers()
            .get(SESSION_HEADER)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let owner = (self.owner_of)(request.extensions()).unwrap_or_default();
        let method = request.method().clone();
        match session {
            Some(id) => {
                if !self.touch(&id, &owner).await {
                    return unknown();
                }
                let response = inner(request).await;
                if method == Method::DELETE && response.status().is_success() {
                    self.forget(&id);
                }
                response
            }
            None if method == Method::POST => {
                match self.admit(&owner).await {
                    Ok(()) => {}
                    Err(Refusal::Owner) => return over_share(self.limits.per_owner),
                    Err(Refusal::Full) => return full(self.limits.max_sessions),
                }
                // The slot is given back even when the client hangs up before the answer (the future is dropped).
                let mut slot = Slot {
                    gate: self,
                    owner,
                    made: None,
                };
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
    owner: String,
    made: Option<String>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.gate.settle(&self.owner, self.made.take());
    }
}

/// The response type of the MCP service.
pub type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// The 503 for a new session over the cap.
fn full(max: usize) -> BoxResponse {
    let message = format!("the server holds its most MCP sessions ({max}): close one or try again later");
    with_retry(error(StatusCode::SERVICE_UNAVAILABLE, "too_many_sessions", &message))
}

/// The 429 for a new session over its owner's share.
fn over_share(max: usize) -> BoxResponse {
    let message = format!("you hold your most MCP sessions ({max}): close one (DELETE) or let one expire");
    with_retry(error(StatusCode::TOO_MANY_REQUESTS, "too_many_sessions", &message))
}

/// The 404 for a request naming a session that is not live, or not its owner's.
fn unknown() -> BoxResponse {
    let message = "no such MCP session (it expired, was closed, or is not yours): initialize a new one";
    error(StatusCode::NOT_FOUND, "unknown_session", message)
}

/// A response with `status` and the contract's JSON error body.
fn error(status: StatusCode, code: &str, message: &str) -> BoxResponse {
    let body = serde_json::json!({"error": {"code": code, "message": message}}).to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn with_retry(mut response: BoxResponse) -> BoxResponse {
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
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

    /// A request of `owner` (a `String` in its extensions), naming `session` when given.
    fn of(owner: &str, session: Option<&str>) -> Request<()> {
        let mut request = post();
        request.extensions_mut().insert(owner.to_string());
        if let Some(id) = session {
            request.headers_mut().insert(
                SESSION_HEADER,
                HeaderValue::from_str(id).unwrap_or(HeaderValue::from_static("x")),
            );
        }
        request
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
            ..SessionLimits::default()
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

    #[tokio::test]
    async fn an_owner_at_its_share_leaves_room_to_others_and_sessions_answer_only_their_owner() {
        let limits = SessionLimits {
            max_sessions: 10,
            per_owner: 2,
            idle: Duration::from_secs(60),
        };
        let owner_of: OwnerOf = Arc::new(|extensions: &Extensions| extensions.get::<String>().cloned());
        let gate = SessionGate::owned(Arc::new(LocalSessionManager::default()), limits, owner_of);
        for id in ["a1", "a2"] {
            let made = gate
                .handle(of("alice", None), |_| async move { answered(Some(id)) })
                .await;
            assert_eq!(made.status(), StatusCode::OK);
        }
        let refused = gate.handle(of("alice", None), |_| async { answered(Some("a3")) }).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        let bobs = gate.handle(of("bob", None), |_| async { answered(Some("b1")) }).await;
        assert_eq!(bobs.status(), StatusCode::OK);
        let stolen = gate.handle(of("bob", Some("a1")), |_| async { answered(None) }).await;
        assert_eq!(stolen.status(), StatusCode::NOT_FOUND);
        let own = gate.handle(of("alice", Some("a1")), |_| async { answered(None) }).await;
        assert_eq!(own.status(), StatusCode::OK);
        let made_up = gate.handle(of("alice", Some("zz")), |_| async { answered(None) }).await;
        assert_eq!(made_up.status(), StatusCode::NOT_FOUND);
        assert_eq!(gate.live(), 3);
    }
}
