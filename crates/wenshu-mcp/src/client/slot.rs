//! One configured server at run time: its connection (made, lost, remade with backoff), its listed tools, its state.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::config::McpServerConfig;
use super::connect::{Connection, connect, describe};
use super::listing::ToolListing;
use super::status::{ServerState, ServerStatus};
use crate::error::McpError;

/// The connection of a slot, behind an async lock so only one task (re)connects at a time.
#[derive(Default)]
struct Link {
    connection: Option<Connection>,
    /// Counts connections made, so a task reporting a dead peer only drops the connection it used.
    generation: u64,
    /// Until when a server that failed every attempt is left alone (calls fail fast meanwhile).
    retry_after: Option<Instant>,
}

/// One server: configuration, connection, tools, state.
pub(crate) struct ServerSlot {
    config: McpServerConfig,
    link: tokio::sync::Mutex<Link>,
    listing: Arc<ToolListing>,
    state: Mutex<ServerState>,
    pid: Mutex<Option<u32>>,
}

impl ServerSlot {
    /// A slot that has not connected yet.
    pub(crate) fn new(config: McpServerConfig) -> Self {
        let state = if config.enabled {
            ServerState::Unavailable {
                reason: "not connected yet".into(),
            }
        } else {
            ServerState::Disabled
        };
        Self {
            config,
            link: tokio::sync::Mutex::new(Link::default()),
            listing: Arc::new(ToolListing::default()),
            state: Mutex::new(state),
            pid: Mutex::new(None),
        }
    }

    /// The configuration.
    pub(crate) fn config(&self) -> &McpServerConfig {
        &self.config
    }

    /// The server's name.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// The tools as last listed (raw JSON tool objects).
    pub(crate) fn listed_tools(&self) -> Vec<Value> {
        self.listing.tools()
    }

    /// The child's process ID, while a stdio server is connected.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid.lock().ok().and_then(|p| *p)
    }

    /// Where the server stands.
    pub(crate) fn status(&self) -> ServerStatus {
        let state = self
            .state
            .lock()
            .map(|s| s.clone())
            .unwrap_or(ServerState::Unavailable {
                reason: "state unreadable".into(),
            });
        ServerStatus {
            name: self.config.name.clone(),
            state,
            tools: self.listing.tools().len(),
            lists: self.listing.lists(),
        }
    }

    /// The first connection at start-up: one attempt; a failure leaves the server unavailable, never an error.
    pub(crate) async fn start(&self) {
        if !self.config.enabled {
            return;
        }
        let mut link = self.link.lock().await;
        if let Err(reason) = self.connect_once(&mut link).await {
            tracing::warn!(server = self.name(), reason, "MCP server unavailable at start-up");
            link.retry_after = Some(Instant::now() + self.config.reconnect.initial_backoff);
        }
    }

    /// Lists the tools again over the live connection (connecting first when needed); returns how many.
    pub(crate) async fn refresh(&self) -> Result<usize, McpError> {
        let (peer, _) = self.peer().await?;
        self.listing
            .relist(&peer)
            .await
            .map_err(|reason| self.unavailable(reason))
    }

    /// Calls `tool` with `arguments`, within `limit` (reconnecting included); returns the raw result.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        limit: Duration,
    ) -> Result<Value, McpError> {
        let deadline = Instant::now() + limit;
        let timeout = || McpError::Timeout {
            tool: super::tools::namespaced(self.name(), tool),
            after_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
        };
        let mut retried = false;
        loop {
            let (peer, generation) = tokio::time::timeout_at(deadline, self.peer())
                .await
                .map_err(|_| timeout())??;
            if !self.listing.contains(tool) {
                return Err(McpError::UnknownTool {
                    server: self.name().to_string(),
                    tool: tool.to_string(),
                });
            }
            let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments.clone());
            let outcome = tokio::time::timeout_at(deadline, peer.call_tool(params))
                .await
                .map_err(|_| timeout())?;
            match outcome {
                Ok(result) => {
                    return serde_json::to_value(&result).map_err(|e| self.call_failed(tool, e.to_string()));
                }
                // The transport died under the call: reconnect (which re-lists) and try once more.
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) if !retried => {
                    tracing::warn!(
                        server = self.name(),
                        tool,
                        "MCP transport closed during a call; reconnecting"
                    );
                    self.drop_connection(generation, "the transport closed").await;
                    retried = true;
                }
                Err(ServiceError::McpError(error)) => return Err(self.call_failed(tool, error.message.to_string())),
                Err(ServiceError::Timeout { .. }) => return Err(timeout()),
                Err(other) => return Err(self.call_failed(tool, other.to_string())),
            }
        }
    }

    /// Closes the connection (ending a child process).
    pub(crate) async fn shutdown(&self) {
        let mut link = self.link.lock().await;
        if let Some(mut connection) = link.connection.take() {
            let _ = connection.service.close_with_timeout(Duration::from_secs(2)).await;
        }
        self.set_pid(None);
        if self.config.enabled {
            self.set_state(ServerState::Unavailable {
                reason: "shut down".into(),
            });
        }
    }

    /// A live peer, reconnecting with backoff when the transport died; the connection's generation with it.
    async fn peer(&self) -> Result<(Peer<RoleClient>, u64), McpError> {
        if !self.config.enabled {
            return Err(self.unavailable("the server is disabled".into()));
        }
        let mut link = self.link.lock().await;
        if let Some(connection) = &link.connection {
            if !connection.is_closed() {
                return Ok((connection.service.peer().clone(), link.generation));
            }
            tracing::warn!(server = self.name(), "MCP transport closed; reconnecting");
            link.connection = None;
            link.retry_after = None;
            self.set_pid(None);
        }
        if let Some(after) = link.retry_after
            && Instant::now() < after
        {
            return Err(self.unavailable(self.last_reason()));
        }
        let policy = self.config.reconnect;
        let mut last = String::new();
        for attempt in 0..policy.max_attempts {
            if attempt > 0 {
                tokio::time::sleep(policy.backoff(attempt - 1)).await;
            }
            match self.connect_once(&mut link).await {
                Ok(peer) => return Ok((peer, link.generation)),
                Err(reason) => last = reason,
            }
        }
        link.retry_after = Some(Instant::now() + policy.max_backoff);
        Err(self.unavailable(format!(
            "{last} ({} attempts; next try after {})",
            policy.max_attempts,
            describe(policy.max_backoff)
        )))
    }

    /// One connection attempt; on success the link holds the new connection.
    async fn connect_once(&self, link: &mut Link) -> Result<Peer<RoleClient>, String> {
        match connect(&self.config, &self.listing).await {
            Ok(connection) => {
                let peer = connection.service.peer().clone();
                self.set_pid(connection.pid);
                link.connection = Some(connection);
                link.generation += 1;
                link.retry_after = None;
                self.set_state(ServerState::Connected);
                tracing::info!(
                    server = self.name(),
                    tools = self.listing.tools().len(),
                    "MCP server connected"
                );
                Ok(peer)
            }
            Err(reason) => {
                self.set_state(ServerState::Unavailable { reason: reason.clone() });
                Err(reason)
            }
        }
    }

    /// Drops the connection of `generation` (not a newer one another task made).
    async fn drop_connection(&self, generation: u64, reason: &str) {
        let mut link = self.link.lock().await;
        if link.generation == generation {
            link.connection = None;
            self.set_pid(None);
            self.set_state(ServerState::Unavailable { reason: reason.into() });
        }
    }

    fn last_reason(&self) -> String {
        match self.state.lock().map(|s| s.clone()) {
            Ok(ServerState::Unavailable { reason }) => reason,
            _ => "not connected".into(),
        }
    }

    fn unavailable(&self, reason: String) -> McpError {
        McpError::Unavailable {
            server: self.name().to_string(),
            reason,
        }
    }

    fn call_failed(&self, tool: &str, message: String) -> McpError {
        McpError::CallFailed {
            tool: super::tools::namespaced(self.name(), tool),
            message,
        }
    }

    fn set_state(&self, state: ServerState) {
        if let Ok(mut current) = self.state.lock() {
            *current = state;
        }
    }

    fn set_pid(&self, pid: Option<u32>) {
        if let Ok(mut current) = self.pid.lock() {
            *current = pid;
        }
    }
}
