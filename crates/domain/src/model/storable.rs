//! Text from the messaging platform made storable the same way on every backend, and the rule
//! for the platform's message ids.
//!
//! PostgreSQL's `text` cannot hold NUL (U+0000) and SQLite can: a message whose text held one
//! was stored on SQLite and refused on PostgreSQL. So every string of a webhook delivery (texts,
//! captions, reactions, names, file names, error descriptions, keys of objects kept whole) goes
//! through [`storable_text`] when the delivery is parsed, before anything is stored: a NUL
//! becomes U+FFFD REPLACEMENT CHARACTER, the character Unicode gives to what cannot be shown,
//! and both backends store exactly the same text. Nothing else is changed: other control
//! characters are stored as sent on both. Parley's API never needs this, it refuses control
//! characters in what callers send (`has_control_characters`, `text::free_text`).
//!
//! A message id is different: it must match the platform's own id again (statuses, reactions,
//! quotes name it), so one that holds a NUL (U+FFFD once made storable), another control
//! character or nothing at all is not an id ([`platform_message_id_issue`]); such a message is
//! set aside with its reason instead of being stored under an id the platform never gave.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a NUL becomes.
pub const REPLACEMENT: char = '\u{FFFD}';

/// `raw` with every NUL replaced by U+FFFD; borrowed when there is none.
pub fn storable_text(raw: &str) -> Cow<'_, str> {
    if raw.contains('\0') { Cow::Owned(raw.replace('\0', "\u{FFFD}")) } else { Cow::Borrowed(raw) }
}

/// Every string of `value`, object keys included, through [`storable_text`].
pub fn make_storable(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(fixed) = storable_text(s) {
                *s = fixed;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(make_storable),
        Value::Object(map) => {
            if map.keys().any(|k| k.contains('\0')) {
                *map = std::mem::take(map).into_iter().map(|(k, v)| (storable_text(&k).into_owned(), v)).collect();
            }
            map.values_mut().for_each(make_storable);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Reads JSON text as `T` with every string made storable. JSON can only carry a NUL escaped
/// (`\u0000`), so text without that escape is read directly, at no extra cost. A UTF-16
/// surrogate escape without its pair (`\ud800` alone), which JSON text may hold and no Rust
/// or database text can, becomes U+FFFD too, rather than making the whole text unreadable.
pub fn from_storable_json<T: DeserializeOwned>(json: &str) -> serde_json::Result<T> {
    match read_storable(json) {
        Err(e) if e.is_syntax() => match lone_surrogates_replaced(json) {
            Some(fixed) => read_storable(&fixed),
            None => Err(e),
        },
        read => read,
    }
}

fn read_storable<T: DeserializeOwned>(json: &str) -> serde_json::Result<T> {
    if !json.contains("\\u0000") {
        return serde_json::from_str(json);
    }
    let mut tree: Value = serde_json::from_str(json)?;
    make_storable(&mut tree);
    serde_json::from_value(tree)
}

/// `json` with every `\uD800`–`\uDFFF` escape that is not half of a pair replaced by
/// `\uFFFD`; `None` when there is none.
fn lone_surrogates_replaced(json: &str) -> Option<String> {
    let surrogate = |hex: &str| u16::from_str_radix(hex, 16).ok().filter(|n| (0xD800..=0xDFFF).contains(n));
    let escape_at = |i: usize| json.get(i..i + 6).filter(|e| e.starts_with("\\u")).and_then(|e| surrogate(&e[2..]));
    let (mut out, mut i, mut changed) = (String::with_capacity(json.len()), 0, false);
    while let Some(offset) = json[i..].find('\\') {
        let at = i + offset;
        out.push_str(&json[i..at]);
        match escape_at(at) {
            Some(0xD800..=0xDBFF) if escape_at(at + 6).is_some_and(|low| low >= 0xDC00) => {
                out.push_str(&json[at..at + 12]);
                i = at + 12;
            }
            Some(_) => {
                out.push_str("\\ufffd");
                (i, changed) = (at + 6, true);
            }
            None => {
                // Any other escape: the backslash and the character it escapes, as they are.
                let next = json[at + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&json[at..at + 1 + next]);
                i = at + 1 + next;
            }
        }
    }
    out.push_str(&json[i..]);
    changed.then_some(out)
}

/// Why `raw` cannot be a platform message id, or `None` when it can: not blank, no control
/// character, no U+FFFD (where a NUL was: the platform's ids are plain ASCII).
pub fn platform_message_id_issue(raw: &str) -> Option<&'static str> {
    if raw.trim().is_empty() {
        Some("the message id is empty")
    } else if raw.contains(REPLACEMENT) || raw.chars().any(char::is_control) {
        Some("the message id holds a NUL or another control character: it cannot be the platform's id")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_nul_becomes_the_replacement_character_and_nothing_else_changes() {
        assert_eq!(storable_text("a\0b\0"), "a\u{FFFD}b\u{FFFD}");
        assert!(matches!(storable_text("tab\there \u{1} é"), Cow::Borrowed(_)));
        let mut tree = json!({"a\u{0}": ["x\u{0}", 1, null, {"k": "\u{0}"}], "b": true});
        make_storable(&mut tree);
        assert_eq!(tree, json!({"a\u{FFFD}": ["x\u{FFFD}", 1, null, {"k": "\u{FFFD}"}], "b": true}));
    }

    #[test]
    fn json_is_read_with_storable_strings() {
        let read: Value = from_storable_json(r#"{"t":"x\u0000y","n":"\\u0000"}"#).unwrap();
        assert_eq!(read, json!({"t": "x\u{FFFD}y", "n": "\\u0000"}), "an escaped backslash is no NUL");
        assert!(from_storable_json::<Value>("{").is_err());
    }

    #[test]
    fn a_lone_surrogate_escape_becomes_the_replacement_character_and_pairs_are_kept() {
        let read: Value =
            from_storable_json(r#"{"a":"x\ud800y","b":"\udc00","c":"\ud83d\ude00","d":"\\ud800","e":"\ud800\u0000"}"#).unwrap();
        assert_eq!(read, json!({"a": "x\u{FFFD}y", "b": "\u{FFFD}", "c": "😀", "d": "\\ud800", "e": "\u{FFFD}\u{FFFD}"}));
        assert!(from_storable_json::<Value>(r#"{"a":"\ud800"#).is_err(), "still not JSON");
        assert_eq!(lone_surrogates_replaced(r#"{"c":"\ud83d\ude00\n\\"}"#), None);
    }

    #[test]
    fn message_ids_are_refused_when_they_cannot_be_the_platforms() {
        assert_eq!(platform_message_id_issue("pm.HBgLMTY0NjcwNDM1OTUVAgASGBQzQTdBRjA="), None);
        for bad in ["", "  ", "pm.\u{FFFD}", "pm.\u{1}", "platform_id\n"] {
            assert!(platform_message_id_issue(bad).is_some(), "{bad:?}");
        }
    }
}
