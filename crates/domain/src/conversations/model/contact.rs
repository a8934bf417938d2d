//! Contacts: people reached over one or more channels.

use serde_json::{Map, Value};

use crate::FieldError;
use crate::model::{AgentId, BusinessUserId, ContactId, IdentityChange, PlatformUser, Timestamp, text};

/// The kind of channel a contact is reached on; it fixes the shape of the contact's
/// identifier there ([`Channel::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelType {
    /// A phone number on the messaging platform of phone-number lines (the one with templates):
    /// kept as its 7–15 digits.
    Whatsapp,
    /// An account on the messaging platform of business-account lines: the 1–256 character id the
    /// platform scopes to the business.
    Instagram,
    /// A platform's id for the contact, 1–256 characters; contacts only: no line serves this type.
    Messenger,
    /// An email address, lowercased.
    Email,
    /// A phone number for text messages, kept as its 7–15 digits; contacts only: no line serves
    /// this type.
    Sms,
    /// A site's own id for a chat visitor, 1–256 characters; contacts only: no line serves this
    /// type.
    Webchat,
}

impl ChannelType {
    /// Every channel type.
    pub const ALL: [ChannelType; 6] =
        [ChannelType::Whatsapp, ChannelType::Instagram, ChannelType::Messenger, ChannelType::Email, ChannelType::Sms, ChannelType::Webchat];

    /// Its name on the wire (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelType::Whatsapp => "whatsapp",
            ChannelType::Instagram => "instagram",
            ChannelType::Messenger => "messenger",
            ChannelType::Email => "email",
            ChannelType::Sms => "sms",
            ChannelType::Webchat => "webchat",
        }
    }

    /// The type named exactly `raw` (lowercase); a `FieldError` on `channel_type` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == raw)
            .ok_or_else(|| FieldError::new("channel_type", "must be one of whatsapp, instagram, messenger, email, sms, webchat"))
    }
}

/// A contact's address on one channel, normalized so the same person is not stored twice:
/// phone channels keep digits only, email addresses are lowercased. A WhatsApp channel also
/// carries who the user is on the platform ([`PlatformUser`]): its `channel_id` is their phone
/// while one is known, else their business-scoped user id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Channel {
    channel_type: ChannelType,
    channel_id: String,
    user: PlatformUser,
}

impl Channel {
    /// The identifier `raw_id` normalized for `channel_type`: a phone number's 7–15 digits
    /// ([`phone_digits`]) or, on WhatsApp, a business-scoped user id ([`BusinessUserId`]); an
    /// email address lowercased ([`Email::new`]); any other id trimmed to 1–256 characters
    /// without control characters. A `FieldError` on `channel_id` otherwise.
    pub fn new(channel_type: ChannelType, raw_id: &str) -> Result<Self, FieldError> {
        Self::named("channel_id", channel_type, raw_id)
    }

    /// [`new`](Self::new), with the refusal naming `field` (a send's `to`).
    pub fn named(field: &str, channel_type: ChannelType, raw_id: &str) -> Result<Self, FieldError> {
        let channel_id = match channel_type {
            ChannelType::Whatsapp if BusinessUserId::is_user_id(raw_id.trim()) => raw_id.trim().to_string(),
            ChannelType::Whatsapp => phone_digits(raw_id, field).map_err(|_| {
                FieldError::new(
                    field,
                    "must be a phone number of 7 to 15 digits, with country code, or a business-scoped user id (US.13491208655302741918)",
                )
            })?,
            ChannelType::Sms => phone_digits(raw_id, field)?,
            ChannelType::Email => Email::new(raw_id).map_err(|e| FieldError::new(field, e.issue))?.0,
            _ => text::bounded(field, raw_id, 1, 256)?,
        };
        Ok(Self::from_stored(channel_type, channel_id))
    }

    /// Rebuilds a channel that was validated before it was stored (a WhatsApp channel whose id
    /// is a user id knows that user id).
    pub fn from_stored(channel_type: ChannelType, channel_id: String) -> Self {
        let user_id = (channel_type == ChannelType::Whatsapp && BusinessUserId::is_user_id(&channel_id))
            .then(|| BusinessUserId::new("channel_id", &channel_id).ok())
            .flatten();
        Self { channel_type, channel_id, user: PlatformUser { user_id, ..PlatformUser::default() } }
    }

    /// This address with what the platform said of the user (WhatsApp only: other channels
    /// have no such ids, and keep none). A user id the address already is stays.
    pub fn with_user(mut self, user: PlatformUser) -> Self {
        if self.channel_type == ChannelType::Whatsapp {
            let own = self.user.user_id.take();
            self.user = PlatformUser { user_id: user.user_id.or(own), ..user };
        }
        self
    }

    /// The kind of channel.
    pub fn channel_type(&self) -> ChannelType {
        self.channel_type
    }

    /// The normalized identifier: digits, a user id, a lowercased address, or the platform's id.
    pub fn channel_id(&self) -> &str {
        &self.channel_id
    }

    /// Who the user is on the platform (empty but on WhatsApp).
    pub fn user(&self) -> &PlatformUser {
        &self.user
    }

    /// The phone number's digits, when this is a phone channel whose number is known (a
    /// WhatsApp user known only by their user id has none).
    pub fn phone(&self) -> Option<&str> {
        let phone_type = matches!(self.channel_type, ChannelType::Whatsapp | ChannelType::Sms);
        (phone_type && self.channel_id.bytes().all(|b| b.is_ascii_digit())).then_some(self.channel_id.as_str())
    }

    /// The address alone (type and id), as a message keeps the channel it went over.
    pub fn address(&self) -> Channel {
        Self::from_stored(self.channel_type, self.channel_id.clone())
    }

    /// Whether `other` names the same person on the same platform: the same user id when both
    /// have one, else the same address.
    pub fn is_same_user(&self, other: &Channel) -> bool {
        if self.channel_type != other.channel_type {
            return false;
        }
        match (&self.user.user_id, &other.user.user_id) {
            (Some(mine), Some(theirs)) => mine == theirs,
            _ => self.channel_id == other.channel_id,
        }
    }

    /// This stored channel brought up to date with what a newer message told of the same user
    /// (`news`): the phone it lacked (which becomes its `channel_id`), the user id it lacked,
    /// the parent id and username as the newest message names them. `None` when `news` adds
    /// nothing. A user id it has is never replaced here: a changed user id comes with the
    /// platform's own notice.
    pub fn learned(&self, news: &Channel) -> Option<Channel> {
        if self.channel_type != news.channel_type || self.channel_type != ChannelType::Whatsapp {
            return None;
        }
        let mut next = self.clone();
        if let (None, Some(phone)) = (self.phone(), news.phone()) {
            next.channel_id = phone.to_string();
        }
        if next.user.user_id.is_none() {
            next.user.user_id = news.user.user_id.clone();
        }
        if news.user.parent_user_id.is_some() {
            next.user.parent_user_id = news.user.parent_user_id.clone();
        }
        if news.user.username.is_some() {
            next.user.username = news.user.username.clone();
        }
        (next != *self).then_some(next)
    }

    /// This stored channel as the user is after `change` (the platform's notice of a new phone
    /// or user id): the new phone becomes its `channel_id`; a new user id replaces the old one
    /// (and the `channel_id` too while no phone is known); the username stays. `None` when the
    /// change adds nothing, or this is no WhatsApp channel.
    pub fn changed(&self, change: &IdentityChange) -> Option<Channel> {
        if self.channel_type != ChannelType::Whatsapp {
            return None;
        }
        let mut next = self.clone();
        if let Some(phone) = &change.phone {
            next.channel_id = phone.clone();
        }
        if let Some(user_id) = &change.user_id {
            if next.phone().is_none() {
                next.channel_id = user_id.as_str().to_string();
            }
            next.user.user_id = Some(user_id.clone());
        }
        if change.parent_user_id.is_some() {
            next.user.parent_user_id = change.parent_user_id.clone();
        }
        (next != *self).then_some(next)
    }

    /// What names the contact here: the `channel_id`, then the user id when it is not that.
    pub fn identifiers(&self) -> impl Iterator<Item = &str> {
        let user_id = self.user.user_id.as_ref().map(BusinessUserId::as_str).filter(|id| *id != self.channel_id);
        std::iter::once(self.channel_id.as_str()).chain(user_id)
    }

    /// The digits of the identifier, which activity search matches phone numbers against
    /// (none for a user id: its digits are no phone number's).
    pub fn digits(&self) -> String {
        if self.channel_type == ChannelType::Whatsapp && self.phone().is_none() {
            return String::new();
        }
        text::digits_of(&self.channel_id)
    }
}

/// A change of one of a contact's channels that a message taught (a phone or user id it lacked,
/// a newer username, the platform's notice of a new number), written with the message
/// ([`MessageRepository::insert_learning`](crate::ports::MessageRepository::insert_learning)).
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelUpdate {
    /// The contact as it is with the change (its `updated_at` moved).
    pub contact: Contact,
    /// The channel as it was read: the change is a compare-and-set on it.
    pub before: Channel,
    /// The channel as it becomes.
    pub after: Channel,
    /// What announces the change (`contact.updated`), emitted only when it is made.
    pub events: Vec<crate::model::Event>,
}

/// 7–15 digits once `+`, spaces and dashes are removed.
pub fn phone_digits(raw: &str, field: &str) -> Result<String, FieldError> {
    let cleaned: String = raw.trim().chars().filter(|c| !matches!(c, '+' | ' ' | '-')).collect();
    if (7..=15).contains(&cleaned.len()) && cleaned.bytes().all(|b| b.is_ascii_digit()) {
        Ok(cleaned)
    } else {
        Err(FieldError::new(field, "must be a phone number of 7 to 15 digits, with country code"))
    }
}

/// A display name: trimmed, 1–256 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileName(String);

impl ProfileName {
    /// `raw` trimmed; a `FieldError` on `profile_name` when empty, longer than 256 characters or
    /// holding a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("profile_name", raw, 1, 256).map(Self)
    }

    /// The name as searches match it ([`text::search_key`]).
    pub fn search_key(&self) -> String {
        text::search_key(&self.0)
    }

    /// The name, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An email address, lowercased; a pragmatic shape check (one `@`, a dotted domain, no spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// `raw` trimmed and lowercased; a `FieldError` on `email` unless it has one `@`, a local part
    /// of 1–64 bytes, a dotted domain of non-empty labels of at most 63 bytes, no whitespace or
    /// control character, and at most 254 bytes in all.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let s = raw.trim().to_lowercase();
        let invalid = || FieldError::new("email", "must be an email address");
        if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(invalid());
        }
        let (local, domain) = s.split_once('@').ok_or_else(invalid)?;
        let domain_ok =
            !domain.contains('@') && domain.contains('.') && domain.split('.').all(|label| !label.is_empty() && label.len() <= 63);
        if local.is_empty() || local.len() > 64 || !domain_ok {
            return Err(invalid());
        }
        Ok(Self(s))
    }

    /// The address, lowercased.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Free text, at most 5,000 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notes(String);

impl Notes {
    /// `raw` trimmed, possibly empty; a `FieldError` on `notes` when longer than 5,000 characters
    /// or holding a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("notes", raw, 0, 5000).map(Self)
    }

    /// The notes, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Free-form metadata: a JSON object of at most 50 keys and 16 KiB.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CustomAttributes(Map<String, Value>);

impl CustomAttributes {
    /// Most keys at the top level.
    pub const MAX_KEYS: usize = 50;
    /// Most bytes of the object written as compact JSON.
    pub const MAX_BYTES: usize = 16 * 1024;

    /// The attributes, checked for size only: at most [`MAX_KEYS`](Self::MAX_KEYS) keys of 1–128
    /// characters (not blank) and [`MAX_BYTES`](Self::MAX_BYTES) of JSON; a `FieldError` on
    /// `custom_attributes` otherwise. For stored attributes; see [`received`](Self::received).
    pub fn new(map: Map<String, Value>) -> Result<Self, FieldError> {
        let field = "custom_attributes";
        if map.len() > Self::MAX_KEYS {
            return Err(FieldError::new(field, format!("must have at most {} keys", Self::MAX_KEYS)));
        }
        Self::check_keys(&map)?;
        if Value::Object(map.clone()).to_string().len() > Self::MAX_BYTES {
            return Err(FieldError::new(field, "must be at most 16 KiB of JSON"));
        }
        Ok(Self(map))
    }

    /// Attributes as a caller sends them: [`new`](Self::new)'s bounds, and no control
    /// character in a key, nor in a string value (at any depth) but newline and tab. Stored
    /// attributes are read with `new`, so what older versions accepted stays readable.
    pub fn received(map: Map<String, Value>) -> Result<Self, FieldError> {
        Self::check_text(&map)?;
        Self::new(map)
    }

    fn check_keys(map: &Map<String, Value>) -> Result<(), FieldError> {
        if map.keys().any(|k| k.trim().is_empty() || k.chars().count() > 128) {
            return Err(FieldError::new("custom_attributes", "keys must be 1 to 128 characters"));
        }
        Ok(())
    }

    fn check_text(map: &Map<String, Value>) -> Result<(), FieldError> {
        fn value_ok(v: &Value) -> bool {
            match v {
                Value::String(s) => text::free_text(s),
                Value::Array(items) => items.iter().all(value_ok),
                Value::Object(m) => m.iter().all(|(k, v)| !crate::model::has_control_characters(k) && value_ok(v)),
                _ => true,
            }
        }
        if map.iter().all(|(k, v)| !crate::model::has_control_characters(k) && value_ok(v)) {
            Ok(())
        } else {
            Err(FieldError::new("custom_attributes", "keys must not contain control characters, nor values any but newline and tab"))
        }
    }

    /// Applies a merge patch: keys set to null are removed, others replaced, the rest kept.
    /// The patch is checked like [`received`](Self::received) attributes, its removals too (a
    /// key no attribute can have is refused, not ignored).
    pub fn merged(&self, patch: Map<String, Value>) -> Result<Self, FieldError> {
        Self::check_text(&patch)?;
        Self::check_keys(&patch)?;
        let mut merged = self.0.clone();
        for (k, v) in patch {
            if v.is_null() {
                merged.remove(&k);
            } else {
                merged.insert(k, v);
            }
        }
        Self::new(merged)
    }

    /// The attributes as a JSON object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }
}

/// A person the agent talks to, on one or more channels.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Contact {
    /// Its id (`con_…`).
    pub id: ContactId,
    /// The agent whose contact it is.
    pub agent_id: AgentId,
    /// The name shown for the contact: the one the platform reported or the team set, else
    /// (someone new who gave none) their first channel's identifier.
    pub profile_name: ProfileName,
    /// An email address the team keeps for the contact; not a channel (`None` when unknown).
    pub email: Option<Email>,
    /// The team's notes about the contact; `None` when there are none.
    pub notes: Option<Notes>,
    /// At least one; the first is the channel the contact was created with.
    pub channels: Vec<Channel>,
    /// The team's own metadata about the contact.
    pub custom_attributes: CustomAttributes,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its name, email, notes or custom attributes last changed.
    pub updated_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Username;
    use serde_json::json;

    #[test]
    fn phone_channels_keep_digits_only() {
        let c = Channel::new(ChannelType::Whatsapp, "+1 555-010-0200").unwrap();
        assert_eq!(c.channel_id(), "15550100200");
        assert!(Channel::new(ChannelType::Sms, "123456").is_err());
        assert!(Channel::new(ChannelType::Sms, "1234567890123456").is_err());
        assert!(Channel::new(ChannelType::Whatsapp, "12a4567").is_err());
        assert!(Channel::new(ChannelType::Whatsapp, "(555) 0100200").is_err());
    }

    fn whatsapp(address: &str, user_id: Option<&str>, username: Option<&str>) -> Channel {
        Channel::new(ChannelType::Whatsapp, address).unwrap().with_user(PlatformUser::from_platform(user_id, None, username).unwrap())
    }

    #[test]
    fn a_notice_moves_the_channel_to_the_new_phone_or_user_id_and_keeps_the_username() {
        let change = |phone: Option<&str>, user_id: Option<&str>| IdentityChange::from_platform(phone, user_id, None).unwrap();
        let ana = whatsapp("5215550001", Some("MX.1"), Some("ana"));
        let moved = ana.changed(&change(Some("+52 1 555 000 9"), Some("MX.9"))).unwrap();
        assert_eq!((moved.channel_id(), moved.user().user_id.as_ref().map(|u| u.as_str())), ("5215550009", Some("MX.9")));
        assert_eq!(moved.user().username, ana.user().username, "the username is the user's, whatever their number");
        let new_id = ana.changed(&change(None, Some("MX.2"))).unwrap();
        assert_eq!((new_id.channel_id(), new_id.phone()), ("5215550001", Some("5215550001")), "the phone stays the address");
        let bo = whatsapp("MX.3", None, None);
        let bo_new = bo.changed(&change(None, Some("MX.33"))).unwrap();
        assert_eq!(bo_new.channel_id(), "MX.33", "known only by the user id: the address follows it");
        let bo_phone = bo.changed(&change(Some("5215550003"), None)).unwrap();
        assert_eq!((bo_phone.channel_id(), bo_phone.user().user_id.as_ref().map(|u| u.as_str())), ("5215550003", Some("MX.3")));
        assert_eq!(ana.changed(&change(Some("5215550001"), Some("MX.1"))), None, "nothing new");
        assert_eq!(Channel::new(ChannelType::Sms, "5215550001").unwrap().changed(&change(Some("5215550009"), None)), None);
        assert_eq!(IdentityChange::from_platform(Some("12"), None, None).unwrap_err().field, "wa_id");
    }

    #[test]
    fn whatsapp_channels_take_a_phone_or_a_user_id() {
        let by_id = Channel::new(ChannelType::Whatsapp, " MX.15 ").unwrap();
        assert_eq!((by_id.channel_id(), by_id.phone()), ("MX.15", None));
        assert_eq!(by_id.user().user_id.as_ref().map(BusinessUserId::as_str), Some("MX.15"));
        assert_eq!(by_id.digits(), "", "a user id's digits are no phone number's");
        assert_eq!(by_id.identifiers().collect::<Vec<_>>(), ["MX.15"]);
        let both = whatsapp("5215550001", Some("MX.15"), None);
        assert_eq!(both.identifiers().collect::<Vec<_>>(), ["5215550001", "MX.15"]);
        for bad in ["US.", "USA.1", "us.1", "US.ENT.1"] {
            let e = Channel::named("to", ChannelType::Whatsapp, bad).unwrap_err();
            assert_eq!(e.field, "to", "{bad}");
        }
        assert!(Channel::new(ChannelType::Sms, "US.1").is_err(), "user ids are WhatsApp's");
        assert!(Channel::new(ChannelType::Email, "a@b.co").unwrap().with_user(both.user().clone()).user().is_empty());
    }

    #[test]
    fn a_channel_learns_the_phone_the_user_id_and_the_newest_username_but_never_replaces_a_user_id() {
        let by_id = whatsapp("MX.1", None, Some("ana"));
        let learned = by_id.learned(&whatsapp("5215550001", Some("MX.1"), None)).unwrap();
        assert_eq!((learned.channel_id(), learned.user().username.as_ref().map(Username::as_str)), ("5215550001", Some("ana")));
        assert_eq!(learned.learned(&whatsapp("MX.1", None, None)), None, "nothing new: no write");
        let renamed = learned.learned(&whatsapp("MX.1", None, Some("ana.shop"))).unwrap();
        assert_eq!(renamed.user().username.as_ref().map(Username::as_str), Some("ana.shop"));
        let by_phone = whatsapp("5215550001", None, None);
        assert_eq!(by_phone.learned(&whatsapp("5215550001", Some("MX.1"), None)).unwrap().user().user_id, learned.user().user_id);
        let other_id = whatsapp("5215550001", Some("MX.2"), None);
        assert_eq!(learned.learned(&other_id), None, "a user id changes only with the platform's notice");
        assert!(!learned.is_same_user(&other_id) && learned.is_same_user(&whatsapp("MX.1", None, None)));
    }

    #[test]
    fn email_channels_are_lowercased_and_checked() {
        assert_eq!(Channel::new(ChannelType::Email, " Ana@Example.COM ").unwrap().channel_id(), "ana@example.com");
        for bad in ["ana", "ana@", "@x.com", "ana@x", "a b@x.com", "a@@x.com", "a@x..com"] {
            assert!(Channel::new(ChannelType::Email, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn channel_types_are_a_closed_set() {
        assert_eq!(ChannelType::parse("instagram").unwrap(), ChannelType::Instagram);
        assert!(ChannelType::parse("WhatsApp").is_err());
        assert!(ChannelType::parse("fax").is_err());
    }

    #[test]
    fn custom_attributes_are_bounded_and_merge_with_null_removal() {
        let base = CustomAttributes::new(json!({"a": 1, "b": 2}).as_object().unwrap().clone()).unwrap();
        let merged = base.merged(json!({"a": null, "c": 3}).as_object().unwrap().clone()).unwrap();
        assert_eq!(Value::Object(merged.as_map().clone()), json!({"b": 2, "c": 3}));

        let too_many: Map<String, Value> = (0..51).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(CustomAttributes::new(too_many).is_err());
        let too_big: Map<String, Value> = [("k".to_string(), json!("x".repeat(17 * 1024)))].into_iter().collect();
        assert!(CustomAttributes::new(too_big).is_err());
    }

    #[test]
    fn a_patch_that_removes_a_key_no_attribute_can_have_is_refused() {
        let base = CustomAttributes::new(json!({"a": 1}).as_object().unwrap().clone()).unwrap();
        for bad in [json!({"": null}), json!({" ": null}), json!({"": 1}), json!({"k".repeat(129): null})] {
            assert!(base.merged(bad.as_object().unwrap().clone()).is_err(), "{bad}");
        }
    }
}

/// Filters of the contact list; all given filters must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactFilter {
    /// A piece of the name or email address (any case), or 3+ digits of a phone number.
    pub search: Option<super::ActivitySearch>,
    /// Contacts with a channel of this type.
    pub channel_type: Option<ChannelType>,
}

impl ContactFilter {
    /// Whether the filter keeps `contact`: what storage's list is held to.
    pub fn matches(&self, contact: &Contact) -> bool {
        self.search.as_ref().is_none_or(|s| s.matches_contact(contact))
            && self.channel_type.is_none_or(|t| contact.channels.iter().any(|c| c.channel_type() == t))
    }

    /// Whether no filter is given: the list keeps every contact.
    pub fn is_empty(&self) -> bool {
        self.search.is_none() && self.channel_type.is_none()
    }
}
