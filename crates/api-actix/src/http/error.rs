//! The API's one error type and its wire shape:
//! `{"error":{"code","message","details":[{"field","issue"}],"request_id"}}`.
//! Every failure of every layer is mapped to a status and code here, and only here.

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{ConnectionType, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use parley_domain::ports::InboundRefusal;
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
    /// JSON of the wrong shape at one place of the body (a number where a string belongs, a
    /// required field missing): `INVALID_JSON`, with that place in `details`.
    #[error("the body is not valid JSON of the expected shape: {}: {}", .0.field, .0.issue)]
    InvalidJsonAt(FieldError),
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
    #[error("send exactly one key: one X-API-Key header, or one Authorization: Bearer header")]
    AmbiguousApiKey,
    /// Raw mail for an email line without that line's inbound token (or for no email line).
    #[error("send the email channel's inbound token as Authorization: Bearer <token>")]
    InboundToken,
    /// Raw mail must come as `message/rfc822`.
    #[error("the request body must be a raw email sent with Content-Type: message/rfc822")]
    NotRawEmail,
    /// A key on an endpoint of members' sessions (`/v1/session`): a key has no session.
    #[error("this endpoint answers a member's session (the inbox's cookie, from POST /v1/sign_in), not an API key")]
    SessionOnly,
    /// A write with a member's session cookie that does not carry the session's anti-forgery
    /// token (or comes from another site's page).
    #[error("a write in a signed-in session must carry the session's X-CSRF-Token header, from a page of this site")]
    CrossSite,
    /// A platform's webhook request was refused by the platform's own proof (deliveries are
    /// authenticated by it, not by an API key): its signature, or its subscription handshake.
    #[error("{0}")]
    InboundRefused(parley_domain::ports::InboundRefusal),
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

/// The status each of the domain's stable codes ([`DomainError::code`]) answers with. A code
/// this layer does not know yet (a newer domain) is a 500 until it is mapped here.
fn status_of(code: &str) -> StatusCode {
    match code {
        "VALIDATION_ERROR" => StatusCode::BAD_REQUEST,
        "NOT_FOUND" => StatusCode::NOT_FOUND,
        "CONFLICT" => StatusCode::CONFLICT,
        "TEMPLATE_NOT_APPROVED"
        | "TEMPLATE_UNSUPPORTED"
        | "MESSAGE_REJECTED"
        | "WINDOW_CLOSED"
        | "CHANNEL_UNSUPPORTED"
        | "RECIPIENT_UNSUPPORTED" => StatusCode::UNPROCESSABLE_ENTITY,
        "UPSTREAM_ERROR" => StatusCode::BAD_GATEWAY,
        "CART_EXPIRED" => StatusCode::GONE,
        "UNAUTHORIZED" => StatusCode::UNAUTHORIZED,
        "FORBIDDEN" | "PASSWORD_CHANGE_REQUIRED" => StatusCode::FORBIDDEN,
        "RATE_LIMITED" => StatusCode::TOO_MANY_REQUESTS,
        "UNAVAILABLE" => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// What the caller reads about a domain failure: the message and the fields concerned. Causes
/// stay in the log.
fn domain_message(error: &DomainError) -> (String, Vec<ErrorDetail>) {
    use DomainError as D;
    match error {
        D::Validation(errors) => ("the request has invalid fields".into(), details(errors)),
        D::NotFound { resource, ids } => {
            let detail = ids.iter().map(|id| ErrorDetail { field: format!("{resource}_id"), issue: format!("{id} not found") }).collect();
            (format!("{resource} not found"), detail)
        }
        D::Conflict { message, details: d } => (message.clone(), details(d)),
        D::TemplateNotApproved(status) => (format!("only APPROVED templates can be sent; this one is {status}"), vec![]),
        D::TemplateUnsupported(part) => (
            format!(
                "this send holds {}, which Parley cannot check yet, so nothing was sent; \
                     send it through the platform directly",
                part.issue
            ),
            details(std::slice::from_ref(part)),
        ),
        D::MessageRejected { code, message, details } => {
            let mut d = vec![ErrorDetail { field: "platform.message".into(), issue: message.clone() }];
            if let Some(code) = code {
                d.insert(0, ErrorDetail { field: "platform.code".into(), issue: code.to_string() });
            }
            if let Some(details) = details {
                d.push(ErrorDetail { field: "platform.details".into(), issue: details.clone() });
            }
            ("the messaging platform refused the message".into(), d)
        }
        D::WindowClosed { last_inbound_at } => {
            let since = match last_inbound_at {
                Some(at) => format!("the contact last wrote at {}", parley_domain::model::format_timestamp(*at)),
                None => "the contact has never written".into(),
            };
            (
                format!(
                    "a free-form message can only be sent within 24 hours of the contact's last message, and {since}; \
                         send an approved template instead (POST /v1/templates/{{id}}/send)"
                ),
                vec![],
            )
        }
        D::ChannelUnsupported => (
            "the contact has no channel Parley can send a message on: a WhatsApp number, an Instagram account or an email address, with a line of this agent on the same platform to send from".into(),
            vec![],
        ),
        D::RecipientUnsupported(why) => (
            format!("the message cannot go to this recipient, so nothing was sent: {why}"),
            vec![ErrorDetail { field: "to".into(), issue: why.clone() }],
        ),
        D::Upstream(_) => ("the messaging platform failed or could not be reached; the message may not have been sent".into(), vec![]),
        D::Interrupted => (
            "the first request with this Idempotency-Key was interrupted before it answered (the service stopped); \
                 the message may or may not have been sent"
                .into(),
            vec![],
        ),
        D::EmbedderFailed(_) => ("the embedding service failed or could not be reached; try again".into(), vec![]),
        D::IdempotencyConflict(message) => (message.clone(), vec![]),
        D::CartExpired => ("this cart is older than 90 days and can no longer be read".into(), vec![]),
        D::Unauthorized => ("send a valid API key in the X-API-Key header".into(), vec![]),
        D::Forbidden => ("this endpoint needs a secret key (sk_…); publishable keys cannot call it".into(), vec![]),
        D::AdminOnly => ("only an admin of the team (or a secret key) may do this".into(), vec![]),
        D::SignInFailed => ("wrong email or password".into(), vec![]),
        D::SignInLocked { retry_after } => (
            format!(
                "too many failed sign-ins with this email: try again in {} minutes, or ask an admin to reset the password",
                retry_after_secs(*retry_after).div_ceil(60)
            ),
            vec![],
        ),
        D::SessionEnded => ("the session has ended (signed out, or idle for 12 hours): sign in again".into(), vec![]),
        D::PasswordChangeRequired => {
            ("choose a new password first: POST /v1/session/password with current_password and new_password".into(), vec![])
        }
        D::Unavailable(_) => ("the service is temporarily unavailable; retry shortly".into(), vec![]),
        D::Internal(_) => ("an internal error occurred".into(), vec![]),
        // A variant newer than this layer: its code maps the status, the message stays generic.
        _ => ("the request failed".into(), vec![]),
    }
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str, String, Vec<ErrorDetail>) {
        match self {
            ApiError::Domain(error) => {
                let code = error.code();
                let (message, details) = domain_message(error);
                (status_of(code), code, message, details)
            }
            ApiError::InvalidJson(m) => (StatusCode::BAD_REQUEST, "INVALID_JSON", m.clone(), vec![]),
            ApiError::InvalidJsonAt(e) => {
                let detail = ErrorDetail { field: e.field.clone(), issue: e.issue.clone() };
                (StatusCode::BAD_REQUEST, "INVALID_JSON", self.to_string(), vec![detail])
            }
            ApiError::UnsupportedMediaType => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE", self.to_string(), vec![]),
            ApiError::RouteNotFound => (StatusCode::NOT_FOUND, "NOT_FOUND", self.to_string(), vec![]),
            ApiError::MethodNotAllowed(_) => (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", self.to_string(), vec![]),
            ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", self.to_string(), vec![]),
            ApiError::RequestTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "REQUEST_TIMEOUT", self.to_string(), vec![]),
            ApiError::UnsupportedCharset(_) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::AmbiguousApiKey
            | ApiError::InboundRefused(InboundRefusal::Unproven(_))
            | ApiError::InboundToken
            | ApiError::SessionOnly => (StatusCode::UNAUTHORIZED, "UNAUTHORIZED", self.to_string(), vec![]),
            ApiError::NotRawEmail => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE", self.to_string(), vec![]),
            ApiError::InboundRefused(InboundRefusal::Handshake(_)) => (StatusCode::FORBIDDEN, "FORBIDDEN", self.to_string(), vec![]),
            ApiError::CrossSite => (StatusCode::FORBIDDEN, "FORBIDDEN", self.to_string(), vec![]),
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
        if let ApiError::RateLimited { retry_after } | ApiError::Domain(DomainError::SignInLocked { retry_after }) = self {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_of_the_domain_has_its_status() {
        for code in DomainError::CODES {
            let status = status_of(code);
            assert_eq!(status.is_server_error(), matches!(code, "INTERNAL" | "UNAVAILABLE" | "UPSTREAM_ERROR"), "{code} → {status}");
        }
        assert_eq!(status_of("INTERNAL"), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
