//! wenshu as an MCP server, exposing `ask` and `extract`.
//!
//! - [`audit`]: the recorder called after each `ask` ([`AskRecorder`]).
//! - [`handler`]: the MCP handler over the engine ([`WenshuMcpServer`]).
//! - [`tools`]: the two served tools' definitions.
//! - [`render`]: their outputs, structured and as text.
//! - [`transport`]: stdio and streamable HTTP ([`serve_stdio`], [`http_service`], [`gated_http_service`]).
//! - [`sessions`]: the cap and idle expiry of HTTP sessions ([`SessionGate`]).

pub mod audit;
pub mod handler;
pub mod render;
pub mod sessions;
pub mod tools;
pub mod transport;

pub use audit::{AskRecorder, ExtractRecorder};
pub use handler::WenshuMcpServer;
pub use sessions::{OwnerOf, SessionGate, SessionLimits};
pub use transport::{
    GatedHttpService, WenshuHttpService, checked_origins, gated_http_service, http_service, http_service_with,
    serve_stdio,
};
