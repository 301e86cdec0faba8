//! The hub: every configured MCP server, their tools as catalog tools named `server.tool`, and calls routed by
//! that name.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use wenshu_contract::{Catalog, Tool};
use wenshu_engine::ToolResult;

use super::config::McpServerConfig;
use super::result::{CallRecord, to_tool_result};
use super::slot::ServerSlot;
use super::status::ServerStatus;
use super::tools::{RefusedTool, compile_remote_tool, split_namespaced};
use crate::error::McpError;

/// The catalog tools of one or more servers, and the remote tools that could not become one.
#[derive(Debug, Default)]
pub struct HubTools {
    /// `(namespaced name, tool)`, in server order, then in listing order.
    pub tools: Vec<(String, Tool)>,
    /// The tools refused: a schema wenshu cannot compile, a name it does not accept, a duplicate.
    pub refused: Vec<RefusedTool>,
}

/// Every configured MCP server.
pub struct McpHub {
    slots: Vec<Arc<ServerSlot>>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub").field("servers", &self.status()).finish()
    }
}

impl McpHub {
    /// Checks the configurations and connects every enabled server at once. A server that cannot be reached is
    /// marked unavailable (see [`McpHub::status`]) and start-up goes on; only a bad configuration is an error.
    pub async fn connect(configs: Vec<McpServerConfig>) -> Result<Self, McpError> {
        let mut names = HashSet::new();
        for config in &configs {
            config.validate()?;
            if !names.insert(config.name.clone()) {
                return Err(McpError::Config {
                    server: config.name.clone(),
                    reason: "another server already has this name".into(),
                });
            }
        }
        let slots: Vec<Arc<ServerSlot>> = configs.into_iter().map(|c| Arc::new(ServerSlot::new(c))).collect();
        let starts: Vec<_> = slots
            .iter()
            .map(|slot| {
                let slot = slot.clone();
                tokio::spawn(async move { slot.start().await })
            })
            .collect();
        for start in starts {
            if let Err(error) = start.await {
                tracing::warn!(%error, "an MCP server start task failed");
            }
        }
        Ok(Self { slots })
    }

    /// The configured servers' names, in configuration order.
    pub fn server_names(&self) -> Vec<&str> {
        self.slots.iter().map(|s| s.name()).collect()
    }

    /// Where each server stands.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.slots.iter().map(|s| s.status()).collect()
    }

    /// Every listed tool of every server as a catalog tool named `server.tool`; tools that cannot be compiled
    /// are left out (see [`McpHub::catalog_tools`] for why).
    pub fn tools(&self) -> Vec<(String, Tool)> {
        self.catalog_tools().tools
    }

    /// Every listed tool of every server as a catalog tool, with the refused ones and why.
    pub fn catalog_tools(&self) -> HubTools {
        let mut all = HubTools::default();
        for slot in &self.slots {
            let HubTools { tools, refused } = compile_slot(slot);
            all.tools.extend(tools);
            all.refused.extend(refused);
        }
        all
    }

    /// The catalog tools of one server.
    pub fn server_tools(&self, server: &str) -> Result<HubTools, McpError> {
        Ok(compile_slot(self.slot(server)?))
    }

    /// Adds every server's tools to `catalog`; a name the catalog already has is refused, never overwritten.
    /// Returns every refused tool.
    pub fn add_to_catalog(&self, catalog: &mut Catalog) -> Vec<RefusedTool> {
        let HubTools { tools, mut refused } = self.catalog_tools();
        for (name, tool) in tools {
            if let Err(error) = catalog.insert(tool) {
                let server = split_namespaced(&name).map(|(s, _)| s).unwrap_or_default();
                refused.push(RefusedTool {
                    server: server.to_string(),
                    tool: name,
                    reason: error.to_string(),
                });
            }
        }
        refused
    }

    /// Calls the tool `server.tool` with `arguments` within `limit` (the server's own call limit when tighter);
    /// returns the raw `tools/call` result. `isError` is not an error here.
    pub async fn call_raw(
        &self,
        namespaced: &str,
        arguments: &Map<String, Value>,
        limit: Option<Duration>,
    ) -> Result<Value, McpError> {
        let (slot, tool) = self.route(namespaced)?;
        let server_limit = slot.config().call_timeout;
        let limit = limit.map_or(server_limit, |l| l.min(server_limit));
        slot.call(tool, arguments, limit).await
    }

    /// Calls the tool `server.tool` and turns the result into rows (at most `row_cap`); `isError` becomes
    /// [`McpError::ToolFailed`].
    pub async fn call(
        &self,
        namespaced: &str,
        arguments: &Map<String, Value>,
        limit: Option<Duration>,
        row_cap: usize,
    ) -> Result<ToolResult, McpError> {
        let started = Instant::now();
        let raw = self.call_raw(namespaced, arguments, limit).await?;
        let (server, tool) = split_namespaced(namespaced).unwrap_or_default();
        let arguments = Value::Object(arguments.clone());
        let record = CallRecord {
            server,
            tool,
            arguments: &arguments,
        };
        to_tool_result(record, raw, row_cap, started.elapsed().as_secs_f64() * 1000.0)
    }

    /// Lists a server's tools again (connecting first when needed); returns how many it has.
    pub async fn refresh(&self, server: &str) -> Result<usize, McpError> {
        self.slot(server)?.refresh().await
    }

    /// The process ID of a connected stdio server (for diagnostics and tests).
    pub fn process_id(&self, server: &str) -> Option<u32> {
        self.slot(server).ok().and_then(|s| s.pid())
    }

    /// Closes every connection and ends every child process.
    pub async fn shutdown(&self) {
        for slot in &self.slots {
            slot.shutdown().await;
        }
    }

    fn slot(&self, server: &str) -> Result<&Arc<ServerSlot>, McpError> {
        self.slots
            .iter()
            .find(|s| s.name() == server)
            .ok_or_else(|| McpError::UnknownServer {
                server: server.to_string(),
            })
    }

    fn route<'a>(&self, namespaced: &'a str) -> Result<(&Arc<ServerSlot>, &'a str), McpError> {
        let (server, tool) = split_namespaced(namespaced).ok_or_else(|| McpError::UnknownTool {
            server: String::new(),
            tool: namespaced.to_string(),
        })?;
        Ok((self.slot(server)?, tool))
    }
}

/// Compiles a server's listed tools; a name listed twice keeps its first definition.
fn compile_slot(slot: &ServerSlot) -> HubTools {
    let mut out = HubTools::default();
    let mut seen = HashSet::new();
    for remote in slot.listed_tools() {
        match compile_remote_tool(slot.name(), &remote) {
            Ok(tool) if !seen.insert(tool.name().to_string()) => out.refused.push(RefusedTool {
                server: slot.name().to_string(),
                tool: remote
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                reason: "the server lists this name more than once; the first is kept".into(),
            }),
            Ok(tool) => out.tools.push((tool.name().to_string(), tool)),
            Err(refused) => out.refused.push(refused),
        }
    }
    out
}
