//! What the server answers when a request cannot be served: a 4xx (or 5xx) status and a
//! one-line JSON body `{"error": "..."}` that names the problem.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    /// 400: the request itself is wrong (bad FEN, illegal move, out-of-range limit...).
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: one_line(message.into()) }
    }

    /// 404: no such endpoint or file.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, message: one_line(message.into()) }
    }

    /// 409: the request is well formed but the server cannot do it as configured (no network).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::CONFLICT, message: one_line(message.into()) }
    }

    /// 408: the request's body did not arrive in time (see [`super::BODY_TIMEOUT`]).
    pub fn too_slow(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::REQUEST_TIMEOUT, message: one_line(message.into()) }
    }

    /// The 408 for a body read that failed because its deadline passed, if that is why `e`
    /// (or an error under it) happened.
    pub fn from_slow_body(e: &(dyn std::error::Error + 'static)) -> Option<ApiError> {
        std::iter::successors(Some(e), |e| e.source()).find_map(|e| e.downcast_ref::<BodyTooSlow>()).map(|b| ApiError::too_slow(b.to_string()))
    }

    /// 429: every search slot is taken.
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::TOO_MANY_REQUESTS, message: one_line(message.into()) }
    }

    /// 500: the server failed (a search thread died); the request may be retried.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: one_line(message.into()) }
    }
}

/// Newlines folded into spaces, so every error is one line, and the line cut to a readable
/// length (a request that echoes a huge field does not get it back whole).
fn one_line(s: String) -> String {
    let s = if s.contains('\n') { s.split_whitespace().collect::<Vec<_>>().join(" ") } else { s };
    crate::check::clip_message(&s)
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

/// Why a request body was cut off: it had not all come `.0` seconds after the headers.
#[derive(Debug, thiserror::Error)]
#[error("the request's body did not arrive within {0} s")]
pub struct BodyTooSlow(pub f64);

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> ApiError {
        ApiError::from_slow_body(&r).unwrap_or_else(|| ApiError { status: r.status(), message: one_line(r.body_text()) })
    }
}

impl From<axum::extract::rejection::QueryRejection> for ApiError {
    fn from(r: axum::extract::rejection::QueryRejection) -> ApiError {
        ApiError { status: r.status(), message: one_line(r.body_text()) }
    }
}
