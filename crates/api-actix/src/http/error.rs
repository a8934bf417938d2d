//! The API's one error type and its wire shape:
//! `{"error":{"code","message","details":[{"field","issue"}],"request_id"}}`.
//! Every failure of every layer is mapped to a status and code here, and only here.

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{ConnectionType, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use parley_domain::{DomainError, FieldError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::http::request_context;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error("{0}")]
    InvalidJson(String),
    #[error("the request body must be JSON sent with Content-Type: application/json")]
    UnsupportedMediaType,
    #[error("the request body exceeds {0} bytes")]
    PayloadTooLarge(usize),
    #[error("no such endpoint")]
    RouteNotFound,
    /// Carries the methods the path does support, for the `Allow` header (RFC 9110).
    #[error("this endpoint does not support the method")]
    MethodNotAllowed(String),
    #[error("too many requests; retry after {} seconds", retry_after_secs(*.retry_after))]
    RateLimited { retry_after: std::time::Duration },
    /// The request (its body) did not arrive in full within the read deadline; the connection
    /// is closed with the answer, so a client dripping bytes cannot hold it.
    #[error("the request did not arrive in full within {} seconds; send it at once", .0.as_secs().max(1))]
    RequestTimeout(std::time::Duration),
    /// `Content-Type: application/json; charset=…` naming anything but UTF-8.
    #[error("the request body must be UTF-8 JSON; charset={0} is not supported")]
    UnsupportedCharset(String),
    /// More than one `X-API-Key` header: which one was meant is not for the server to guess.
    #[error("send exactly one X-API-Key header")]
    AmbiguousApiKey,
    /// A webhook delivery whose `X-Hub-Signature-256` is missing or wrong (deliveries are
    /// authenticated by that signature, not by an API key).
    #[error("the X-Hub-Signature-256 header is missing or is not the HMAC-SHA256 of the body under the app secret")]
    WebhookSignature,
    /// Raw mail for an email line without that line's inbound token (or for no email line).
    #[error("send the email channel's inbound token as Authorization: Bearer <token>")]
    InboundToken,
    /// Raw mail must come as `message/rfc822`.
    #[error("the request body must be a raw email sent with Content-Type: message/rfc822")]
    NotRawEmail,
    /// The webhook subscription handshake was refused; says which part was wrong.
    #[error("{0}")]
    WebhookHandshake(&'static str),
}

/// `Retry-After` in whole seconds, rounded up: retrying earlier would be refused again.
fn retry_after_secs(wait: std::time::Duration) -> u64 {
    wait.as_micros().div_ceil(1_000_000).max(1) as u64
}

/// One broken rule in `details`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    pub field: String,
    pub issue: String,
}

/// The error object.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorObject {
    /// Stable machine-readable code, e.g. `VALIDATION_ERROR`, `NOT_FOUND`.
    #[schema(example = "NOT_FOUND")]
    pub code: &'static str,
    /// Human-readable explanation; never leaks internals.
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ErrorDetail>,
    /// The `X-Request-Id` of the failed request, for support.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// Body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorObject,
}

fn details(errors: &[FieldError]) -> Vec<ErrorDetail> {
    errors.iter().map(|e| ErrorDetail { field: e.field.clone(), issue: e.issue.clone() }).collect()
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str, String, Vec<ErrorDetail>) {
        use DomainError as D;
        match self {
            ApiError::Domain(D::Validation(errors)) => {
                (StatusCode::BAD_REQUEST, "VALIDATION_ERROR", "the request has invalid fields".into(), details(errors))
            }
            ApiError::Domain(D::NotFound { resource, ids }) => {
                let detail =
                    ids.iter().map(|id| ErrorDetail { field: format!("{resource}_id"), issue: format!("{id} not found") }).collect();
                (StatusCode::NOT_FOUND, "NOT_FOUND", format!("{resource} not found"), detail)
            }
            ApiError::Domain(D::Conflict { message, details: d }) => (StatusCode::CONFLICT, "CONFLICT", message.clone(), details(d)),
            ApiError::Domain(D::TemplateNotApproved(status)) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "TEMPLATE_NOT_APPROVED",
                format!("only APPROVED templates can be sent; this one is {status}"),
                vec![],
            ),
            ApiError::Domain(D::TemplateUnsupported(part)) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "TEMPLATE_UNSUPPORTED",
                format!(
                    "this send holds {}, which Parley cannot check yet, so nothing was sent; \
                     send it through the platform directly",
                    part.issue
                ),
                details(std::slice::from_ref(part)),
            ),
            ApiError::Domain(D::MessageRejected { code, message, details }) => {
                let mut d = vec![ErrorDetail { field: "platform.message".into(), issue: message.clone() }];
                if let Some(code) = code {
                    d.insert(0, ErrorDetail { field: "platform.code".into(), issue: code.to_string() });
                }
                if let Some(details) = details {
                    d.push(ErrorDetail { field: "platform.details".into(), issue: details.clone() });
                }
                (StatusCode::UNPROCESSABLE_ENTITY, "MESSAGE_REJECTED", "the messaging platform refused the message".into(), d)
            }
            ApiError::Domain(D::WindowClosed { last_inbound_at }) => {
                let since = match last_inbound_at {
                    Some(at) => format!("the contact last wrote at {}", parley_domain::model::format_timestamp(*at)),
                    None => "the contact has never written".into(),
                };
                (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "WINDOW_CLOSED",
                    format!(
                        "a free-form message can only be sent within 24 hours of the contact's last message, and {since}; \
                         send an approved template instead (POST /v1/templates/{{id}}/send)"
                    ),
                    vec![],
                )
            }
            ApiError::Domain(D::ChannelUnsupported) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "CHANNEL_UNSUPPORTED",
                "the contact has no channel Parley can send a message on (a WhatsApp number, with a line of this agent to send from)"
                    .into(),
                vec![],
            ),
            ApiError::Domain(D::Upstream(_)) => (
                StatusCode::BAD_GATEWAY,
                "UPSTREAM_ERROR",
                "the messaging platform failed or could not be reached; the message may not have been sent".into(),
                vec![],
            ),
            ApiError::Domain(D::Interrupted) => (
                StatusCode::BAD_GATEWAY,
                "UPSTREAM_ERROR",
                "the first request with this Idempotency-Key was interrupted before it answered (the service stopped); \
                 the message may or may not have been sent"
                    .into(),
                vec![],
            ),
            ApiError::Domain(D::EmbedderFailed(_)) => (
                StatusCode::BAD_GATEWAY,
                "UPSTREAM_ERROR",
                "the embedding service failed or could not be reached; try again".into(),
                vec![],
            ),
            ApiError::Domain(D::IdempotencyConflict(message)) => (StatusCode::CONFLICT, "CONFLICT", message.clone(), vec![]),
            ApiError::Domain(D::CartExpired) => {
                (StatusCode::GONE, "CART_EXPIRED", "this cart is older than 90 days and can no longer be read".into(), vec![])
            }
            ApiError::Domain(D::Unauthorized) => {
                (StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "send a valid API key in the X-API-Key header".into(), vec![])
            }
            ApiError::Domain(D::Forbidden) => (
                StatusCode::FORBIDDEN,
                "FORBIDDEN",
                "this endpoint needs a secret key (sk_…); publishable keys cannot call it".into(),
                vec![],
            ),
            ApiError::Domain(D::Unavailable(_)) => {
                (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE", "the service is temporarily unavailable; retry shortly".into(), vec![])
            }
            ApiError::Domain(D::Internal(_)) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", "an internal error occurred".into(), vec![])
            }
            ApiError::InvalidJson(m) => (StatusCode::BAD_REQUEST, "INVALID_JSON", m.clone(), vec![]),
            ApiError::UnsupportedMediaType => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE", self.to_string(), vec![]),
            ApiError::RouteNotFound => (StatusCode::NOT_FOUND, "NOT_FOUND", self.to_string(), vec![]),
            ApiError::MethodNotAllowed(_) => (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", self.to_string(), vec![]),
            ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", self.to_string(), vec![]),
            ApiError::RequestTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "REQUEST_TIMEOUT", self.to_string(), vec![]),
            ApiError::UnsupportedCharset(_) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::AmbiguousApiKey | ApiError::WebhookSignature | ApiError::InboundToken => {
                (StatusCode::UNAUTHORIZED, "UNAUTHORIZED", self.to_string(), vec![])
            }
            ApiError::NotRawEmail => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::WebhookHandshake(_) => (StatusCode::FORBIDDEN, "FORBIDDEN", self.to_string(), vec![]),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.parts().0
    }

    fn error_response(&self) -> HttpResponse {
        let (status, code, message, details) = self.parts();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            // Expected while the database is away (a restart, a failover): not a bug.
            tracing::warn!(code, error = %self, "request failed");
        } else if status.is_server_error() {
            // The client sees a generic message; the log keeps the cause.
            tracing::error!(code, error = %self, "request failed");
        }
        let body = ErrorBody { error: ErrorObject { code, message, details, request_id: request_context::current_request_id() } };
        let mut response = HttpResponse::build(status).json(body);
        if let ApiError::MethodNotAllowed(allow) = self
            && let Ok(value) = HeaderValue::from_str(allow)
        {
            response.headers_mut().insert(header::ALLOW, value);
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        if let ApiError::RateLimited { retry_after } = self {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs(*retry_after)));
        }
        if status == StatusCode::REQUEST_TIMEOUT {
            // What is left of the body may still be on its way: the connection cannot carry
            // another request, and keeping it open is what the deadline exists to prevent.
            response.head_mut().set_connection_type(ConnectionType::Close);
        }
        response
    }
}

/// Handlers return this: the success value or an [`ApiError`].
pub type ApiResult<T> = Result<T, ApiError>;
