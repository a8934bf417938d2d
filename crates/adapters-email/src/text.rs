//! Text made safe to store: no NUL (PostgreSQL `text` cannot hold it), and HTML turned into
//! plain text with a bounded cost.

use std::borrow::Cow;

use crate::limits::MAX_HTML_TO_TEXT_BYTES;

/// `s` with every NUL replaced by U+FFFD. Decoders already replaced invalid bytes lossily.
pub fn clean(s: &str) -> String {
    if s.contains('\0') { s.replace('\0', "\u{FFFD}") } else { s.to_owned() }
}

/// The prefix of `s` that fits in `max` bytes, cut at a character boundary.
pub fn truncate_at_char(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The text of an HTML body, as a reader would see it: tags dropped, links kept as footnotes,
/// never rendered or fetched. At most [`MAX_HTML_TO_TEXT_BYTES`] of HTML are read.
pub fn html_to_text(html: &str) -> String {
    let html = truncate_at_char(html, MAX_HTML_TO_TEXT_BYTES);
    // A wide width so chat clients wrap, not us; deep nesting can still exhaust it (html2text
    // indents), and then the same text without indents or wrapping is the answer.
    let text = html2text::config::plain_no_decorate()
        .string_from_read(html.as_bytes(), 1_000)
        .or_else(|_| html2text::config::plain_no_decorate().raw_mode(true).string_from_read(html.as_bytes(), 1_000))
        .unwrap_or_else(|_| strip_tags(html).into_owned());
    clean(text.trim_end())
}

/// Last resort when html2text refuses: the characters outside `<…>`.
fn strip_tags(html: &str) -> Cow<'_, str> {
    if !html.contains('<') {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_becomes_replacement_character() {
        assert_eq!(clean("a\0b"), "a\u{FFFD}b");
        assert_eq!(clean("plain"), "plain");
    }

    #[test]
    fn truncation_respects_characters() {
        assert_eq!(truncate_at_char("héllo", 2), "h");
        assert_eq!(truncate_at_char("héllo", 3), "hé");
        assert_eq!(truncate_at_char("abc", 10), "abc");
    }

    #[test]
    fn html_becomes_text() {
        let text = html_to_text("<html><body><p>Hello <b>there</b></p><p>Bye</p></body></html>");
        assert!(text.contains("Hello"), "{text}");
        assert!(text.contains("there"), "{text}");
        assert!(text.contains("Bye"), "{text}");
        assert!(!text.contains('<'), "{text}");
    }

    #[test]
    fn deeply_nested_html_is_answered() {
        let depth = 5_000;
        let html =
            format!("{}deep{}", "<blockquote><div><table><tr><td>".repeat(depth), "</td></tr></table></div></blockquote>".repeat(depth));
        let text = html_to_text(&html);
        assert!(text.contains("deep"), "{}", &text[..text.len().min(200)]);
    }

    #[test]
    fn strip_tags_keeps_text() {
        assert_eq!(strip_tags("a<b>c</b>d"), "acd");
    }
}
