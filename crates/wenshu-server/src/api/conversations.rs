//! `GET /api/conversations/{id}?limit=&before=` (one page of turns, newest last) and `GET /api/traces/{id}`. Both
//! answer only the principal that made the conversation (admins read all); anyone else gets 404, as if it did not
//! exist. A page is bounded: it is read from the store a few turns at a time, newest first, and holds at most
//! `limit` turns and `max_page_bytes` of them (older turns go to the next page; a turn larger than the budget
//! alone has its rows cut, `rowsTotal` saying how many it had); a principal reads at most
//! `max_page_reads_per_principal` pages at once, more get 429.

use std::time::Duration;

use axum::Extension;
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The most turns one page holds, and the default.
pub const MAX_PAGE: usize = 100;

/// How many turns a page reads from the store at a time, so that a page of large turns is never all in memory.
const READ_CHUNK: usize = 8;

/// A page as it is sent: each turn already serialized, counted against the page's byte budget.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    id: String,
    created_at: String,
    turn_count: u64,
    turns: Vec<Box<RawValue>>,
    next_before: Option<String>,
}

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
) -> Result<Response, ApiError> {
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
    let Some(_reading) = state.page_reads().enter(&principal.bucket()) else {
        return Ok(crate::limits::too_many(
            Duration::from_secs(1),
            "too many conversation pages read at once: wait for one to finish",
        ));
    };
    let budget = state.settings().max_page_bytes.max(1);
    let unknown = || ApiError::not_found("unknown_conversation", format!("no conversation with id `{id}`"));
    let mut page: Option<Page> = None;
    // Newest first, as read; reversed at the end.
    let mut turns: Vec<Box<RawValue>> = Vec::new();
    let (mut used, mut cursor) = (0usize, query.before.clone());
    // The oldest turn the page holds so far: the cursor of the older page when the budget stops it.
    let mut oldest: Option<String> = None;
    'reading: loop {
        let want = READ_CHUNK.min(limit - turns.len());
        let chunk = match state.store().conversation_page(&id, want, cursor.as_deref()).await {
            Ok(Some(chunk)) if principal.can_read(chunk.info.owner.as_deref()) => chunk,
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
        let page = page.get_or_insert_with(|| Page {
            id: chunk.info.id.clone(),
            created_at: chunk.info.created_at.clone(),
            turn_count: chunk.info.turns,
            turns: Vec::new(),
            next_before: None,
        });
        for turn in chunk.turns.iter().rev() {
            let room = budget.saturating_sub(used);
            let value = with_feedback(turn, &chunk.feedback);
            let text = match serde_json::to_string(&value) {
                Ok(text) if text.len() <= room => text,
                // The first turn of a page always goes in, cut to the budget; a later one waits for the next page.
                Ok(_) if turns.is_empty() => cut_rows(value, room),
                Ok(_) => {
                    page.next_before = oldest;
                    break 'reading;
                }
                Err(error) => return Err(ApiError::internal(format!("cannot write a turn: {error}"))),
            };
            used += text.len() + 1;
            oldest = Some(turn.id.clone());
            turns.push(RawValue::from_string(text).map_err(|e| ApiError::internal(e.to_string()))?);
        }
        page.next_before = chunk.next_before.clone();
        match chunk.turns.first() {
            Some(oldest) if chunk.next_before.is_some() && turns.len() < limit => cursor = Some(oldest.id.clone()),
            _ => break,
        }
    }
    let mut page = page.ok_or_else(unknown)?;
    turns.reverse();
    page.turns = turns;
    let body = serde_json::to_string(&page).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// A turn (as JSON) larger than `room` bytes, written with as many of its outcome's first rows as fit, and
/// `rowsTotal`: how many rows it had.
fn cut_rows(mut value: Value, room: usize) -> String {
    let rows = match value.pointer_mut("/outcome/rows") {
        Some(Value::Array(rows)) => std::mem::take(rows),
        _ => Vec::new(),
    };
    let total = rows.len();
    if let Value::Object(map) = &mut value {
        map.insert("rowsTotal".into(), json!(total));
    }
    let mut size = serde_json::to_string(&value).map_or(0, |text| text.len());
    let mut kept = Vec::new();
    for row in rows {
        let row_size = serde_json::to_string(&row).map_or(usize::MAX, |text| text.len()) + 1;
        if size.saturating_add(row_size) > room {
            break;
        }
        size += row_size;
        kept.push(row);
    }
    if let Some(Value::Array(rows)) = value.pointer_mut("/outcome/rows") {
        *rows = kept;
    }
    serde_json::to_string(&value).unwrap_or_default()
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
