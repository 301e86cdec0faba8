//! A remote MCP tool as a wenshu catalog tool: named `server.tool`, with its title, description and `inputSchema`
//! (nothing else a remote server sends — no `x-` extension — reaches the catalog).

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;

/// A remote tool that could not become a catalog tool, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedTool {
    /// The server.
    pub server: String,
    /// The tool's name as the server gave it (or its namespaced name, for a duplicate in a catalog).
    pub tool: String,
    /// Why it was refused.
    pub reason: String,
}

/// The catalog name of a server's tool: `server.tool`.
pub fn namespaced(server: &str, tool: &str) -> String {
    format!("{server}.{tool}")
}

/// Splits a catalog name into server and tool at its first `.` (server names never hold one).
pub fn split_namespaced(name: &str) -> Option<(&str, &str)> {
    name.split_once('.')
        .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
}

/// Compiles one remote tool (a `tools/list` entry as JSON) into a catalog tool named `server.tool`.
pub fn compile_remote_tool(server: &str, remote: &Value) -> Result<Tool, RefusedTool> {
    let name = remote.get("name").and_then(Value::as_str).unwrap_or_default();
    let refuse = |reason: String| RefusedTool {
        server: server.to_string(),
        tool: name.to_string(),
        reason,
    };
    if name.is_empty() {
        return Err(refuse("the tool has no name".into()));
    }
    let mut definition = Map::new();
    definition.insert("name".into(), Value::String(namespaced(server, name)));
    let title = remote
        .get("title")
        .or_else(|| remote.get("annotations").and_then(|a| a.get("title")))
        .filter(|t| t.is_string());
    if let Some(title) = title {
        definition.insert("title".into(), title.clone());
    }
    if let Some(description) = remote.get("description").filter(|d| d.is_string()) {
        definition.insert("description".into(), description.clone());
    }
    if let Some(schema) = remote.get("inputSchema") {
        definition.insert("inputSchema".into(), schema.clone());
    }
    Tool::compile(&Value::Object(definition), 0).map_err(|e| refuse(e.to_string()))
}
