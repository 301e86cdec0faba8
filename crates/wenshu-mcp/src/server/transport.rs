//! Serving wenshu over MCP: on stdio (for `wenshu mcp`) or as a streamable-HTTP tower service to mount at `/mcp`.

use std::convert::Infallible;
use std::fmt::Display;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::handler::WenshuMcpServer;
use super::sessions::{BoxResponse, OwnerOf, SessionGate, SessionLimits};
use crate::error::McpError;

/// The streamable-HTTP service type, a tower `Service` over HTTP requests.
pub type WenshuHttpService = StreamableHttpService<WenshuMcpServer, LocalSessionManager>;

/// Serves `handler` on stdin/stdout until the client closes the connection.
pub async fn serve_stdio(handler: WenshuMcpServer) -> Result<(), McpError> {
    let service = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Serve(format!("initialize on stdio failed: {e}")))?;
    service
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| McpError::Serve(format!("the stdio service ended abnormally: {e}")))
}

/// The streamable-HTTP service of `handler`, with the default configuration: only loopback `Host` headers
/// (`localhost`, `127.0.0.1`, `::1`) are accepted, against DNS rebinding. Mount it with
/// `Router::nest_service("/mcp", http_service(handler))`.
pub fn http_service(handler: WenshuMcpServer) -> WenshuHttpService {
    http_service_with(handler, StreamableHttpServerConfig::default())
}

/// The streamable-HTTP service of `handler` with `config` (e.g. more allowed hosts for a public name, a
/// cancellation token for shutdown).
pub fn http_service_with(handler: WenshuMcpServer, config: StreamableHttpServerConfig) -> WenshuHttpService {
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// The transport's settings for a server on loopback: loopback `Host` headers only (rmcp's default, against DNS
/// rebinding) and, as the MCP transport asks, `Origin` checked: loopback origins on any port, plus `extra`
/// (e.g. `https://app.example.com:443`). A request without `Origin` (not from a browser) passes.
pub fn checked_origins(extra: Vec<String>) -> StreamableHttpServerConfig {
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_origins = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_string)
        .chain(extra)
        .collect();
    config
}

/// The streamable-HTTP service behind a [`SessionGate`]: at most `max_sessions` sessions and `per_owner` per
/// principal, each answering only its owner and closed when idle.
#[derive(Clone)]
pub struct GatedHttpService {
    inner: WenshuHttpService,
    gate: Arc<SessionGate>,
}

impl GatedHttpService {
    /// The gate, to read how many sessions are live.
    pub fn gate(&self) -> &SessionGate {
        &self.gate
    }
}

/// The streamable-HTTP service of `handler` with `config`, its sessions bounded by `limits` (rmcp's idle expiry
/// set to `limits.idle`, the caps kept by the gate) and each bound to the owner `owner_of` names from the
/// request's extensions (the server's principal).
pub fn gated_http_service(
    handler: WenshuMcpServer,
    config: StreamableHttpServerConfig,
    limits: SessionLimits,
    owner_of: OwnerOf,
) -> GatedHttpService {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(limits.idle);
    let manager = Arc::new(manager);
    let inner = StreamableHttpService::new(move || Ok(handler.clone()), Arc::clone(&manager), config);
    GatedHttpService {
        inner,
        gate: Arc::new(SessionGate::owned(manager, limits, owner_of)),
    }
}

impl<B> tower_service::Service<http::Request<B>> for GatedHttpService
where
    B: http_body::Body + Send + 'static,
    B::Error: Display,
    B::Data: Send + 'static,
{
    type Response = BoxResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<BoxResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let (inner, gate) = (self.inner.clone(), Arc::clone(&self.gate));
        Box::pin(async move {
            let response = gate
                .handle(request, |request| async move { inner.handle(request).await })
                .await;
            Ok(response)
        })
    }
}
