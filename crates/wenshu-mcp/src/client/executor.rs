//! The engine's [`Executor`] for MCP tools: a bound call of `server.tool` goes to that server's `tools/call`; what
//! it returns is refused as too large over the byte caps (the rows per value and per result; the raw result, kept in
//! the trace, at most twice the cap per result, since its text and structured forms often repeat each other).

use std::sync::Arc;

use wenshu_contract::{BoundCall, Tool};
use wenshu_engine::{
    ByteCap, ByteCaps, ExecContext, ExecError, ExecFuture, Executor, Executors, ToolResult, check_rows, value_bytes,
};

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
            let result = self
                .hub
                .call(tool.name(), &call.arguments, Some(ctx.timeout), ctx.row_cap)
                .await
                .map_err(ExecError::from)?;
            within_caps(&result, ctx.bytes)?;
            Ok(result)
        })
    }
}

/// Refuses a result over `caps`: a value over the cap per value, rows over the cap per result, or a raw result over
/// twice the cap per result.
pub fn within_caps(result: &ToolResult, caps: ByteCaps) -> Result<(), ExecError> {
    check_rows(&result.rows, caps)?;
    let raw_cap = caps.result.saturating_mul(2);
    if value_bytes(&result.detail) > raw_cap {
        return Err(ExecError::TooLarge {
            cap: ByteCap::Result,
            limit: caps.result,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn result(rows: Vec<Vec<Value>>, raw: Value) -> ToolResult {
        ToolResult {
            columns: vec!["text".into()],
            rows,
            truncated: false,
            detail: json!({"result": raw}),
            duration_ms: 0.0,
        }
    }

    #[test]
    fn a_tool_result_over_a_byte_cap_is_too_large() {
        let caps = ByteCaps { cell: 10, result: 30 };
        assert_eq!(
            within_caps(&result(vec![vec![json!("short")]], json!("short")), caps),
            Ok(())
        );
        let cell = within_caps(&result(vec![vec![json!("x".repeat(11))]], Value::Null), caps);
        assert_eq!(
            cell,
            Err(ExecError::TooLarge {
                cap: ByteCap::Cell,
                limit: 10
            })
        );
        let rows = vec![vec![json!("xxxxxx")]; 5];
        let sum = within_caps(&result(rows, Value::Null), caps);
        assert_eq!(
            sum,
            Err(ExecError::TooLarge {
                cap: ByteCap::Result,
                limit: 30
            })
        );
        // An image block is one short row, but the raw result kept in the trace is bounded too.
        let raw = json!({"content": [{"type": "image", "data": "A".repeat(100)}]});
        let image = within_caps(&result(vec![vec![json!("[image]")]], raw), caps);
        assert_eq!(
            image,
            Err(ExecError::TooLarge {
                cap: ByteCap::Result,
                limit: 30
            })
        );
    }
}
