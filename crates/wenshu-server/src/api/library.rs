//! The principal's conversations: `GET /api/conversations` (the list, newest activity first), `PATCH
//! /api/conversations/{id}` (rename) and `DELETE /api/conversations/{id}`. A user sees and changes only what its own
//! key made; anyone else's conversation is 404, as if it did not exist.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::conversations::path_error;
use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The most conversations one list holds.
pub const MAX_LIST: usize = 100;

/// The default length of the list.
pub const DEFAULT_LIST: usize = 50;

/// The longest title a rename may give, in characters.
pub const MAX_TITLE_CHARS: usize = 100;

/// The query of `GET /api/conversations`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// How many conversations (1 to [`MAX_LIST`]; default [`DEFAULT_LIST`]).
    pub limit: Option<String>,
}

/// The body of `PATCH /api/conversations/{id}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameBody {
    /// The new title (1 to [`MAX_TITLE_CHARS`] characters after trimming).
    pub title: Value,
}

/// `limit` read as a whole number from 1 to `max`, `default` when absent; a 422 naming it otherwise.
pub fn parse_limit(text: Option<&str>, default: usize, max: usize) -> Result<usize, ApiError> {
    let Some(text) = text else {
        return Ok(default);
    };
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_value",
            format!("`limit` must be a whole number from 1 to {max}, got `{text}`"),
        )
        .with_param("limit")),
    }
}

/// A JSON body read as `T`, as the contract's 400 when it cannot be.
pub fn read_body<T: serde::de::DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
    shape: &str,
) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| ApiError::new(e.status(), "malformed_body", e.to_string()))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request("malformed_json", format!("the body is not {shape}: {e}")))
}

/// The `{id}` of the path and the JSON body read as `T` (see [`read_body`]).
pub fn id_and_body<T: serde::de::DeserializeOwned>(
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
    shape: &str,
) -> Result<(String, T), ApiError> {
    let Path(id) = id.map_err(path_error)?;
    Ok((id, read_body(body, shape)?))
}

/// A 422 with `code` and `message` naming the body field `param`.
pub fn unprocessable(code: &'static str, param: &str, message: String) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message).with_param(param)
}

/// The principal's conversations that hold turns, newest activity first.
pub async fn list(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request("malformed_query", e.body_text()))?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIST, MAX_LIST)?;
    let conversations = state.store().list_conversations(principal.owner(), limit).await?;
    Ok(Json(json!({"conversations": conversations})))
}

/// Checks that conversation `id` exists and `principal` may read it (else 404).
pub async fn check_readable(state: &AppState, principal: &Principal, id: &str) -> Result<(), ApiError> {
    match state.store().conversation_info(id).await? {
        Some(info) if principal.can_read(info.owner.as_deref()) => Ok(()),
        _ => Err(ApiError::not_found(
            "unknown_conversation",
            format!("no conversation with id `{id}`"),
        )),
    }
}

/// Gives one of the principal's conversations a title.
pub async fn rename(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let (id, body): (String, RenameBody) = id_and_body(id, body, "{\"title\": \"…\"}")?;
    let Value::String(title) = body.title else {
        return Err(unprocessable(
            "invalid_type",
            "title",
            format!("`title` must be a string, got {}", body.title),
        ));
    };
    let title = title.trim();
    let chars = title.chars().count();
    if chars == 0 || chars > MAX_TITLE_CHARS {
        return Err(unprocessable(
            "invalid_value",
            "title",
            format!("`title` must have 1 to {MAX_TITLE_CHARS} characters after trimming, got {chars}"),
        ));
    }
    check_readable(&state, &principal, &id).await?;
    state.store().rename_conversation(&id, title).await?;
    Ok(Json(json!({"id": id, "title": title})))
}

/// Deletes one of the principal's conversations with its turns, traces and feedback.
pub async fn delete(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    let Path(id) = id.map_err(path_error)?;
    check_readable(&state, &principal, &id).await?;
    state.store().delete_conversation(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
