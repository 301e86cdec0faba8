//! The accept loop: HTTP/1.1 with a header-read timeout that also bounds an idle keep-alive connection (hyper
//! starts it whenever the connection waits for a request head), and a cap on open connections: over it, a
//! connection gets one clean 503 JSON response and is closed, instead of the listener running out of descriptors.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
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
}

impl Default for ListenSettings {
    fn default() -> Self {
        Self {
            header_read: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

/// The 503 a connection over the cap gets before it is closed.
const FULL: &str = "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"the server has too many open \
                    connections: try again in a moment\"}}";

/// Serves `router` on `listener` with `settings` until the process ends.
pub async fn serve_with(listener: TcpListener, router: Router, settings: ListenSettings) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(settings.max_connections.max(1)));
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
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let service = router
            .clone()
            .map_request(move |mut request: axum::extract::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(address));
                request.map(axum::body::Body::new)
            });
        let connection = builder
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .with_upgrades();
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, %address, "connection ended with an error");
            }
            drop(permit);
        });
    }
}

/// Answers a connection over the cap with a 503 and closes it (within a second, whatever the client does).
async fn refuse(mut stream: TcpStream) {
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         retry-after: 1\r\nconnection: close\r\n\r\n{FULL}",
        FULL.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
