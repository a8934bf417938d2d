//! The Cloud API's `interactive` object for a message the business sends (reply buttons, a
//! list, a button that opens a URL), built field by field from Parley's checked
//! [`Interactive`]. Parley's API takes its prompts in a layout close to this one, but the two
//! are separate on purpose: the domain's type may change shape without the request changing,
//! and the constant parts (`"type": "reply"`, `"name": "cta_url"`) are written here, where
//! Meta's layout is known.

use parley_domain::model::Interactive;
use parley_domain::model::interactive::{Action, Header, InteractiveKind, Row};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct CloudInteractive<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    header: Option<CloudHeader<'a>>,
    body: CloudText<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    footer: Option<CloudText<'a>>,
    action: CloudAction<'a>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum CloudHeader<'a> {
    Text { text: &'a str },
    Image { image: CloudLink<'a> },
}

#[derive(Debug, Serialize)]
struct CloudLink<'a> {
    link: &'a str,
}

#[derive(Debug, Serialize)]
struct CloudText<'a> {
    text: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum CloudAction<'a> {
    Buttons { buttons: Vec<CloudReplyButton<'a>> },
    List { button: &'a str, sections: Vec<CloudSection<'a>> },
    CtaUrl { name: &'static str, parameters: CloudCtaUrl<'a> },
}

#[derive(Debug, Serialize)]
struct CloudReplyButton<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    reply: CloudRow<'a>,
}

#[derive(Debug, Serialize)]
struct CloudSection<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    rows: Vec<CloudRow<'a>>,
}

#[derive(Debug, Serialize)]
struct CloudRow<'a> {
    id: &'a str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct CloudCtaUrl<'a> {
    display_text: &'a str,
    url: &'a str,
}

impl<'a> From<&'a Row> for CloudRow<'a> {
    fn from(r: &'a Row) -> Self {
        Self { id: &r.id, title: &r.title, description: r.description.as_deref() }
    }
}

impl<'a> From<&'a Interactive> for CloudInteractive<'a> {
    fn from(i: &'a Interactive) -> Self {
        let kind = match i.kind {
            InteractiveKind::Button => "button",
            InteractiveKind::List => "list",
            InteractiveKind::CtaUrl => "cta_url",
        };
        let header = i.header.as_ref().map(|h| match h {
            Header::Text { text } => CloudHeader::Text { text },
            Header::Image { image } => CloudHeader::Image { image: CloudLink { link: &image.link } },
        });
        let action = match &i.action {
            Action::Buttons { buttons } => CloudAction::Buttons {
                buttons: buttons.iter().map(|b| CloudReplyButton { kind: "reply", reply: (&b.reply).into() }).collect(),
            },
            Action::List { button, sections } => CloudAction::List {
                button,
                sections: sections
                    .iter()
                    .map(|s| CloudSection { title: s.title.as_deref(), rows: s.rows.iter().map(CloudRow::from).collect() })
                    .collect(),
            },
            Action::CtaUrl { parameters, .. } => CloudAction::CtaUrl {
                name: "cta_url",
                parameters: CloudCtaUrl { display_text: &parameters.display_text, url: &parameters.url },
            },
        };
        Self {
            kind,
            header,
            body: CloudText { text: &i.body.text },
            footer: i.footer.as_ref().map(|f| CloudText { text: &f.text }),
            action,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::InteractiveInput;
    use serde_json::{Value, json};

    fn checked(input: Value) -> Interactive {
        Interactive::new(serde_json::from_value::<InteractiveInput>(input).unwrap()).unwrap()
    }

    fn wire(i: &Interactive) -> Value {
        serde_json::to_value(CloudInteractive::from(i)).unwrap()
    }

    #[test]
    fn reply_buttons_are_sent_in_the_cloud_layout() {
        let i = checked(json!({"type": "button", "header": {"type": "text", "text": "Your order"}, "body": {"text": "Confirm?"},
            "footer": {"text": "Reply below"},
            "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}, {"type": "reply", "reply": {"id": "no", "title": "No"}}]}}));
        assert_eq!(
            wire(&i),
            json!({"type": "button", "header": {"type": "text", "text": "Your order"}, "body": {"text": "Confirm?"},
                "footer": {"text": "Reply below"},
                "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}, {"type": "reply", "reply": {"id": "no", "title": "No"}}]}})
        );
    }

    #[test]
    fn a_list_is_sent_with_its_sections_and_rows() {
        let i = checked(json!({"type": "list", "body": {"text": "Pick a size"},
            "action": {"button": "Sizes", "sections": [{"title": "Mugs", "rows": [{"id": "s", "title": "Small", "description": "250 ml"}, {"id": "l", "title": "Large"}]}]}}));
        assert_eq!(
            wire(&i),
            json!({"type": "list", "body": {"text": "Pick a size"},
                "action": {"button": "Sizes", "sections": [{"title": "Mugs", "rows": [{"id": "s", "title": "Small", "description": "250 ml"}, {"id": "l", "title": "Large"}]}]}})
        );
    }

    #[test]
    fn a_url_button_is_sent_with_an_image_header() {
        let i = checked(json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://shop.test/mug.jpg"}},
            "body": {"text": "Your cart"}, "action": {"name": "cta_url", "parameters": {"display_text": "View cart", "url": "https://shop.test/c/1"}}}));
        assert_eq!(
            wire(&i),
            json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://shop.test/mug.jpg"}},
                "body": {"text": "Your cart"}, "action": {"name": "cta_url", "parameters": {"display_text": "View cart", "url": "https://shop.test/c/1"}}})
        );
    }
}
