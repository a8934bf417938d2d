//! Small helpers shared by the text value objects.

use crate::FieldError;

/// Trims `raw` and checks its length in characters is within `min..=max`, and that it holds no
/// control character but newline and tab ([`free_text`]), ends included.
pub fn bounded(field: &str, raw: &str, min: usize, max: usize) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    let len = trimmed.chars().count();
    if len < min {
        return Err(FieldError::new(
            field,
            if min == 1 { "must not be empty".to_string() } else { format!("must be at least {min} characters") },
        ));
    }
    if len > max {
        return Err(FieldError::new(field, format!("must be at most {max} characters")));
    }
    // The whole text, not only what trimming keeps: trimming takes some control characters
    // (form feed, vertical tab, carriage return, NEL) for whitespace, and a text the API refuses
    // in the middle is refused at its ends too.
    if !free_text(raw) {
        return Err(FieldError::new(field, "must not contain control characters"));
    }
    Ok(trimmed.to_string())
}

/// The rule for text a person writes (names, notes, descriptions, message parameters): any
/// character but the control characters (C0 with NUL, DEL, C1), of which only newline and tab
/// are kept, being layout. Carriage return is not: `\n` alone is the line break stored and
/// served, so one text is not stored two ways. Ids, keys and query values take no control
/// character at all (`ids::has_control_characters`).
pub fn free_text(raw: &str) -> bool {
    !raw.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// The case-insensitive form names are matched in: the key kept for a contact's name and the
/// form of a search term, so both sides of a match are folded the same way.
pub fn search_key(raw: &str) -> String {
    raw.to_lowercase()
}

/// The ASCII digits of `raw`, in order.
pub fn digits_of(raw: &str) -> String {
    raw.chars().filter(char::is_ascii_digit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_refused_at_the_ends_too() {
        for raw in ["\u{c}name", "name\r", "\u{b}name", "name\u{85}"] {
            assert!(bounded("f", raw, 1, 10).is_err(), "{raw:?}");
        }
        assert_eq!(bounded("f", "  a\tb\n ", 1, 10).unwrap(), "a\tb");
    }
}
