//! One connection to one server: start the transport, `initialize`, and list the tools, all within a time limit.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;

use super::config::{McpServerConfig, McpTransport};
use super::handler::HubClient;
use super::listing::ToolListing;

/// A live connection and, for a stdio server, its process ID.
pub(crate) struct Connection {
    /// The running client service (dropping it closes the transport and ends a child process).
    pub(crate) service: RunningService<RoleClient, HubClient>,
    /// The child's process ID, for a stdio server.
    pub(crate) pid: Option<u32>,
}

impl Connection {
    /// Whether the transport is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }
}

/// Connects to the server and lists its tools into `listing`, within the server's connect time limit.
pub(crate) async fn connect(config: &McpServerConfig, listing: &Arc<ToolListing>) -> Result<Connection, String> {
    let limit = config.connect_timeout;
    match tokio::time::timeout(limit, connect_unbounded(config, listing)).await {
        Ok(result) => result,
        Err(_) => Err(format!("connecting took longer than {}", describe(limit))),
    }
}

async fn connect_unbounded(config: &McpServerConfig, listing: &Arc<ToolListing>) -> Result<Connection, String> {
    let handler = HubClient::new(&config.name, listing.clone());
    let (service, pid) = match &config.transport {
        McpTransport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env).kill_on_drop(true);
            let (transport, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start `{command}`: {e}"))?;
            let pid = transport.id();
            if let Some(stderr) = stderr {
                tokio::spawn(forward_stderr(config.name.clone(), stderr));
            }
            let service = handler
                .serve(transport)
                .await
                .map_err(|e| format!("initialize failed: {e}"))?;
            (service, pid)
        }
        McpTransport::Http { url } => {
            // The workspace's reqwest is rustls without a built-in provider: make ring the process default first.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            let service = handler
                .serve(transport)
                .await
                .map_err(|e| format!("initialize failed at {url}: {e}"))?;
            (service, None)
        }
    };
    listing.relist(service.peer()).await?;
    Ok(Connection { service, pid })
}

/// Writes the server's stderr to the log, line by line, until it closes.
async fn forward_stderr(server: String, stderr: ChildStderr) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(server, "{line}");
    }
}

/// A duration in words for messages (`800 ms`, `20 s`).
pub(crate) fn describe(duration: Duration) -> String {
    if duration.subsec_millis() == 0 && duration.as_secs() > 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}
