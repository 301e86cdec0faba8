//! The tools a server listed last, shared by its slot and by the client handler that re-lists on
//! `notifications/tools/list_changed`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::Peer;
use rmcp::RoleClient;
use serde_json::Value;

/// The last `tools/list` of one server, as raw JSON tool objects, and how many lists succeeded.
#[derive(Debug, Default)]
pub(crate) struct ToolListing {
    tools: Mutex<Vec<Value>>,
    lists: AtomicU64,
}

impl ToolListing {
    /// The tools as last listed.
    pub(crate) fn tools(&self) -> Vec<Value> {
        self.tools.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Whether the server listed a tool of that name.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.tools
            .lock()
            .map(|tools| {
                tools
                    .iter()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
            })
            .unwrap_or(false)
    }

    /// How many `tools/list` rounds succeeded (start-up, reconnections and change notifications).
    pub(crate) fn lists(&self) -> u64 {
        self.lists.load(Ordering::Relaxed)
    }

    /// Replaces the listing.
    pub(crate) fn replace(&self, tools: Vec<Value>) {
        if let Ok(mut current) = self.tools.lock() {
            *current = tools;
        }
        self.lists.fetch_add(1, Ordering::Relaxed);
    }

    /// Lists every tool of `peer` (all pages) and stores them; returns how many there are.
    pub(crate) async fn relist(&self, peer: &Peer<RoleClient>) -> Result<usize, String> {
        let tools = peer
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let tools: Vec<Value> = tools
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .collect();
        let count = tools.len();
        self.replace(tools);
        Ok(count)
    }
}
