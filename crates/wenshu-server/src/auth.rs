//! The auth layer every route sits behind: it makes the request's [`Principal`] once, from
//! `Authorization: Bearer KEY` (the scheme in any case) — a configured key, or a JWT when tokens are configured —
//! and puts it and its viewer in the request's extensions. When keys or tokens are configured every route but the
//! public ones (the page, its assets, health, metrics, the OpenAPI document) needs a valid one; routes added later
//! are protected unless named public here. Wrong keys and tokens count against the client address and are
//! throttled with 429s.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::jwt::JwtVerifier;
use crate::limits::too_many;
use crate::principal::{Principal, Role};
use crate::state::AppState;

/// The bearer token of a request, if any: `Bearer TOKEN` with the scheme in any case (RFC 7235).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// Whether a path is served without a key: the page, its assets, health, metrics and the OpenAPI document.
pub fn is_public(path: &str) -> bool {
    matches!(path, "/" | "/healthz" | "/metrics" | "/api/openapi.json") || path.starts_with("/assets/")
}

/// The client address the connection gave (forwarding headers are not trusted).
pub fn client_address(request: &Request) -> Option<IpAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}

/// The auth layer: makes the principal of every request, refusing protected routes without a valid key or token,
/// and puts the principal and its [`Viewer`](wenshu_engine::scope::Viewer) (what the engine sees of it; `/mcp` reads it from there) into the
/// request's extensions.
pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let address = client_address(&request);
    if !state.auth_enabled() {
        admit(&mut request, Principal::anonymous(address));
        return next.run(request).await;
    }
    let public = is_public(request.uri().path());
    let failures_bucket = address.map_or_else(|| "anonymous".to_string(), |ip| format!("addr:{ip}"));
    let principal = match bearer(request.headers()) {
        Some(token) => {
            if let Err(wait) = state.auth_failures().peek(&failures_bucket) {
                return too_many(
                    wait,
                    "too many wrong API keys or tokens from this address: try again later",
                );
            }
            match prove(&state, token, address) {
                Ok(principal) => principal,
                Err(error) => {
                    let _ = state.auth_failures().take(&failures_bucket);
                    if public {
                        guest(address)
                    } else {
                        return unauthorized(error);
                    }
                }
            }
        }
        None if public => guest(address),
        None => {
            return unauthorized(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "missing_key",
                "an API key or token is required: Authorization: Bearer KEY",
            ));
        }
    };
    admit(&mut request, principal);
    next.run(request).await
}

/// The principal `token` proves: a configured key, else (when tokens are configured and it has a JWT's shape) a
/// verified token; else a 401 saying why, without the token.
fn prove(state: &AppState, token: &str, address: Option<IpAddr>) -> Result<Principal, ApiError> {
    if let Some(principal) = state.keys().verify(token, address) {
        return Ok(principal);
    }
    match state.jwt() {
        Some(jwt) if JwtVerifier::looks_like_jwt(token) => jwt.verify(token, address).map_err(|why| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_token",
                format!("the bearer token is not valid: {why}"),
            )
        }),
        _ => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_key",
            "the API key is not valid",
        )),
    }
}

/// A 401 with `WWW-Authenticate: Bearer` (RFC 6750).
fn unauthorized(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// Puts `principal` and its viewer into the request's extensions.
fn admit(request: &mut Request, principal: Principal) {
    request.extensions_mut().insert(principal.viewer());
    request.extensions_mut().insert(principal);
}

/// The principal of a public route without a key when keys are configured: it may read nothing owned.
fn guest(address: Option<IpAddr>) -> Principal {
    Principal {
        role: Role::Guest,
        ..Principal::anonymous(address)
    }
}

/// Checks that the principal may change tools (an admin key).
pub fn require_admin(state: &AppState, principal: &Principal) -> Result<(), ApiError> {
    if !state.admin_possible() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "admin_disabled",
            "no admin key is configured on this server",
        ));
    }
    if principal.is_admin() {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "admin_required",
            "this needs an admin key",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_case_insensitive() {
        let mut headers = HeaderMap::new();
        for (value, token) in [
            ("Bearer k1", Some("k1")),
            ("bearer k1", Some("k1")),
            ("BEARER  k1 ", Some("k1")),
            ("Basic k1", None),
            ("Bearer ", None),
            ("Bearerk1", None),
        ] {
            headers.insert(AUTHORIZATION, value.parse().unwrap());
            assert_eq!(bearer(&headers), token, "{value}");
        }
    }
}
