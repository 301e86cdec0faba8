//! Where a configured server stands, for the CLI and the logs.

use serde::Serialize;

/// The state of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    /// Connected; its tools can be called.
    Connected,
    /// Not connected now (down at start-up, died, or failed to reconnect); calls fail with this reason.
    Unavailable {
        /// Why, in words.
        reason: String,
    },
    /// Disabled in the configuration; never started.
    Disabled,
}

/// One server's state and tool count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerStatus {
    /// The server's name.
    pub name: String,
    /// Where it stands.
    #[serde(flatten)]
    pub state: ServerState,
    /// How many tools it listed last.
    pub tools: usize,
    /// How many `tools/list` rounds succeeded (start-up, reconnections, change notifications).
    pub lists: u64,
}
