//! The API's errors: the contract's JSON error body with its HTTP status.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use wenshu_contract::{ErrorBody, ErrorDetail};

/// An error answered as `{"error": {code, message, …}}` with a status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: Box<ErrorBody>,
}

impl ApiError {
    /// An error of `status` with a code and a message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            body: Box::new(ErrorBody {
                error: ErrorDetail::new(code, message),
            }),
        }
    }

    /// The same error naming the field at fault.
    pub fn with_param(mut self, param: &str) -> Self {
        self.body.error.param = Some(param.to_string());
        self
    }

    /// 400: the request cannot be read.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 404: no such thing.
    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, message)
    }

    /// 500: the store or another part failed; the message is for the administrator.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The body.
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }
}

impl From<wenshu_store::StoreError> for ApiError {
    fn from(error: wenshu_store::StoreError) -> Self {
        match error {
            wenshu_store::StoreError::NotFound { what, id } => {
                Self::not_found("not_found", format!("no {what} with id `{id}`"))
            }
            other => Self::internal(format!("the store failed: {other}")),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(*self.body)).into_response()
    }
}
