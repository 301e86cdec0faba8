//! The accept loop: HTTP/1.1 with a header-read timeout that also bounds an idle keep-alive connection (hyper
//! starts it whenever the connection waits for a request head), a cap on open connections and a smaller one per
//! client address: over either, a connection gets one clean 503 JSON response and is closed, instead of the
//! listener running out of descriptors or one address holding every slot.
//! hyper answers a request it cannot parse itself, before any service runs (400 for a bad request line, length or
//! header, 414 for a URI over 65,534 bytes, 431 for too many or too large headers), with an empty body and no hook
//! for another one; [`JsonErrors`] sits between hyper and the socket and writes those answers with the contract's
//! JSON error body instead.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// How the listener treats connections.
#[derive(Debug, Clone, Copy)]
pub struct ListenSettings {
    /// How long a connection may take to send a request head, and how long an idle keep-alive connection is kept.
    pub header_read: Duration,
    /// The most connections open at once; more get a 503 and are closed.
    pub max_connections: usize,
    /// The most connections open at once from one client address; more from it get a 503 and are closed.
    pub max_connections_per_address: usize,
}

impl Default for ListenSettings {
    fn default() -> Self {
        Self {
            header_read: Duration::from_secs(10),
            max_connections: 1024,
            max_connections_per_address: 128,
        }
    }
}

/// The 503 a connection over the cap gets before it is closed.
const FULL: &str = "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"the server has too many open \
                    connections: try again in a moment\"}}";

/// The 503 a connection over its address's cap gets before it is closed.
const FULL_FOR_ADDRESS: &str = "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"this address has \
                                too many open connections: close some or try again in a moment\"}}";

/// Open connections by client address, each at most a cap; a [`Held`] slot is given back when dropped.
#[derive(Debug)]
pub struct PerAddress {
    max: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection counted against its address.
#[derive(Debug)]
pub struct Held {
    book: Arc<PerAddress>,
    address: IpAddr,
}

impl PerAddress {
    /// A count allowing `max` connections per address (at least 1).
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max: max.max(1),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// Counts one more connection from `address`; `None` when it already has its most.
    pub fn hold(self: &Arc<Self>, address: IpAddr) -> Option<Held> {
        let mut open = self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = open.entry(address).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Held {
            book: Arc::clone(self),
            address,
        })
    }

    /// How many connections `address` has open.
    pub fn open(&self, address: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        open.get(&address).copied().unwrap_or(0)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.book.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = open.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

/// Serves `router` on `listener` with `settings` until the process ends.
pub async fn serve_with(listener: TcpListener, router: Router, settings: ListenSettings) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(settings.max_connections.max(1)));
    let per_address = PerAddress::new(settings.max_connections_per_address);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read)
        .keep_alive(true);
    loop {
        let (stream, address) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors or a connection reset before accept: wait a little and go on.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // The address's own cap first, so that one address at its cap takes no slot of the others.
        let Some(held) = per_address.hold(address.ip()) else {
            tokio::spawn(refuse(stream, FULL_FOR_ADDRESS));
            continue;
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tokio::spawn(refuse(stream, FULL));
            continue;
        };
        let service = router
            .clone()
            .map_request(move |mut request: axum::extract::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(address));
                request.map(axum::body::Body::new)
            });
        let connection = builder
            .serve_connection(TokioIo::new(JsonErrors::new(stream)), TowerToHyperService::new(service))
            .with_upgrades();
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, %address, "connection ended with an error");
            }
            drop(permit);
            drop(held);
        });
    }
}

/// Answers a connection over a cap with a 503 and `body`, and closes it (within a second, whatever the client
/// does).
async fn refuse(mut stream: TcpStream, body: &'static str) {
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         retry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// A connection's socket as hyper sees it: reads pass through; a write that is one of hyper's own error answers
/// (a 4xx or 5xx head with `content-length: 0` and no content type: every response of the routes carries the
/// contract's JSON body, see [`crate::guard::contract`]) is replaced by the same status with the JSON error body.
#[derive(Debug)]
pub struct JsonErrors<S> {
    inner: S,
    pending: Vec<u8>,
    written: usize,
}

impl<S> JsonErrors<S> {
    /// Wraps a connection's socket.
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<S: AsyncWrite + Unpin> JsonErrors<S> {
    /// Writes what is left of a replaced answer; ready when none is left.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while self.written < self.pending.len() {
            let n = std::task::ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonErrors<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonErrors<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        if let Some(answer) = json_answer(buf) {
            self.pending = answer;
            // The replacement is written now or by the next write, flush or shutdown; hyper's bytes are taken.
            let _ = self.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next())
            && let Some(answer) = json_answer(only)
        {
            self.pending = answer;
            let _ = self.drain(cx)?;
            return Poll::Ready(Ok(only.len()));
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The answer that replaces `head` when it is one of hyper's own error answers: a whole response head of status
/// 400 or more, with `content-length: 0` and no content type; `None` for anything else.
fn json_answer(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.")?;
    if !text.ends_with("\r\n\r\n") || text.len() > 4096 {
        return None;
    }
    let status: u16 = rest.get(2..5)?.parse().ok()?;
    if status < 400 {
        return None;
    }
    let headers: Vec<String> = text.split("\r\n").skip(1).map(str::to_ascii_lowercase).collect();
    let empty = headers.iter().any(|h| h.replace(' ', "") == "content-length:0");
    if !empty || headers.iter().any(|h| h.starts_with("content-type:")) {
        return None;
    }
    let (code, message) = match status {
        414 => ("uri_too_long", "the request's URI is over 65,534 bytes"),
        431 => (
            "headers_too_large",
            "the request has too many headers, or too large ones",
        ),
        _ => (
            "bad_request",
            "the request cannot be read as HTTP/1.1: its request line, a header or its length is malformed",
        ),
    };
    let body = serde_json::json!({"error": {"code": code, "message": message}}).to_string();
    let status_line = text.split("\r\n").next()?;
    Some(
        format!(
            "{status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\
             x-content-type-options: nosniff\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_at_its_cap_is_refused_and_others_are_not() {
        let book = PerAddress::new(2);
        let (a, b): (IpAddr, IpAddr) = ([127, 0, 0, 1].into(), [127, 0, 0, 2].into());
        let first = book.hold(a);
        let second = book.hold(a);
        assert!(first.is_some() && second.is_some());
        assert!(book.hold(a).is_none());
        assert!(book.hold(b).is_some());
        drop(first);
        assert_eq!(book.open(a), 1);
        assert!(book.hold(a).is_some());
    }

    #[test]
    fn only_hypers_own_empty_error_answers_are_replaced() {
        let hyper = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let answer = String::from_utf8(json_answer(hyper).unwrap()).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{answer}"
        );
        assert!(
            answer.ends_with(
                "\"code\":\"headers_too_large\",\"message\":\"the request has too many headers, or too large ones\"}}"
            ),
            "{answer}"
        );
        for other in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}",
            b"{\"error\":1}",
        ] {
            assert!(json_answer(other).is_none(), "{}", String::from_utf8_lossy(other));
        }
    }
}
