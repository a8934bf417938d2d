//! JSON written straight from domain values for the hottest reads, byte for byte what serde_json
//! writes for the DTOs the OpenAPI document describes them by. Through serde, a page spent a
//! fifth to a quarter of its instructions converting to DTOs and serializing: every key escaped
//! again at run time, every string through the writer's machinery. Each writer implements
//! [`JsonText`]; one generic property test (`tests.rs`) holds every writer to its DTO's bytes.
//!
//! Adding a field to a resource written here: add it to the DTO, then to the writer, in the
//! DTO's field order; the property test fails until the two agree.

mod activities;
mod contacts;
#[cfg(test)]
mod kept_page_tests;
mod messages;
mod products;
#[cfg(test)]
mod tests;

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;
use actix_web::web::Bytes;
use parley_domain::model::{Page, Timestamp, push_timestamp};
use serde::Serialize;

use crate::http::error::ApiResult;
use crate::runtime::page_cache::{PageCache, PageKey};

use crate::http::dto::Pagination;

/// A value written straight to JSON as the bytes serde_json writes for its [`Dto`](Self::Dto).
pub trait JsonText {
    /// The serde type describing this value's JSON (and its schema in the OpenAPI document).
    type Dto: Serialize;

    /// Appends the value's JSON to `out`.
    fn push_json(&self, out: &mut String);

    /// A guess of the JSON's length, to allocate a page's body once.
    fn json_len_hint(&self) -> usize;
}

/// 200 with `{"data": <item>}`.
pub fn one<T: JsonText>(item: &T) -> HttpResponse {
    json_response(one_text(item))
}

/// 201 with `{"data": <item>}`.
pub fn created<T: JsonText>(item: &T) -> HttpResponse {
    HttpResponse::Created().content_type(ContentType::json()).body(one_text(item))
}

/// The body of [`one`] and [`created`].
fn one_text<T: JsonText>(item: &T) -> String {
    let mut body = String::with_capacity(item.json_len_hint() + 10);
    body.push_str("{\"data\":");
    item.push_json(&mut body);
    body.push('}');
    body
}

/// 200 with `{"data": [<item>, …], "pagination": {…}}`.
pub fn page<T: JsonText>(page: &Page<T>) -> HttpResponse {
    json_response(page_text(page))
}

/// The body of [`page`].
pub(crate) fn page_text<T: JsonText>(page: &Page<T>) -> String {
    let pagination = serde_json::to_string(&Pagination::of(page)).expect("pagination always serializes");
    let size = page.items.iter().map(|item| item.json_len_hint() + 1).sum::<usize>() + pagination.len() + 32;
    let mut body = String::with_capacity(size);
    body.push_str("{\"data\":[");
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        item.push_json(&mut body);
    }
    body.push_str("],\"pagination\":");
    body.push_str(&pagination);
    body.push('}');
    body
}

/// 200 with a JSON body.
/// The page `key` names: the bytes `pages` kept while the store has not changed since they were
/// read, else `render`ed and kept when the store has a version ([`PageCache`]).
pub async fn kept_page<F, Fut>(pages: &PageCache, key: PageKey, render: F) -> ApiResult<HttpResponse>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ApiResult<String>>,
{
    // Read before the page is: a commit in between leaves the kept page newer than its version
    // says, which only costs a read, never shows an old page.
    let version = pages.version().await;
    if let Some(version) = version
        && let Some(body) = pages.kept(&key, version)
    {
        return Ok(HttpResponse::Ok().content_type(ContentType::json()).body(body));
    }
    let body = Bytes::from(render().await?);
    if let Some(version) = version {
        pages.keep(key, version, body.clone());
    }
    Ok(HttpResponse::Ok().content_type(ContentType::json()).body(body))
}

fn json_response(body: String) -> HttpResponse {
    HttpResponse::Ok().content_type(ContentType::json()).body(body)
}

/// Appends `s` as a JSON string, or `null`.
fn push_optional_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_string(out, s),
        None => out.push_str("null"),
    }
}

/// Appends a channel as `ChannelDto` writes it: a WhatsApp channel with its user's three ids.
fn push_channel(out: &mut String, channel: &parley_domain::model::Channel) {
    out.push_str("{\"channel_id\":");
    push_string(out, channel.channel_id());
    out.push_str(",\"channel_type\":");
    push_string(out, channel.channel_type().as_str());
    if channel.channel_type() == parley_domain::model::ChannelType::Whatsapp {
        let user = channel.user();
        out.push_str(",\"user_id\":");
        push_optional_string(out, user.user_id.as_ref().map(|id| id.as_str()));
        out.push_str(",\"parent_user_id\":");
        push_optional_string(out, user.parent_user_id.as_ref().map(|id| id.as_str()));
        out.push_str(",\"username\":");
        push_optional_string(out, user.username.as_ref().map(|name| name.as_str()));
    }
    out.push('}');
}

/// Appends a time as a JSON string: RFC 3339 needs no escaping.
fn push_optional_time(out: &mut String, t: Option<Timestamp>) {
    match t {
        Some(t) => push_time(out, t),
        None => out.push_str("null"),
    }
}

fn push_time(out: &mut String, t: Timestamp) {
    out.push('"');
    push_timestamp(out, t);
    out.push('"');
}

/// Appends `s` as a JSON string, escaped exactly as serde_json escapes it: `"` and `\`,
/// control characters as `\b \t \n \f \r` or `\u00xx`; everything else, non-ASCII included, as is.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut clean = 0;
    // Most strings need no escape at all: look for one eight bytes at a time.
    while let Some(i) = next_escape(bytes, clean) {
        // Escaped bytes are ASCII, so `i` is always a character boundary.
        out.push_str(&s[clean..i]);
        push_escape(out, bytes[i]);
        clean = i + 1;
    }
    out.push_str(&s[clean..]);
    out.push('"');
}

/// The position of the first byte at or after `from` that JSON needs escaped.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero where the high bit of `(x - ONES) & !x & HIGHS` is set (the lowest such
    // byte exactly; higher ones may be false alarms, so the chunk is then searched byte by byte).
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // Below 0x20: `w - 0x20` borrows in that byte (an ASCII byte has its high bit clear).
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
        if control | zero_in(w ^ (ONES * u64::from(b'"'))) | zero_in(w ^ (ONES * u64::from(b'\\'))) != 0 {
            break;
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\').map(|p| p + i)
}

/// Appends the escape of one byte that needs it.
fn push_escape(out: &mut String, b: u8) {
    let short = match b {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x08 => "\\b",
        0x0c => "\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
            return;
        }
    };
    out.push_str(short);
}

#[cfg(test)]
mod escape_tests {
    use proptest::prelude::*;

    use super::*;

    fn written(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }

    #[test]
    fn escapes_as_serde_json_does() {
        for s in ["", "plain", "quote \" and \\ back", "\u{0}\u{1f}\u{7f}", "\u{8}\u{c}\n\r\t", "é ☕ 𝄞", "</script>"] {
            assert_eq!(written(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_does(s in any::<String>(), ascii in "[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(written(&s), serde_json::to_string(&s).unwrap());
            prop_assert_eq!(written(&ascii), serde_json::to_string(&ascii).unwrap());
        }
    }
}
