//! The two tools wenshu serves over MCP, as MCP Tool objects: `ask` and `extract`.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// The name of the tool that answers a question end to end.
pub const ASK: &str = "ask";
/// The name of the tool that extracts one tool's parameters from a question.
pub const EXTRACT: &str = "extract";

/// Both tools, `ask` first.
pub fn served_tools() -> Vec<Tool> {
    vec![ask_tool(), extract_tool()]
}

/// The served tool of that name.
pub fn served_tool(name: &str) -> Option<Tool> {
    served_tools().into_iter().find(|t| t.name == name)
}

fn ask_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 1, "description": "The question, in the user's own words (e.g. 华东区本月的销售额是多少)."},
            "conversationId": {"type": "string", "description": "The conversation the question belongs to; echoed back."},
            "subjectId": {"type": "string", "description": "The ID of a subject the user chose from candidates; resolution is skipped."}
        },
        "required": ["question"],
        "additionalProperties": false
    });
    Tool::new(
        ASK,
        "Answer a data question: pick the business tool, resolve the subject, extract and bind the parameters, run \
         the tool (or the Text-to-SQL fallback), and return the outcome (answered, choose, need or stopped) with \
         the rows, a summary and every step of the trace.",
        object(schema),
    )
    .with_title("Ask wenshu")
    .with_annotations(read_only())
}

fn extract_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "tool": {"type": "string", "minLength": 1, "description": "The catalog tool to fill (e.g. sales_query)."},
            "question": {"type": "string", "minLength": 1, "description": "The question to extract the tool's parameters from."}
        },
        "required": ["tool", "question"],
        "additionalProperties": false
    });
    Tool::new(
        EXTRACT,
        "Extract the parameters one catalog tool needs from a question, checked against the tool's schema: ok with \
         the bound parameters, missing, unsupported, or failed.",
        object(schema),
    )
    .with_title("Extract tool parameters")
    .with_annotations(read_only())
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn object(schema: Value) -> Arc<JsonObject> {
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}
