//! Optional API keys: `Authorization: Bearer KEY`. User keys may ask; admin keys may also change tools.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::Response;

use crate::error::ApiError;
use crate::state::AppState;

/// The bearer key of a request, if any.
pub fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get(AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// Refuses API requests without a user or admin key, when keys are configured.
pub async fn require_user(State(state): State<AppState>, request: Request, next: Next) -> Result<Response, ApiError> {
    let settings = state.settings();
    if settings.user_keys.is_empty() && settings.admin_keys.is_empty() {
        return Ok(next.run(request).await);
    }
    match bearer(request.headers()) {
        Some(key) if settings.user_keys.iter().chain(&settings.admin_keys).any(|k| k == key) => {
            Ok(next.run(request).await)
        }
        Some(_) => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_key",
            "the API key is not valid",
        )),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing_key",
            "an API key is required: Authorization: Bearer KEY",
        )),
    }
}

/// Checks that a request carries an admin key.
pub fn require_admin(state: &AppState, headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
    let admins = &state.settings().admin_keys;
    if admins.is_empty() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "admin_disabled",
            "no admin key is configured on this server",
        ));
    }
    match bearer(headers) {
        Some(key) if admins.iter().any(|k| k == key) => Ok(()),
        _ => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "admin_required",
            "this needs an admin key",
        )),
    }
}
