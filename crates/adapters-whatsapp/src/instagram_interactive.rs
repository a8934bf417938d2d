//! Parley's interactive prompts and catalog cards in Instagram's shapes: reply buttons and list
//! options as quick replies (the option's id as the payload that comes back when it is tapped),
//! a URL button as a button template, a product or a cart as a generic template's card. Instagram shows neither a header nor a footer there, so a text header and a
//! footer are written into the text, on lines of their own; what Instagram cannot carry at all
//! (an image header, a row's description, a title over 20 characters) the domain refuses before
//! anything reaches here (`ReplyContent::check_for`).

use std::borrow::Cow;

use parley_domain::model::interactive::{Action, Header};
use parley_domain::model::{CartCard, Interactive, ProductCard};
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

/// A generic template's card: a product or a cart.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct CardElement<'a> {
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    subtitle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    buttons: Vec<UrlButton<'a>>,
}

/// Characters of a generic template's title and subtitle (Instagram cuts longer ones).
const CARD_TEXT: usize = 80;

/// At most [`CARD_TEXT`] characters, cut with an ellipsis.
fn fit(text: &str) -> String {
    if text.chars().count() <= CARD_TEXT {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(CARD_TEXT - 1).collect();
    cut.push('…');
    cut
}

/// A link Instagram may open or fetch a picture from: https only.
fn https(url: Option<&String>) -> Option<&str> {
    url.map(String::as_str).filter(|u| u.starts_with("https://"))
}

fn button<'a>(url: Option<&'a String>, title: &'a str) -> Vec<UrlButton<'a>> {
    https(url).map(|url| UrlButton { kind: "web_url", url, title }).into_iter().collect()
}

impl<'a> From<&'a ProductCard> for CardElement<'a> {
    /// The product's title, its price under it, its picture, and a button to it on the
    /// storefront when that is https.
    fn from(card: &'a ProductCard) -> Self {
        let price = card.text.split_once('\n').map(|(_, price)| price.to_string());
        Self {
            title: fit(&card.title),
            subtitle: price.map(|p| fit(&p)),
            image_url: https(card.image.as_ref()),
            buttons: button(card.url.as_ref(), "View product"),
        }
    }
}

impl<'a> From<&'a CartCard> for CardElement<'a> {
    /// "Your cart", the lines and total under it (cut to Instagram's length), and a button to
    /// it on the storefront when that is https.
    fn from(card: &'a CartCard) -> Self {
        let (title, rest) = card.text.split_once('\n').unwrap_or((card.text.as_str(), ""));
        let subtitle = (!rest.is_empty()).then(|| fit(&rest.replace('\n', " · ")));
        Self { title: fit(title), subtitle, image_url: None, buttons: button(card.url.as_ref(), "View cart") }
    }
}
