//! The contract at the edge of every route: a declared body over the cap is refused before it is read (413), JSON
//! routes take only `application/json` (415), every error leaves as the contract's JSON body (whatever produced
//! it: a handler, axum's 405, a rejected path, a timeout, the MCP service), and every response carries the security
//! headers (CSP without inline script, nosniff, no framing, no referrer).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// The page's Content-Security-Policy: its own scripts, styles and API only, nothing inline, never framed.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                       connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
                       frame-ancestors 'none'";

/// The most bytes of a non-JSON error body carried into the JSON message.
const MESSAGE_BYTES: usize = 300;

/// Refuses a request whose `Content-Length` is over the body cap before reading any of it.
pub async fn declared_length(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let max = state.settings().max_body_bytes;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(length) = declared
        && length > max as u64
    {
        let mut response = ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body declares {length} bytes; at most {max} are accepted"),
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    next.run(request).await
}

/// Refuses a request to `/api/*` with a body that is not `Content-Type: application/json` (415), so a cross-site
/// form (which can only send form or text types) cannot ask with a visitor's browser.
pub async fn json_only(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() != "0");
    // A request with no body at all goes on (to its handler's 400, or the router's 405 for a wrong method).
    let has_body = matches!(*request.method(), Method::POST | Method::PUT | Method::PATCH)
        && (declared || headers.contains_key(header::TRANSFER_ENCODING));
    if has_body && request.uri().path().starts_with("/api/") && !is_json(request.headers()) {
        let given = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none");
        return ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!("the body must be `Content-Type: application/json`, got `{given}`"),
        )
        .with_param("Content-Type")
        .into_response();
    }
    next.run(request).await
}

/// Whether the request's content type is `application/json` (parameters such as `charset` allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// Rewrites any error response that is not JSON into the contract's JSON error body, and adds the security
/// headers to every response.
pub async fn contract(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let mcp = path == "/mcp" || path.starts_with("/mcp/");
    let response = next.run(request).await;
    let mut response = if response.status().as_u16() >= 400 && !is_json(response.headers()) {
        json_error(response, mcp).await
    } else {
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    response
}

/// What the MCP service (rmcp) says, with 415, of a body that is JSON of the right type but no JSON-RPC message.
const MCP_NOT_JSONRPC: &str = "fail to deserialize request body";

/// The same error as the contract's JSON body; the headers that matter (`Allow`, `Retry-After`, `Connection`)
/// are kept, and a short text body becomes the message. On `/mcp` (`mcp`), a body that does not deserialize as a
/// JSON-RPC message is a 400 `malformed_json` (the MCP transport's "400 Bad Request" for input it cannot accept),
/// not the 415 the MCP service gives it.
async fn json_error(response: Response, mcp: bool) -> Response {
    let (parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MESSAGE_BYTES * 4).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(_) => String::new(),
    };
    if mcp
        && parts.status == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && let Some(why) = text.strip_prefix(MCP_NOT_JSONRPC)
    {
        let message = format!("the body is not a JSON-RPC message: {}", why.trim());
        return ApiError::bad_request("malformed_json", clip(message)).into_response();
    }
    let status = parts.status;
    let message = clip(if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_lowercase()
    } else {
        text
    });
    let mut fresh = ApiError::new(status, code_of(status), message).into_response();
    for name in [
        header::ALLOW,
        header::RETRY_AFTER,
        header::CONNECTION,
        header::WWW_AUTHENTICATE,
    ] {
        if let Some(value) = parts.headers.get(&name) {
            fresh.headers_mut().insert(name, value.clone());
        }
    }
    fresh
}

/// `message` cut to at most [`MESSAGE_BYTES`] bytes, on a character boundary.
fn clip(mut message: String) -> String {
    if message.len() > MESSAGE_BYTES {
        let cut = (0..=MESSAGE_BYTES)
            .rev()
            .find(|i| message.is_char_boundary(*i))
            .unwrap_or(0);
        message.truncate(cut);
    }
    message
}

/// The error code for a status that reached the edge without one.
fn code_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "bad_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "no_route",
        405 => "method_not_allowed",
        406 => "not_acceptable",
        408 => "request_timeout",
        409 => "conflict",
        413 => "body_too_large",
        415 => "unsupported_media_type",
        422 => "invalid_value",
        429 => "rate_limited",
        503 => "unavailable",
        504 => "timeout",
        500..=599 => "internal",
        _ => "error",
    }
}
