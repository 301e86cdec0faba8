//! The client side of one connection: who wenshu says it is, and a re-list when the server says its tools changed.

use std::future::Future;
use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::RoleClient;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{MaybeSendFuture, NotificationContext};

use super::listing::ToolListing;

/// Handles what a server sends unasked: `notifications/tools/list_changed` re-lists its tools.
#[derive(Debug, Clone)]
pub(crate) struct HubClient {
    server: String,
    listing: Arc<ToolListing>,
}

impl HubClient {
    /// The handler of server `server`, storing lists in `listing`.
    pub(crate) fn new(server: &str, listing: Arc<ToolListing>) -> Self {
        Self {
            server: server.to_string(),
            listing,
        }
    }
}

impl ClientHandler for HubClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("wenshu", env!("CARGO_PKG_VERSION")),
        )
    }

    fn on_tool_list_changed(
        &self,
        context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        // Re-list outside the service loop: a request awaited inside a notification handler could stall it.
        let listing = self.listing.clone();
        let server = self.server.clone();
        let peer = context.peer;
        tokio::spawn(async move {
            match listing.relist(&peer).await {
                Ok(count) => tracing::info!(server, count, "MCP tools re-listed after list_changed"),
                Err(error) => tracing::warn!(server, error, "MCP re-list after list_changed failed"),
            }
        });
        std::future::ready(())
    }
}
