//! Inbound mail: raw RFC 5322 bytes read into [`InboundEmail`], or a typed refusal.
//!
//! Parsing is mail-parser's (it never panics and decodes charsets lossily); this module puts the
//! bounds of [`crate::limits`] around it and keeps only what Parley stores.

use chrono::{DateTime, Utc};
use mail_parser::{Address, HeaderValue, Message, MessageParser, MimeHeaders, PartType};
use sha2::{Digest, Sha256};

use crate::limits::{MAX_HEADER_BYTES, MAX_MESSAGE_BYTES, MAX_MIME_DEPTH, MAX_MIME_PARTS, MAX_NESTED_MESSAGES};
use crate::mailbox::Mailbox;
use crate::text::{clean, html_to_text};

/// The domain of Message-IDs derived for mail that has none (`.invalid` can never be real).
pub const DERIVED_ID_DOMAIN: &str = "no-message-id.invalid";

/// One inbound email, as Parley stores it. Every string is free of NUL characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundEmail {
    /// The `Message-ID` without angle brackets: the key that stores each message once. Mail
    /// without one gets a stable id derived from its bytes (see [`derived_message_id`]).
    pub message_id: String,
    /// Whether `message_id` was derived because the mail had none.
    pub message_id_derived: bool,
    /// The sender: the contact. Address lowercased.
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    pub subject: Option<String>,
    /// `In-Reply-To`'s first id, without angle brackets.
    pub in_reply_to: Option<String>,
    /// `References`, oldest first, without angle brackets.
    pub references: Vec<String>,
    /// The `Date` header, when present and valid.
    pub date: Option<DateTime<Utc>>,
    /// The text/plain body or, when there is none, the HTML body turned into text.
    pub text: Option<String>,
    pub attachments: Vec<Attachment>,
}

/// A file attached to (or inlined in) an inbound email, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub filename: Option<String>,
    /// `type/subtype`, lowercased; `application/octet-stream` when the part did not say.
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

impl Attachment {
    /// The decoded size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// Why raw bytes were not accepted as an email. Every one is final for those bytes: the caller
/// records the refusal and moves on (an IMAP cursor still advances past it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailRefusal {
    #[error("the message is {size} bytes, over the {max}-byte limit")]
    TooLarge { size: usize, max: usize },
    #[error("a header block is over the {max}-byte limit")]
    HeadersTooLarge { max: usize },
    #[error("MIME parts nest deeper than {max} levels")]
    TooDeep { max: usize },
    #[error("the message has more than {max} MIME parts")]
    TooManyParts { max: usize },
    #[error("the bytes are not an email (no header found)")]
    NotMail,
    #[error("the message has no From address")]
    NoSender,
}

/// Reads one raw email. Bounded by [`crate::limits`]; never panics.
///
/// Mail without a `Message-ID` is accepted with an id derived from its bytes rather than
/// refused: the same bytes fetched again (IMAP after a UIDVALIDITY change) get the same id, so
/// they are still stored once, and real mail from a sloppy sender is not lost.
pub fn parse(raw: &[u8]) -> Result<InboundEmail, MailRefusal> {
    check_before_parsing(raw)?;
    let message = MessageParser::default().parse(raw).ok_or(MailRefusal::NotMail)?;
    check_structure(&message)?;

    let from = message.from().and_then(|from| mailboxes(from).into_iter().next()).ok_or(MailRefusal::NoSender)?;
    let (message_id, message_id_derived) = match message.message_id().map(str::trim) {
        Some(id) if !id.is_empty() => (clean(id), false),
        _ => (derived_message_id(raw), true),
    };
    Ok(InboundEmail {
        message_id,
        message_id_derived,
        from,
        to: message.to().map(mailboxes).unwrap_or_default(),
        cc: message.cc().map(mailboxes).unwrap_or_default(),
        subject: message.subject().map(|s| clean(s.trim())),
        in_reply_to: ids(message.in_reply_to()).into_iter().next(),
        references: ids(message.references()),
        date: message.date().filter(|date| date.is_valid()).and_then(|date| DateTime::from_timestamp(date.to_timestamp(), 0)),
        text: body_text(&message),
        attachments: attachments(&message),
    })
}

/// The id given to mail without a `Message-ID`: a SHA-256 of its raw bytes (128 bits shown),
/// at [`DERIVED_ID_DOMAIN`].
pub fn derived_message_id(raw: &[u8]) -> String {
    let digest = Sha256::digest(raw);
    format!("{}@{DERIVED_ID_DOMAIN}", hex::encode(&digest[..16]))
}

/// Cheap checks on the raw bytes, before mail-parser builds anything.
fn check_before_parsing(raw: &[u8]) -> Result<(), MailRefusal> {
    if raw.len() > MAX_MESSAGE_BYTES {
        return Err(MailRefusal::TooLarge { size: raw.len(), max: MAX_MESSAGE_BYTES });
    }
    if raw.len() > MAX_HEADER_BYTES && header_end(&raw[..=MAX_HEADER_BYTES]).is_none() {
        return Err(MailRefusal::HeadersTooLarge { max: MAX_HEADER_BYTES });
    }
    if nested_message_mentions(raw) > MAX_NESTED_MESSAGES {
        return Err(MailRefusal::TooDeep { max: MAX_MIME_DEPTH });
    }
    Ok(())
}

/// Where the header block ends (the blank line), if it does within `bytes`.
fn header_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(2)
        .enumerate()
        .find_map(|(i, pair)| (pair == b"\n\n" || (pair == b"\n\r" && bytes.get(i + 2) == Some(&b'\n'))).then_some(i))
}

/// How often the bytes name a content type that nests a whole message (its first 14 bytes:
/// `multipart/dige…` is enough to tell).
fn nested_message_mentions(raw: &[u8]) -> usize {
    const NEEDLES: [&[u8]; 3] = [b"message/rfc822", b"message/global", b"multipart/digest"];
    raw.windows(14)
        .filter(|w| w[0].eq_ignore_ascii_case(&b'm'))
        .filter(|w| NEEDLES.iter().any(|needle| w.eq_ignore_ascii_case(&needle[..14])))
        .count()
}

/// Depth, part count and per-part header size of the parsed tree, walked without recursion.
fn check_structure(message: &Message<'_>) -> Result<(), MailRefusal> {
    let mut parts = 0usize;
    // (message, part index in it, depth)
    let mut stack: Vec<(&Message<'_>, u32, usize)> = vec![(message, 0, 1)];
    while let Some((msg, id, depth)) = stack.pop() {
        if depth > MAX_MIME_DEPTH {
            return Err(MailRefusal::TooDeep { max: MAX_MIME_DEPTH });
        }
        let Some(part) = msg.part(id) else { continue };
        parts += 1;
        if parts > MAX_MIME_PARTS {
            return Err(MailRefusal::TooManyParts { max: MAX_MIME_PARTS });
        }
        let header_len = part.offset_body.saturating_sub(part.offset_header) as usize;
        if header_len > MAX_HEADER_BYTES {
            return Err(MailRefusal::HeadersTooLarge { max: MAX_HEADER_BYTES });
        }
        match &part.body {
            PartType::Multipart(children) => {
                stack.extend(children.iter().map(|child| (msg, *child, depth + 1)));
            }
            PartType::Message(nested) => stack.push((nested, 0, depth + 1)),
            _ => {}
        }
    }
    Ok(())
}

/// The mailboxes of an address header (groups flattened), skipping entries without an address.
fn mailboxes(address: &Address<'_>) -> Vec<Mailbox> {
    address
        .iter()
        .filter_map(|addr| {
            let address = addr.address()?.trim();
            if address.is_empty() || !address.contains('@') {
                return None;
            }
            Some(Mailbox {
                name: addr.name().map(str::trim).filter(|name| !name.is_empty()).map(clean),
                address: clean(&address.to_lowercase()),
            })
        })
        .collect()
}

/// Message ids of an id-list header, without angle brackets.
fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    let raw: Vec<&str> = match value {
        HeaderValue::Text(id) => vec![id.as_ref()],
        HeaderValue::TextList(list) => list.iter().map(AsRef::as_ref).collect(),
        _ => Vec::new(),
    };
    raw.into_iter().map(|id| id.trim().trim_start_matches('<').trim_end_matches('>')).filter(|id| !id.is_empty()).map(clean).collect()
}

/// The text/plain body parts joined, or the HTML ones turned into text.
fn body_text(message: &Message<'_>) -> Option<String> {
    // mail-parser lists an HTML part among text bodies when there is no plain one (converted by
    // its own converter); only true text/plain parts count here.
    let plain: Vec<&str> = message
        .text_body
        .iter()
        .filter_map(|id| match &message.part(*id)?.body {
            PartType::Text(text) => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    if !plain.is_empty() {
        return Some(clean(plain.join("\n").trim_end()));
    }
    let html: Vec<String> = message
        .html_body
        .iter()
        .filter_map(|id| match &message.part(*id)?.body {
            PartType::Html(html) => Some(html_to_text(html)),
            _ => None,
        })
        .collect();
    (!html.is_empty()).then(|| html.join("\n"))
}

fn attachments(message: &Message<'_>) -> Vec<Attachment> {
    message
        .attachments
        .iter()
        .filter_map(|id| message.part(*id))
        .map(|part| Attachment {
            filename: part.attachment_name().map(str::trim).filter(|name| !name.is_empty()).map(clean),
            mime_type: part
                .content_type()
                .map(|ct| match ct.subtype() {
                    Some(subtype) => format!("{}/{}", ct.ctype(), subtype),
                    None => ct.ctype().to_owned(),
                })
                .map(|mime| clean(&mime.to_ascii_lowercase()))
                .unwrap_or_else(|| match part.body {
                    PartType::Message(_) => "message/rfc822".to_owned(),
                    _ => "application/octet-stream".to_owned(),
                }),
            bytes: part.contents().to_vec(),
        })
        .collect()
}
