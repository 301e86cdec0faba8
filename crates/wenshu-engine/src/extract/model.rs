//! The model-backed extractor (seed 000): the question and the tool's readable definition go to a chat model; the
//! JSON object that comes back is coerced, grounded in the question, and bound — with one corrective re-ask.

use std::sync::Arc;

use jiff::civil::Date;
use serde_json::{Map, Value};
use wenshu_contract::bind::{BindError, bind, coerce_values};
use wenshu_contract::render::{Lang, render_tool_without};
use wenshu_contract::{Coercion, Tool};
use wenshu_lexicon::period::match_period_of;
use wenshu_llm::answer::extract_json_object;
use wenshu_llm::client::{ChatClient, ChatRequest, Message};
use wenshu_llm::prompt::{ExtractRetryContext, ExtractSystemContext, ExtractUserContext, PromptTemplates};

use super::ExtractRequest;
use super::decoding_schema::decoding_schema;
use super::grounding::ground;
use super::outcome::{ExtractOutcome, ExtractTrace, Extraction};
use super::said::Said;
use super::unmatched;
use crate::facts::QuestionFacts;
use crate::model_call::{ModelCall, chinese_weekday};
use crate::param_kinds::is_period_param;

/// How many times a model is asked for one extraction: the first ask and one corrective re-ask.
pub const MAX_ASKS: usize = 2;

/// What the re-ask says when the model answered nothing.
const EMPTY_ANSWER: &str = "your answer was empty: answer with one JSON object of the parameters";

/// Extracts parameters with a chat model.
#[derive(Debug, Clone)]
pub struct ModelExtractor {
    client: Arc<ChatClient>,
    prompts: Arc<PromptTemplates>,
    strict_schema: bool,
}

/// Why one ask did not give a usable answer, and whether asking again may help.
enum AskFailure {
    /// Worth one re-ask with this message.
    Correctable(String),
    /// Final: the outcome to report.
    Final(ExtractOutcome),
}

impl ModelExtractor {
    /// An extractor over `client`, rendering prompts with `prompts`; `strict_schema` asks for strict structured
    /// output (every property required and nullable).
    pub fn new(client: Arc<ChatClient>, prompts: Arc<PromptTemplates>, strict_schema: bool) -> Self {
        Self {
            client,
            prompts,
            strict_schema,
        }
    }

    /// Runs one extraction: ask, check, ground, bind; re-ask once with the exact error when the answer is unusable.
    /// The values are grounded in the request's question.
    pub async fn extract(&self, request: &ExtractRequest<'_>) -> Extraction {
        self.extract_said(request, Said::alone(request.question)).await
    }

    /// Runs one extraction like [`ModelExtractor::extract`]: the model reads the request's question (a router's
    /// rewrite, references resolved), and its values are grounded in what the user said (`said`), never in the
    /// rewrite.
    pub async fn extract_said(&self, request: &ExtractRequest<'_>, said: Said<'_>) -> Extraction {
        let mut trace = ExtractTrace {
            engine: "model",
            fixed: request.fixed.clone(),
            ..ExtractTrace::default()
        };
        let facts = said.facts(request.today);
        let mut messages = match self.first_messages(request) {
            Ok(messages) => messages,
            Err(reason) => {
                return Extraction {
                    outcome: ExtractOutcome::Failed { reason },
                    trace,
                };
            }
        };
        let hidden = request.hidden();
        if request.tool.params().iter().all(|p| hidden.contains(&p.name.as_str())) {
            let outcome = match check(request, &facts, said.subject, &Map::new(), &mut trace) {
                Ok(outcome) => outcome,
                Err(AskFailure::Final(outcome)) => outcome,
                Err(AskFailure::Correctable(reason)) => ExtractOutcome::Failed { reason },
            };
            return Extraction { outcome, trace };
        }
        let schema = decoding_schema(request.tool, &hidden, self.strict_schema);
        for ask in 0..MAX_ASKS {
            let chat = ChatRequest {
                messages: messages.clone(),
                schema: Some((request.tool.name().to_string(), schema.clone())),
            };
            let (call, answer) = self.ask(&chat).await;
            trace.calls.push(call);
            let empty = trace.calls.last().is_some_and(|c| c.empty_answer);
            let failure = match answer {
                Err(_) if empty => AskFailure::Correctable(EMPTY_ANSWER.to_string()),
                Err(outcome) => AskFailure::Final(outcome),
                Ok(text) => match extract_json_object(&text) {
                    Err(e) => AskFailure::Correctable(format!("your answer is not one JSON object: {e}")),
                    Ok(object) => {
                        if let Some(call) = trace.calls.last_mut() {
                            call.parsed = Some(object.clone());
                        }
                        match check(request, &facts, said.subject, &object, &mut trace) {
                            Ok(outcome) => return Extraction { outcome, trace },
                            Err(failure) => failure,
                        }
                    }
                },
            };
            let retry_message = match failure {
                AskFailure::Final(outcome) => return Extraction { outcome, trace },
                AskFailure::Correctable(message) if ask + 1 < MAX_ASKS => message,
                AskFailure::Correctable(message) => {
                    let outcome = ExtractOutcome::Failed {
                        reason: format!("after one re-ask: {message}"),
                    };
                    return Extraction { outcome, trace };
                }
            };
            if let Some(call) = trace.calls.last_mut() {
                call.error = Some(retry_message.clone());
            }
            let previous = trace
                .calls
                .last()
                .and_then(|c| c.raw_answer.clone())
                .unwrap_or_default();
            match self.prompts.extract_retry(&ExtractRetryContext {
                error: retry_message,
                previous_answer: previous.clone(),
            }) {
                Ok(text) => {
                    messages.push(Message::assistant(previous));
                    messages.push(Message::user(text));
                }
                Err(e) => {
                    return Extraction {
                        outcome: ExtractOutcome::Failed { reason: e.to_string() },
                        trace,
                    };
                }
            }
        }
        Extraction {
            outcome: ExtractOutcome::Failed {
                reason: "no answer".into(),
            },
            trace,
        }
    }

    fn first_messages(&self, request: &ExtractRequest<'_>) -> Result<Vec<Message>, String> {
        extract_messages(&self.prompts, request)
    }

    /// One model call; the text of the answer, or the final outcome when the call failed.
    async fn ask(&self, chat: &ChatRequest) -> (ModelCall, Result<String, ExtractOutcome>) {
        let (call, text) = ModelCall::send(&self.client, chat, "the model call").await;
        (call, text.map_err(|reason| ExtractOutcome::Failed { reason }))
    }
}

/// The system and user messages of the first ask: the rules (or the tool's `x-param-prompt`) stating today and the
/// time zone, then the tool's readable definition without code-filled parameters, and the question as data.
pub fn extract_messages(prompts: &PromptTemplates, request: &ExtractRequest<'_>) -> Result<Vec<Message>, String> {
    let context = ExtractSystemContext {
        today: request.today.to_string(),
        weekday: chinese_weekday(request.today).to_string(),
        timezone: request.timezone.to_string(),
    };
    let system = match &request.tool.extensions().param_prompt {
        Some(template) => prompts.render_custom(template, &context),
        None => prompts.extract_system(&context),
    }
    .map_err(|e| e.to_string())?;
    let hidden = request.hidden();
    let definition = render_tool_without(request.tool, Lang::Zh, &hidden);
    let user = prompts
        .extract_user(&ExtractUserContext {
            tool_definition: definition,
            question: request.question.to_string(),
        })
        .map_err(|e| e.to_string())?;
    Ok(vec![Message::system(system), Message::user(user)])
}

/// Coerces, grounds and binds one parsed answer.
fn check(
    request: &ExtractRequest<'_>,
    facts: &QuestionFacts,
    subject: Option<&str>,
    answer: &Map<String, Value>,
    trace: &mut ExtractTrace,
) -> Result<ExtractOutcome, AskFailure> {
    let tool = request.tool;
    let mut answer: Map<String, Value> = answer
        .iter()
        .filter(|(k, _)| !request.fixed.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    // What the model could not express is never an argument; a condition the user said makes the call unable to
    // answer, whatever else the answer holds.
    trace.unmatched = unmatched::take(request, subject, &mut answer, facts);
    let said = unmatched::said(&trace.unmatched);
    if !said.is_empty() {
        return Ok(ExtractOutcome::Unsupported {
            param: unmatched::UNMATCHED.to_string(),
            value: unmatched::join(&said),
        });
    }
    let period_coercions = periods_in_words(tool, &mut answer, request.today);
    let (values, coercions) = match coerce_values(tool, &answer) {
        Ok(pair) => pair,
        Err(BindError::Invalid(invalid)) if invalid.code == "enum_out_of_range" && stated(facts, &invalid.value) => {
            let value = invalid
                .value
                .as_str()
                .map_or_else(|| invalid.value.to_string(), str::to_string);
            return Ok(ExtractOutcome::Unsupported {
                param: invalid.param,
                value,
            });
        }
        Err(e) => {
            if let BindError::UnknownFields { names, .. } = &e {
                trace.unknown_keys = names.clone();
            }
            return Err(correctable_or_final(e));
        }
    };
    trace.coercions = period_coercions.into_iter().chain(coercions).collect();
    let hidden = request.hidden();
    let grounding = ground(tool, facts, &values, &hidden);
    trace.grounding = grounding.checks;
    if let Some(unsupported) = grounding.unsupported {
        return Ok(ExtractOutcome::Unsupported {
            param: unsupported.param,
            value: unsupported.value,
        });
    }
    let mut merged = grounding.kept;
    merged.extend(request.fixed.clone());
    trace.bound_from = Some(merged.clone());
    match bind(tool, &merged) {
        Ok(call) => Ok(ExtractOutcome::Ok { params: call.arguments }),
        Err(BindError::Missing { names, .. }) => Ok(ExtractOutcome::Missing { params: names }),
        Err(e) => Err(correctable_or_final(e)),
    }
}

/// A period enum's value given in words (这个月, 上个季度, Q3) becomes the enum value of the same days, through the
/// time knowledge; a value no enum value denotes is left for binding to refuse.
fn periods_in_words(tool: &Tool, answer: &mut Map<String, Value>, today: Date) -> Vec<Coercion> {
    let mut coercions = Vec::new();
    for spec in tool.params().iter().filter(|s| is_period_param(s, today)) {
        let Some(Value::String(text)) = answer.get(&spec.name) else {
            continue;
        };
        let spelled = tool.enum_index(&spec.name).is_some_and(|i| i.lookup(text).is_some())
            || spec.enum_strings().any(|v| v == text.as_str());
        if spelled {
            continue;
        }
        let values: Vec<&str> = spec.enum_strings().collect();
        if let Some(matched) = match_period_of(&values, text, today) {
            coercions.push(Coercion {
                param: spec.name.clone(),
                from: Value::String(text.clone()),
                to: Value::String(matched.clone()),
                rule: "period_words",
            });
            answer.insert(spec.name.clone(), Value::String(matched));
        }
    }
    coercions
}

/// Whether the question itself states a value (then a value the tool refuses is the user's, not the model's).
fn stated(facts: &QuestionFacts, value: &Value) -> bool {
    value.as_str().is_some_and(|text| facts.contains(text))
}

/// Binding errors a model can fix on a re-ask (a wrong value or key) are correctable; the last one stands.
fn correctable_or_final(error: BindError) -> AskFailure {
    match &error {
        BindError::Invalid(_) | BindError::UnknownFields { .. } => AskFailure::Correctable(error.to_string()),
        _ => AskFailure::Final(ExtractOutcome::Failed {
            reason: error.to_string(),
        }),
    }
}
