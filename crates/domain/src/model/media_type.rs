//! A file's media type as the platform reports it, made safe to serve: `type/subtype` with
//! optional parameters (RFC 6838 section 4.2 for the names, RFC 9110 section 8.3.1 for the whole),
//! or else `application/octet-stream`. The platform's metadata is someone else's text: a value
//! with a line break, a control character or no subtype must never reach a response header.

use std::fmt;

/// What any file is when its type is unknown or unusable.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// Longest type or subtype name (RFC 6838 section 4.2).
const MAX_NAME: usize = 127;
/// Longest media type kept, parameters included.
pub const MAX_MEDIA_TYPE_CHARS: usize = 255;

/// A media type that is valid as a `Content-Type` header: `type/subtype` (RFC 6838 restricted
/// names) and `; name=value` parameters (RFC 9110 tokens or quoted strings), printable ASCII only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaType(String);

impl MediaType {
    /// `raw` when it is a valid media type (surrounding spaces dropped), else `None`.
    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim_matches([' ', '\t']);
        (raw.len() <= MAX_MEDIA_TYPE_CHARS && valid(raw)).then(|| Self(raw.to_string()))
    }

    /// `raw` when valid, else [`OCTET_STREAM`]: a file whose type cannot be told is still
    /// served, as bytes.
    pub fn or_octet_stream(raw: Option<&str>) -> Self {
        raw.and_then(Self::parse).unwrap_or_else(Self::octet_stream)
    }

    /// [`OCTET_STREAM`]: bytes of an unknown type.
    pub fn octet_stream() -> Self {
        Self(OCTET_STREAM.to_string())
    }

    /// The media type, usable as a `Content-Type` header.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MediaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn valid(raw: &str) -> bool {
    let (essence, mut parameters) = match raw.split_once(';') {
        Some((essence, rest)) => (essence.trim_end_matches([' ', '\t']), Some(rest)),
        None => (raw, None),
    };
    let Some((kind, subtype)) = essence.split_once('/') else { return false };
    if !restricted_name(kind) || !restricted_name(subtype) {
        return false;
    }
    // parameters = *( OWS ";" OWS [ parameter ] ), parameter = token "=" ( token / quoted-string )
    while let Some(rest) = parameters {
        let rest = rest.trim_start_matches([' ', '\t']);
        let (parameter, next) = match split_parameter(rest) {
            Some(split) => split,
            None => return false,
        };
        if !parameter.is_empty() {
            let Some((name, value)) = parameter.split_once('=') else { return false };
            if !token(name) || !(token(value) || quoted_string(value)) {
                return false;
            }
        }
        parameters = next;
    }
    true
}

/// The parameter before the next `;` that is not inside a quoted string, with trailing
/// whitespace dropped, and what follows that `;`; `None` when a quoted string is not closed.
fn split_parameter(rest: &str) -> Option<(&str, Option<&str>)> {
    let bytes = rest.as_bytes();
    let (mut quoted, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b';' if !quoted => return Some((rest[..i].trim_end_matches([' ', '\t']), Some(&rest[i + 1..]))),
            _ => {}
        }
    }
    (!quoted).then(|| (rest.trim_end_matches([' ', '\t']), None))
}

/// RFC 6838: `restricted-name-first *126restricted-name-chars`.
fn restricted_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && name.len() <= MAX_NAME
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
}

/// RFC 9110: `1*tchar`.
fn token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// RFC 9110 `quoted-string`, printable ASCII only (no obs-text).
fn quoted_string(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else { return false };
    let mut escaped = false;
    for b in inner.bytes() {
        let printable = b == b'\t' || (b' '..=b'~').contains(&b);
        if !printable {
            return false;
        }
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return false,
            _ => {}
        }
    }
    !escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_platforms_media_types_are_kept_as_they_are() {
        for raw in [
            "image/jpeg",
            "audio/ogg; codecs=opus",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "video/mp4",
            "image/webp",
            "text/plain;charset=UTF-8",
            "application/ld+json; profile=\"https://example.com/a;b\"",
            "multipart/form-data; boundary=\"a \\\"quoted\\\" one\"",
            "audio/ogg;",
        ] {
            assert_eq!(MediaType::parse(raw).map(|m| m.to_string()).as_deref(), Some(raw), "{raw}");
        }
        assert_eq!(MediaType::parse("  image/png\t").unwrap().as_str(), "image/png", "surrounding spaces dropped");
    }

    #[test]
    fn anything_that_is_not_a_media_type_or_not_a_header_value_becomes_octet_stream() {
        for raw in [
            "image/jpeg\r\nX-Evil: 1",
            "image/jpeg\nX-Evil: 1",
            "image/jpeg\r",
            "image/jp\0eg",
            "image/jpég",
            "",
            "image",
            "image/",
            "/jpeg",
            "image/jpeg/extra",
            "image jpeg",
            "image/ jpeg",
            ".image/jpeg",
            "image/jpeg; charset",
            "image/jpeg; =utf-8",
            "image/jpeg; charset=\"unterminated",
            "image/jpeg; charset=a b",
            "image/jpeg; charset=\"é\"",
            "<script>/x",
        ] {
            assert_eq!(MediaType::parse(raw), None, "{raw:?}");
            assert_eq!(MediaType::or_octet_stream(Some(raw)).as_str(), OCTET_STREAM, "{raw:?}");
        }
        assert_eq!(MediaType::or_octet_stream(None).as_str(), OCTET_STREAM);
        assert_eq!(MediaType::parse(&format!("image/{}", "a".repeat(MAX_NAME))).map(|_| ()), Some(()));
        assert_eq!(MediaType::parse(&format!("image/{}", "a".repeat(MAX_NAME + 1))), None, "a name of at most 127");
        assert_eq!(MediaType::parse(&format!("image/png; a={}", "b".repeat(MAX_MEDIA_TYPE_CHARS))), None, "bounded");
    }

    #[test]
    fn every_accepted_media_type_is_printable_ascii_without_line_breaks() {
        // What a response header needs, whatever the parser accepted.
        for raw in ["a/b; c=\"\t\"", "a/b ; c=d", "a/b;;c=d"] {
            let kept = MediaType::parse(raw).unwrap();
            assert!(kept.as_str().bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)), "{raw:?}");
        }
    }
}
