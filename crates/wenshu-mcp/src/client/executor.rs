//! The engine's [`Executor`] for MCP tools: a bound call of `server.tool` goes to that server's `tools/call`.

use std::sync::Arc;

use wenshu_contract::{BoundCall, Tool};
use wenshu_engine::execute::{ExecContext, ExecError, ExecFuture, Executor, Executors};

use super::hub::McpHub;

/// Runs bound calls of MCP tools through a hub, routed by the namespaced tool name.
#[derive(Debug, Clone)]
pub struct McpExecutor {
    hub: Arc<McpHub>,
}

impl McpExecutor {
    /// An executor over `hub`.
    pub fn new(hub: Arc<McpHub>) -> Self {
        Self { hub }
    }

    /// The hub.
    pub fn hub(&self) -> &Arc<McpHub> {
        &self.hub
    }

    /// Registers this executor for every tool the hub lists now; returns how many.
    pub fn register_all(self: &Arc<Self>, executors: &mut Executors) -> usize {
        let names: Vec<String> = self.hub.tools().into_iter().map(|(name, _)| name).collect();
        for name in &names {
            let shared: Arc<dyn Executor> = self.clone();
            executors.register(name.clone(), shared);
        }
        names.len()
    }
}

impl Executor for McpExecutor {
    fn execute<'a>(&'a self, tool: &'a Tool, call: &'a BoundCall, ctx: &'a ExecContext) -> ExecFuture<'a> {
        Box::pin(async move {
            if call.tool != tool.name() {
                return Err(ExecError::Invalid {
                    tool: tool.name().to_string(),
                    reason: format!("the call is of tool `{}`", call.tool),
                });
            }
            self.hub
                .call(tool.name(), &call.arguments, Some(ctx.timeout), ctx.row_cap)
                .await
                .map_err(ExecError::from)
        })
    }
}
