//! How bodies and query strings are read, with their failures in the API's error shape.

use actix_web::error::{JsonPayloadError, QueryPayloadError};
use actix_web::web;
use parley_domain::{DomainError, FieldError};
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
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

/// A body (or a nested body part) that must be a JSON object. serde's derive also reads a
/// struct from an array, by position (`["VIP"]` as `{"name":"VIP"}`, `[]` as `{}`); the API
/// refuses that as 400 `INVALID_JSON`, as the OpenAPI document says.
#[derive(Debug)]
pub struct Object<T>(pub T);

impl<T> Object<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(ObjectVisitor(PhantomData)).map(Object)
    }
}

/// For an optional nested object field (with `#[serde(default)]`).
pub fn option_object<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<Object<T>>::deserialize(d).map(|o| o.map(Object::into_inner))
}

/// For an optional array of objects (with `#[serde(default)]`).
pub fn option_objects<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    Option::<Vec<Object<T>>>::deserialize(d).map(|o| o.map(|v| v.into_iter().map(Object::into_inner).collect()))
}
