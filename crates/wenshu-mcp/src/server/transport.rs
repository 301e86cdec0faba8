//! Serving wenshu over MCP: on stdio (for `wenshu mcp`) or as a streamable-HTTP tower service to mount at `/mcp`.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::handler::WenshuMcpServer;
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
