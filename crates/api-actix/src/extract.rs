//! How bodies and query strings are read, with their failures in the API's error shape.

use actix_web::error::{JsonPayloadError, QueryPayloadError};
use actix_web::web;
use parley_domain::{DomainError, FieldError};
use serde::{Deserialize, Deserializer};

use crate::error::ApiError;

/// Bodies larger than this are refused with 413.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default().limit(MAX_BODY_BYTES).content_type_required(true).error_handler(|err, _req| json_error(err).into())
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| query_error(err).into())
}

fn json_error(err: JsonPayloadError) -> ApiError {
    match err {
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Overflow { limit } | JsonPayloadError::OverflowKnownLength { limit, .. } => ApiError::PayloadTooLarge(limit),
        JsonPayloadError::Deserialize(e) => {
            let message = e.to_string();
            // serde: "unknown field `x`, expected one of …": a rule broken, not malformed JSON.
            match message.strip_prefix("unknown field `").and_then(|rest| rest.split('`').next()) {
                Some(field) => DomainError::Validation(vec![FieldError::new(field, "is not a known field")]).into(),
                None => ApiError::InvalidJson(format!("the body is not valid JSON of the expected shape: {message}")),
            }
        }
        other => ApiError::InvalidJson(format!("the body could not be read: {other}")),
    }
}

fn query_error(err: QueryPayloadError) -> ApiError {
    DomainError::Validation(vec![FieldError::new("query", err.to_string())]).into()
}

/// For PATCH fields: absent → `None`, `null` → `Some(None)`, a value → `Some(Some(v))`.
pub fn double_option<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
