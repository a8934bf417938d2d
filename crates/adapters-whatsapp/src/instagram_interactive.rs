//! Parley's interactive prompts in Instagram's shapes: reply buttons and list options as quick
//! replies (the option's id as the payload that comes back when it is tapped), a URL button as a
//! button template. Instagram shows neither a header nor a footer there, so a text header and a
//! footer are written into the text, on lines of their own; what Instagram cannot carry at all
//! (an image header, a row's description, a title over 20 characters) the domain refuses before
//! anything reaches here (`ReplyContent::check_for`).

use std::borrow::Cow;

use parley_domain::model::Interactive;
use parley_domain::model::interactive::{Action, Header};
use serde::Serialize;

/// A quick reply: a tappable option under the text.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct QuickReply<'a> {
    content_type: &'static str,
    title: &'a str,
    payload: &'a str,
}

/// A button template's URL button.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct UrlButton<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    url: &'a str,
    title: &'a str,
}

/// What a prompt becomes on Instagram.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum InstagramPrompt<'a> {
    /// Text with quick replies.
    QuickReplies { text: String, replies: Vec<QuickReply<'a>> },
    /// A button template: text and one URL button.
    UrlButton { text: String, button: UrlButton<'a> },
}

/// The text Instagram shows: the text header, the body and the footer, each on its own lines.
fn text_of(prompt: &Interactive) -> String {
    let mut parts: Vec<Cow<'_, str>> = Vec::with_capacity(3);
    if let Some(Header::Text { text }) = &prompt.header {
        parts.push(Cow::Borrowed(text));
    }
    parts.push(Cow::Borrowed(&prompt.body.text));
    if let Some(footer) = &prompt.footer {
        parts.push(Cow::Borrowed(&footer.text));
    }
    parts.join("\n\n")
}

impl<'a> From<&'a Interactive> for InstagramPrompt<'a> {
    fn from(prompt: &'a Interactive) -> Self {
        let text = text_of(prompt);
        let reply = |id: &'a str, title: &'a str| QuickReply { content_type: "text", title, payload: id };
        match &prompt.action {
            Action::Buttons { buttons } => {
                InstagramPrompt::QuickReplies { text, replies: buttons.iter().map(|b| reply(&b.reply.id, &b.reply.title)).collect() }
            }
            Action::List { sections, .. } => InstagramPrompt::QuickReplies {
                text,
                replies: sections.iter().flat_map(|s| &s.rows).map(|row| reply(&row.id, &row.title)).collect(),
            },
            Action::CtaUrl { parameters, .. } => InstagramPrompt::UrlButton {
                text,
                button: UrlButton { kind: "web_url", url: &parameters.url, title: &parameters.display_text },
            },
        }
    }
}
