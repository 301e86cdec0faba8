//! One server's tools as readable text, as seed 000 renders a tool for a prompt (`wenshu tools list --mcp NAME`).

use wenshu_contract::render::{Lang, render_tool};

use crate::client::McpHub;
use crate::error::McpError;

/// Every tool of `server` rendered with [`render_tool`], separated by blank lines, followed by one line per
/// refused tool; a server that is not connected is reported as unavailable.
pub fn render_server_tools(hub: &McpHub, server: &str, lang: Lang) -> Result<String, McpError> {
    let status = hub
        .status()
        .into_iter()
        .find(|s| s.name == server)
        .ok_or_else(|| McpError::UnknownServer {
            server: server.to_string(),
        })?;
    let listed = hub.server_tools(server)?;
    if listed.tools.is_empty()
        && let crate::client::ServerState::Unavailable { reason } = status.state
    {
        return Err(McpError::Unavailable {
            server: server.to_string(),
            reason,
        });
    }
    let mut blocks: Vec<String> = listed.tools.iter().map(|(_, tool)| render_tool(tool, lang)).collect();
    for refused in &listed.refused {
        let line = match lang {
            Lang::Zh => format!("（未收录）{}: {}", refused.tool, refused.reason),
            Lang::En => format!("(refused) {}: {}", refused.tool, refused.reason),
        };
        blocks.push(line);
    }
    Ok(blocks.join("\n\n"))
}
