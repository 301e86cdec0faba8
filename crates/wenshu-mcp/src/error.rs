//! Why an MCP operation failed: a bad configuration, a server that cannot be reached, a tool that failed or ran too
//! long, or serving wenshu itself over MCP.

use serde_json::Value;
use wenshu_engine::ExecError;

/// A failed MCP operation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// A server's configuration is wrong (name, transport, limits, a duplicate name).
    #[error("MCP server `{server}`: {reason}")]
    Config {
        /// The server.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// No server of that name is configured.
    #[error("no MCP server named `{server}`")]
    UnknownServer {
        /// The name asked for.
        server: String,
    },
    /// The server is disabled, down, or failed to connect; its tools cannot be called now.
    #[error("MCP server `{server}` is unavailable: {reason}")]
    Unavailable {
        /// The server.
        server: String,
        /// Why, in words.
        reason: String,
    },
    /// The server does not list the tool (or the name is not `server.tool`).
    #[error("MCP server `{server}` has no tool `{tool}`")]
    UnknownTool {
        /// The server.
        server: String,
        /// The tool asked for (without the server prefix).
        tool: String,
    },
    /// The call ran past its time limit.
    #[error("MCP tool `{tool}` timed out after {after_ms} ms")]
    Timeout {
        /// The namespaced tool.
        tool: String,
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The tool ran and reported an error (`isError: true`).
    #[error("MCP tool `{tool}` reported an error: {message}")]
    ToolFailed {
        /// The namespaced tool.
        tool: String,
        /// The text the tool gave.
        message: String,
        /// The raw result.
        result: Value,
    },
    /// The request failed: a protocol error from the server, or the transport failing mid-call.
    #[error("MCP call of `{tool}` failed: {message}")]
    CallFailed {
        /// The namespaced tool.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// Serving wenshu over MCP failed (the transport or the handshake).
    #[error("serving MCP failed: {0}")]
    Serve(String),
}

impl McpError {
    /// A stable code (`config`, `unknown_server`, `unavailable`, `unknown_tool`, `timeout`, `tool_failed`,
    /// `call_failed`, `serve`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Config { .. } => "config",
            Self::UnknownServer { .. } => "unknown_server",
            Self::Unavailable { .. } => "unavailable",
            Self::UnknownTool { .. } => "unknown_tool",
            Self::Timeout { .. } => "timeout",
            Self::ToolFailed { .. } => "tool_failed",
            Self::CallFailed { .. } => "call_failed",
            Self::Serve(_) => "serve",
        }
    }
}

impl From<McpError> for ExecError {
    /// A timeout stays a timeout; a tool the server lacks is an invalid call; everything else is the remote
    /// endpoint failing (reported like a failed HTTP call, without a status).
    fn from(error: McpError) -> Self {
        match error {
            McpError::Timeout { after_ms, .. } => ExecError::Timeout { after_ms },
            McpError::UnknownTool { server, tool } => ExecError::Invalid {
                tool: format!("{server}.{tool}"),
                reason: format!("MCP server `{server}` has no tool `{tool}`"),
            },
            other => ExecError::Http {
                status: None,
                message: other.to_string(),
            },
        }
    }
}
