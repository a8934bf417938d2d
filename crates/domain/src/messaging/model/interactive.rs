//! Interactive messages a business sends: up to three reply buttons, a list of options, or a
//! button that opens a URL, within the strictest platform's limits, every one checked before
//! anything is sent so that a breach is a 400 naming the field (`interactive.action.buttons[3]`),
//! never the platform's refusal. Its serde form is Parley's: what the API takes and shows as
//! `interactive` (a layout its users know from WhatsApp). Each platform's adapter writes its own
//! request from the checked value, field by field.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::FieldError;
use crate::error::Violations;
use crate::model::field_rules::https_link;
use crate::model::text;

/// The limits, in characters unless said otherwise: WhatsApp's, the strictest of the platforms
/// that show these messages natively.
pub mod limits {
    /// The body of a `button` or `cta_url` message.
    pub const BODY: usize = 1024;
    /// The body of a `list` message.
    pub const LIST_BODY: usize = 4096;
    /// A text header.
    pub const HEADER: usize = 60;
    /// A footer.
    pub const FOOTER: usize = 60;
    /// Reply buttons in one message (a count).
    pub const BUTTONS: usize = 3;
    /// A reply button's id.
    pub const BUTTON_ID: usize = 256;
    /// A reply button's title.
    pub const BUTTON_TITLE: usize = 20;
    /// The label of the button that opens a list.
    pub const LIST_BUTTON: usize = 20;
    /// Sections in one list (a count).
    pub const SECTIONS: usize = 10;
    /// A section's title.
    pub const SECTION_TITLE: usize = 24;
    /// Rows across all sections.
    pub const ROWS: usize = 10;
    /// A row's id.
    pub const ROW_ID: usize = 200;
    /// A row's title.
    pub const ROW_TITLE: usize = 24;
    /// A row's description.
    pub const ROW_DESCRIPTION: usize = 72;
    /// The label of a `cta_url` button.
    pub const CTA_TEXT: usize = 20;
}

/// An interactive message as received: every field optional so that each missing or wrong one
/// is named, unknown fields refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractiveInput {
    /// `button`, `list` or `cta_url`; required.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Optional: a text header, or an image (not on a list).
    pub header: Option<HeaderInput>,
    /// The text the contact reads; required.
    pub body: Option<TextInput>,
    /// Optional text under the body.
    pub footer: Option<TextInput>,
    /// What the contact can do: the fields of the message's `type` only.
    pub action: Option<ActionInput>,
}

/// A header as received: `{"type":"text","text":…}` or `{"type":"image","image":{"link":…}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderInput {
    /// `text` or `image`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// A text header's text.
    pub text: Option<String>,
    /// An image header's picture.
    pub image: Option<LinkInput>,
}

/// A picture as received: `{"link":…}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkInput {
    /// Its https URL.
    pub link: Option<String>,
}

/// A body or footer as received: `{"text":…}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextInput {
    /// The text.
    pub text: Option<String>,
}

/// An action as received: the fields of one kind of message; another kind's are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionInput {
    /// `button`: the reply buttons.
    pub buttons: Option<Vec<ButtonInput>>,
    /// `list`: the label of the button that opens the list.
    pub button: Option<String>,
    /// `list`: the sections of rows.
    pub sections: Option<Vec<SectionInput>>,
    /// `cta_url`: always `cta_url`.
    pub name: Option<String>,
    /// `cta_url`: the button's label and URL.
    pub parameters: Option<CtaInput>,
}

/// A reply button as received: `{"type":"reply","reply":{"id":…,"title":…}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ButtonInput {
    /// Always `reply`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Its id and title.
    pub reply: Option<RowInput>,
}

/// A list section as received.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionInput {
    /// Required when the list has several sections.
    pub title: Option<String>,
    /// Its rows: at least one.
    pub rows: Option<Vec<RowInput>>,
}

/// A reply button's `reply` or a list row: `id` and `title` (and a row's `description`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowInput {
    /// What comes back when the contact picks it.
    pub id: Option<String>,
    /// What the contact reads.
    pub title: Option<String>,
    /// A list row's second line; refused on a button.
    pub description: Option<String>,
}

/// A `cta_url` action's parameters as received.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CtaInput {
    /// The button's label.
    pub display_text: Option<String>,
    /// The https URL the button opens.
    pub url: Option<String>,
}

/// A checked interactive message. It serializes to the API's `interactive` object, which is also
/// what the message keeps as its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interactive {
    /// Which of the three kinds it is.
    #[serde(rename = "type")]
    pub kind: InteractiveKind,
    /// A text or image header (never an image on a list); `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Header>,
    /// The text the contact reads: 1–[`BODY`](limits::BODY) characters, or
    /// 1–[`LIST_BODY`](limits::LIST_BODY) for a list.
    pub body: Text,
    /// Text under the body, 1–[`FOOTER`](limits::FOOTER) characters; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footer: Option<Text>,
    /// What the contact can do, of the message's kind.
    pub action: Action,
}

/// The three kinds of interactive message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractiveKind {
    /// Up to [`BUTTONS`](limits::BUTTONS) reply buttons (`button`).
    Button,
    /// A button that opens a list of options, in sections (`list`).
    List,
    /// A button that opens a URL (`cta_url`).
    CtaUrl,
}

/// An interactive message's header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Header {
    /// A text header, 1–[`HEADER`](limits::HEADER) characters.
    Text {
        /// The text, trimmed.
        text: String,
    },
    /// An image header.
    Image {
        /// The picture.
        image: Link,
    },
}

/// A picture by its https link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The https URL, at most 2,048 characters.
    pub link: String,
}

/// A body or footer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    /// The text, trimmed.
    pub text: String,
}

/// The action of each kind (untagged: the kind says which).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Action {
    /// A `button` message's reply buttons.
    Buttons {
        /// 1–[`BUTTONS`](limits::BUTTONS) buttons.
        buttons: Vec<ReplyButton>,
    },
    /// A `list` message's options.
    List {
        /// The label of the button that opens the list, 1–[`LIST_BUTTON`](limits::LIST_BUTTON)
        /// characters.
        button: String,
        /// 1–[`SECTIONS`](limits::SECTIONS) sections.
        sections: Vec<Section>,
    },
    /// A `cta_url` message's button.
    CtaUrl {
        /// Always `cta_url`.
        name: String,
        /// The button's label and URL.
        parameters: CtaUrl,
    },
}

/// A reply button.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyButton {
    /// Always `reply`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its id (1–[`BUTTON_ID`](limits::BUTTON_ID) characters) and title
    /// (1–[`BUTTON_TITLE`](limits::BUTTON_TITLE)): both unique within the message, titles ignoring
    /// case.
    pub reply: Row,
}

/// A section of a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Its title, 1–[`SECTION_TITLE`](limits::SECTION_TITLE) characters; `None` only in a list of
    /// one section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its options, at least one; at most [`ROWS`](limits::ROWS) across the list's sections.
    pub rows: Vec<Row>,
}

/// An option: a reply button's, or a list row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// What comes back when the contact picks it: unique within the message.
    pub id: String,
    /// What the contact reads.
    pub title: String,
    /// A list row's second line, 1–[`ROW_DESCRIPTION`](limits::ROW_DESCRIPTION) characters; never
    /// on a button.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A button that opens a URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaUrl {
    /// The button's label, 1–[`CTA_TEXT`](limits::CTA_TEXT) characters.
    pub display_text: String,
    /// The https URL it opens, at most 2,048 characters.
    pub url: String,
}

impl Interactive {
    /// What a person reads of it: the body.
    pub fn text(&self) -> &str {
        &self.body.text
    }

    /// Checks every limit, naming fields under `interactive.`.
    pub fn new(input: InteractiveInput) -> Result<Self, Vec<FieldError>> {
        let mut v = Violations::default();
        let kind = match input.kind.as_deref() {
            Some("button") => Some(InteractiveKind::Button),
            Some("list") => Some(InteractiveKind::List),
            Some("cta_url") => Some(InteractiveKind::CtaUrl),
            Some(_) => {
                v.push(FieldError::new("interactive.type", "must be one of button, list, cta_url"));
                None
            }
            None => {
                v.push(FieldError::new("interactive.type", "is required"));
                None
            }
        };
        let header = input.header.and_then(|h| header(h, kind, &mut v));
        let body_max = if kind == Some(InteractiveKind::List) { limits::LIST_BODY } else { limits::BODY };
        let body = match input.body.and_then(|b| b.text) {
            Some(raw) => v.check(text::bounded("interactive.body.text", &raw, 1, body_max)),
            None => {
                v.push(FieldError::new("interactive.body.text", "is required"));
                None
            }
        };
        let footer = input.footer.map(|f| match f.text {
            Some(raw) => v.check(text::bounded("interactive.footer.text", &raw, 1, limits::FOOTER)),
            None => {
                v.push(FieldError::new("interactive.footer.text", "is required when there is a footer"));
                None
            }
        });
        let action = match (kind, input.action) {
            (_, None) => {
                v.push(FieldError::new("interactive.action", "is required"));
                None
            }
            (None, Some(_)) => None,
            (Some(kind), Some(action)) => action_of(kind, action, &mut v),
        };
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(errors);
        }
        let checked = crate::error::CHECKED;
        Ok(Self {
            kind: kind.expect(checked),
            header,
            body: Text { text: body.expect(checked) },
            footer: footer.map(|f| Text { text: f.expect(checked) }),
            action: action.expect(checked),
        })
    }
}

fn header(h: HeaderInput, kind: Option<InteractiveKind>, v: &mut Violations) -> Option<Header> {
    let field = "interactive.header";
    match h.kind.as_deref() {
        Some("text") => {
            if h.image.is_some() {
                v.push(FieldError::new(format!("{field}.image"), "is not allowed for a text header"));
            }
            match h.text {
                Some(raw) => v.check(text::bounded(&format!("{field}.text"), &raw, 1, limits::HEADER)).map(|text| Header::Text { text }),
                None => {
                    v.push(FieldError::new(format!("{field}.text"), "is required"));
                    None
                }
            }
        }
        Some("image") if kind == Some(InteractiveKind::List) => {
            v.push(FieldError::new(format!("{field}.type"), "must be text for a list"));
            None
        }
        Some("image") => {
            if h.text.is_some() {
                v.push(FieldError::new(format!("{field}.text"), "is not allowed for an image header"));
            }
            match h.image.and_then(|i| i.link) {
                Some(raw) => v.check(https_link(&format!("{field}.image.link"), &raw)).map(|link| Header::Image { image: Link { link } }),
                None => {
                    v.push(FieldError::new(format!("{field}.image.link"), "is required"));
                    None
                }
            }
        }
        Some(_) => {
            v.push(FieldError::new(format!("{field}.type"), "must be text or image"));
            None
        }
        None => {
            v.push(FieldError::new(format!("{field}.type"), "is required"));
            None
        }
    }
}

fn action_of(kind: InteractiveKind, a: ActionInput, v: &mut Violations) -> Option<Action> {
    let at = |f: &str| format!("interactive.action.{f}");
    let not_for = |f: &str, kind: &str, v: &mut Violations| v.push(FieldError::new(at(f), format!("is not allowed for type {kind}")));
    match kind {
        InteractiveKind::Button => {
            for (f, given) in [
                ("button", a.button.is_some()),
                ("sections", a.sections.is_some()),
                ("name", a.name.is_some()),
                ("parameters", a.parameters.is_some()),
            ] {
                if given {
                    not_for(f, "button", v);
                }
            }
            let Some(buttons) = a.buttons else {
                v.push(FieldError::new(at("buttons"), "is required"));
                return None;
            };
            if buttons.is_empty() || buttons.len() > limits::BUTTONS {
                v.push(FieldError::new(at("buttons"), format!("must hold 1 to {} buttons", limits::BUTTONS)));
            }
            let mut ids = Unique::default();
            let mut titles = Unique::default();
            let mut checked = Vec::new();
            for (i, b) in buttons.into_iter().enumerate() {
                let here = at(&format!("buttons[{i}]"));
                if i >= limits::BUTTONS {
                    v.push(FieldError::new(here, format!("is one button more than the {} allowed", limits::BUTTONS)));
                    continue;
                }
                match b.kind.as_deref() {
                    Some("reply") => {}
                    Some(_) => v.push(FieldError::new(format!("{here}.type"), "must be reply")),
                    None => v.push(FieldError::new(format!("{here}.type"), "is required")),
                }
                let Some(reply) = b.reply else {
                    v.push(FieldError::new(format!("{here}.reply"), "is required"));
                    continue;
                };
                if reply.description.is_some() {
                    v.push(FieldError::new(format!("{here}.reply.description"), "is not allowed for a button"));
                }
                let id = identifier(&format!("{here}.reply.id"), reply.id, limits::BUTTON_ID, &mut ids, v);
                let title = label(&format!("{here}.reply.title"), reply.title, limits::BUTTON_TITLE, Some(&mut titles), v);
                if let (Some(id), Some(title)) = (id, title) {
                    checked.push(ReplyButton { kind: "reply".into(), reply: Row { id, title, description: None } });
                }
            }
            Some(Action::Buttons { buttons: checked })
        }
        InteractiveKind::List => {
            for (f, given) in [("buttons", a.buttons.is_some()), ("name", a.name.is_some()), ("parameters", a.parameters.is_some())] {
                if given {
                    not_for(f, "list", v);
                }
            }
            let button = label(&at("button"), a.button, limits::LIST_BUTTON, None, v);
            let Some(sections) = a.sections else {
                v.push(FieldError::new(at("sections"), "is required"));
                return None;
            };
            if sections.is_empty() || sections.len() > limits::SECTIONS {
                v.push(FieldError::new(at("sections"), format!("must hold 1 to {} sections", limits::SECTIONS)));
            }
            let several = sections.len() > 1;
            let mut ids = Unique::default();
            let mut rows_seen = 0;
            let mut checked = Vec::new();
            for (i, s) in sections.into_iter().enumerate() {
                let here = at(&format!("sections[{i}]"));
                let title = match s.title {
                    Some(raw) => v.check(text::bounded(&format!("{here}.title"), &raw, 1, limits::SECTION_TITLE)),
                    None if several => {
                        v.push(FieldError::new(format!("{here}.title"), "is required when there are several sections"));
                        None
                    }
                    None => None,
                };
                let rows = s.rows.unwrap_or_default();
                if rows.is_empty() {
                    v.push(FieldError::new(format!("{here}.rows"), "must hold at least 1 row"));
                }
                let mut checked_rows = Vec::new();
                for (j, r) in rows.into_iter().enumerate() {
                    let row = format!("{here}.rows[{j}]");
                    rows_seen += 1;
                    if rows_seen > limits::ROWS {
                        v.push(FieldError::new(row, format!("is one row more than the {} a list holds in all its sections", limits::ROWS)));
                        continue;
                    }
                    let id = identifier(&format!("{row}.id"), r.id, limits::ROW_ID, &mut ids, v);
                    let title = label(&format!("{row}.title"), r.title, limits::ROW_TITLE, None, v);
                    let description =
                        r.description.and_then(|d| v.check(text::bounded(&format!("{row}.description"), &d, 1, limits::ROW_DESCRIPTION)));
                    if let (Some(id), Some(title)) = (id, title) {
                        checked_rows.push(Row { id, title, description });
                    }
                }
                checked.push(Section { title, rows: checked_rows });
            }
            Some(Action::List { button: button?, sections: checked })
        }
        InteractiveKind::CtaUrl => {
            for (f, given) in [("buttons", a.buttons.is_some()), ("button", a.button.is_some()), ("sections", a.sections.is_some())] {
                if given {
                    not_for(f, "cta_url", v);
                }
            }
            match a.name.as_deref() {
                Some("cta_url") => {}
                Some(_) => v.push(FieldError::new(at("name"), "must be cta_url")),
                None => v.push(FieldError::new(at("name"), "is required")),
            }
            let Some(p) = a.parameters else {
                v.push(FieldError::new(at("parameters"), "is required"));
                return None;
            };
            let display_text = label(&at("parameters.display_text"), p.display_text, limits::CTA_TEXT, None, v);
            let url = match p.url {
                Some(raw) => v.check(https_link(&at("parameters.url"), &raw)),
                None => {
                    v.push(FieldError::new(at("parameters.url"), "is required"));
                    None
                }
            };
            Some(Action::CtaUrl { name: "cta_url".into(), parameters: CtaUrl { display_text: display_text?, url: url? } })
        }
    }
}

/// Values already used, for "unique within the message" rules: the first use's field.
#[derive(Default)]
struct Unique(HashMap<String, String>);

impl Unique {
    fn claim(&mut self, value: &str, field: &str) -> Result<(), FieldError> {
        match self.0.get(value) {
            Some(first) => Err(FieldError::new(field, format!("repeats {first}; each must differ"))),
            None => {
                self.0.insert(value.to_string(), field.to_string());
                Ok(())
            }
        }
    }
}

/// An option's `id`: what comes back when the contact picks it, so unique within the message.
fn identifier(field: &str, raw: Option<String>, max: usize, seen: &mut Unique, v: &mut Violations) -> Option<String> {
    let Some(raw) = raw else {
        v.push(FieldError::new(field, "is required"));
        return None;
    };
    let id = v.check(text::bounded(field, &raw, 1, max))?;
    v.check(seen.claim(&id, field))?;
    Some(id)
}

/// A label the contact reads on a button or row; button titles must also differ (case aside,
/// as the contact cannot tell them apart).
fn label(field: &str, raw: Option<String>, max: usize, seen: Option<&mut Unique>, v: &mut Violations) -> Option<String> {
    let Some(raw) = raw else {
        v.push(FieldError::new(field, "is required"));
        return None;
    };
    let title = v.check(text::bounded(field, &raw, 1, max))?;
    if let Some(seen) = seen {
        v.check(seen.claim(&title.to_lowercase(), field))?;
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn input(v: Value) -> InteractiveInput {
        serde_json::from_value(v).unwrap()
    }

    fn fields(v: Value) -> Vec<String> {
        Interactive::new(input(v)).unwrap_err().into_iter().map(|e| e.field).collect()
    }

    fn buttons(n: usize) -> Value {
        json!(
            (0..n).map(|i| json!({"type": "reply", "reply": {"id": format!("b{i}"), "title": format!("Option {i}")}})).collect::<Vec<_>>()
        )
    }

    #[test]
    fn a_button_message_is_the_cloud_apis_object() {
        let sent = json!({"type": "button", "header": {"type": "text", "text": "Your order"}, "body": {"text": "Confirm?"},
            "footer": {"text": "Reply within a day"},
            "action": {"buttons": [{"type": "reply", "reply": {"id": "confirm", "title": "Confirm order"}},
                {"type": "reply", "reply": {"id": "size", "title": "Change size"}}]}});
        let checked = Interactive::new(input(sent.clone())).unwrap();
        assert_eq!(serde_json::to_value(&checked).unwrap(), sent);
        assert_eq!(serde_json::from_value::<Interactive>(sent).unwrap(), checked, "read back as written");
        assert_eq!(checked.text(), "Confirm?");
    }

    #[test]
    fn one_to_three_distinct_reply_buttons() {
        let msg = |b: Value| json!({"type": "button", "body": {"text": "?"}, "action": {"buttons": b}});
        assert!(Interactive::new(input(msg(buttons(3)))).is_ok());
        assert_eq!(fields(msg(buttons(4))), ["interactive.action.buttons", "interactive.action.buttons[3]"]);
        assert_eq!(fields(msg(json!([]))), ["interactive.action.buttons"]);
        let same =
            json!([{"type": "reply", "reply": {"id": "a", "title": "Yes"}}, {"type": "reply", "reply": {"id": "a", "title": "YES"}}]);
        assert_eq!(fields(msg(same)), ["interactive.action.buttons[1].reply.id", "interactive.action.buttons[1].reply.title"]);
        let long = json!([{"type": "url", "reply": {"id": "x".repeat(257), "title": "t".repeat(21)}}]);
        assert_eq!(
            fields(msg(long)),
            ["interactive.action.buttons[0].type", "interactive.action.buttons[0].reply.id", "interactive.action.buttons[0].reply.title"]
        );
    }

    #[test]
    fn texts_stay_within_their_limits() {
        let msg = |header: &str, body: &str, footer: &str| {
            json!({"type": "button", "header": {"type": "text", "text": header}, "body": {"text": body}, "footer": {"text": footer},
                "action": {"buttons": buttons(1)}})
        };
        assert!(Interactive::new(input(msg(&"h".repeat(60), &"b".repeat(1024), &"f".repeat(60)))).is_ok());
        assert_eq!(
            fields(msg(&"h".repeat(61), &"b".repeat(1025), &"f".repeat(61))),
            ["interactive.header.text", "interactive.body.text", "interactive.footer.text"]
        );
        assert_eq!(fields(json!({"type": "button", "action": {"buttons": buttons(1)}})), ["interactive.body.text"]);
        assert_eq!(fields(json!({"type": "carousel", "body": {"text": "x"}, "action": {}})), ["interactive.type"]);
        let image = json!({"type": "button", "header": {"type": "image", "image": {"link": "http://x.test/a.jpg"}},
            "body": {"text": "x"}, "action": {"buttons": buttons(1)}});
        assert_eq!(fields(image), ["interactive.header.image.link"]);
    }

    #[test]
    fn lists_hold_ten_rows_in_up_to_ten_titled_sections() {
        let rows = |from: usize, n: usize| {
            json!((from..from + n).map(|i| json!({"id": format!("r{i}"), "title": format!("Row {i}")})).collect::<Vec<_>>())
        };
        let list =
            |sections: Value| json!({"type": "list", "body": {"text": "Pick one"}, "action": {"button": "Options", "sections": sections}});
        assert!(Interactive::new(input(list(json!([{"rows": rows(0, 10)}])))).is_ok(), "one untitled section");
        assert_eq!(
            fields(list(json!([{"title": "A", "rows": rows(0, 6)}, {"title": "B", "rows": rows(6, 5)}]))),
            ["interactive.action.sections[1].rows[4]"]
        );
        assert_eq!(
            fields(list(json!([{"rows": rows(0, 1)}, {"title": "B", "rows": rows(1, 1)}]))),
            ["interactive.action.sections[0].title"]
        );
        let row = json!([{"rows": [{"id": "a", "title": "t".repeat(25), "description": "d".repeat(73)}, {"id": "a", "title": "x"}]}]);
        assert_eq!(
            fields(list(row)),
            [
                "interactive.action.sections[0].rows[0].title",
                "interactive.action.sections[0].rows[0].description",
                "interactive.action.sections[0].rows[1].id"
            ]
        );
        let long_body = json!({"type": "list", "body": {"text": "b".repeat(4096)}, "action": {"button": "b".repeat(21), "sections": [{"rows": rows(0, 1)}]}});
        assert_eq!(fields(long_body), ["interactive.action.button"], "a list's body takes 4096");
        let image = json!({"type": "list", "header": {"type": "image", "image": {"link": "https://x.test/a.jpg"}}, "body": {"text": "x"},
            "action": {"button": "b", "sections": [{"rows": rows(0, 1)}]}});
        assert_eq!(fields(image), ["interactive.header.type"]);
    }

    #[test]
    fn a_cta_url_button_opens_an_https_link() {
        let cta = |text: &str, url: &str| json!({"type": "cta_url", "body": {"text": "Your cart"}, "action": {"name": "cta_url", "parameters": {"display_text": text, "url": url}}});
        let ok = Interactive::new(input(cta("View cart", "https://shop.example.com/c/Ab3kP9z"))).unwrap();
        assert_eq!(serde_json::to_value(&ok).unwrap()["action"]["parameters"]["url"], "https://shop.example.com/c/Ab3kP9z");
        assert_eq!(
            fields(cta(&"v".repeat(21), "http://shop.example.com")),
            ["interactive.action.parameters.display_text", "interactive.action.parameters.url"]
        );
        let mixed = json!({"type": "cta_url", "body": {"text": "x"}, "action": {"buttons": buttons(1), "name": "cta_url",
            "parameters": {"display_text": "Go", "url": "https://x.test"}}});
        assert_eq!(fields(mixed), ["interactive.action.buttons"]);
    }

    #[test]
    fn unknown_fields_are_refused_when_read() {
        let bad = json!({"type": "button", "body": {"text": "x"}, "action": {"buttons": buttons(1)}, "colour": "red"});
        assert!(serde_json::from_value::<InteractiveInput>(bad).is_err());
    }
}
