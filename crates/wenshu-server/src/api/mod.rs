//! The HTTP API's handlers.

pub mod ask;
pub mod audit;
pub mod catalog;
pub mod conversations;
pub mod export;
pub mod feedback;
pub mod library;
pub mod tools;

use axum::Json;
use axum::http::header;
use axum::response::IntoResponse;
use serde_json::{Value, json};

use crate::error::ApiError;

/// The OpenAPI document of the API.
pub const OPENAPI: &str = include_str!("../openapi.json");

/// `GET /healthz`.
pub async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// `GET /api/openapi.json`.
pub async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI)
}

/// Any other path.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found("no_route", format!("no route for `{}`", uri.path()))
}
