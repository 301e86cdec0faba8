//! wenshu as an MCP server, exposing `ask` and `extract`.
//!
//! - [`handler`]: the MCP handler over the engine ([`WenshuMcpServer`]).
//! - [`tools`]: the two served tools' definitions.
//! - [`render`]: their outputs, structured and as text.
//! - [`transport`]: stdio and streamable HTTP ([`serve_stdio`], [`http_service`]).

pub mod handler;
pub mod render;
pub mod tools;
pub mod transport;

pub use handler::WenshuMcpServer;
pub use transport::{WenshuHttpService, http_service, http_service_with, serve_stdio};
