//! The served tools' outputs: structured content (JSON) and a short text rendering of the same.

use serde_json::{Map, Value, json};
use wenshu_engine::{Answer, Extraction};

/// The most rows the text rendering shows (the structured content has them all).
pub const TEXT_ROWS: usize = 20;

/// An answer as structured content: the outcome's fields (`kind`, `tool`, `parameters`, `summary`, `columns`,
/// `rows`, …), the rewritten question, the conversation ID and a trace summary (each step: name, decision,
/// duration).
pub fn ask_content(answer: &Answer, conversation_id: Option<&str>) -> Value {
    let mut content = match serde_json::to_value(&answer.outcome) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    if let Some(params) = content.remove("params") {
        content.insert("parameters".into(), params);
    }
    content.insert(
        "rewrittenQuestion".into(),
        Value::String(answer.rewritten_question.clone()),
    );
    if let Some(id) = conversation_id {
        content.insert("conversationId".into(), Value::String(id.to_string()));
    }
    let steps: Vec<Value> = answer
        .trace
        .steps
        .iter()
        .map(|s| json!({"name": s.step, "decision": s.decision, "durationMs": round_ms(s.duration_ms)}))
        .collect();
    content.insert("trace".into(), json!({"engine": answer.trace.engine, "steps": steps}));
    Value::Object(content)
}

/// The text rendering of [`ask_content`].
pub fn ask_text(content: &Value) -> String {
    let mut lines = vec![format!("kind: {}", str_of(content, "kind"))];
    for key in ["tool", "summary", "rewrittenQuestion", "step", "code"] {
        if let Some(text) = content.get(key).and_then(Value::as_str) {
            lines.push(format!("{key}: {text}"));
        }
    }
    for key in ["messages", "hints"] {
        for message in content.get(key).and_then(Value::as_array).into_iter().flatten() {
            lines.push(format!(
                "{key} [{}]: {} | {}",
                str_of(message, "code"),
                str_of(message, "zh"),
                str_of(message, "en")
            ));
        }
    }
    for key in ["parameters", "missing", "reasons", "candidates"] {
        if let Some(value) = content.get(key) {
            lines.push(format!("{key}: {value}"));
        }
    }
    if let (Some(columns), Some(rows)) = (
        content.get("columns").and_then(Value::as_array),
        content.get("rows").and_then(Value::as_array),
    ) {
        lines.push(join(columns));
        for row in rows.iter().take(TEXT_ROWS) {
            lines.push(row.as_array().map(|cells| join(cells)).unwrap_or_default());
        }
        if rows.len() > TEXT_ROWS {
            lines.push(format!("… {} more rows", rows.len() - TEXT_ROWS));
        }
    }
    if let Some(steps) = content.pointer("/trace/steps").and_then(Value::as_array) {
        lines.push("trace:".into());
        for step in steps {
            lines.push(format!(
                "  {} — {} ({} ms)",
                str_of(step, "name"),
                str_of(step, "decision"),
                step.get("durationMs").cloned().unwrap_or(Value::Null)
            ));
        }
    }
    lines.join("\n")
}

/// An extraction as structured content: the tool, the outcome's fields (`status`, `params`, …) and its trace.
pub fn extract_content(tool: &str, extraction: &Extraction) -> Value {
    let mut content = Map::new();
    content.insert("tool".into(), Value::String(tool.to_string()));
    if let Ok(Value::Object(outcome)) = serde_json::to_value(&extraction.outcome) {
        content.extend(outcome);
    }
    content.insert(
        "trace".into(),
        serde_json::to_value(&extraction.trace).unwrap_or(Value::Null),
    );
    Value::Object(content)
}

/// The text rendering of [`extract_content`].
pub fn extract_text(content: &Value) -> String {
    let mut lines = vec![
        format!("tool: {}", str_of(content, "tool")),
        format!("status: {}", str_of(content, "status")),
    ];
    for key in ["params", "param", "value", "reason"] {
        if let Some(value) = content.get(key) {
            let shown = value.as_str().map_or_else(|| value.to_string(), str::to_string);
            lines.push(format!("{key}: {shown}"));
        }
    }
    lines.join("\n")
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn join(cells: &[Value]) -> String {
    cells
        .iter()
        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stops_text_carries_its_code_and_both_languages() {
        let content = json!({"kind": "stopped", "step": "scope", "code": "scope.outside",
            "messages": [{"code": "scope.outside", "zh": "不在你的数据范围内", "en": "outside your row scope"}],
            "hints": [{"code": "fallback.no_model", "zh": "配置模型", "en": "configure a model"}]});
        let text = ask_text(&content);
        assert!(text.contains("code: scope.outside"), "{text}");
        assert!(
            text.contains("messages [scope.outside]: 不在你的数据范围内 | outside your row scope"),
            "{text}"
        );
        assert!(
            text.contains("hints [fallback.no_model]: 配置模型 | configure a model"),
            "{text}"
        );
    }
}
