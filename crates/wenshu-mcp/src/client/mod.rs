//! wenshu as an MCP client: remote servers from configuration, their tools as catalog tools named `server.tool`,
//! and calls with a time limit, reconnection and re-listing.
//!
//! - [`config`]: how to reach a server ([`McpServerConfig`]).
//! - [`hub`]: every server, their tools, calls routed by name ([`McpHub`]).
//! - [`executor`]: the engine's executor for MCP tools ([`McpExecutor`]).
//! - [`result`]: a `tools/call` result as rows.
//! - [`tools`]: a remote tool as a catalog tool.
//! - [`status`]: where a server stands.

pub mod config;
mod connect;
pub mod executor;
mod handler;
pub mod hub;
mod listing;
pub mod result;
mod slot;
pub mod status;
pub mod tools;

pub use config::{McpServerConfig, McpTransport, ReconnectPolicy};
pub use executor::McpExecutor;
pub use hub::{HubTools, McpHub};
pub use status::{ServerState, ServerStatus};
pub use tools::{RefusedTool, namespaced, split_namespaced};
