//! One error shape for every failure: `{"error": {"code": "...", "message": "..."}}`.
//! A 500 says nothing about its cause to the client; the cause goes to the log.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tidepool_api::errors::{ErrorBody, ErrorDetail};

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    TooLarge(String),
    /// 429 with `Retry-After`: sign-ins past the throttle, dry runs past their window.
    #[error("{message}")]
    TooMany { retry_after_s: i64, message: String },
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request"),
            ApiError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            ApiError::Unprocessable(_) => (StatusCode::UNPROCESSABLE_ENTITY, "unprocessable"),
            ApiError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "too-large"),
            ApiError::TooMany { .. } => (StatusCode::TOO_MANY_REQUESTS, "too-many-requests"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        if let ApiError::Internal(cause) = &self {
            tracing::error!(%cause, "internal error");
        }
        let body = ErrorBody { error: ErrorDetail { code: code.into(), message: self.to_string() } };
        let mut response = (status, Json(body)).into_response();
        if let ApiError::TooMany { retry_after_s, .. } = self {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s.max(1)));
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match &e {
            StoreError::Sqlx(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                ApiError::Conflict("that already exists".into())
            }
            StoreError::Sqlx(sqlx::Error::Database(db))
                if db.is_check_violation() || db.is_foreign_key_violation() =>
            {
                ApiError::Unprocessable("the request breaks a rule of the records".into())
            }
            // PostgreSQL refuses a NUL or a malformed character in text (22021, 22P05): a
            // string no handler checked is the caller's mistake, never a 500.
            StoreError::Sqlx(sqlx::Error::Database(db))
                if matches!(db.code().as_deref(), Some("22021" | "22P05")) =>
            {
                ApiError::Unprocessable("text may not hold NUL or malformed characters".into())
            }
            _ => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::from(e).into()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        match r {
            JsonRejection::JsonDataError(e) => ApiError::Unprocessable(e.body_text()),
            JsonRejection::JsonSyntaxError(e) => ApiError::BadRequest(e.body_text()),
            JsonRejection::MissingJsonContentType(e) => ApiError::BadRequest(e.body_text()),
            JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::TooLarge("the request body is too large".into())
            }
            other => ApiError::BadRequest(other.body_text()),
        }
    }
}
