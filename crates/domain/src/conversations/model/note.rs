//! Private notes: what one member of the business's team leaves another on a conversation. A
//! note is a timeline entry (`type: note`, `direction: internal`) that no platform ever sees.

use serde::{Deserialize, Serialize};

use crate::FieldError;
use crate::model::text;

/// A note's text and, when given, who wrote it (a user id or name of the caller's own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    author: Option<String>,
}

impl Note {
    /// Longest text, in characters: a WhatsApp text's limit, so a note can be quoted in a reply.
    pub const MAX_TEXT: usize = 4096;
    /// Longest author, in characters: as an assignee's id.
    pub const MAX_AUTHOR: usize = 128;

    /// `text` trimmed, 1–[`MAX_TEXT`](Self::MAX_TEXT) characters; `author` trimmed,
    /// 1–[`MAX_AUTHOR`](Self::MAX_AUTHOR). Both are free text (newline and tab only).
    pub fn new(text: &str, author: Option<&str>) -> Result<Self, Vec<FieldError>> {
        let text = text::bounded("text", text, 1, Self::MAX_TEXT);
        let author = author.map(|a| text::bounded("author", a, 1, Self::MAX_AUTHOR)).transpose();
        match (text, author) {
            (Ok(text), Ok(author)) => Ok(Self { text, author }),
            (text, author) => Err(text.err().into_iter().chain(author.err()).collect()),
        }
    }

    /// The note's text, trimmed, with its line breaks.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Who wrote it, trimmed; `None` when not given.
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_hold_bounded_free_text() {
        let note = Note::new("  Call her back after 5pm\n(she asked)  ", Some(" ana ")).unwrap();
        assert_eq!((note.text(), note.author()), ("Call her back after 5pm\n(she asked)", Some("ana")));
        let fields = |r: Result<Note, Vec<FieldError>>| r.unwrap_err().into_iter().map(|e| e.field).collect::<Vec<_>>();
        assert_eq!(fields(Note::new(" ", Some(""))), ["text", "author"]);
        assert_eq!(fields(Note::new(&"x".repeat(4097), None)), ["text"]);
        assert_eq!(fields(Note::new("ok", Some(&"a".repeat(129)))), ["author"]);
        assert!(Note::new("bell\u{7}", None).is_err());
    }
}
