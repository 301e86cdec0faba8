//! The executors of a catalog's tools, found by tool name.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use wenshu_contract::{BoundCall, Tool};

use super::error::ExecError;
use super::sql::SqlTemplateExecutor;
use super::{ExecContext, Executor, ToolResult};

/// Tool name → the executor that runs it.
#[derive(Clone, Default)]
pub struct Executors {
    by_tool: BTreeMap<String, Arc<dyn Executor>>,
}

impl Executors {
    /// No executor at all.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `executor` for `tool`; returns the one it replaces, if any.
    pub fn register(&mut self, tool: impl Into<String>, executor: Arc<dyn Executor>) -> Option<Arc<dyn Executor>> {
        self.by_tool.insert(tool.into(), executor)
    }

    /// Registers a SQL template executor for every tool it has a template for.
    pub fn register_sql(&mut self, executor: Arc<SqlTemplateExecutor>) {
        for name in executor.tool_names() {
            let shared: Arc<dyn Executor> = executor.clone();
            self.by_tool.insert(name.to_string(), shared);
        }
    }

    /// The executor of a tool.
    pub fn get(&self, tool: &str) -> Option<&Arc<dyn Executor>> {
        self.by_tool.get(tool)
    }

    /// The tools that have an executor, sorted.
    pub fn tool_names(&self) -> Vec<&str> {
        self.by_tool.keys().map(String::as_str).collect()
    }

    /// Runs `call` with the executor of `tool`; [`ExecError::NotConfigured`] when it has none.
    pub async fn execute(&self, tool: &Tool, call: &BoundCall, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        let executor = self.get(tool.name()).ok_or_else(|| ExecError::NotConfigured {
            tool: tool.name().to_string(),
        })?;
        executor.execute(tool, call, ctx).await
    }
}

impl fmt::Debug for Executors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executors").field("tools", &self.tool_names()).finish()
    }
}
