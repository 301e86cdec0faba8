//! `POST /api/ask`: one question answered end to end, stored with its trace; with `Accept: text/event-stream` the
//! trace steps stream as server-sent events while it runs.

use std::convert::Infallible;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};
use wenshu_engine::answer::AskOutcome;
use wenshu_engine::pipeline::AskRequest;
use wenshu_engine::resolve::chosen::subject_of_answer;
use wenshu_engine::route::{MAX_HISTORY, Turn, TurnSubject};
use wenshu_engine::trace::StepSink;
use wenshu_store::{NewTurn, SubjectRef};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The body of `POST /api/ask`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskBody {
    /// The question, in the user's own words.
    pub question: String,
    /// The conversation it belongs to; a new one when absent.
    pub conversation_id: Option<String>,
    /// A subject chosen from candidates (an ID).
    pub subject_id: Option<Value>,
}

/// Handles `POST /api/ask`.
pub async fn ask(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let prepared = match prepare(&state, &principal, body).await {
        Ok(prepared) => prepared,
        Err(error) => return error.into_response(),
    };
    let streaming = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if streaming {
        return stream(state, prepared).into_response();
    }
    match run(&state, prepared, None).await {
        Ok(answer) => Json(answer).into_response(),
        Err(error) => error.into_response(),
    }
}

/// A checked question with its conversation, history and who asks it.
struct Prepared {
    principal: Principal,
    conversation_id: String,
    request: AskRequest,
}

async fn prepare(
    state: &AppState,
    principal: &Principal,
    body: Result<Bytes, BytesRejection>,
) -> Result<Prepared, ApiError> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "body_too_large"
        } else {
            "malformed_body"
        };
        ApiError::new(
            status,
            code,
            format!(
                "{rejection}; at most {} bytes are accepted",
                state.settings().max_body_bytes
            ),
        )
    })?;
    let body: AskBody = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request("malformed_json", format!("the body is not a valid ask request: {e}")))?;
    let question = body.question.trim().to_string();
    let max = state.settings().max_question_chars;
    if question.is_empty() {
        return Err(
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_value", "`question` is empty")
                .with_param("question"),
        );
    }
    if question.chars().count() > max {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_value",
            format!(
                "`question` has {} characters; at most {max} are allowed",
                question.chars().count()
            ),
        )
        .with_param("question"));
    }
    let subject_id = match body.subject_id {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Some(other) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_type",
                format!("`subjectId` must be a non-empty string or a whole number, got {other}"),
            )
            .with_param("subjectId"));
        }
    };
    let (conversation_id, history) = match body.conversation_id {
        Some(id) => {
            check_continuable(state, principal, &id).await?;
            let rounds = state.store().history(&id, MAX_HISTORY).await?;
            let history: Vec<Turn> = rounds
                .into_iter()
                .map(|r| Turn {
                    stopped: r.kind == "stopped",
                    question: r.question,
                    answer: r.conclusion,
                    subject: r.subject.map(|s| TurnSubject {
                        entity_type: s.entity_type,
                        id: s.id,
                        name: s.name,
                    }),
                })
                .collect();
            (id, history)
        }
        None => (
            state.store().create_owned_conversation(principal.owner()).await?.id,
            Vec::new(),
        ),
    };
    let mut request = AskRequest::new(question, state.today());
    request.history = history;
    request.subject_id = subject_id;
    request.viewer = principal.viewer();
    Ok(Prepared {
        principal: principal.clone(),
        conversation_id,
        request,
    })
}

/// Checks that `principal` may continue conversation `id` (another key's is 404, as if it did not exist) and
/// that it is under the turn cap (409).
async fn check_continuable(state: &AppState, principal: &Principal, id: &str) -> Result<(), ApiError> {
    let info = state.store().conversation_info(id).await?;
    let Some(info) = info.filter(|info| principal.can_read(info.owner.as_deref())) else {
        let error = ApiError::not_found("unknown_conversation", format!("no conversation with id `{id}`"));
        return Err(error.with_param("conversationId"));
    };
    let cap = state.settings().max_turns_per_conversation;
    if info.turns >= cap as u64 {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "conversation_full",
            format!(
                "conversation `{id}` holds {} turns, the most allowed is {cap}: start a new one",
                info.turns
            ),
        )
        .with_param("conversationId"));
    }
    Ok(())
}

/// Answers, stores the turn, its trace and its audit entry in one transaction (a rejected subject ID: the entry
/// alone), and shapes the response.
async fn run(state: &AppState, mut prepared: Prepared, sink: Option<StepSink>) -> Result<Value, ApiError> {
    prepared.request.step_sink = sink;
    let started = Instant::now();
    let answer = state.engine().ask(&prepared.request).await;
    crate::metrics::record(&answer, started.elapsed().as_secs_f64());
    let mut audit = crate::audit::entry(
        crate::audit::principal_of(&prepared.principal),
        crate::audit::DOOR_API,
        &prepared.request.question,
        &answer,
    );
    if let AskOutcome::Rejected { error, .. } = &answer.outcome {
        audit.conversation_id = Some(prepared.conversation_id.clone());
        state.store().record_audit(audit).await?;
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        return Err(ApiError::new(status, error.code(), error.to_string()).with_param(error.field()));
    }
    let subject = subject_of_answer(state.engine().planner(), &answer.outcome).map(|s| SubjectRef {
        entity_type: s.entity_type,
        id: s.id,
        name: s.name,
    });
    let (tool, params) = tool_and_params(&answer.outcome);
    let turn = NewTurn {
        conversation_id: prepared.conversation_id.clone(),
        question: prepared.request.question.clone(),
        rewritten_question: answer.rewritten_question.clone(),
        kind: answer.outcome.kind().to_string(),
        tool: tool.clone(),
        outcome: json!(answer.outcome),
        conclusion: answer.conclusion(),
        trace: json!(answer.trace),
        subject,
    };
    let ids = state.store().append_turn_audited(turn, audit).await?;
    Ok(json!({
        "conversationId": prepared.conversation_id,
        "turnId": ids.turn_id,
        "traceId": ids.trace_id,
        "kind": answer.outcome.kind(),
        "tool": tool,
        "params": params,
        "rewrittenQuestion": answer.rewritten_question,
        "outcome": answer.outcome,
        "trace": answer.trace,
    }))
}

/// Aborts the question's task when the client hangs up (the event stream is dropped): its remaining model calls
/// are not made and the turn is not stored.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Streams `step` events while the question runs, then one `answer` (or `error`) event; a hang-up cancels it.
fn stream(state: AppState, prepared: Prepared) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let (steps_tx, steps_rx) = tokio::sync::mpsc::unbounded_channel();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(async move {
        let result = run(&state, prepared, Some(steps_tx)).await;
        let _ = done_tx.send(result);
    });
    let guard = AbortOnDrop(task.abort_handle());
    let start = (steps_rx, Some(done_rx), guard);
    let events = futures_util::stream::unfold(start, |(mut steps, done, guard)| async move {
        if let Some(step) = steps.recv().await {
            let event = Event::default().event("step").json_data(step).unwrap_or_default();
            return Some((Ok(event), (steps, done, guard)));
        }
        let done = done?;
        let event = match done.await {
            Ok(Ok(answer)) => Event::default().event("answer").json_data(answer).unwrap_or_default(),
            Ok(Err(error)) => Event::default()
                .event("error")
                .json_data(error.body())
                .unwrap_or_default(),
            Err(_) => Event::default()
                .event("error")
                .data("{\"error\":{\"code\":\"internal\",\"message\":\"the question was dropped\"}}"),
        };
        Some((Ok(event), (steps, None, guard)))
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}

fn tool_and_params(outcome: &AskOutcome) -> (Option<String>, Option<Value>) {
    match outcome {
        AskOutcome::Answered { tool, params, .. } => (Some(tool.clone()), Some(Value::Object(params.clone()))),
        AskOutcome::Choose { tool, .. } | AskOutcome::Need { tool, .. } | AskOutcome::Rejected { tool, .. } => {
            (Some(tool.clone()), None)
        }
        AskOutcome::Stopped { .. } => (None, None),
    }
}
