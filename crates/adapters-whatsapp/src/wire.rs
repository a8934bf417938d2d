//! The Graph API's JSON, as this adapter sends and reads it. Unknown fields are ignored.

use parley_domain::model::{
    BusinessUserId, FreeFormMessage, Location, MessageContent, ParameterFormat, ReadMark, TemplateButton, TemplateComponent,
    TemplateDefinition, TemplateId,
};
use serde::{Deserialize, Serialize};

use crate::interactive_wire::CloudInteractive;

// ----- POST /{version}/{phone_number_id}/messages, a read receipt -----

/// Marks a contact's message (and every earlier one) read, with the typing indicator (shown
/// until the reply or for 25 seconds) when asked.
#[derive(Debug, Serialize)]
pub(crate) struct MarkReadRequest<'a> {
    messaging_product: &'static str,
    status: &'static str,
    message_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    typing_indicator: Option<TypingIndicator>,
}

#[derive(Debug, Serialize)]
struct TypingIndicator {
    #[serde(rename = "type")]
    kind: &'static str,
}

impl<'a> MarkReadRequest<'a> {
    pub(crate) fn new(mark: &'a ReadMark) -> Self {
        Self {
            messaging_product: "whatsapp",
            status: "read",
            message_id: &mark.platform_message_id,
            typing_indicator: mark.typing.then_some(TypingIndicator { kind: "text" }),
        }
    }
}

// ----- POST /{version}/{phone_number_id}/messages, a free-form message -----

/// Whom a send goes to: `to`, a phone number, or `recipient`, a business-scoped user id (a user
/// who hides their phone behind a username; the domain gives the phone whenever it knows one).
#[derive(Debug, Serialize)]
pub(crate) struct Addressee<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recipient: Option<&'a str>,
}

impl<'a> Addressee<'a> {
    /// `id` under the key its shape calls for.
    pub(crate) fn of(id: &'a str) -> Self {
        if BusinessUserId::is_user_id(id) { Self { to: None, recipient: Some(id) } } else { Self { to: Some(id), recipient: None } }
    }
}

/// A free-form message: `text`, or a media kind by link, with the platform's `context` when it
/// answers a message.
#[derive(Debug, Serialize)]
pub(crate) struct FreeFormRequest<'a> {
    messaging_product: &'static str,
    recipient_type: &'static str,
    #[serde(flatten)]
    addressee: Addressee<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<Context<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<TextPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<MediaPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    video: Option<MediaPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    audio: Option<MediaPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    document: Option<MediaPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sticker: Option<MediaPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interactive: Option<CloudInteractive<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<LocationPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reaction: Option<ReactionPayload<'a>>,
    /// Parley's message id, echoed in the message's status webhooks (at most 512 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    biz_opaque_callback_data: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct Context<'a> {
    message_id: &'a str,
}

#[derive(Debug, Serialize)]
struct TextPayload<'a> {
    preview_url: bool,
    body: &'a str,
}

/// A location, as a free-form message and a template's location header both send it.
#[derive(Debug, Serialize)]
pub(crate) struct LocationPayload<'a> {
    latitude: f64,
    longitude: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<&'a str>,
}

impl<'a> From<&'a Location> for LocationPayload<'a> {
    fn from(l: &'a Location) -> Self {
        Self { latitude: l.latitude, longitude: l.longitude, name: l.name.as_deref(), address: l.address.as_deref() }
    }
}

/// A reaction to the platform's message `message_id`; an empty emoji removes it.
#[derive(Debug, Serialize)]
struct ReactionPayload<'a> {
    message_id: &'a str,
    emoji: &'a str,
}

#[derive(Debug, Serialize)]
struct MediaPayload<'a> {
    link: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    caption: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
}

impl<'a> FreeFormRequest<'a> {
    /// `None` for content that is not a free-form kind (text, linked media, an interactive
    /// message, a location, a reaction).
    pub(crate) fn new(message: &'a FreeFormMessage) -> Option<Self> {
        let mut request = Self {
            messaging_product: "whatsapp",
            recipient_type: "individual",
            addressee: Addressee::of(&message.to),
            context: message.context.as_deref().map(|message_id| Context { message_id }),
            kind: message.content.message_type().as_str(),
            text: None,
            image: None,
            video: None,
            audio: None,
            document: None,
            sticker: None,
            interactive: None,
            location: None,
            reaction: None,
            biz_opaque_callback_data: message.callback_data.as_deref(),
        };
        match &message.content {
            MessageContent::Text { body } => {
                request.text = Some(TextPayload { preview_url: message.preview_url, body });
                return Some(request);
            }
            MessageContent::Prompt(interactive) => {
                request.interactive = Some(CloudInteractive::from(interactive));
                return Some(request);
            }
            MessageContent::Location(l) => {
                request.location = Some(LocationPayload::from(l));
                return Some(request);
            }
            MessageContent::Reaction { message_id, emoji } => {
                request.reaction = Some(ReactionPayload { message_id, emoji: emoji.as_deref().unwrap_or("") });
                return Some(request);
            }
            _ => {}
        }
        let media = message.content.media()?;
        let payload = MediaPayload { link: media.link.as_deref()?, caption: media.caption.as_deref(), filename: media.filename.as_deref() };
        let slot = match message.content {
            MessageContent::Image(_) => &mut request.image,
            MessageContent::Video(_) => &mut request.video,
            MessageContent::Audio(_) => &mut request.audio,
            MessageContent::Document(_) => &mut request.document,
            _ => &mut request.sticker,
        };
        *slot = Some(payload);
        Some(request)
    }
}

// ----- GET /{version}/{media_id} -----

#[derive(Debug, Deserialize)]
pub(crate) struct MediaInfo {
    /// Short-lived; fetched with the same bearer token.
    pub url: String,
    #[serde(default)]
    pub mime_type: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SendResponse {
    #[serde(default)]
    pub messages: Option<Vec<MessageRef>>,
    #[serde(default)]
    pub contacts: Option<Vec<ContactRef>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct MessageRef {
    pub id: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ContactRef {
    #[serde(default)]
    pub wa_id: Option<String>,
}

// ----- GET /{version}/{waba_id}/message_templates -----

#[derive(Debug, Deserialize)]
pub(crate) struct TemplatePage {
    #[serde(default)]
    pub data: Option<Vec<WireTemplate>>,
    #[serde(default)]
    pub paging: Option<Paging>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Paging {
    /// An absolute URL to the next page; absent on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireTemplate {
    id: String,
    name: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    parameter_format: Option<String>,
    #[serde(default)]
    components: Option<Vec<WireComponent>>,
}

#[derive(Debug, Deserialize)]
struct WireComponent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    buttons: Option<Vec<WireButton>>,
}

#[derive(Debug, Deserialize)]
struct WireButton {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    phone_number: Option<String>,
    #[serde(default)]
    otp_type: Option<String>,
}

impl From<WireTemplate> for TemplateDefinition {
    fn from(t: WireTemplate) -> Self {
        TemplateDefinition {
            id: TemplateId::new(t.id),
            name: t.name,
            language: t.language.unwrap_or_default(),
            status: t.status.unwrap_or_default(),
            category: t.category.unwrap_or_default(),
            parameter_format: ParameterFormat::parse(t.parameter_format.as_deref()),
            components: t
                .components
                .unwrap_or_default()
                .into_iter()
                .map(|c| TemplateComponent {
                    kind: c.kind.to_ascii_uppercase(),
                    format: c.format,
                    text: c.text,
                    buttons: c
                        .buttons
                        .unwrap_or_default()
                        .into_iter()
                        .map(|b| TemplateButton {
                            kind: b.kind.to_ascii_uppercase(),
                            text: b.text.unwrap_or_default(),
                            url: b.url,
                            phone_number: b.phone_number,
                            otp_type: b.otp_type.map(|o| o.to_ascii_uppercase()),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

// ----- Errors -----

/// `{"error":{"message","type","code","error_subcode","error_data":{"details"},"fbtrace_id"}}`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorEnvelope {
    #[serde(default)]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorBody {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub code: Option<i64>,
    #[serde(default)]
    pub error_data: Option<ErrorData>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorData {
    #[serde(default)]
    pub details: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn free_form_messages_have_the_platform_shape() {
        let text = FreeFormMessage {
            to: "14155550100".into(),
            content: MessageContent::Text { body: "In stock!".into() },
            preview_url: true,
            context: Some("wamid.in1".into()),
            callback_data: Some("msg_1".into()),
            human_agent: false,
        };
        assert_eq!(
            serde_json::to_value(FreeFormRequest::new(&text).unwrap()).unwrap(),
            serde_json::json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": "14155550100",
                "context": {"message_id": "wamid.in1"}, "type": "text", "text": {"preview_url": true, "body": "In stock!"},
                "biz_opaque_callback_data": "msg_1"})
        );
        let to_user = FreeFormMessage { to: "US.13491208655302741918".into(), context: None, callback_data: None, ..text.clone() };
        assert_eq!(
            serde_json::to_value(FreeFormRequest::new(&to_user).unwrap()).unwrap(),
            serde_json::json!({"messaging_product": "whatsapp", "recipient_type": "individual", "recipient": "US.13491208655302741918",
                "type": "text", "text": {"preview_url": true, "body": "In stock!"}}),
            "a user known only by their user id is its recipient"
        );
        let document = FreeFormMessage {
            content: MessageContent::Document(parley_domain::model::Media {
                link: Some("https://cdn.test/invoice.pdf".into()),
                caption: Some("Your invoice".into()),
                filename: Some("invoice.pdf".into()),
                ..Default::default()
            }),
            context: None,
            callback_data: None,
            human_agent: false,
            ..text.clone()
        };
        assert_eq!(
            serde_json::to_value(FreeFormRequest::new(&document).unwrap()).unwrap(),
            serde_json::json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": "14155550100",
                "type": "document", "document": {"link": "https://cdn.test/invoice.pdf", "caption": "Your invoice", "filename": "invoice.pdf"}})
        );
        let location = FreeFormMessage {
            content: MessageContent::Location(parley_domain::model::Location {
                latitude: 19.5,
                longitude: -99.25,
                name: None,
                address: None,
            }),
            ..text.clone()
        };
        assert_eq!(
            serde_json::to_value(FreeFormRequest::new(&location).unwrap()).unwrap()["location"],
            serde_json::json!({"latitude": 19.5, "longitude": -99.25})
        );
        let template = MessageContent::Template { name: "hello".into(), language: "en".into(), parsed_message: "Hello".into() };
        let template = FreeFormMessage { content: template, ..text };
        assert!(FreeFormRequest::new(&template).is_none(), "not a free-form kind");
    }

    #[test]
    fn templates_keep_component_order_and_ignore_unknown_fields() {
        let t: WireTemplate = serde_json::from_value(json!({
            "id": "123", "name": "hello", "language": "en_US", "status": "APPROVED", "category": "MARKETING",
            "parameter_format": "POSITIONAL", "sub_category": "CUSTOM",
            "components": [
                {"type": "BODY", "text": "Hi {{1}}", "example": {"body_text": [["Ana"]]}},
                {"type": "HEADER", "format": "IMAGE"},
                {"type": "BUTTONS", "buttons": [{"type": "URL", "text": "Go", "url": "https://x.example/{{1}}"}, {"type": "QUICK_REPLY", "text": "Ok"}]}
            ]
        }))
        .unwrap();
        let d = TemplateDefinition::from(t);
        let kinds: Vec<_> = d.components.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(kinds, ["BODY", "HEADER", "BUTTONS"]);
        assert_eq!(d.components[1].format.as_deref(), Some("IMAGE"));
        assert_eq!(d.components[2].buttons[0].url.as_deref(), Some("https://x.example/{{1}}"));
        assert_eq!(d.components[2].buttons[1], TemplateButton { kind: "QUICK_REPLY".into(), text: "Ok".into(), ..Default::default() });
        assert_eq!(d.parameter_format, ParameterFormat::Positional);
    }

    #[test]
    fn named_templates_and_button_details_are_kept() {
        let t: WireTemplate = serde_json::from_value(json!({
            "id": "7", "name": "verify", "language": "en_US", "status": "APPROVED", "category": "AUTHENTICATION",
            "parameter_format": "NAMED",
            "components": [
                {"type": "BODY", "text": "*{{1}}* is your verification code.", "add_security_recommendation": true},
                {"type": "BUTTONS", "buttons": [
                    {"type": "OTP", "otp_type": "copy_code", "text": "Copy code"},
                    {"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550100"}
                ]}
            ]
        }))
        .unwrap();
        let d = TemplateDefinition::from(t);
        assert_eq!(d.parameter_format, ParameterFormat::Named);
        assert_eq!(d.components[1].buttons[0].otp_type.as_deref(), Some("COPY_CODE"));
        assert_eq!(d.components[1].buttons[1].phone_number.as_deref(), Some("+15550100"));
    }
}
