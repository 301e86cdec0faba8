//! A `tools/call` result as a [`ToolResult`]: structured content as rows, text contents as one column `text`,
//! `isError` as an error — and the raw result kept in `detail`.

use serde_json::{Value, json};
use wenshu_engine::{ToolResult, json_to_rows};

use crate::error::McpError;

/// The column of text contents.
pub const TEXT_COLUMN: &str = "text";

/// What was called, for the result's `detail`.
#[derive(Debug, Clone, Copy)]
pub struct CallRecord<'a> {
    /// The server.
    pub server: &'a str,
    /// The tool's name on the server.
    pub tool: &'a str,
    /// The arguments sent.
    pub arguments: &'a Value,
}

/// Turns the raw `tools/call` result into rows (at most `row_cap`), or [`McpError::ToolFailed`] for `isError`.
pub fn to_tool_result(
    call: CallRecord<'_>,
    raw: Value,
    row_cap: usize,
    duration_ms: f64,
) -> Result<ToolResult, McpError> {
    let namespaced = crate::client::tools::namespaced(call.server, call.tool);
    if raw.get("isError").and_then(Value::as_bool) == Some(true) {
        let texts = content_texts(&raw);
        let message = if texts.is_empty() {
            "(no text)".to_string()
        } else {
            texts.join("\n")
        };
        return Err(McpError::ToolFailed {
            tool: namespaced,
            message,
            result: raw,
        });
    }
    let (columns, rows, truncated) = match raw.get("structuredContent") {
        Some(structured) if !structured.is_null() => json_to_rows(structured.clone(), row_cap),
        _ => {
            let texts = content_texts(&raw);
            let truncated = texts.len() > row_cap;
            let rows = texts
                .into_iter()
                .take(row_cap)
                .map(|t| vec![Value::String(t)])
                .collect();
            (vec![TEXT_COLUMN.to_string()], rows, truncated)
        }
    };
    Ok(ToolResult {
        columns,
        rows,
        truncated,
        detail: json!({
            "mcp": {"server": call.server, "tool": call.tool, "arguments": call.arguments},
            "result": raw,
        }),
        duration_ms,
    })
}

/// Each content block as text: text as is, other kinds as a short mark (`[image image/png]`, a resource's URI).
fn content_texts(raw: &Value) -> Vec<String> {
    let Some(blocks) = raw.get("content").and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks.iter().map(block_text).collect()
}

fn block_text(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("unknown");
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    match kind {
        "text" => field("text"),
        "image" | "audio" => format!("[{kind} {}]", field("mimeType")),
        "resource" => {
            let resource = block.get("resource");
            let text = resource.and_then(|r| r.get("text")).and_then(Value::as_str);
            let uri = resource.and_then(|r| r.get("uri")).and_then(Value::as_str);
            text.or(uri).unwrap_or("[resource]").to_string()
        }
        "resource_link" => format!("[resource_link {}]", field("uri")),
        other => format!("[{other}]"),
    }
}
