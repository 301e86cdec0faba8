//! `GET /api/conversations/{id}` and `GET /api/traces/{id}`.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::state::AppState;

/// A conversation and its turns.
pub async fn conversation(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    match state.store().conversation(&id).await? {
        Some(conversation) => Ok(Json(json!(conversation))),
        None => Err(ApiError::not_found(
            "unknown_conversation",
            format!("no conversation with id `{id}`"),
        )),
    }
}

/// One stored trace.
pub async fn trace(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    match state.store().trace(&id).await? {
        Some(trace) => Ok(Json(trace)),
        None => Err(ApiError::not_found("unknown_trace", format!("no trace with id `{id}`"))),
    }
}
