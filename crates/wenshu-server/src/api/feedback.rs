//! Feedback on answers: `PUT /api/turns/{id}/feedback` stores a 👍/👎 verdict with an optional note on one turn
//! (the principal's own), and `GET /api/feedback` lists every verdict with the question and the plan it judged, for
//! admins (and, on a server without keys, for anyone, as every conversation is).

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::library::{id_and_body, parse_limit, unprocessable};
use crate::auth::require_admin;
use crate::error::ApiError;
use crate::principal::{Principal, Role};
use crate::state::AppState;

/// The longest note, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;

/// The most verdicts one list holds, and the default.
pub const MAX_FEEDBACK: usize = 500;

/// The body of `PUT /api/turns/{id}/feedback`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedbackBody {
    /// `up` or `down`.
    pub verdict: Value,
    /// An optional note (at most [`MAX_NOTE_CHARS`] characters; empty means none).
    #[serde(default)]
    pub note: Value,
}

/// The query of `GET /api/feedback`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedbackQuery {
    /// How many verdicts (1 to [`MAX_FEEDBACK`]; default [`MAX_FEEDBACK`]).
    pub limit: Option<String>,
}

/// Stores the verdict on one of the principal's turns (a second verdict replaces the first).
pub async fn put(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let (id, body): (String, FeedbackBody) = id_and_body(id, body, "{\"verdict\": \"up\"|\"down\", \"note\": \"…\"}")?;
    let verdict = match &body.verdict {
        Value::String(v) if v == "up" || v == "down" => v.clone(),
        other => {
            return Err(unprocessable(
                "invalid_value",
                "verdict",
                format!("`verdict` must be \"up\" or \"down\", got {other}"),
            ));
        }
    };
    let note = match &body.note {
        Value::Null => None,
        Value::String(text) => {
            let text = text.trim();
            let chars = text.chars().count();
            if chars > MAX_NOTE_CHARS {
                return Err(unprocessable(
                    "invalid_value",
                    "note",
                    format!("`note` has {chars} characters; at most {MAX_NOTE_CHARS} are allowed"),
                ));
            }
            (!text.is_empty()).then(|| text.to_string())
        }
        other => {
            return Err(unprocessable(
                "invalid_type",
                "note",
                format!("`note` must be a string or null, got {other}"),
            ));
        }
    };
    match state.store().owned_turn(&id).await? {
        Some(turn) if principal.can_read(turn.owner.as_deref()) => {}
        _ => return Err(ApiError::not_found("unknown_turn", format!("no turn with id `{id}`"))),
    }
    let stored = state.store().set_feedback(&id, &verdict, note.as_deref()).await?;
    Ok(Json(json!(stored)))
}

/// Every verdict, newest first, with the question and the plan (tool, parameters) it judged.
pub async fn list(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    query: Result<Query<FeedbackQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    if principal.role != Role::Anonymous {
        require_admin(&state, &principal)?;
    }
    let Query(query) = query.map_err(|e| ApiError::bad_request("malformed_query", e.body_text()))?;
    let limit = parse_limit(query.limit.as_deref(), MAX_FEEDBACK, MAX_FEEDBACK)?;
    let feedback = state.store().feedback(limit).await?;
    Ok(Json(json!({"feedback": feedback})))
}
