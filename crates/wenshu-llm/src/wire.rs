//! The OpenAI chat completions wire format: request bodies out, completions in.

use serde_json::{Map, Value, json};

use crate::client::{ChatRequest, Usage};
use crate::config::{OutputMode, ProviderConfig};
use crate::error::ProviderError;

/// What the client keeps from a completion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Completion {
    /// The answer text: the message content, or the tool call's `arguments` in tool-call mode.
    pub text: String,
    /// The model the server says answered.
    pub model: Option<String>,
    /// Token counts, when sent.
    pub usage: Option<Usage>,
}

/// The JSON body of one `POST /chat/completions`.
pub(crate) fn request_body(provider: &ProviderConfig, request: &ChatRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::String(provider.model.clone()));
    body.insert("messages".into(), json!(request.messages));
    body.insert("stream".into(), Value::Bool(false));
    if let Some(t) = provider.temperature {
        // f32 → f64 through the decimal text keeps 0.1 as 0.1 rather than 0.10000000149011612.
        let t: f64 = t.to_string().parse().unwrap_or(f64::from(t));
        body.insert("temperature".into(), json!(t));
    }
    if let Some(max) = provider.max_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    let schema = request.schema.as_ref();
    match (provider.output_mode.effective(schema.is_some()), schema) {
        (OutputMode::JsonSchema { strict }, Some((name, schema))) => {
            let format = json!({
                "type": "json_schema",
                "json_schema": { "name": schema_name(name), "schema": schema, "strict": strict }
            });
            body.insert("response_format".into(), format);
        }
        (OutputMode::ToolCall, Some((name, schema))) => {
            let name = schema_name(name);
            let tool = json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": "Return the answer as the arguments of this function.",
                    "parameters": schema
                }
            });
            body.insert("tools".into(), json!([tool]));
            body.insert(
                "tool_choice".into(),
                json!({ "type": "function", "function": { "name": name } }),
            );
        }
        (OutputMode::Plain, _) => {}
        _ => {
            body.insert("response_format".into(), json!({ "type": "json_object" }));
        }
    }
    Value::Object(body)
}

/// A function/schema name the API accepts: `[A-Za-z0-9_-]{1,64}`; other characters become `_`.
pub(crate) fn schema_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() { "answer".into() } else { cleaned }
}

/// Reads a completion body. `reasoning_content` and unknown fields are ignored.
pub(crate) fn parse_completion(body: &str, mode: OutputMode) -> Result<Completion, ProviderError> {
    let not_understood = |reason: &str| ProviderError::ResponseNotUnderstood {
        reason: reason.into(),
        raw: body.into(),
    };
    let value: Value = serde_json::from_str(body).map_err(|_| not_understood("not JSON"))?;
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| not_understood("no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| not_understood("no message in the first choice"))?;
    let content = message_content(message.get("content"));
    let arguments = tool_arguments(message);
    let text = match mode {
        OutputMode::ToolCall => arguments.or(content),
        _ => content.or(arguments),
    };
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        let finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned);
        return Err(ProviderError::EmptyAnswer { finish_reason });
    };
    let usage = value
        .get("usage")
        .and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok());
    let model = value.get("model").and_then(Value::as_str).map(str::to_owned);
    Ok(Completion { text, model, usage })
}

/// The content as text: a string, or the text parts of an array of content parts.
fn message_content(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let text: String = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            Some(text)
        }
        _ => None,
    }
}

/// The first tool call's `arguments` (a string as the API sends it; an object some servers send is re-encoded).
fn tool_arguments(message: &Value) -> Option<String> {
    let arguments = message.pointer("/tool_calls/0/function/arguments")?;
    match arguments {
        Value::String(text) => Some(text.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Message;

    fn request(schema: bool) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::system("s"), Message::user("u")],
            schema: schema.then(|| ("sales query!".to_owned(), json!({"type": "object"}))),
        }
    }

    #[test]
    fn modes_shape_the_body() {
        let base = ProviderConfig::new("a", "http://h/v1", "m")
            .with_temperature(0.1)
            .with_max_tokens(64);
        let body = request_body(&base.clone().with_output_mode(OutputMode::Plain), &request(true));
        assert!(body.get("response_format").is_none());
        assert_eq!(body["temperature"], json!(0.1));
        assert_eq!(body["max_tokens"], json!(64));
        assert_eq!(body["messages"][0], json!({"role": "system", "content": "s"}));

        let body = request_body(
            &base.clone().with_output_mode(OutputMode::JsonSchema { strict: true }),
            &request(true),
        );
        assert_eq!(body["response_format"]["json_schema"]["name"], "sales_query_");
        assert_eq!(body["response_format"]["json_schema"]["strict"], true);

        let body = request_body(&base.clone().with_output_mode(OutputMode::ToolCall), &request(false));
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        assert!(body.get("tools").is_none());

        let body = request_body(&base.with_output_mode(OutputMode::ToolCall), &request(true));
        assert_eq!(body["tools"][0]["function"]["parameters"], json!({"type": "object"}));
        assert_eq!(body["tool_choice"]["function"]["name"], "sales_query_");
    }

    #[test]
    fn parses_content_tool_calls_and_ignores_reasoning() {
        let body = r#"{"model":"x","choices":[{"message":{"content":"{}","reasoning_content":"hm"}}],
                      "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#;
        let c = parse_completion(body, OutputMode::JsonObject).expect("completion");
        assert_eq!(c.text, "{}");
        assert_eq!(c.usage.expect("usage").total_tokens, 5);

        let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}"#;
        assert_eq!(
            parse_completion(body, OutputMode::ToolCall).expect("args").text,
            r#"{"a":1}"#
        );

        let body = r#"{"choices":[{"message":{"content":""},"finish_reason":"length"}]}"#;
        assert_eq!(
            parse_completion(body, OutputMode::Plain),
            Err(ProviderError::EmptyAnswer {
                finish_reason: Some("length".into())
            })
        );
        assert!(matches!(
            parse_completion("<html>", OutputMode::Plain),
            Err(ProviderError::ResponseNotUnderstood { .. })
        ));
        assert!(matches!(
            parse_completion(r#"{"choices":[]}"#, OutputMode::Plain),
            Err(ProviderError::ResponseNotUnderstood { .. })
        ));
    }
}
