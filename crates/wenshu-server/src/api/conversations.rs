//! `GET /api/conversations/{id}?limit=&before=` (one page of turns, newest last) and `GET /api/traces/{id}`. Both
//! answer only the principal that made the conversation (admins read all); anyone else gets 404, as if it did not
//! exist.

use axum::Extension;
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The most turns one page holds, and the default.
pub const MAX_PAGE: usize = 100;

/// The query of `GET /api/conversations/{id}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// How many turns (1 to [`MAX_PAGE`]; default [`MAX_PAGE`]).
    pub limit: Option<String>,
    /// A turn id: the page ends just before it (default: the newest turn).
    pub before: Option<String>,
}

/// A page of a conversation's turns, oldest first, with the cursor of the page before.
pub async fn conversation(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Path(id) = id.map_err(path_error)?;
    let Query(query) = query.map_err(|e| ApiError::bad_request("malformed_query", e.body_text()))?;
    let limit = match query.limit.as_deref() {
        None => MAX_PAGE,
        Some(text) => match text.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => n,
            _ => {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "invalid_value",
                    format!("`limit` must be a whole number from 1 to {MAX_PAGE}, got `{text}`"),
                )
                .with_param("limit"));
            }
        },
    };
    let unknown = || ApiError::not_found("unknown_conversation", format!("no conversation with id `{id}`"));
    let page = match state
        .store()
        .conversation_page(&id, limit, query.before.as_deref())
        .await
    {
        Ok(Some(page)) if principal.can_read(page.info.owner.as_deref()) => page,
        Ok(_) => return Err(unknown()),
        Err(wenshu_store::StoreError::NotFound { id: turn, .. }) => {
            return Err(ApiError::not_found(
                "unknown_turn",
                format!("no turn `{turn}` in this conversation to page before"),
            )
            .with_param("before"));
        }
        Err(other) => return Err(other.into()),
    };
    let turns: Vec<Value> = page
        .turns
        .iter()
        .map(|turn| with_feedback(turn, &page.feedback))
        .collect();
    Ok(Json(json!({
        "id": page.info.id,
        "createdAt": page.info.created_at,
        "turnCount": page.info.turns,
        "turns": turns,
        "nextBefore": page.next_before,
    })))
}

/// A turn as JSON with its 👍/👎 verdict (`feedback`: verdict, note, createdAt; null when none was given).
fn with_feedback(turn: &wenshu_store::Turn, feedback: &[wenshu_store::Feedback]) -> Value {
    let mut value = json!(turn);
    let verdict = feedback
        .iter()
        .find(|f| f.turn_id == turn.id)
        .map(|f| json!({"verdict": f.verdict, "note": f.note, "createdAt": f.created_at}));
    if let Value::Object(map) = &mut value {
        map.insert("feedback".into(), verdict.unwrap_or(Value::Null));
    }
    value
}

/// One stored trace, to the principal that owns its conversation.
pub async fn trace(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let Path(id) = id.map_err(path_error)?;
    match state.store().owned_trace(&id).await? {
        Some(trace) if principal.can_read(trace.owner.as_deref()) => Ok(Json(trace.body)),
        _ => Err(ApiError::not_found("unknown_trace", format!("no trace with id `{id}`"))),
    }
}

/// A path that cannot be read (not UTF-8) as the contract's 400.
pub fn path_error(rejection: PathRejection) -> ApiError {
    ApiError::bad_request("malformed_path", rejection.body_text())
}
