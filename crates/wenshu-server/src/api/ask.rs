//! `POST /api/ask`: one question answered end to end, stored with its trace; with `Accept: text/event-stream` the
//! trace steps stream as server-sent events while it runs.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
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
use wenshu_engine::{Answer, AskOutcome, AskRequest, MAX_HISTORY, RowsWanted, TraceStep, Turn, TurnSubject};
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
    /// Every row of a list up to the server's cap: the same call with its limit raised.
    #[serde(default)]
    pub all_rows: bool,
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
    // A plain ask runs in a task of its own too: a connection closed before the answer cancels it with an entry.
    match spawn_ask(state, prepared, Arc::default()).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(error)) => error.into_response(),
        Err(_) => ApiError::internal("the question was dropped").into_response(),
    }
}

/// A checked question with its conversation, history and who asks it.
struct Prepared {
    principal: Principal,
    /// The conversation it continues; `None`: a new one, created with the ask's turn in one write.
    conversation_id: Option<String>,
    request: AskRequest,
    rows: RowsWanted,
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
        Some(Value::Number(n)) if n.as_i64().is_some_and(|i| i.unsigned_abs() <= SAFE_ID) => Some(n.to_string()),
        Some(Value::Number(n)) if n.as_f64().is_some_and(is_whole_id) => n.as_f64().map(|f| (f as i64).to_string()),
        Some(other) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_type",
                format!("`subjectId` must be a non-empty string or a whole number within ±{SAFE_ID}, got {other}"),
            )
            .with_param("subjectId"));
        }
    };
    let (conversation_id, history) = match body.conversation_id {
        Some(id) => {
            let own = check_continuable(state, principal, &id).await?;
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
            // An admin asking in another principal's conversation: its answer (read with the admin's own, wider
            // view) goes into a new conversation of the admin's, never into the owner's.
            (own.then_some(id), history)
        }
        None => (None, Vec::new()),
    };
    let mut request = AskRequest::new(question, state.today());
    request.history = history;
    request.subject_id = subject_id;
    request.viewer = principal.viewer();
    Ok(Prepared {
        principal: principal.clone(),
        conversation_id,
        request,
        rows: if body.all_rows {
            RowsWanted::All
        } else {
            RowsWanted::Limit
        },
    })
}

/// Checks that `principal` may read conversation `id` (another key's is 404, as if it did not exist) and, when it
/// is the principal's own, that it is under the turn cap (409); whether it is the principal's own (same owner).
async fn check_continuable(state: &AppState, principal: &Principal, id: &str) -> Result<bool, ApiError> {
    let info = state.store().conversation_info(id).await?;
    let Some(info) = info.filter(|info| principal.can_read(info.owner.as_deref())) else {
        let error = ApiError::not_found("unknown_conversation", format!("no conversation with id `{id}`"));
        return Err(error.with_param("conversationId"));
    };
    if info.owner.as_deref() != principal.owner() {
        return Ok(false);
    }
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
    Ok(true)
}

/// The id of the conversation `prepared` belongs to, for an ask that keeps no turn (a rejected or cancelled one,
/// whose audit entry names it): a new one is created now.
async fn conversation_now(state: &AppState, prepared: &Prepared) -> Result<String, ApiError> {
    match &prepared.conversation_id {
        Some(id) => Ok(id.clone()),
        None => Ok(state
            .store()
            .create_owned_conversation(prepared.principal.owner())
            .await?
            .id),
    }
}

/// The engine's answer to a prepared question (its steps go to the request's sink as they finish).
async fn think(state: &AppState, prepared: &Prepared) -> Answer {
    let started = Instant::now();
    let answer = state.engine().ask_rows(&prepared.request, prepared.rows).await;
    crate::metrics::record(&answer, started.elapsed().as_secs_f64());
    answer
}

/// Stores an answer's turn, trace and audit entry in one transaction (a rejected subject ID: the entry alone), and
/// shapes the response.
async fn keep(state: &AppState, prepared: Prepared, answer: Answer) -> Result<Value, ApiError> {
    let mut audit = crate::audit::entry(
        crate::audit::principal_of(&prepared.principal),
        crate::audit::DOOR_API,
        &prepared.request.question,
        &answer,
    );
    if let AskOutcome::Rejected { error, .. } = &answer.outcome {
        audit.conversation_id = Some(conversation_now(state, &prepared).await?);
        state.store().record_audit(audit).await?;
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        return Err(ApiError::new(status, error.code(), error.to_string()).with_param(error.field()));
    }
    let subject = answer.subject.clone().map(|s| SubjectRef {
        entity_type: s.entity_type,
        id: s.id,
        name: s.name,
    });
    let (tool, params) = tool_and_params(&answer.outcome);
    let turn = NewTurn {
        conversation_id: prepared.conversation_id.clone().unwrap_or_default(),
        question: prepared.request.question.clone(),
        rewritten_question: answer.rewritten_question.clone(),
        kind: answer.outcome.kind().to_string(),
        tool: tool.clone(),
        outcome: json!(answer.outcome),
        conclusion: answer.conclusion(),
        trace: json!(answer.trace),
        subject,
    };
    let (conversation_id, ids) = match prepared.conversation_id {
        Some(id) => (id, state.store().append_turn_audited(turn, audit).await?),
        None => {
            let owner = prepared.principal.owner();
            let (conversation, ids) = state.store().open_conversation_audited(owner, turn, audit).await?;
            (conversation.id, ids)
        }
    };
    Ok(json!({
        "conversationId": conversation_id,
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

/// Steps whose event carries result data (rows): from the first of them on, step events are held back until the
/// turn and its audit entry are stored, so that no rows reach a client before its ask is audited.
const DATA_STEPS: [&str; 2] = ["execute", "fallback"];

/// What an ask's events have carried so far: every step the engine finished, and the last step whose event was
/// handed to the client (`None`: none yet; a plain ask sends none).
#[derive(Default)]
struct Seen {
    steps: Vec<TraceStep>,
    sent: Option<&'static str>,
}

/// The state of a streamed ask's events.
struct Flow {
    steps: tokio::sync::mpsc::UnboundedReceiver<TraceStep>,
    steps_done: bool,
    done: Option<tokio::sync::oneshot::Receiver<Result<Value, ApiError>>>,
    holding: bool,
    held: Vec<TraceStep>,
    release: VecDeque<Event>,
    seen: Arc<Mutex<Seen>>,
}

/// Streams `step` events while the question runs, then one `answer` (or `error`) event. The steps from the first
/// that carries rows (`execute`, `fallback`) on are sent only after the turn and its audit entry are stored, just
/// before the answer. A hang-up before the answer cancels the question (its remaining model calls are not made,
/// no turn is stored) and writes a `cancelled` audit entry; a hang-up after it leaves the stored turn and entry.
fn stream(state: AppState, mut prepared: Prepared) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let (steps_tx, steps_rx) = tokio::sync::mpsc::unbounded_channel();
    let seen = Arc::new(Mutex::new(Seen::default()));
    prepared.request.step_sink = Some(steps_tx);
    let done_rx = spawn_ask(state, prepared, Arc::clone(&seen));
    let start = Flow {
        steps: steps_rx,
        steps_done: false,
        done: Some(done_rx),
        holding: false,
        held: Vec::new(),
        release: VecDeque::new(),
        seen,
    };
    let events = futures_util::stream::unfold(start, |mut flow| async move {
        loop {
            if let Some(event) = flow.release.pop_front() {
                return Some((Ok(event), flow));
            }
            if !flow.steps_done {
                let Some(step) = flow.steps.recv().await else {
                    flow.steps_done = true;
                    continue;
                };
                flow.holding |= DATA_STEPS.contains(&step.step);
                let mut seen = flow.seen.lock().unwrap_or_else(PoisonError::into_inner);
                seen.steps.push(step.clone());
                if flow.holding {
                    drop(seen);
                    flow.held.push(step);
                    continue;
                }
                seen.sent = Some(step.step);
                drop(seen);
                return Some((Ok(step_event(&step)), flow));
            }
            let done = flow.done.take()?;
            match done.await {
                Ok(Ok(answer)) => {
                    flow.release.extend(flow.held.drain(..).map(|step| step_event(&step)));
                    let event = Event::default().event("answer").json_data(answer).unwrap_or_default();
                    flow.release.push_back(event);
                }
                // Not stored, not audited: the held rows are not sent.
                Ok(Err(error)) => {
                    let event = Event::default()
                        .event("error")
                        .json_data(error.body())
                        .unwrap_or_default();
                    flow.release.push_back(event);
                }
                Err(_) => flow.release.push_back(
                    Event::default()
                        .event("error")
                        .data("{\"error\":{\"code\":\"internal\",\"message\":\"the question was dropped\"}}"),
                ),
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// Answers `prepared` in a task of its own; the result comes on the returned receiver. Dropping the receiver before
/// the answer (the client hung up) cancels the question and writes its `cancelled` entry from `seen`; once the answer
/// is there, its turn and entry are stored whatever the client does (one transaction a hang-up cannot cut).
fn spawn_ask(
    state: AppState,
    prepared: Prepared,
    seen: Arc<Mutex<Seen>>,
) -> tokio::sync::oneshot::Receiver<Result<Value, ApiError>> {
    let (mut done_tx, done_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let answer = tokio::select! {
            answer = think(&state, &prepared) => answer,
            () = done_tx.closed() => {
                record_cancelled(&state, &prepared, &seen).await;
                return;
            }
        };
        let result = keep(&state, prepared, answer).await;
        let _ = done_tx.send(result);
    });
    done_rx
}

/// One `step` event.
fn step_event(step: &TraceStep) -> Event {
    Event::default().event("step").json_data(step).unwrap_or_default()
}

/// Writes the `cancelled` audit entry of an ask whose client hung up before its answer was stored.
async fn record_cancelled(state: &AppState, prepared: &Prepared, seen: &Mutex<Seen>) {
    let (steps, sent) = {
        let seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
        (seen.steps.clone(), seen.sent)
    };
    let mut entry = crate::audit::cancelled_entry(
        crate::audit::principal_of(&prepared.principal),
        crate::audit::DOOR_API,
        &prepared.request.question,
        steps,
        sent,
    );
    match conversation_now(state, prepared).await {
        Ok(id) => entry.conversation_id = Some(id),
        Err(error) => tracing::warn!(?error, "the conversation of a cancelled ask was not created"),
    }
    if let Err(error) = state.store().record_audit(entry).await {
        tracing::warn!(%error, "the audit entry of a cancelled ask was not written");
    }
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

/// The largest subject ID written as a number (2^53 − 1, as the OpenAPI document bounds it): beyond it a JSON number
/// is not one exact integer to every client.
const SAFE_ID: u64 = 9_007_199_254_740_991;

/// Whether a number written with a fraction part (`7.0`) is a whole ID within ±[`SAFE_ID`].
fn is_whole_id(f: f64) -> bool {
    let safe = SAFE_ID as f64;
    f.fract() == 0.0 && (-safe..=safe).contains(&f)
}
