//! MCP for wenshu, both ways.
//!
//! - [`client`]: remote MCP servers (stdio child processes or streamable HTTP) as catalog tools named
//!   `server.tool`, called through the engine's executor trait with a time limit, reconnection and re-listing
//!   ([`McpHub`], [`McpExecutor`]).
//! - [`server`]: wenshu itself as an MCP server with the tools `ask` and `extract`, on stdio or as a
//!   streamable-HTTP tower service ([`WenshuMcpServer`], [`serve_stdio`], [`http_service`]).
//! - [`render`]: a server's tools as readable text ([`render_server_tools`]).
//! - [`error`]: what can fail ([`McpError`]).

pub mod client;
pub mod error;
pub mod render;
pub mod server;

pub use client::{McpExecutor, McpHub, McpServerConfig, McpTransport, ReconnectPolicy};
pub use error::McpError;
pub use render::render_server_tools;
pub use server::{
    AskRecorder, ExtractRecorder, GatedHttpService, OwnerOf, SessionLimits, WenshuMcpServer, checked_origins,
    gated_http_service, http_service, serve_stdio,
};
