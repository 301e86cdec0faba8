//! The model router: one chat call with the route prompt, answered as JSON with structured output where supported.

use serde_json::{Value, json};
use std::sync::Arc;
use wenshu_llm::answer::extract_json_object;
use wenshu_llm::client::{ChatClient, ChatRequest, Message};
use wenshu_llm::prompt::{PromptTemplates, RouteContext, RouteTool, RouteTurn};

use super::{BoxFuture, RouteDecision, RouteInput, RouteResult, Router, Turn};
use crate::model_call::{ModelCall, chinese_weekday};

/// Routes with a chat model.
#[derive(Debug, Clone)]
pub struct ModelRouter {
    client: Arc<ChatClient>,
    prompts: Arc<PromptTemplates>,
}

impl ModelRouter {
    /// A router over `client`, rendering the route prompts with `prompts`.
    pub fn new(client: Arc<ChatClient>, prompts: Arc<PromptTemplates>) -> Self {
        Self { client, prompts }
    }

    /// The system and user messages of the route call.
    pub fn messages(&self, input: &RouteInput<'_>) -> Result<Vec<Message>, String> {
        let context = RouteContext {
            today: input.today.to_string(),
            weekday: chinese_weekday(input.today).to_string(),
            timezone: input.timezone.to_string(),
            tools: input
                .tools
                .iter()
                .map(|tool| RouteTool {
                    code: tool.name().to_string(),
                    title: tool.title().unwrap_or(tool.name()).to_string(),
                    description: tool.description().to_string(),
                    examples: tool.extensions().examples.clone(),
                })
                .collect(),
            subject_types: input.subject_types.clone(),
            history: input
                .recent_history()
                .iter()
                .map(|t| RouteTurn {
                    question: t.question.clone(),
                    answer: with_subject_name(t),
                })
                .collect(),
            question: input.question.to_string(),
        };
        let system = self.prompts.route_system(&context).map_err(|e| e.to_string())?;
        let user = self.prompts.route_user(&context).map_err(|e| e.to_string())?;
        Ok(vec![Message::system(system), Message::user(user)])
    }

    async fn route_once(&self, input: &RouteInput<'_>) -> RouteResult {
        let messages = match self.messages(input) {
            Ok(messages) => messages,
            Err(error) => {
                return RouteResult {
                    error: Some(error),
                    service_failed: true,
                    ..RouteResult::default()
                };
            }
        };
        let chat = ChatRequest {
            messages,
            schema: Some(("route".to_string(), route_schema())),
        };
        let (mut call, text) = ModelCall::send(&self.client, &chat, "the route call").await;
        let text = match text {
            Ok(text) => text,
            Err(error) => {
                return RouteResult {
                    error: Some(error),
                    service_failed: true,
                    call: Some(call),
                    ..RouteResult::default()
                };
            }
        };
        let parsed = extract_json_object(&text)
            .map_err(|e| format!("the route answer is not one JSON object: {e}"))
            .and_then(|object| {
                call.parsed = Some(object.clone());
                serde_json::from_value::<RouteDecision>(Value::Object(lenient(object)))
                    .map_err(|e| format!("the route answer does not have the expected fields: {e}"))
            });
        match parsed {
            Ok(decision) => RouteResult {
                decision: Some(decision),
                call: Some(call),
                ..RouteResult::default()
            },
            Err(error) => {
                call.error = Some(error.clone());
                RouteResult {
                    error: Some(error),
                    call: Some(call),
                    ..RouteResult::default()
                }
            }
        }
    }
}

impl Router for ModelRouter {
    fn engine(&self) -> &'static str {
        "model"
    }

    fn route<'a>(&'a self, input: &'a RouteInput<'a>) -> BoxFuture<'a, RouteResult> {
        Box::pin(async move {
            let first = self.route_once(input).await;
            // A model that answered nothing is asked once more, as an extraction is.
            if first.call.as_ref().is_some_and(|c| c.empty_answer) {
                return self.route_once(input).await;
            }
            first
        })
    }
}

/// A round's conclusion with the name of the subject it was about (never its ID: the model never fills an ID; the
/// pipeline maps the same name back to the ID the user chose).
fn with_subject_name(turn: &Turn) -> String {
    match &turn.subject {
        Some(subject) if !turn.answer.contains(&subject.name) => format!("{}（{}）", turn.answer, subject.name),
        _ => turn.answer.clone(),
    }
}

/// Keeps the six known fields; a non-string value becomes its text (a number as a date is still checked later).
fn lenient(object: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    const FIELDS: [&str; 6] = [
        "toolCode",
        "subjectType",
        "subjectName",
        "startDate",
        "endDate",
        "rewrittenQuestion",
    ];
    object
        .into_iter()
        .filter(|(k, _)| FIELDS.contains(&k.as_str()))
        .map(|(k, v)| {
            let v = match v {
                Value::String(_) | Value::Null => v,
                other => Value::String(other.to_string()),
            };
            (k, v)
        })
        .collect()
}

/// The structured-output schema of a route answer (strict: every field required, nullable).
pub fn route_schema() -> Value {
    let nullable = json!({"type": ["string", "null"]});
    json!({
        "type": "object",
        "properties": {
            "toolCode": nullable, "subjectType": nullable, "subjectName": nullable,
            "startDate": nullable, "endDate": nullable, "rewrittenQuestion": {"type": "string"}
        },
        "required": ["toolCode", "subjectType", "subjectName", "startDate", "endDate", "rewrittenQuestion"],
        "additionalProperties": false
    })
}
