//! Canned responses: answers a team saves once and inserts by their short code (`/thanks`).

use crate::FieldError;
use crate::model::{AgentId, CannedResponseId, Timestamp, ids, text};

/// The name a canned response is picked by: 1–32 of `a-z`, `0-9`, `_` and `-`, unique per
/// agent. Not trimmed or folded: what is stored is exactly what was sent, so a picker matching
/// `/thanks` finds it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShortCode(String);

impl ShortCode {
    /// Longest short code, in characters.
    pub const MAX_LEN: usize = 32;

    /// `raw` exactly as sent; a `FieldError` on `short_code` when empty, longer than
    /// [`MAX_LEN`](Self::MAX_LEN), or holding anything but `a-z`, `0-9`, `_` and `-`.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        if raw.is_empty() || raw.len() > Self::MAX_LEN {
            return Err(FieldError::new("short_code", format!("must be 1 to {} characters", Self::MAX_LEN)));
        }
        if !raw.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-') {
            return Err(FieldError::new("short_code", "may hold only lowercase letters a-z, digits, '_' and '-'"));
        }
        Ok(Self(raw.to_string()))
    }

    /// The short code, as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The saved answer: trimmed, 1–4096 characters, newlines and tabs kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannedText(String);

impl CannedText {
    /// Longest text, in characters.
    pub const MAX_LEN: usize = 4096;

    /// `raw` trimmed; a `FieldError` on `text` when empty, longer than
    /// [`MAX_LEN`](Self::MAX_LEN) characters, or holding a control character other than newline
    /// and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("text", raw, 1, Self::MAX_LEN).map(Self)
    }

    /// The text, trimmed, with its line breaks.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The case-folded form `search` matches against.
    pub fn search_key(&self) -> String {
        text::search_key(&self.0)
    }
}

/// A canned-response list's `search`: 1–100 characters, no control character, matched as a
/// case-insensitive substring of the short code or the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannedSearch(String);

impl CannedSearch {
    /// The folded form of `raw` trimmed; a `FieldError` on `search` when empty, longer than 100
    /// characters, or holding any control character (newline and tab included).
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        if ids::has_control_characters(raw) {
            return Err(FieldError::new("search", "must not contain control characters"));
        }
        let trimmed = text::bounded("search", raw, 1, 100)?;
        Ok(Self(text::search_key(&trimmed)))
    }

    /// The folded fragment: compare it with [`ShortCode::as_str`] and [`CannedText::search_key`].
    pub fn fragment(&self) -> &str {
        &self.0
    }

    /// The rule itself, which every backend's list must equal.
    pub fn matches(&self, response: &CannedResponse) -> bool {
        response.short_code.as_str().contains(&self.0) || response.text.search_key().contains(&self.0)
    }
}

/// How many canned responses an agent may keep. A team's saved answers number in the tens; the
/// cap keeps `search`, a substring scan of one agent's responses, bounded.
pub const MAX_CANNED_RESPONSES_PER_AGENT: u32 = 1_000;

/// A saved answer, listed by short code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannedResponse {
    /// Its id (`cnr_…`).
    pub id: CannedResponseId,
    /// The agent whose team saved it.
    pub agent_id: AgentId,
    /// What picks it, unique among the agent's responses.
    pub short_code: ShortCode,
    /// What it inserts.
    pub text: CannedText,
    /// When it was saved.
    pub created_at: Timestamp,
    /// When its short code or text last changed.
    pub updated_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_codes_take_lowercase_letters_digits_underscore_and_dash_only() {
        for good in ["thanks", "a", "opening-hours_2", &"x".repeat(32)] {
            assert_eq!(ShortCode::new(good).unwrap().as_str(), good);
        }
        for bad in ["", "Thanks", "two words", " thanks", "thanks!", "café", &"x".repeat(33), "a\u{0}"] {
            let err = ShortCode::new(bad).unwrap_err();
            assert_eq!(err.field, "short_code", "{bad:?}");
        }
    }

    #[test]
    fn texts_are_trimmed_bounded_in_characters_and_keep_their_lines() {
        assert_eq!(CannedText::new("  Hi!\nSee you\t ").unwrap().as_str(), "Hi!\nSee you");
        assert!(CannedText::new(" \n ").is_err());
        assert!(CannedText::new(&"é".repeat(4096)).is_ok());
        assert!(CannedText::new(&"é".repeat(4097)).is_err());
        assert!(CannedText::new("a\rb").is_err());
    }

    #[test]
    fn search_is_folded_and_matches_either_field_as_a_substring() {
        let response = CannedResponse {
            id: CannedResponseId::new("cnr_1"),
            agent_id: AgentId::new("agt_1"),
            short_code: ShortCode::new("opening-hours").unwrap(),
            text: CannedText::new("We open at NINE, Ünless it's Sunday").unwrap(),
            created_at: Timestamp::default(),
            updated_at: Timestamp::default(),
        };
        for hit in ["HOURS", "ing-h", "nine", "ünless", "SUNDAY"] {
            assert!(CannedSearch::new(hit).unwrap().matches(&response), "{hit}");
        }
        for miss in ["ten", "opening hours", "hours-opening"] {
            assert!(!CannedSearch::new(miss).unwrap().matches(&response), "{miss}");
        }
        assert!(CannedSearch::new("").is_err());
        assert!(CannedSearch::new("a\nb").is_err());
        assert!(CannedSearch::new(&"s".repeat(101)).is_err());
    }
}
