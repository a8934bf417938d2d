//! A line that behaves like a real one without the network, for demos, tests and development:
//! the platform's template shapes, sends accepted with platform-shaped message ids, and each
//! message moved to delivered and then read through the same webhook path real statuses take.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{IdSource, MediaFile, MessagingPlatform, PlatformError, SentMessage};
use tokio::sync::mpsc;

/// A status webhook the sandbox will deliver to itself after `after`.
#[derive(Debug)]
pub struct SandboxDelivery {
    pub after: Duration,
    /// The platform whose webhook it is (and whose route real ones take).
    pub platform: ChannelType,
    /// A webhook body in the platform's shape.
    pub body: String,
}

/// A line that behaves like a real one without the network: a few templates (one not
/// approved), sends accepted with platform-shaped message ids, and each message moved to
/// delivered and then read through the same webhook path real statuses take.
pub struct SandboxPlatform {
    deliveries: mpsc::UnboundedSender<SandboxDelivery>,
    /// Time from send to `delivered`, and again to `read`.
    step: Duration,
    ids: Arc<dyn IdSource>,
}

impl SandboxPlatform {
    pub fn new(step: Duration, ids: Arc<dyn IdSource>) -> (Self, mpsc::UnboundedReceiver<SandboxDelivery>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { deliveries: tx, step, ids }, rx)
    }
}

fn component(kind: &str, text: &str) -> TemplateComponent {
    TemplateComponent { kind: kind.into(), format: (kind == "HEADER").then(|| "TEXT".into()), text: Some(text.into()), buttons: vec![] }
}

fn buttons(buttons: Vec<TemplateButton>) -> TemplateComponent {
    TemplateComponent { kind: "BUTTONS".into(), buttons, ..Default::default() }
}

fn button(kind: &str, text: &str) -> TemplateButton {
    TemplateButton { kind: kind.into(), text: text.into(), ..Default::default() }
}

fn definition(id: TemplateId, name: &str, status: &str, category: &str, components: Vec<TemplateComponent>) -> TemplateDefinition {
    TemplateDefinition {
        id,
        name: name.into(),
        language: "en_US".into(),
        status: status.into(),
        category: category.into(),
        parameter_format: ParameterFormat::Positional,
        components,
    }
}

/// The sandbox's templates, with ids unique to the line's business account.
fn sandbox_templates(waba: &WabaId) -> Vec<TemplateDefinition> {
    let id = |n: u32| TemplateId::new(format!("{}{n:03}", waba.as_str()));
    vec![
        definition(
            id(1),
            "order_update",
            APPROVED,
            "UTILITY",
            vec![
                component("HEADER", "Order {{1}}"),
                component("BODY", "Hi {{1}}, your order {{2}} ships on {{3}}."),
                component("FOOTER", "Demo Shop"),
                buttons(vec![
                    TemplateButton { url: Some("https://shop.example.com/track/{{1}}".into()), ..button("URL", "Track order") },
                    button("QUICK_REPLY", "Thanks!"),
                ]),
            ],
        ),
        definition(
            id(2),
            "welcome",
            APPROVED,
            "MARKETING",
            vec![component("BODY", "Welcome to {{1}}! Reply to this message to chat with us.")],
        ),
        definition(
            id(3),
            "spring_sale",
            "PENDING",
            "MARKETING",
            vec![component("BODY", "Our spring sale starts {{1}}: 20% off everything.")],
        ),
        // A media header: the send gives the picture (`{"type":"image","image":{"link":…}}`).
        definition(
            id(4),
            "new_arrival",
            APPROVED,
            "MARKETING",
            vec![
                TemplateComponent { kind: "HEADER".into(), format: Some("IMAGE".into()), ..Default::default() },
                component("BODY", "Just in: {{1}}, from {{2}}. Reply to reserve yours."),
                buttons(vec![button("QUICK_REPLY", "Reserve")]),
            ],
        ),
        // Named placeholders: the send names each parameter (`"parameter_name": "first_name"`).
        TemplateDefinition {
            parameter_format: ParameterFormat::Named,
            ..definition(
                id(5),
                "cart_reminder",
                APPROVED,
                "MARKETING",
                vec![
                    component("BODY", "Hi {{first_name}}, your cart with {{item_count}} item(s) is waiting: {{total}}."),
                    component("FOOTER", "Demo Shop"),
                    buttons(vec![TemplateButton { url: Some("https://shop.example.com/c/{{1}}".into()), ..button("URL", "Open cart") }]),
                ],
            )
        },
        // Authentication: the code goes in the body and on the copy-code button.
        definition(
            id(6),
            "verification_code",
            APPROVED,
            "AUTHENTICATION",
            vec![
                component("BODY", "*{{1}}* is your verification code. For your security, do not share this code."),
                component("FOOTER", "This code expires in 10 minutes."),
                buttons(vec![TemplateButton { otp_type: Some("COPY_CODE".into()), ..button("OTP", "Copy code") }]),
            ],
        ),
    ]
}

/// A status webhook body, as the platform sends it.
pub fn status_webhook(line: &Line, message_id: &str, status: &str, recipient: &str, callback_data: Option<&str>, at: i64) -> String {
    // A user known only by their business-scoped user id is named by it, as the platform does.
    let recipient_key = if BusinessUserId::is_user_id(recipient) { "recipient_user_id" } else { "recipient_id" };
    let mut status_json = serde_json::json!({"id": message_id, "status": status, "timestamp": at.to_string(), recipient_key: recipient});
    if let Some(data) = callback_data {
        status_json["biz_opaque_callback_data"] = data.into();
    }
    serde_json::json!({
        "object": "whatsapp_business_account",
        "entry": [{"id": line.waba_id().map(|w| w.as_str()).unwrap_or_default(), "changes": [{"field": "messages", "value": {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": line.account_id(), "phone_number_id": line.account_id()},
            "statuses": [status_json]
        }}]}]
    })
    .to_string()
}

/// What a contact sends to a sandbox line (`parley sandbox receive`).
#[derive(Debug, Clone, PartialEq)]
pub enum SandboxInbound {
    Text(String),
    /// The sandbox's picture, with an optional caption.
    Image(Option<String>),
    Location {
        latitude: f64,
        longitude: f64,
    },
    /// The contact tapped a reply button of the business's message `answers` (its platform id).
    ButtonReply {
        id: String,
        title: String,
        answers: String,
    },
    /// The contact picked a row of the list of the business's message `answers`.
    ListReply {
        id: String,
        title: String,
        description: Option<String>,
        answers: String,
    },
}

/// An Instagram webhook body of one message from `from` (an Instagram-scoped id) to `line` at
/// `at_ms`, in the platform's shape, so it takes the same path real deliveries take. Instagram
/// has no shared locations: `None` for one.
pub fn instagram_inbound_webhook(line: &Line, from: &str, message_id: &str, at_ms: i64, message: &SandboxInbound) -> Option<String> {
    let account = line.account_id();
    let content = match message {
        SandboxInbound::Text(body) => serde_json::json!({"mid": message_id, "text": body}),
        SandboxInbound::Image(_) => serde_json::json!({"mid": message_id,
            "attachments": [{"type": "image", "payload": {"url": "https://sandbox.parley.invalid/picture.png"}}]}),
        SandboxInbound::Location { .. } | SandboxInbound::ButtonReply { .. } | SandboxInbound::ListReply { .. } => return None,
    };
    let item = serde_json::json!({"sender": {"id": from}, "recipient": {"id": account}, "timestamp": at_ms, "message": content});
    Some(serde_json::json!({"object": "instagram", "entry": [{"id": account, "time": at_ms, "messaging": [item]}]}).to_string())
}

/// A webhook body of one inbound message from `from` (digits) to `line`, as the platform sends
/// it: the same shape real deliveries have, so it takes the same path.
pub fn inbound_webhook(line: &Line, from: &str, name: Option<&str>, message_id: &str, at: i64, message: &SandboxInbound) -> String {
    let sender = if BusinessUserId::is_user_id(from) {
        SandboxSender { user_id: Some(from), name, ..SandboxSender::default() }
    } else {
        SandboxSender { phone: Some(from), name, ..SandboxSender::default() }
    };
    user_inbound_webhook(line, &sender, message_id, at, message)
}

/// Who writes to a sandbox line: a phone, a business-scoped user id (a user who hides their
/// phone behind a username), or both, as the platform's webhooks name them.
#[derive(Debug, Clone, Copy, Default)]
pub struct SandboxSender<'a> {
    /// Their phone number's digits, when they share it.
    pub phone: Option<&'a str>,
    /// Their business-scoped user id.
    pub user_id: Option<&'a str>,
    /// Their profile name.
    pub name: Option<&'a str>,
    /// Their username.
    pub username: Option<&'a str>,
}

/// [`inbound_webhook`] from `sender`, shaped as the platform's current webhooks: `from` and
/// `wa_id` only when the phone is shared, `from_user_id` and `user_id` when the id is known.
pub fn user_inbound_webhook(line: &Line, sender: &SandboxSender<'_>, message_id: &str, at: i64, message: &SandboxInbound) -> String {
    let mut object = serde_json::json!({"id": message_id, "timestamp": at.to_string()});
    let mut contact = serde_json::json!({});
    if let Some(phone) = sender.phone {
        object["from"] = phone.into();
        contact["wa_id"] = phone.into();
    }
    if let Some(user_id) = sender.user_id {
        object["from_user_id"] = user_id.into();
        contact["user_id"] = user_id.into();
    }
    // Without a name, no profile: the contact keeps the name they have.
    if let Some(name) = sender.name {
        contact["profile"] = serde_json::json!({"name": name});
    }
    if let Some(username) = sender.username {
        contact["profile"]["username"] = username.into();
    }
    match message {
        SandboxInbound::Text(body) => {
            object["type"] = "text".into();
            object["text"] = serde_json::json!({"body": body});
        }
        SandboxInbound::Image(caption) => {
            object["type"] = "image".into();
            let mut image = serde_json::json!({"id": format!("sandbox{at}"), "mime_type": "image/png", "sha256": "sandbox"});
            if let Some(caption) = caption {
                image["caption"] = caption.as_str().into();
            }
            object["image"] = image;
        }
        SandboxInbound::Location { latitude, longitude } => {
            object["type"] = "location".into();
            object["location"] = serde_json::json!({"latitude": latitude, "longitude": longitude});
        }
        SandboxInbound::ButtonReply { id, title, answers } => {
            object["type"] = "interactive".into();
            object["context"] = serde_json::json!({"from": line.account_id(), "id": answers});
            object["interactive"] = serde_json::json!({"type": "button_reply", "button_reply": {"id": id, "title": title}});
        }
        SandboxInbound::ListReply { id, title, description, answers } => {
            object["type"] = "interactive".into();
            object["context"] = serde_json::json!({"from": line.account_id(), "id": answers});
            let mut row = serde_json::json!({"id": id, "title": title});
            if let Some(description) = description {
                row["description"] = description.as_str().into();
            }
            object["interactive"] = serde_json::json!({"type": "list_reply", "list_reply": row});
        }
    }
    serde_json::json!({
        "object": "whatsapp_business_account",
        "entry": [{"id": line.waba_id().map(|w| w.as_str()).unwrap_or_default(), "changes": [{"field": "messages", "value": {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": line.account_id(), "phone_number_id": line.account_id()},
            "contacts": [contact],
            "messages": [object]
        }}]}]
    })
    .to_string()
}

#[async_trait]
impl MessagingPlatform for SandboxPlatform {
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        // Only WhatsApp has templates; the sandbox's other lines have none.
        Ok(line.waba_id().map(sandbox_templates).unwrap_or_default())
    }

    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        Ok(self.accept(line, &message.to, callback_data))
    }

    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        // The reply's id comes back in its statuses, as the platform echoes it.
        Ok(self.accept(line, &message.to, message.callback_data.as_deref()))
    }

    /// Every sandbox media id is the same small picture: enough to try the media endpoint.
    async fn media(&self, _line: &Line, _media_id: &str) -> Result<MediaFile, PlatformError> {
        let body = SANDBOX_IMAGE.to_vec();
        Ok(MediaFile {
            mime_type: MediaType::parse("image/png").unwrap_or_else(MediaType::octet_stream),
            length: Some(body.len() as u64),
            body: Box::pin(futures_util::stream::once(async move { Ok(body) })),
        })
    }
}

/// A 1×1 PNG of Parley's green.
const SANDBOX_IMAGE: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63,
    0x50, 0xbd, 0x9c, 0x06, 0x00, 0x02, 0x7f, 0x01, 0x5f, 0x57, 0xdc, 0x2a, 0x72, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

impl SandboxPlatform {
    /// Accepts a message to `to`, and schedules its `delivered` and `read` webhooks (on
    /// Instagram, which reports no deliveries, the contact's read receipt).
    fn accept(&self, line: &Line, to: &str, callback_data: Option<&str>) -> SentMessage {
        if line.channel_type() == ChannelType::Instagram {
            let message_id = format!("m_{}", self.ids.secret(48));
            let at = chrono::Utc::now().timestamp_millis() + i64::try_from(self.step.as_millis()).unwrap_or(i64::MAX);
            let read = serde_json::json!({"sender": {"id": to}, "recipient": {"id": line.account_id()}, "timestamp": at,
                "read": {"mid": message_id}});
            let body = serde_json::json!({"object": "instagram", "entry": [{"id": line.account_id(), "time": at, "messaging": [read]}]});
            let _ = self.deliveries.send(SandboxDelivery { after: self.step, platform: ChannelType::Instagram, body: body.to_string() });
            return SentMessage { message_id, wa_id: None };
        }
        let message_id = format!("wamid.{}", self.ids.secret(48));
        let now = chrono::Utc::now().timestamp();
        let step_secs = self.step.as_secs() as i64;
        for (n, status) in [(1u32, "delivered"), (2, "read")] {
            let body = status_webhook(line, &message_id, status, to, callback_data, now + step_secs * i64::from(n));
            // A closed channel means the app is shutting down: the statuses are simply not delivered.
            let _ = self.deliveries.send(SandboxDelivery { after: self.step * n, platform: ChannelType::Whatsapp, body });
        }
        SentMessage { message_id, wa_id: Some(to.to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ids;

    impl IdSource for Ids {
        fn new_id(&self, kind: IdKind) -> String {
            format!("{}_1", kind.prefix())
        }
        fn secret(&self, len: usize) -> String {
            "s".repeat(len)
        }
        fn code(&self, _alphabet: &'static [u8], len: usize) -> String {
            "c".repeat(len)
        }
        fn bytes(&self, len: usize) -> Vec<u8> {
            vec![0; len]
        }
        fn unit(&self) -> f64 {
            0.5
        }
    }

    #[tokio::test]
    async fn a_replys_statuses_echo_its_callback_data() {
        let (sandbox, mut deliveries) = SandboxPlatform::new(Duration::from_millis(1), Arc::new(Ids));
        let line = Line {
            id: LineId::new("chn_1"),
            agent_id: AgentId::new("agt_1"),
            account: LineAccount::Whatsapp {
                phone_number_id: PhoneNumberId::new("106540352242922").unwrap(),
                waba_id: WabaId::new("2").unwrap(),
            },
            access: LineAccess::Sandbox,
            created_at: chrono::Utc::now(),
            pace: Default::default(),
        };
        let reply = FreeFormMessage {
            to: "14155550100".into(),
            content: MessageContent::Text { body: "hi".into() },
            preview_url: false,
            context: None,
            callback_data: Some("msg_reply".into()),
            human_agent: false,
        };
        let sent = sandbox.send_message(&line, &reply).await.unwrap();
        for expected in ["delivered", "read"] {
            let body: serde_json::Value = serde_json::from_str(&deliveries.recv().await.unwrap().body).unwrap();
            let status = &body["entry"][0]["changes"][0]["value"]["statuses"][0];
            assert_eq!((&status["id"], &status["status"]), (&serde_json::json!(sent.message_id), &serde_json::json!(expected)));
            assert_eq!(status["biz_opaque_callback_data"], "msg_reply", "{status}");
        }
    }
}
