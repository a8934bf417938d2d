//! How bodies and query strings are read, with their failures in the API's error shape.

use actix_web::dev::Payload;
use actix_web::error::{JsonPayloadError, QueryPayloadError};
use actix_web::http::header::CONTENT_LENGTH;
use actix_web::web::{self, Bytes};
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures_util::future::LocalBoxFuture;
use parley_domain::model::{ReceivedId, has_control_characters};
use parley_domain::{DomainError, FieldError};
use std::fmt;
use std::future::{Ready, ready};
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::http::error::ApiError;

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

/// A JSON body: `web::Json` (with [`json_config`]'s limits and errors) after one more check it
/// does not make: a `charset` other than UTF-8 is refused with 415, not read as UTF-8.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if let Err(e) = utf8_charset(req) {
            return Box::pin(ready(Err(e.into())));
        }
        // Read as JSON first (limits, content type and syntax errors as before), then into `T`
        // with the path of whatever does not fit, so the error names the field.
        let json = web::Json::<Box<RawValue>>::from_request(req, payload);
        Box::pin(async move {
            let raw = json.await?.into_inner();
            read_json(raw.get()).map(Json).map_err(Into::into)
        })
    }
}

/// `text` (one JSON value) read as `T`; a value of the wrong shape is an error naming its place
/// in the body (`name`, `components[0].parameters[1].text`).
pub fn read_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(shape_error)
}

/// The error of a body that is JSON but not of the expected shape.
fn shape_error(e: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let path = e.path().to_string();
    let at = |name: &str| match path.as_str() {
        "." | "" => name.to_string(),
        p if p == name || p.ends_with(&format!(".{name}")) => p.to_string(),
        p => format!("{p}.{name}"),
    };
    let message = e.into_inner().to_string();
    // serde_json ends its messages with the place in the text; the path says it better.
    let issue = message.rfind(" at line ").map_or(message.as_str(), |cut| &message[..cut]);
    // serde: "unknown field `x`, expected one of …": a rule broken, not malformed JSON.
    if let Some(field) = issue.strip_prefix("unknown field `").and_then(|rest| rest.split('`').next()) {
        return DomainError::Validation(vec![FieldError::new(at(field), "is not a known field")]).into();
    }
    if let Some(field) = issue.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()) {
        return ApiError::InvalidJsonAt(FieldError::new(at(field), "is required"));
    }
    match path.as_str() {
        "." | "" => ApiError::InvalidJson(format!("the body is not valid JSON of the expected shape: {issue}")),
        _ => ApiError::InvalidJsonAt(FieldError::new(path.clone(), issue)),
    }
}

/// A JSON body that may be left out: a request without one (no `Content-Length`, or 0, and no
/// chunked body) is `None`; one with a body is read exactly as [`Json`] reads it, errors
/// included, so a malformed body is never taken for an absent one.
#[derive(Debug)]
pub struct OptionalJson<T>(pub Option<T>);

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for OptionalJson<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req.headers();
        let length = headers.get(actix_web::http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).map(str::trim);
        let chunked = headers.contains_key(actix_web::http::header::TRANSFER_ENCODING);
        if !chunked && length.is_none_or(|l| l == "0") {
            return Box::pin(ready(Ok(OptionalJson(None))));
        }
        let json = Json::<T>::from_request(req, payload);
        Box::pin(async move { json.await.map(|j| OptionalJson(Some(j.into_inner()))) })
    }
}

/// JSON is UTF-8 (RFC 8259): a body declared in another charset is refused rather than misread.
/// No charset, or `utf-8` in any case, is fine; the content type itself is `json_config`'s to check.
fn utf8_charset(req: &HttpRequest) -> Result<(), ApiError> {
    let Ok(Some(mime)) = req.mime_type() else { return Ok(()) };
    match mime.get_param(actix_web::mime::CHARSET) {
        Some(charset) if !charset.as_str().eq_ignore_ascii_case("utf-8") => {
            Err(ApiError::UnsupportedCharset(charset.as_str().chars().filter(|c| !c.is_control()).take(40).collect()))
        }
        _ => Ok(()),
    }
}

/// Query parameters: `web::Query` (with [`query_config`]'s errors) after refusing any name or
/// value with a control character (NUL included) with 400, whatever the parameter: none of
/// them is free text, and PostgreSQL refuses NUL outright (a 500 where SQLite found nothing).
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: serde::de::DeserializeOwned> FromRequest for Query<T> {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if let Some(name) = control_in_query(req.query_string()) {
            let error = FieldError::new(name, "must not contain control characters");
            return ready(Err(ApiError::from(DomainError::Validation(vec![error])).into()));
        }
        ready(web::Query::<T>::from_request(req, payload).into_inner().map(|q| Query(q.into_inner())))
    }
}

/// The (decoded) name of the first parameter whose name or value has a control character.
fn control_in_query(query: &str) -> Option<String> {
    if !query.contains('%') {
        return None; // raw control characters never get past the HTTP parser
    }
    let pairs = web::Query::<Vec<(String, String)>>::from_query(query).ok()?.into_inner();
    pairs.into_iter().find(|(name, value)| has_control_characters(name) || has_control_characters(value)).map(|(name, _)| {
        let printable: String = name.chars().filter(|c| !c.is_control()).take(64).collect();
        if printable.is_empty() { "query".to_string() } else { printable }
    })
}

/// The one id in a route's path (`{id}`, `{code}`, `{channel_id}`), as the domain's id type:
/// an id no resource can have (a control character, NUL included) is 404 like an unknown one,
/// without asking storage.
#[derive(Debug)]
pub struct PathId<T>(pub T);

impl<T> PathId<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: ReceivedId> FromRequest for PathId<T> {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let raw = match web::Path::<String>::from_request(req, payload).into_inner() {
            Ok(raw) => raw.into_inner(),
            Err(e) => return ready(Err(e)),
        };
        ready(T::received(raw).map(PathId).ok_or_else(|| ApiError::from(DomainError::not_found(T::RESOURCE)).into()))
    }
}

/// Two ids of a nested path (`/activities/{id}/messages/{message_id}`), each checked as
/// [`PathId`] checks one: one that cannot be an id is a 404 naming its resource.
pub struct PathIds<A, B>(pub A, pub B);

impl<A: ReceivedId, B: ReceivedId> FromRequest for PathIds<A, B> {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let (a, b) = match web::Path::<(String, String)>::from_request(req, payload).into_inner() {
            Ok(raw) => raw.into_inner(),
            Err(e) => return ready(Err(e)),
        };
        let not_found = |resource| ApiError::from(DomainError::not_found(resource)).into();
        ready(match (A::received(a), B::received(b)) {
            (Some(a), Some(b)) => Ok(PathIds(a, b)),
            (None, _) => Err(not_found(A::RESOURCE)),
            (_, None) => Err(not_found(B::RESOURCE)),
        })
    }
}

/// Reads a whole body of at most `limit` bytes, for handlers that need its exact bytes (a
/// signature is computed over them): 413 in the API's error shape past the limit, announced
/// or not.
pub async fn body_bytes(req: &HttpRequest, payload: web::Payload, limit: usize) -> Result<Bytes, ApiError> {
    let announced = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::PayloadTooLarge(limit));
    }
    match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(ApiError::InvalidJson(format!("the body could not be read: {e}"))),
        Err(_) => Err(ApiError::PayloadTooLarge(limit)),
    }
}

/// A template button's index: an integer, written `1` or `1.0` (JSON Schema's integers;
/// Python's `json.dumps` writes floats so), or a string of digits, which is how the platform's
/// own send examples write it (`"index": "0"`). Anything else, `2.5` included, is `INVALID_JSON`.
pub fn option_button_index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None => Ok(None),
        Some(serde_json::Value::String(s)) if !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().map(Some).map_err(serde::de::Error::custom)
        }
        Some(v) => parley_domain::model::integral::integral_i64(&v)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid value: {v}, expected an integer or a string of digits"))),
    }
}

/// A latitude or longitude: a number, or its decimal string, as the platform's own template
/// examples write it (`"37.483307"`). The range is the domain's to check.
pub fn option_coordinate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None => Ok(None),
        Some(serde_json::Value::Number(n)) => n.as_f64().map(Some).ok_or_else(|| serde::de::Error::custom("invalid coordinate")),
        Some(serde_json::Value::String(s)) => {
            let decimal = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            let digits = s.strip_prefix('-').unwrap_or(&s);
            let ok = match digits.split_once('.') {
                Some((whole, fraction)) => decimal(whole) && decimal(fraction),
                None => decimal(digits),
            };
            match s.parse::<f64>() {
                Ok(x) if ok && s.len() <= 32 => Ok(Some(x)),
                _ => Err(serde::de::Error::custom(format!("invalid value: {s:?}, expected degrees as a number or a decimal string"))),
            }
        }
        Some(v) => Err(serde::de::Error::custom(format!("invalid value: {v}, expected degrees as a number or a decimal string"))),
    }
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
