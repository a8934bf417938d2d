//! Field rules shared by replies, interactive messages and template parameters: links, file
//! names and coordinates are checked the same way wherever a sender supplies them.

use super::ids::has_control_characters;
use super::text;
use crate::FieldError;

/// The longest link a sender may give, in characters.
const MAX_LINK_CHARS: usize = 2048;
/// The longest file name a sender may give, in characters.
const MAX_FILENAME_CHARS: usize = 255;

/// An `https://` URL with a host, without whitespace or control characters.
pub(crate) fn https_link(field: &str, raw: &str) -> Result<String, FieldError> {
    let raw = raw.trim();
    let rest = raw.get(..8).filter(|s| s.eq_ignore_ascii_case("https://")).map(|_| &raw[8..]);
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
    let ok = host.is_some_and(|h| !h.is_empty() && !h.starts_with(':') && !h.contains('@'))
        && raw.chars().count() <= MAX_LINK_CHARS
        && !raw.contains(char::is_whitespace)
        && !has_control_characters(raw);
    if ok {
        Ok(raw.to_string())
    } else {
        Err(FieldError::new(field, format!("must be an https URL of at most {MAX_LINK_CHARS} characters")))
    }
}

/// A file name of 1 to 255 characters, without control characters or slashes.
pub(crate) fn filename(field: &str, raw: &str) -> Result<String, FieldError> {
    let name = text::bounded(field, raw, 1, MAX_FILENAME_CHARS)?;
    if has_control_characters(&name) || name.contains(['/', '\\']) {
        return Err(FieldError::new(field, "must be a file name, without control characters or slashes"));
    }
    Ok(name)
}

/// A latitude (`bound` 90) or longitude (180): present, finite and within ±`bound`.
pub(crate) fn coordinate(field: String, raw: Option<f64>, bound: f64) -> Result<f64, FieldError> {
    match raw {
        Some(x) if x.is_finite() && x.abs() <= bound => Ok(x),
        Some(_) => Err(FieldError::new(field, format!("must be between -{bound} and {bound}"))),
        None => Err(FieldError::new(field, "is required")),
    }
}
