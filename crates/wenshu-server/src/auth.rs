//! The auth layer every route sits behind: it makes the request's [`Principal`] once, from
//! `Authorization: Bearer KEY` (the scheme in any case) — a configured key, or a JWT when tokens are configured —
//! and puts it and its viewer in the request's extensions. When keys or tokens are configured every route but the
//! public ones (the page, its assets, health, metrics, the OpenAPI document) needs a valid one; routes added later
//! are protected unless named public here. A valid key or token always passes. A wrong one counts against the
//! client address and the credential tried (its digest, never the credential): the same wrong credential sent too
//! often from one address gets 429s, and so does an address trying too many different ones; a right key from that
//! address is still answered. The moment a bucket locks is written to the audit log, once.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use sha2::{Digest, Sha256};
use wenshu_store::{AuditPrincipal, NewAudit};

use crate::error::ApiError;
use crate::jwt::JwtVerifier;
use crate::limits::{Locked, too_many};
use crate::principal::{Principal, Role};
use crate::state::AppState;

/// The outcome of the audit entry a lock-out writes.
pub const LOCKOUT_OUTCOME: &str = "rejected";

/// The step of the audit entry a lock-out writes.
pub const LOCKOUT_STEP: &str = "auth";

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
/// and puts the principal and its [`Viewer`](wenshu_engine::Viewer) (what the engine sees of it; `/mcp` reads it from there) into the
/// request's extensions.
pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let address = client_address(&request);
    if !state.auth_enabled() {
        admit(&mut request, Principal::anonymous(address));
        return next.run(request).await;
    }
    let public = is_public(request.uri().path());
    let principal = match bearer(request.headers()) {
        Some(token) => match prove(&state, token, address) {
            Ok(principal) => principal,
            Err(error) => {
                if let Err(refusal) = count_failure(&state, request.uri().path(), token, address).await {
                    return refusal;
                }
                if public {
                    guest(address)
                } else {
                    return unauthorized(error);
                }
            }
        },
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

/// Counts a wrong credential against its address and itself (its digest) and against its address alone; a 429
/// with `Retry-After` when either bucket is empty. The first refusal of a bucket is written to the audit log.
async fn count_failure(state: &AppState, path: &str, token: &str, address: Option<IpAddr>) -> Result<(), Response> {
    let from = address.map_or_else(|| "unknown".to_string(), |ip| ip.to_string());
    let credential = credential_digest(token);
    let by_credential = state
        .auth_failures()
        .take_noting_lock(&format!("fail:{from}:{credential}"));
    let by_address = state
        .auth_failures_by_address()
        .take_noting_lock(&format!("fail:{from}"));
    let (locked, what) = match (by_credential, by_address) {
        (Ok(()), Ok(())) => return Ok(()),
        (Err(locked), _) => (locked, format!("the same wrong API key or token ({credential})")),
        (_, Err(locked)) => (locked, "too many different wrong API keys or tokens".to_string()),
    };
    let Locked { wait, newly } = locked;
    if newly {
        let question = format!("auth lock-out: {what} from {from}");
        tracing::warn!(address = %from, %credential, "{question}");
        let entry = NewAudit {
            principal: AuditPrincipal {
                id: None,
                name: None,
                role: Role::Anonymous.as_str().to_string(),
            },
            door: if path == "/mcp" || path.starts_with("/mcp/") {
                "mcp"
            } else {
                "api"
            }
            .to_string(),
            conversation_id: None,
            question,
            tool: None,
            params: serde_json::Value::Null,
            sql: Vec::new(),
            rows: None,
            outcome: LOCKOUT_OUTCOME.to_string(),
            step: Some(LOCKOUT_STEP.to_string()),
        };
        if let Err(error) = state.store().record_audit(entry).await {
            tracing::warn!(%error, "the lock-out's audit entry was not written");
        }
    }
    Err(too_many(
        wait,
        "too many wrong API keys or tokens from this address: try again later",
    ))
}

/// A short digest of a credential that was tried (`c-` and 12 hex digits): names it in a bucket and in the audit
/// log without keeping it.
fn credential_digest(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("c-{hex}")
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
