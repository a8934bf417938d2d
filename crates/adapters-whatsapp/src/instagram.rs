//! Instagram's messaging API (`graph.instagram.com`, Business Login for Instagram): replies by
//! `POST /{version}/{account-id}/messages`, the contact's name by `GET /{version}/{igsid}?fields=
//! name,username`, and inbound attachments by the CDN link their webhook carried. Built on the
//! Graph API client ([`CloudApi`]): the same timeouts, bounded reads, error classification and
//! never a retried send.

use std::borrow::Cow;

use async_trait::async_trait;
use futures_util::StreamExt;
use parley_adapters_http::{RECORDED_CAP, read_capped};
use parley_domain::model::{FreeFormMessage, Line, MediaType, MessageContent, ReadMark, TemplateDefinition, TemplateMessage};
use parley_domain::ports::{MediaFile, MessagingPlatform, PlatformError, SentMessage};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::instagram_interactive::{CardElement, InstagramPrompt, QuickReply, UrlButton};
use crate::{ANSWER_CAP, CloudApi, CloudApiConfig, ConfigError, MEDIA_TIMEOUT, from_status, token, transport, unavailable};

/// The public Instagram API.
pub const DEFAULT_INSTAGRAM_BASE_URL: &str = "https://graph.instagram.com";

/// The Instagram messaging client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct InstagramApi {
    graph: CloudApi,
}

impl InstagramApi {
    pub fn new(config: CloudApiConfig) -> Result<Self, ConfigError> {
        Ok(Self { graph: CloudApi::new(config)? })
    }
}

/// `POST /{account-id}/messages`.
#[derive(Serialize)]
struct SendRequest<'a> {
    recipient: Recipient<'a>,
    /// `MESSAGE_TAG` with `tag`, else `RESPONSE` (inside the 24-hour window).
    messaging_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<&'static str>,
    message: OutMessage<'a>,
}

#[derive(Serialize)]
struct Recipient<'a> {
    id: &'a str,
}

#[derive(Serialize)]
struct OutMessage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attachment: Option<Attachment<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quick_replies: Option<Vec<QuickReply<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reply_to: Option<ReplyTo<'a>>,
}

#[derive(Serialize)]
struct Attachment<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    payload: AttachmentPayload<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum AttachmentPayload<'a> {
    /// A media file by link.
    Media { url: &'a str },
    /// A button template: text over URL buttons.
    Buttons { template_type: &'static str, text: String, buttons: Vec<UrlButton<'a>> },
    /// A generic template: cards with a title, a subtitle, a picture and buttons.
    Cards { template_type: &'static str, elements: Vec<CardElement<'a>> },
}

#[derive(Serialize)]
struct ReplyTo<'a> {
    mid: &'a str,
}

/// A sender action: `mark_seen` (the contact sees their messages read) or `typing_on`.
#[derive(Serialize)]
struct SenderAction<'a> {
    recipient: Recipient<'a>,
    sender_action: &'static str,
}

#[derive(Deserialize)]
struct SendResponse {
    message_id: Option<String>,
}

#[derive(Deserialize)]
struct Profile {
    name: Option<String>,
    username: Option<String>,
}

fn refused(message: &str) -> PlatformError {
    PlatformError::Rejected { code: None, message: message.into(), details: None }
}

/// The request body of a reply: text, a media kind by link, or a prompt as quick replies or a
/// button template.
fn send_request(message: &FreeFormMessage) -> Result<SendRequest<'_>, PlatformError> {
    let mut quick_replies = None;
    let (text, attachment) = match &message.content {
        MessageContent::Text { body } => (Some(Cow::Borrowed(body.as_str())), None),
        MessageContent::Prompt(prompt) => match InstagramPrompt::from(prompt) {
            InstagramPrompt::QuickReplies { text, replies } => {
                quick_replies = Some(replies);
                (Some(Cow::Owned(text)), None)
            }
            InstagramPrompt::UrlButton { text, button } => {
                let payload = AttachmentPayload::Buttons { template_type: "button", text, buttons: vec![button] };
                (None, Some(Attachment { kind: "template", payload }))
            }
        },
        MessageContent::Product(card) => (None, Some(generic(CardElement::from(card)))),
        MessageContent::Cart(card) => (None, Some(generic(CardElement::from(card)))),
        content => {
            let kind = match content {
                MessageContent::Image(_) => "image",
                MessageContent::Video(_) => "video",
                MessageContent::Audio(_) => "audio",
                MessageContent::Document(_) => "file",
                _ => return Err(refused("Instagram takes text, prompts, and images, videos, audio and files by link")),
            };
            let url = content.media().and_then(|m| m.link.as_deref()).ok_or_else(|| refused("a media reply needs its link"))?;
            (None, Some(Attachment { kind, payload: AttachmentPayload::Media { url } }))
        }
    };
    Ok(SendRequest {
        recipient: Recipient { id: &message.to },
        messaging_type: if message.human_agent { "MESSAGE_TAG" } else { "RESPONSE" },
        tag: message.human_agent.then_some("HUMAN_AGENT"),
        message: OutMessage { text, attachment, quick_replies, reply_to: message.context.as_deref().map(|mid| ReplyTo { mid }) },
    })
}

/// A generic template of one card.
fn generic(card: CardElement<'_>) -> Attachment<'_> {
    Attachment { kind: "template", payload: AttachmentPayload::Cards { template_type: "generic", elements: vec![card] } }
}

/// An id the platform gave, used as a path segment: never a path of its own.
fn path_segment(raw: &str) -> Result<&str, PlatformError> {
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        Ok(raw)
    } else {
        Err(refused("not an Instagram id"))
    }
}

#[async_trait]
impl MessagingPlatform for InstagramApi {
    async fn templates(&self, _line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        Err(refused("Instagram has no message templates"))
    }

    async fn send_template<'a>(
        &self,
        _line: &Line,
        _message: &TemplateMessage,
        _callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        Err(refused("Instagram has no message templates"))
    }

    /// One attempt, never retried: whatever failed, the message may have gone out.
    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        let token = token(line)?;
        let body = send_request(message)?;
        let url = self.graph.endpoint(&[path_segment(line.account_id())?, "messages"])?;
        let answer = self.graph.call(Method::POST, &url, token, Some(&body), ANSWER_CAP).await.map_err(|f| f.error)?;
        let accepted = || unavailable("the platform answered the send with a body that could not be read; the message may have gone out");
        let parsed: SendResponse = serde_json::from_slice(&answer).map_err(|_| accepted())?;
        let message_id = parsed.message_id.filter(|id| !id.is_empty()).ok_or_else(accepted)?;
        Ok(SentMessage { message_id, wa_id: None })
    }

    /// An inbound attachment, by the CDN link its webhook carried (`https` only), streamed. The
    /// link is signed by the platform, so no token goes with it.
    async fn media(&self, _line: &Line, link: &str) -> Result<MediaFile, PlatformError> {
        let url = reqwest::Url::parse(link).ok().filter(|u| u.scheme() == "https" || u.origin() == self.graph.root.origin());
        let url = url.ok_or_else(|| refused("not an https media link"))?;
        let response = self.graph.client.get(url.clone()).timeout(MEDIA_TIMEOUT).send().await.map_err(|e| transport(&e).error)?;
        let status = response.status();
        tracing::debug!(host = url.host_str().unwrap_or_default(), status = status.as_u16(), "instagram media download");
        if !status.is_success() {
            let bytes = read_capped(response, RECORDED_CAP).await.unwrap_or_default();
            return Err(from_status(status, &bytes).error);
        }
        let header = response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let mime_type = MediaType::or_octet_stream(header);
        let length = response.content_length();
        let body = response.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec()).map_err(|e| transport(&e).error)).boxed();
        Ok(MediaFile { mime_type, length, body })
    }

    /// `mark_seen`, then `typing_on` when asked: Instagram marks the whole conversation, not
    /// one message.
    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        let token = token(line)?;
        let url = self.graph.endpoint(&[path_segment(line.account_id())?, "messages"])?;
        let actions: &[&'static str] = if mark.typing { &["mark_seen", "typing_on"] } else { &["mark_seen"] };
        for &action in actions {
            let body = SenderAction { recipient: Recipient { id: &mark.to }, sender_action: action };
            self.graph.call(Method::POST, &url, token, Some(&body), ANSWER_CAP).await.map_err(|f| f.error)?;
        }
        Ok(())
    }

    async fn profile_name(&self, line: &Line, contact: &str) -> Result<Option<String>, PlatformError> {
        let token = token(line)?;
        let mut url = self.graph.endpoint(&[path_segment(contact)?])?;
        url.query_pairs_mut().append_pair("fields", "name,username");
        let answer = self.graph.get(&url, token, ANSWER_CAP).await?;
        let profile: Profile = serde_json::from_slice(&answer).map_err(|_| unavailable("the platform's profile could not be read"))?;
        Ok(profile.name.filter(|n| !n.trim().is_empty()).or(profile.username.filter(|n| !n.trim().is_empty())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::Media;
    use serde_json::json;

    fn reply(content: MessageContent) -> FreeFormMessage {
        FreeFormMessage { to: "1144".into(), content, preview_url: false, context: None, callback_data: None, human_agent: false }
    }

    #[test]
    fn replies_take_the_instagram_shapes() {
        let text = reply(MessageContent::Text { body: "hi".into() });
        assert_eq!(
            serde_json::to_value(send_request(&text).unwrap()).unwrap(),
            json!({"recipient": {"id": "1144"}, "messaging_type": "RESPONSE", "message": {"text": "hi"}})
        );
        let tagged = FreeFormMessage { human_agent: true, context: Some("m_1".into()), ..text };
        assert_eq!(
            serde_json::to_value(send_request(&tagged).unwrap()).unwrap(),
            json!({"recipient": {"id": "1144"}, "messaging_type": "MESSAGE_TAG", "tag": "HUMAN_AGENT",
                   "message": {"text": "hi", "reply_to": {"mid": "m_1"}}})
        );
        let file = reply(MessageContent::Document(Media { link: Some("https://x.test/a.pdf".into()), ..Media::default() }));
        assert_eq!(
            serde_json::to_value(send_request(&file).unwrap()).unwrap()["message"],
            json!({"attachment": {"type": "file", "payload": {"url": "https://x.test/a.pdf"}}})
        );
        assert!(send_request(&reply(MessageContent::Sticker(Media::default()))).is_err());
    }

    fn prompt(interactive: serde_json::Value) -> MessageContent {
        let input: parley_domain::model::InteractiveInput = serde_json::from_value(interactive).unwrap();
        MessageContent::Prompt(parley_domain::model::Interactive::new(input).unwrap())
    }

    #[test]
    fn buttons_and_lists_are_quick_replies_and_a_url_button_is_a_button_template() {
        let buttons = prompt(json!({"type": "button", "header": {"type": "text", "text": "Your order"}, "body": {"text": "Reserve them?"},
            "footer": {"text": "Ships today"},
            "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}, {"type": "reply", "reply": {"id": "no", "title": "No"}}]}}));
        assert_eq!(
            serde_json::to_value(send_request(&reply(buttons)).unwrap()).unwrap()["message"],
            json!({"text": "Your order\n\nReserve them?\n\nShips today", "quick_replies": [
                {"content_type": "text", "title": "Yes", "payload": "yes"}, {"content_type": "text", "title": "No", "payload": "no"}]})
        );
        let list = prompt(json!({"type": "list", "body": {"text": "Pick a size"}, "action": {"button": "Sizes", "sections": [
            {"title": "Small", "rows": [{"id": "s", "title": "S"}]}, {"title": "Large", "rows": [{"id": "l", "title": "L"}, {"id": "xl", "title": "XL"}]}]}}));
        let sent = serde_json::to_value(send_request(&reply(list)).unwrap()).unwrap();
        let payloads: Vec<_> = sent["message"]["quick_replies"].as_array().unwrap().iter().map(|q| q["payload"].clone()).collect();
        assert_eq!(payloads, [json!("s"), json!("l"), json!("xl")], "every section's rows, in order");
        let cta = prompt(json!({"type": "cta_url", "body": {"text": "Your cart"},
            "action": {"name": "cta_url", "parameters": {"display_text": "Open", "url": "https://shop.example/c/Ab3kP9z"}}}));
        assert_eq!(
            serde_json::to_value(send_request(&reply(cta)).unwrap()).unwrap()["message"],
            json!({"attachment": {"type": "template", "payload": {"template_type": "button", "text": "Your cart",
                "buttons": [{"type": "web_url", "url": "https://shop.example/c/Ab3kP9z", "title": "Open"}]}}})
        );
    }

    #[test]
    fn products_and_carts_are_generic_template_cards() {
        let product: parley_domain::model::ProductCard = serde_json::from_value(json!({"id": "bottle", "title": "Steel bottle",
            "price": 29, "currency": "USD", "image": "https://cdn.test/b.jpg", "url": "https://shop.test/p/bottle",
            "text": "Steel bottle\n29.00 USD"}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(send_request(&reply(MessageContent::Product(product))).unwrap()).unwrap()["message"],
            json!({"attachment": {"type": "template", "payload": {"template_type": "generic", "elements": [{
                "title": "Steel bottle", "subtitle": "29.00 USD", "image_url": "https://cdn.test/b.jpg",
                "buttons": [{"type": "web_url", "url": "https://shop.test/p/bottle", "title": "View product"}]}]}}})
        );
        let cart: parley_domain::model::CartCard = serde_json::from_value(json!({"code": "Ab3kP9z", "lines": [], "currency": "USD",
            "total": 58, "url": "http://localhost:3000/c/Ab3kP9z", "text": "Your cart:\n2 × Steel bottle: 58.00 USD\nTotal: 58.00 USD"}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(send_request(&reply(MessageContent::Cart(cart))).unwrap()).unwrap()["message"]["attachment"]["payload"],
            json!({"template_type": "generic", "elements": [{"title": "Your cart:",
                "subtitle": "2 × Steel bottle: 58.00 USD · Total: 58.00 USD"}]}),
            "an http storefront gets no button: Instagram opens https links only"
        );
    }

    #[test]
    fn ids_in_paths_are_single_segments() {
        assert!(path_segment("17841400000000001").is_ok());
        assert!(path_segment("../me").is_err());
        assert!(path_segment("").is_err());
    }
}
