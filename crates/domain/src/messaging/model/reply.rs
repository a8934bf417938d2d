//! A free-form reply in an activity, in the platform's message shape: `{"type":"text","text":
//! {"body":…,"preview_url":…}}` or a media type with `{"link":…,"caption":…,"filename":…}`.

use crate::FieldError;
use crate::error::Violations;
use crate::model::field_rules::{coordinate, filename, https_link};
use crate::model::ids::has_control_characters;
use crate::model::interactive::{Interactive, InteractiveInput};
use crate::model::send::LocationInput;
use crate::model::{Channel, ChannelType, Location, Media, MessageContent, MessageId, MessageType, ReceivedId, text};

/// The longest text reply, in characters (trimmed).
pub const MAX_BODY_CHARS: usize = 4096;
/// The longest caption of a media reply, in characters (trimmed).
pub const MAX_CAPTION_CHARS: usize = 1024;

/// A reply as received, flattened: the HTTP layer reads `text` or the media type's object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplyInput {
    /// An RFC 3339 time to send it at instead of now ([`SendAt`](crate::model::SendAt)): it is
    /// stored `scheduled` and the workers send it then.
    pub send_at: Option<String>,
    /// The message `type`: `text`, `image`, `video`, `audio`, `document`, `sticker`,
    /// `interactive`, `location`, `reaction`, `product` or `cart`; required.
    pub kind: Option<String>,
    /// `text`: the text, 1–[`MAX_BODY_CHARS`] characters once trimmed.
    pub body: Option<String>,
    /// `text`: whether the platform may show a preview of the body's first link.
    pub preview_url: Option<bool>,
    /// Media kinds: the file's https URL, at most 2,048 characters; required.
    pub link: Option<String>,
    /// Media kinds but audio and sticker: text shown with the file, at most
    /// [`MAX_CAPTION_CHARS`] characters; empty is none.
    pub caption: Option<String>,
    /// `document`: the name the recipient sees, 1–255 characters without slashes.
    pub filename: Option<String>,
    /// Our id of a message of the same activity (the service checks it is).
    pub reply_to: Option<String>,
    /// Kind objects sent beside the one `kind` names (`{"type":"image","video":{…}}`): each
    /// is refused by name.
    pub unexpected: Vec<String>,
    /// One of the contact's channels to send on (`channel_type`, `channel_id`), instead of the
    /// channel they last wrote on.
    pub channel: Option<(Option<String>, Option<String>)>,
    /// `human_agent`: a person answers, so an Instagram reply may go out up to 7 days after the
    /// contact's last message.
    pub tag: Option<String>,
    /// An email reply's subject, used as given (else `Re: <last subject>`).
    pub subject: Option<String>,
    /// `interactive`: buttons, a list or a URL button, checked by [`Interactive::new`].
    pub interactive: Option<InteractiveInput>,
    /// `reaction`: `message_id` (a Parley message id of the same activity) and `emoji` (empty
    /// removes the reaction).
    pub reaction: Option<(Option<String>, Option<String>)>,
    /// `location`: `latitude`, `longitude`, `name`, `address`.
    pub location: Option<LocationInput>,
    /// `product`: `id` and `variant_id` of one of the agent's active products.
    pub product: Option<(Option<String>, Option<String>)>,
    /// `cart`: `code` of one of the agent's carts.
    pub cart: Option<Option<String>>,
}

/// A product or cart message's subject, found by the service in the agent's catalog or carts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogRef {
    /// One of the agent's active products.
    Product {
        /// The product's `_id`.
        id: String,
        /// One of its variants' ids, when a variant is meant.
        variant_id: Option<String>,
    },
    /// One of the agent's carts.
    Cart {
        /// The cart's code.
        code: String,
    },
}

/// The longest name or address of a location reply, in characters.
pub const MAX_PLACE_CHARS: usize = 1000;
/// The longest reaction, in characters: one emoji, however many code points it joins.
pub const MAX_EMOJI_CHARS: usize = 10;

/// The longest subject an email reply takes, in characters.
pub const MAX_SUBJECT_CHARS: usize = 255;

/// The only message tag Parley sends: a person's answer, allowed for 7 days on Instagram.
pub const HUMAN_AGENT_TAG: &str = "human_agent";
/// Instagram's longest text message, in characters.
pub const MAX_INSTAGRAM_TEXT_CHARS: usize = 1000;

/// A checked reply: text, media by `https` link, an interactive message, a location or a
/// reaction.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplyContent {
    content: MessageContent,
    /// A reaction's message, by Parley's id: the service puts the platform's id in `content`.
    reacts_to: Option<MessageId>,
    /// A product or cart message's subject: the service builds `content` from it.
    catalog: Option<CatalogRef>,
    preview_url: bool,
    reply_to: Option<MessageId>,
    channel: Option<Channel>,
    human_agent: bool,
    subject: Option<String>,
}

/// Why a reply of another kind cannot go out on email.
pub(crate) const NOT_ON_EMAIL: &str = "must be text, interactive, product or cart on email";

impl ReplyContent {
    /// Checks every rule, naming fields as the platform's shape does (`text.body`, `image.link`).
    pub fn new(input: ReplyInput) -> Result<Self, Vec<FieldError>> {
        let kind = match input.kind.as_deref().map(MessageType::parse) {
            None => return Err(vec![FieldError::new("type", "is required")]),
            Some(Ok(
                k @ (MessageType::Text
                | MessageType::Image
                | MessageType::Video
                | MessageType::Audio
                | MessageType::Document
                | MessageType::Sticker
                | MessageType::Interactive
                | MessageType::Location
                | MessageType::Reaction
                | MessageType::Product
                | MessageType::Cart),
            )) => k,
            Some(_) => {
                return Err(vec![FieldError::new(
                    "type",
                    "must be one of text, image, video, audio, document, sticker, interactive, location, reaction, product, cart",
                )]);
            }
        };
        let name = kind.as_str();
        let at = |field: &str| format!("{name}.{field}");
        let mut v = Violations::default();
        let not_allowed = |field: &str| FieldError::new(at(field), format!("is not allowed for type {name}"));

        for other in &input.unexpected {
            v.push(FieldError::new(other.clone(), format!("is not allowed for type {name}")));
        }
        let reply_to = match input.reply_to {
            Some(raw) if raw.trim().is_empty() => {
                v.push(FieldError::new("reply_to", "must not be empty"));
                None
            }
            Some(raw) => v.check(MessageId::field("reply_to", raw)),
            None => None,
        };

        let channel = match input.channel {
            Some((kind, id)) => {
                let kind = match kind.as_deref().map(ChannelType::parse) {
                    Some(Ok(kind)) => Some(kind),
                    Some(Err(e)) => {
                        v.push(FieldError::new("channel.channel_type", e.issue));
                        None
                    }
                    None => {
                        v.push(FieldError::new("channel.channel_type", "is required"));
                        None
                    }
                };
                match (kind, id) {
                    (Some(kind), Some(id)) => v.check(Channel::new(kind, &id).map_err(|e| FieldError::new("channel.channel_id", e.issue))),
                    (_, None) => {
                        v.push(FieldError::new("channel.channel_id", "is required"));
                        None
                    }
                    (None, Some(_)) => None,
                }
            }
            None => None,
        };
        let human_agent = match input.tag.as_deref() {
            None => false,
            Some(HUMAN_AGENT_TAG) => true,
            Some(_) => {
                v.push(FieldError::new("tag", format!("must be {HUMAN_AGENT_TAG}")));
                false
            }
        };

        let subject = match input.subject {
            Some(raw) => {
                let checked = text::bounded("subject", &raw, 1, MAX_SUBJECT_CHARS).and_then(|s| {
                    if has_control_characters(&s) { Err(FieldError::new("subject", "must be one line of text")) } else { Ok(s) }
                });
                v.check(checked)
            }
            None => None,
        };

        let mut reacts_to = None;
        let mut catalog = None;
        let rich = matches!(
            kind,
            MessageType::Interactive | MessageType::Location | MessageType::Reaction | MessageType::Product | MessageType::Cart
        );
        let content = if rich {
            for (field, given) in [
                ("body", input.body.is_some()),
                ("preview_url", input.preview_url.is_some()),
                ("link", input.link.is_some()),
                ("caption", input.caption.is_some()),
                ("filename", input.filename.is_some()),
            ] {
                if given {
                    v.push(not_allowed(field));
                }
            }
            match kind {
                MessageType::Interactive => {
                    v.check_all(Interactive::new(input.interactive.unwrap_or_default())).map(MessageContent::Prompt)
                }
                MessageType::Location => location(input.location.unwrap_or_default(), &mut v).map(MessageContent::Location),
                MessageType::Product | MessageType::Cart => {
                    catalog = catalog_ref(kind, input.product, input.cart, &mut v);
                    // Built by the service once the product or cart is found.
                    catalog.as_ref().map(|_| MessageContent::Text { body: String::new() })
                }
                _ => {
                    let (id, emoji) = input.reaction.unwrap_or_default();
                    let emoji = emoji.map(|e| e.trim().to_string());
                    let emoji = match emoji.as_deref() {
                        None => {
                            v.push(FieldError::new("reaction.emoji", "is required (an empty string removes the reaction)"));
                            None
                        }
                        Some("") => Some(None),
                        Some(e) if e.chars().count() <= MAX_EMOJI_CHARS && !e.chars().any(|c| c.is_whitespace() || c.is_control()) => {
                            Some(Some(e.to_string()))
                        }
                        Some(_) => {
                            v.push(FieldError::new(
                                "reaction.emoji",
                                format!("must be one emoji (at most {MAX_EMOJI_CHARS} characters), or empty"),
                            ));
                            None
                        }
                    };
                    reacts_to = match id {
                        Some(raw) if !raw.trim().is_empty() => v.check(MessageId::field("reaction.message_id", raw)),
                        _ => {
                            v.push(FieldError::new("reaction.message_id", "is required"));
                            None
                        }
                    };
                    let message_id = reacts_to.as_ref().map(|id| id.as_str().to_string());
                    match (message_id, emoji) {
                        (Some(message_id), Some(emoji)) => Some(MessageContent::Reaction { message_id, emoji }),
                        _ => None,
                    }
                }
            }
        } else if kind == MessageType::Text {
            for (field, given) in
                [("link", input.link.is_some()), ("caption", input.caption.is_some()), ("filename", input.filename.is_some())]
            {
                if given {
                    v.push(not_allowed(field));
                }
            }
            match input.body {
                Some(raw) => v.check(text::bounded(&at("body"), &raw, 1, MAX_BODY_CHARS)).map(|body| MessageContent::Text { body }),
                None => {
                    v.push(FieldError::new(at("body"), "is required"));
                    None
                }
            }
        } else {
            if input.body.is_some() {
                v.push(not_allowed("body"));
            }
            if input.preview_url.is_some() {
                v.push(not_allowed("preview_url"));
            }
            let link = match input.link {
                Some(raw) => v.check(https_link(&at("link"), &raw)),
                None => {
                    v.push(FieldError::new(at("link"), "is required"));
                    None
                }
            };
            let caption = match input.caption {
                Some(_) if matches!(kind, MessageType::Audio | MessageType::Sticker) => {
                    v.push(not_allowed("caption"));
                    None
                }
                // An empty caption is no caption.
                Some(raw) => v.check(text::bounded(&at("caption"), &raw, 0, MAX_CAPTION_CHARS)).filter(|c| !c.is_empty()),
                None => None,
            };
            let filename = match input.filename {
                Some(raw) if kind == MessageType::Document => v.check(filename(&at("filename"), &raw)),
                Some(_) => {
                    v.push(not_allowed("filename"));
                    None
                }
                None => None,
            };
            link.map(|link| {
                let media = Media { link: Some(link), caption, filename, ..Media::default() };
                match kind {
                    MessageType::Image => MessageContent::Image(media),
                    MessageType::Video => MessageContent::Video(media),
                    MessageType::Audio => MessageContent::Audio(media),
                    MessageType::Document => MessageContent::Document(media),
                    _ => MessageContent::Sticker(media),
                }
            })
        };
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(errors);
        }
        let content = content.expect(crate::error::CHECKED);
        Ok(Self { content, reacts_to, catalog, preview_url: input.preview_url.unwrap_or(false), reply_to, channel, human_agent, subject })
    }

    /// The rules of the platform the reply goes out on, beyond those every platform shares:
    /// Instagram takes text up to 1,000 characters, prompts it can show whole
    /// ([`check_for_instagram`](crate::model::instagram_prompt::check_for_instagram)) and no
    /// stickers, and only it knows the human-agent tag; email takes text and the rich replies
    /// ([`EmailRich`](crate::model::EmailRich)), and only it has a subject.
    pub fn check_for(&self, channel: ChannelType) -> Result<(), FieldError> {
        let instagram = channel == ChannelType::Instagram;
        let email = channel == ChannelType::Email;
        if self.subject.is_some() && !email {
            return Err(FieldError::new("subject", format!("is for email replies; this reply goes out on {}", channel.as_str())));
        }
        match &self.content {
            MessageContent::Text { .. } if email && self.preview_url => Err(FieldError::new("text.preview_url", "is not allowed on email")),
            MessageContent::Text { .. } | MessageContent::Prompt(_) => Ok(()),
            // Rich replies go out on email as an HTML part with its plain-text twin.
            _ if email && self.catalog.is_some() => Ok(()),
            _ if email => Err(FieldError::new("type", NOT_ON_EMAIL)),
            _ => Ok(()),
        }?;
        self.check_tag(channel)?;
        match &self.content {
            MessageContent::Text { body } if instagram && body.chars().count() > MAX_INSTAGRAM_TEXT_CHARS => {
                Err(FieldError::new("text.body", format!("must be at most {MAX_INSTAGRAM_TEXT_CHARS} characters on Instagram")))
            }
            MessageContent::Sticker(_) if instagram => Err(FieldError::new("type", "sticker cannot be sent on Instagram")),
            MessageContent::Prompt(prompt) if instagram => crate::model::instagram_prompt::check_for_instagram(prompt),
            content @ (MessageContent::Location(_) | MessageContent::Reaction { .. }) if instagram => {
                Err(FieldError::new("type", format!("{} cannot be sent on Instagram", content.message_type().as_str())))
            }
            _ => Ok(()),
        }
    }

    fn check_tag(&self, channel: ChannelType) -> Result<(), FieldError> {
        if self.human_agent && channel != ChannelType::Instagram {
            return Err(FieldError::new(
                "tag",
                format!("{HUMAN_AGENT_TAG} is an Instagram tag; this reply goes out on {}", channel.as_str()),
            ));
        }
        Ok(())
    }

    /// An email reply's subject, as given.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The contact's channel the caller named, if any.
    pub fn channel(&self) -> Option<&Channel> {
        self.channel.as_ref()
    }

    /// Sent under the human-agent tag (Instagram).
    pub fn human_agent(&self) -> bool {
        self.human_agent
    }

    /// What is sent and kept: `Text`, or a media kind with its `link`.
    pub fn content(&self) -> &MessageContent {
        &self.content
    }

    /// The content, taken.
    pub fn into_content(self) -> MessageContent {
        self.content
    }

    /// Text only: whether the platform may show a preview of the body's first link.
    pub fn preview_url(&self) -> bool {
        self.preview_url
    }

    /// The message of the same activity this reply answers, by Parley's id.
    pub fn reply_to(&self) -> Option<&MessageId> {
        self.reply_to.as_ref()
    }

    /// A reaction's message, by Parley's id.
    pub fn reacts_to(&self) -> Option<&MessageId> {
        self.reacts_to.as_ref()
    }

    /// A product or cart message's subject, to find.
    pub fn catalog(&self) -> Option<&CatalogRef> {
        self.catalog.as_ref()
    }

    /// A product or cart message's content, once its subject was found.
    pub fn show(&mut self, card: MessageContent) {
        self.content = card;
    }

    /// The content with the platform's id of the message a reaction reacts to.
    pub fn react_on(&mut self, platform_message_id: String) {
        if let MessageContent::Reaction { message_id, .. } = &mut self.content {
            *message_id = platform_message_id;
        }
    }
}

/// A product's `id` (and optional `variant_id`) or a cart's `code`, each required and one line.
fn catalog_ref(
    kind: MessageType,
    product: Option<(Option<String>, Option<String>)>,
    cart: Option<Option<String>>,
    v: &mut Violations,
) -> Option<CatalogRef> {
    let one_line = |field: &str, raw: Option<String>, v: &mut Violations| match raw.map(|r| r.trim().to_string()) {
        Some(r) if !r.is_empty() && !has_control_characters(&r) && r.chars().count() <= 128 => Some(r),
        Some(_) => {
            v.push(FieldError::new(field, "must be 1 to 128 characters without control characters"));
            None
        }
        None => {
            v.push(FieldError::new(field, "is required"));
            None
        }
    };
    if kind == MessageType::Product {
        let (id, variant) = product.unwrap_or_default();
        let id = one_line("product.id", id, v);
        let variant_id = match variant {
            Some(raw) => Some(one_line("product.variant_id", Some(raw), v)?),
            None => None,
        };
        Some(CatalogRef::Product { id: id?, variant_id })
    } else {
        let code = one_line("cart.code", cart.flatten(), v)?;
        Some(CatalogRef::Cart { code })
    }
}

/// A location's coordinates (finite, within ±90 and ±180) and its optional name and address.
fn location(input: LocationInput, v: &mut Violations) -> Option<Location> {
    let latitude = v.check(coordinate("location.latitude".into(), input.latitude, 90.0));
    let longitude = v.check(coordinate("location.longitude".into(), input.longitude, 180.0));
    let name = input.name.and_then(|n| v.check(text::bounded("location.name", &n, 1, MAX_PLACE_CHARS)));
    let address = input.address.and_then(|a| v.check(text::bounded("location.address", &a, 1, MAX_PLACE_CHARS)));
    Some(Location { latitude: latitude?, longitude: longitude?, name, address })
}

/// A free-form message as it goes to the platform.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeFormMessage {
    /// The contact's identifier on the line's channel.
    pub to: String,
    /// Text, or a media kind by link.
    pub content: MessageContent,
    /// Text only: whether the platform may show a preview of the body's first link.
    pub preview_url: bool,
    /// The platform's id of the message this one answers (sent as `context.message_id`).
    pub context: Option<String>,
    /// Sent as `biz_opaque_callback_data` (at most 512 characters), which the platform echoes in
    /// the message's status reports: Parley's message id, so a reply whose send answer was lost
    /// is still found by its statuses.
    pub callback_data: Option<String>,
    /// Sent under the human-agent tag (Instagram only): a person's answer after 24 hours.
    pub human_agent: bool,
}

/// The business has read the contact's messages up to one of them: the platform shows it
/// ("read" ticks) and, with `typing`, a typing indicator until the reply or a timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadMark {
    /// The contact's identifier on the line's channel.
    pub to: String,
    /// The platform's id of the contact's newest message.
    pub platform_message_id: String,
    /// Whether to show the contact a typing indicator too.
    pub typing: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(kind: &str) -> ReplyInput {
        ReplyInput { kind: Some(kind.into()), ..ReplyInput::default() }
    }

    fn fields(result: Result<ReplyContent, Vec<FieldError>>) -> Vec<String> {
        result.unwrap_err().into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn a_text_reply_is_its_trimmed_body() {
        let r = ReplyContent::new(ReplyInput {
            body: Some("  Yes, in stock.\nShall I reserve it?\t ".into()),
            preview_url: Some(true),
            reply_to: Some("msg_9".into()),
            ..input("text")
        })
        .unwrap();
        assert_eq!(r.content(), &MessageContent::Text { body: "Yes, in stock.\nShall I reserve it?".into() });
        assert!(r.preview_url());
        assert_eq!(r.reply_to().map(MessageId::as_str), Some("msg_9"));
        assert!(!ReplyContent::new(ReplyInput { body: Some("ok".into()), ..input("text") }).unwrap().preview_url());
    }

    #[test]
    fn a_named_channel_and_the_human_agent_tag_are_read_and_checked() {
        let text = |body: &str| ReplyInput { body: Some(body.into()), ..input("text") };
        let named = ReplyInput {
            channel: Some((Some("instagram".into()), Some("1144000000000001".into()))),
            tag: Some(HUMAN_AGENT_TAG.into()),
            ..text("hi")
        };
        let r = ReplyContent::new(named).unwrap();
        assert_eq!(r.channel(), Some(&Channel::new(ChannelType::Instagram, "1144000000000001").unwrap()));
        assert!(r.human_agent());
        assert_eq!(r.check_for(ChannelType::Instagram), Ok(()));
        assert_eq!(r.check_for(ChannelType::Whatsapp).unwrap_err().field, "tag", "an Instagram tag only");

        let bad = ReplyInput { channel: Some((Some("pigeon".into()), None)), tag: Some("urgent".into()), ..text("hi") };
        assert_eq!(fields(ReplyContent::new(bad)), ["channel.channel_type", "channel.channel_id", "tag"]);
        let bad_id = ReplyInput { channel: Some((Some("whatsapp".into()), Some("call me".into()))), ..text("hi") };
        assert_eq!(fields(ReplyContent::new(bad_id)), ["channel.channel_id"]);

        let long = ReplyContent::new(text(&"é".repeat(MAX_INSTAGRAM_TEXT_CHARS + 1))).unwrap();
        assert_eq!(long.check_for(ChannelType::Instagram).unwrap_err().field, "text.body", "1,000 characters on Instagram");
        assert_eq!(long.check_for(ChannelType::Whatsapp), Ok(()), "4,096 on WhatsApp");
        let fits = ReplyContent::new(text(&"é".repeat(MAX_INSTAGRAM_TEXT_CHARS))).unwrap();
        assert_eq!(fits.check_for(ChannelType::Instagram), Ok(()), "characters, not bytes");
        let sticker = ReplyContent::new(ReplyInput { link: Some("https://x.test/s.webp".into()), ..input("sticker") }).unwrap();
        assert_eq!(sticker.check_for(ChannelType::Instagram).unwrap_err().field, "type");
    }

    #[test]
    fn a_kind_object_other_than_the_type_is_refused_by_name() {
        let r = ReplyInput { body: Some("hi".into()), unexpected: vec!["image".into()], ..input("text") };
        assert_eq!(fields(ReplyContent::new(r)), ["image"]);
    }

    #[test]
    fn text_bodies_are_1_to_4096_characters_of_free_text() {
        assert!(ReplyContent::new(ReplyInput { body: Some("é".repeat(4096)), ..input("text") }).is_ok());
        for bad in [None, Some("".to_string()), Some("   ".into()), Some("é".repeat(4097)), Some("a\u{0}b".into()), Some("a\rb".into())] {
            assert_eq!(fields(ReplyContent::new(ReplyInput { body: bad.clone(), ..input("text") })), ["text.body"], "{bad:?}");
        }
        let extra =
            ReplyInput { body: Some("hi".into()), link: Some("https://x.test/a.jpg".into()), caption: Some("c".into()), ..input("text") };
        assert_eq!(fields(ReplyContent::new(extra)), ["text.link", "text.caption"]);
    }

    #[test]
    fn the_type_must_be_an_outbound_kind() {
        assert_eq!(fields(ReplyContent::new(ReplyInput::default())), ["type"]);
        for kind in ["order", "template", "poll", "button", "TEXT", ""] {
            assert_eq!(fields(ReplyContent::new(input(kind))), ["type"], "{kind}");
        }
    }

    #[test]
    fn locations_need_coordinates_in_range() {
        let at = |latitude: f64, longitude: f64| ReplyInput {
            location: Some(LocationInput {
                latitude: Some(latitude),
                longitude: Some(longitude),
                name: Some(" Shop ".into()),
                address: None,
            }),
            ..input("location")
        };
        let r = ReplyContent::new(at(38.7, -9.14)).unwrap();
        assert_eq!(
            r.content(),
            &MessageContent::Location(Location { latitude: 38.7, longitude: -9.14, name: Some("Shop".into()), address: None })
        );
        assert_eq!(fields(ReplyContent::new(at(90.5, -180.5))), ["location.latitude", "location.longitude"]);
        assert_eq!(fields(ReplyContent::new(at(f64::NAN, 0.0))), ["location.latitude"]);
        assert_eq!(fields(ReplyContent::new(input("location"))), ["location.latitude", "location.longitude"]);
        let long = ReplyInput {
            location: Some(LocationInput { name: Some("n".repeat(1001)), ..at(0.0, 0.0).location.unwrap() }),
            ..input("location")
        };
        assert_eq!(fields(ReplyContent::new(long)), ["location.name"]);
        assert_eq!(ReplyContent::new(at(0.0, 0.0)).unwrap().check_for(ChannelType::Instagram).unwrap_err().field, "type");
    }

    #[test]
    fn a_reaction_names_its_message_and_one_emoji_or_none() {
        let react = |id: Option<&str>, emoji: Option<&str>| ReplyInput {
            reaction: Some((id.map(String::from), emoji.map(String::from))),
            ..input("reaction")
        };
        let r = ReplyContent::new(react(Some("msg_1"), Some("👍"))).unwrap();
        assert_eq!(r.reacts_to().map(MessageId::as_str), Some("msg_1"));
        let mut removed = ReplyContent::new(react(Some("msg_1"), Some(""))).unwrap();
        removed.react_on("pm.1".into());
        assert_eq!(removed.content(), &MessageContent::Reaction { message_id: "pm.1".into(), emoji: None }, "empty removes it");
        assert!(ReplyContent::new(react(Some("msg_1"), Some("👨‍👩‍👧‍👦"))).is_ok(), "one emoji of several code points");
        assert_eq!(fields(ReplyContent::new(react(None, Some("a b")))), ["reaction.emoji", "reaction.message_id"]);
        assert_eq!(fields(ReplyContent::new(react(Some("msg_1"), None))), ["reaction.emoji"]);
        let with_body = ReplyInput { body: Some("hi".into()), ..react(Some("msg_1"), Some("👍")) };
        assert_eq!(fields(ReplyContent::new(with_body)), ["reaction.body"]);
    }

    #[test]
    fn product_and_cart_messages_name_what_they_show_and_go_out_on_every_channel() {
        let product = ReplyInput { product: Some((Some(" bottle ".into()), Some("750".into()))), ..input("product") };
        let r = ReplyContent::new(product).unwrap();
        assert_eq!(r.catalog(), Some(&CatalogRef::Product { id: "bottle".into(), variant_id: Some("750".into()) }));
        assert_eq!(r.check_for(ChannelType::Whatsapp), Ok(()));
        assert_eq!(r.check_for(ChannelType::Instagram), Ok(()), "a generic template there");
        assert_eq!(r.check_for(ChannelType::Email), Ok(()), "an HTML part there");
        let cart = ReplyContent::new(ReplyInput { cart: Some(Some("Ab3kP9z".into())), ..input("cart") }).unwrap();
        assert_eq!(cart.check_for(ChannelType::Email), Ok(()));
        assert_eq!(cart.catalog(), Some(&CatalogRef::Cart { code: "Ab3kP9z".into() }));
        assert_eq!(fields(ReplyContent::new(input("product"))), ["product.id"]);
        assert_eq!(fields(ReplyContent::new(ReplyInput { cart: Some(None), ..input("cart") })), ["cart.code"]);
        let with_text = ReplyInput { body: Some("hi".into()), cart: Some(Some("Ab3kP9z".into())), ..input("cart") };
        assert_eq!(fields(ReplyContent::new(with_text)), ["cart.body"]);
    }

    #[test]
    fn interactive_replies_are_checked_by_their_own_rules() {
        let r = ReplyInput {
            interactive: Some(InteractiveInput { kind: Some("button".into()), ..Default::default() }),
            ..input("interactive")
        };
        assert_eq!(fields(ReplyContent::new(r)), ["interactive.body.text", "interactive.action"]);
    }

    #[test]
    fn media_go_by_https_link_with_their_caption() {
        let r = ReplyContent::new(ReplyInput {
            link: Some(" https://cdn.example/m/1.jpg ".into()),
            caption: Some("Our mug".into()),
            ..input("image")
        })
        .unwrap();
        let want = Media { link: Some("https://cdn.example/m/1.jpg".into()), caption: Some("Our mug".into()), ..Media::default() };
        assert_eq!(r.content(), &MessageContent::Image(want));
        for kind in ["video", "audio", "sticker", "document"] {
            let caption = matches!(kind, "video" | "document").then(|| " ".to_string());
            let r = ReplyContent::new(ReplyInput { link: Some("HTTPS://cdn.example/x".into()), caption, ..input(kind) }).unwrap();
            assert_eq!(r.content().message_type().as_str(), kind);
            assert_eq!(r.content().media().and_then(|m| m.caption.as_deref()), None, "an empty caption is none");
        }
        let doc = ReplyContent::new(ReplyInput {
            link: Some("https://x.test/i.pdf".into()),
            filename: Some("INV-7.pdf".into()),
            ..input("document")
        })
        .unwrap();
        assert_eq!(doc.content().media().and_then(|m| m.filename.as_deref()), Some("INV-7.pdf"));
    }

    #[test]
    fn media_links_must_be_https_with_a_host() {
        for bad in [
            "http://x.test/a.jpg",
            "https://",
            "https:///a.jpg",
            "https://:443/a",
            "ftp://x.test/a",
            "x.test/a.jpg",
            "https://x.test/a b.jpg",
            "https://user@x.test/a",
        ] {
            let r = ReplyContent::new(ReplyInput { link: Some(bad.into()), ..input("image") });
            assert_eq!(fields(r), ["image.link"], "{bad}");
        }
        assert_eq!(fields(ReplyContent::new(input("video"))), ["video.link"], "required");
        let long = format!("https://x.test/{}", "a".repeat(2048));
        assert_eq!(fields(ReplyContent::new(ReplyInput { link: Some(long), ..input("image") })), ["image.link"]);
    }

    #[test]
    fn captions_and_filenames_go_only_where_the_platform_takes_them() {
        let link = Some("https://x.test/f".to_string());
        let long = ReplyInput { link: link.clone(), caption: Some("c".repeat(1025)), ..input("image") };
        assert_eq!(fields(ReplyContent::new(long)), ["image.caption"]);
        assert!(ReplyContent::new(ReplyInput { link: link.clone(), caption: Some("c".repeat(1024)), ..input("image") }).is_ok());
        for kind in ["audio", "sticker"] {
            let r = ReplyContent::new(ReplyInput { link: link.clone(), caption: Some("hi".into()), ..input(kind) });
            assert_eq!(fields(r), [format!("{kind}.caption")]);
        }
        for kind in ["image", "video", "audio", "sticker"] {
            let r = ReplyContent::new(ReplyInput { link: link.clone(), filename: Some("a.pdf".into()), ..input(kind) });
            assert_eq!(fields(r), [format!("{kind}.filename")]);
        }
        for bad in ["", "a/b.pdf", "a\tb.pdf"] {
            let r = ReplyContent::new(ReplyInput { link: link.clone(), filename: Some(bad.into()), ..input("document") });
            assert_eq!(fields(r), ["document.filename"], "{bad:?}");
        }
        let r = ReplyContent::new(ReplyInput { link: link.clone(), body: Some("hi".into()), preview_url: Some(true), ..input("image") });
        assert_eq!(fields(r), ["image.body", "image.preview_url"]);
    }

    #[test]
    fn every_mistake_is_reported_at_once_with_reply_to() {
        let r = ReplyContent::new(ReplyInput {
            link: Some("http://x".into()),
            caption: Some("a\u{7}".into()),
            reply_to: Some("msg_\u{0}".into()),
            ..input("image")
        });
        assert_eq!(fields(r), ["reply_to", "image.link", "image.caption"]);
        assert_eq!(
            fields(ReplyContent::new(ReplyInput { body: Some("x".into()), reply_to: Some(" ".into()), ..input("text") })),
            ["reply_to"]
        );
    }
}
