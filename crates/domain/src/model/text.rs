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

/// The form names are matched in, ignoring case and accents: the key kept for a contact's name
/// and the form of a search term, so both sides of a match are folded the same way (`lopez`
/// finds "López"). Canonical decomposition (NFD) splits a letter from its marks, which are then
/// dropped; letters that hold no mark to split (`ø`, `ß`, `ł`, `ı`) stay as they are, and so does
/// every other character (compatibility forms included: `ﬁ` is not `fi`, a no-break space is
/// not a space), so a search matches what was written, accents aside.
///
/// Stored keys are derived with this function: changing it means re-deriving them on upgrade
/// (the storage adapters' search-key refresh, `docs/storage.md`).
pub fn search_key(raw: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    if raw.is_ascii() {
        return raw.to_ascii_lowercase();
    }
    raw.nfd().filter(|c| !is_combining_mark(*c)).collect::<String>().to_lowercase()
}

/// The ASCII digits of `raw`, in order.
pub fn digits_of(raw: &str) -> String {
    raw.chars().filter(char::is_ascii_digit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_keys_ignore_case_and_accents() {
        for (raw, key) in [
            ("Ana López", "ana lopez"),
            ("JOSÉ Ñúñez", "jose nunez"),
            ("Zoë Åström", "zoe astrom"),
            ("Çağla", "cagla"),
            ("ﬁne", "ﬁne"),
            ("a\u{a0}b", "a\u{a0}b"),
            ("Søren", "søren"),
            ("李小龍", "李小龍"),
            ("plain", "plain"),
        ] {
            assert_eq!(search_key(raw), key, "{raw}");
        }
        assert_eq!(search_key(&search_key("Émile")), search_key("Émile"), "folding twice changes nothing");
    }

    #[test]
    fn control_characters_are_refused_at_the_ends_too() {
        for raw in ["\u{c}name", "name\r", "\u{b}name", "name\u{85}"] {
            assert!(bounded("f", raw, 1, 10).is_err(), "{raw:?}");
        }
        assert_eq!(bounded("f", "  a\tb\n ", 1, 10).unwrap(), "a\tb");
    }
}
