//! Rich replies on email. Email has no buttons of its own, so a prompt (reply buttons, a list,
//! a link button), a product or a cart goes out as an email with two parts that say the same: an
//! HTML part that shows it (drawn by the email adapter from the rich reply the email keeps) and
//! a plain-text part, the message's `text`, with every option listed and every link written out.
//! A contact answers an option by replying with its title (the HTML part's option links open a
//! reply that says it).

use crate::model::interactive::{Action, Header, Interactive};
use crate::model::{CartCard, MessageContent, ProductCard};

/// A rich reply an email carries: what its HTML part shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EmailRich {
    /// Reply buttons, a list or a link button.
    Prompt(Interactive),
    /// A product card.
    Product(ProductCard),
    /// A cart card.
    Cart(CartCard),
}

impl EmailRich {
    /// The rich reply `content` is, if it is one email can carry.
    pub fn of(content: &MessageContent) -> Option<Self> {
        match content {
            MessageContent::Prompt(prompt) => Some(Self::Prompt(prompt.clone())),
            MessageContent::Product(card) => Some(Self::Product(card.clone())),
            MessageContent::Cart(card) => Some(Self::Cart(card.clone())),
            _ => None,
        }
    }

    /// The same as a message's content (how it is stored and listed).
    pub fn content(&self) -> MessageContent {
        match self {
            Self::Prompt(prompt) => MessageContent::Prompt(prompt.clone()),
            Self::Product(card) => MessageContent::Product(card.clone()),
            Self::Cart(card) => MessageContent::Cart(card.clone()),
        }
    }

    /// The plain-text part: every option listed, every link written out.
    pub fn text(&self) -> String {
        match self {
            Self::Prompt(prompt) => prompt_text(prompt),
            Self::Product(card) => product_text(card),
            Self::Cart(card) => cart_text(card),
        }
    }
}

fn prompt_text(prompt: &Interactive) -> String {
    let mut parts = Vec::new();
    if let Some(Header::Text { text }) = &prompt.header {
        parts.push(text.clone());
    }
    parts.push(prompt.body.text.clone());
    parts.push(match &prompt.action {
        Action::Buttons { buttons } => {
            let options: Vec<String> = buttons.iter().map(|b| format!("- {}", b.reply.title)).collect();
            format!("Reply with one of:\n{}", options.join("\n"))
        }
        Action::List { button, sections } => {
            let mut text = format!("{button}: reply with one of:");
            for section in sections {
                if let Some(title) = &section.title {
                    text.push_str(&format!("\n{title}"));
                }
                for row in &section.rows {
                    match &row.description {
                        Some(description) => text.push_str(&format!("\n- {} ({description})", row.title)),
                        None => text.push_str(&format!("\n- {}", row.title)),
                    }
                }
            }
            text
        }
        Action::CtaUrl { parameters, .. } => format!("{}: {}", parameters.display_text, parameters.url),
    });
    if let Some(footer) = &prompt.footer {
        parts.push(footer.text.clone());
    }
    parts.join("\n\n")
}

fn product_text(card: &ProductCard) -> String {
    with_link(&card.text, "View product", card.url.as_deref())
}

fn cart_text(card: &CartCard) -> String {
    with_link(&card.text, "View cart", card.url.as_deref())
}

fn with_link(text: &str, label: &str, url: Option<&str>) -> String {
    match url {
        Some(url) => format!("{text}\n\n{label}: {url}"),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Decimal;
    use crate::model::interactive::InteractiveKind;
    use crate::model::interactive::{CtaUrl, ReplyButton, Row, Section, Text};

    fn prompt(kind: InteractiveKind, action: Action) -> EmailRich {
        EmailRich::Prompt(Interactive {
            kind,
            header: Some(Header::Text { text: "Your order".into() }),
            body: Text { text: "How should we ship it?".into() },
            footer: Some(Text { text: "Free over 50 EUR".into() }),
            action,
        })
    }

    fn row(id: &str, title: &str, description: Option<&str>) -> Row {
        Row { id: id.into(), title: title.into(), description: description.map(Into::into) }
    }

    #[test]
    fn buttons_and_lists_become_options_to_reply_with() {
        let buttons = prompt(
            InteractiveKind::Button,
            Action::Buttons {
                buttons: ["Pickup", "Courier"].map(|t| ReplyButton { kind: "reply".into(), reply: row(t, t, None) }).to_vec(),
            },
        );
        assert_eq!(buttons.text(), "Your order\n\nHow should we ship it?\n\nReply with one of:\n- Pickup\n- Courier\n\nFree over 50 EUR");
        let list = prompt(
            InteractiveKind::List,
            Action::List {
                button: "Choose".into(),
                sections: vec![
                    Section { title: Some("Fast".into()), rows: vec![row("c", "Courier", Some("tomorrow"))] },
                    Section { title: Some("Cheap".into()), rows: vec![row("p", "Post", None)] },
                ],
            },
        );
        assert_eq!(
            list.text(),
            "Your order\n\nHow should we ship it?\n\nChoose: reply with one of:\nFast\n- Courier (tomorrow)\nCheap\n- Post\n\nFree over 50 EUR"
        );
    }

    #[test]
    fn links_are_written_out() {
        let cta = prompt(
            InteractiveKind::CtaUrl,
            Action::CtaUrl {
                name: "cta_url".into(),
                parameters: CtaUrl { display_text: "Track".into(), url: "https://t.example/1".into() },
            },
        );
        assert!(cta.text().contains("\n\nTrack: https://t.example/1\n\n"));
        let card = ProductCard {
            id: "p1".into(),
            variant_id: None,
            title: "Bottle".into(),
            price: Decimal::from(12),
            currency: "EUR".into(),
            image: None,
            url: Some("https://shop.example/p/p1".into()),
            text: "Bottle\n12 EUR".into(),
        };
        assert_eq!(EmailRich::Product(card.clone()).text(), "Bottle\n12 EUR\n\nView product: https://shop.example/p/p1");
        let without = ProductCard { url: None, ..card.clone() };
        assert_eq!(EmailRich::Product(without).text(), "Bottle\n12 EUR");
        assert_eq!(EmailRich::of(&MessageContent::Text { body: "hi".into() }), None);
        assert_eq!(EmailRich::of(&EmailRich::Product(card.clone()).content()), Some(EmailRich::Product(card)));
    }
}
