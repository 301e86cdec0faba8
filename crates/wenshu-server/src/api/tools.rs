//! `GET /api/tools` and `PATCH /api/tools/{name}` (enable or disable; admin key).

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use serde_json::{Value, json};
use wenshu_contract::Tool;

use crate::auth::require_admin;
use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// Every tool with whether it is enabled and how it runs.
pub async fn list(State(state): State<AppState>) -> Json<Value> {
    let planner = state.engine().planner();
    let fallback = planner.catalog().fallback().map(Tool::name);
    let tools: Vec<Value> = planner
        .catalog()
        .tools()
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name(),
                "title": tool.title(),
                "description": tool.description(),
                "enabled": planner.is_enabled(tool.name()),
                "kind": kind(tool, fallback),
            })
        })
        .collect();
    Json(json!({"tools": tools}))
}

fn kind(tool: &Tool, fallback: Option<&str>) -> &'static str {
    if Some(tool.name()) == fallback {
        "fallback"
    } else if tool.definition().get("x-sql").is_some() {
        "sql"
    } else if tool.route().is_some() {
        "http"
    } else if tool.name().contains('.') {
        "mcp"
    } else {
        "tool"
    }
}

/// Enables or disables a tool for every later question; the change is stored.
pub async fn set_enabled(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    name: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&state, &principal)?;
    let Path(name) = name.map_err(super::conversations::path_error)?;
    let planner = state.engine().planner();
    if planner.catalog().get(&name).is_none() {
        return Err(ApiError::not_found("unknown_tool", format!("no tool named `{name}`")).with_param("name"));
    }
    let bytes = body.map_err(|e| ApiError::new(e.status(), "malformed_body", e.to_string()))?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request("malformed_json", format!("the body is not JSON: {e}")))?;
    if let Some(extra) = value.as_object().and_then(|o| o.keys().find(|k| *k != "enabled")) {
        return Err(ApiError::bad_request(
            "malformed_json",
            format!("unknown field `{extra}`; the body is {{\"enabled\": true|false}}"),
        )
        .with_param(extra));
    }
    let Some(enabled) = value.get("enabled").and_then(Value::as_bool) else {
        return Err(ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_value",
            format!(
                "`enabled` must be true or false, got {}",
                value.get("enabled").unwrap_or(&Value::Null)
            ),
        )
        .with_param("enabled"));
    };
    state.store().set_tool_enabled(&name, enabled).await?;
    planner.set_enabled(&name, enabled);
    Ok(Json(json!({"name": name, "enabled": enabled})))
}
