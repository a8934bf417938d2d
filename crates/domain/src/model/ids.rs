//! Opaque, prefixed identifiers. The prefix names the kind so a misplaced id is obvious;
//! the random part comes from the [`IdSource`](crate::ports::IdSource) port.

use std::fmt;

/// The kinds of things Parley mints ids for, with their wire prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// A tenant: `agt_…`.
    Agent,
    /// An API key's record (not the key's secret): `key_…`.
    ApiKey,
    /// A tag: `tag_…`.
    Tag,
    /// A contact: `con_…`.
    Contact,
    /// An activity (a conversation): `act_…`.
    Activity,
    /// An API request, to trace it in logs: `req_…`.
    Request,
    /// A line: `chn_…`.
    Line,
    /// A template send's delivery record: `exe_…`.
    Execution,
    /// A platform's webhook delivery, as stored to be processed: `whk_…`.
    Webhook,
    /// A timeline message or note: `msg_…`.
    Message,
    /// An event: `evt_…`.
    Event,
    /// A webhook endpoint: `we_…`.
    WebhookEndpoint,
    /// A canned response: `cnr_…`.
    CannedResponse,
    /// A team member of an agent: `usr_…`.
    Member,
    /// A member's signed-in session: `ses_…`.
    Session,
    /// An automation rule: `rul_…`.
    Rule,
}

impl IdKind {
    /// What ids of this kind start with, before the `_` and the random part.
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Agent => "agt",
            IdKind::ApiKey => "key",
            IdKind::Tag => "tag",
            IdKind::Contact => "con",
            IdKind::Activity => "act",
            IdKind::Request => "req",
            IdKind::Line => "chn",
            IdKind::Execution => "exe",
            IdKind::Webhook => "whk",
            IdKind::Message => "msg",
            IdKind::Event => "evt",
            IdKind::WebhookEndpoint => "we",
            IdKind::CannedResponse => "cnr",
            IdKind::Member => "usr",
            IdKind::Session => "ses",
            IdKind::Rule => "rul",
        }
    }
}

/// Whether `raw` holds a control character: C0 (NUL included), DEL or C1. No id, key, code or
/// query value may hold one; free text may hold only newline and tab (`text::bounded`).
pub fn has_control_characters(raw: &str) -> bool {
    raw.chars().any(char::is_control)
}

/// An id as received from outside (a path, a query parameter, a body field), checked before
/// anything looks it up. Every id Parley mints or stores has visible characters only, so one
/// that holds a control character can match nothing: it is refused without asking storage
/// (PostgreSQL refuses a NUL byte with an error, where SQLite found nothing). Any other unknown
/// id, empty included, is left to match nothing, as before.
pub trait ReceivedId: Sized {
    /// What an unknown one is called in a not-found answer (`tag not found`).
    const RESOURCE: &'static str;

    /// The id as stored or minted (no check).
    fn wrap(raw: String) -> Self;

    /// The id, or `None` when `raw` cannot be the id of anything.
    fn received(raw: String) -> Option<Self> {
        (!has_control_characters(&raw)).then(|| Self::wrap(raw))
    }

    /// The id, or a field error naming `field` (an id in a body or a query string).
    fn field(field: &str, raw: String) -> Result<Self, crate::FieldError> {
        Self::received(raw).ok_or_else(|| crate::FieldError::new(field, "must not contain control characters"))
    }
}

/// Ids the API receives from callers: their resource's name for not-found answers.
macro_rules! received_id {
    ($($name:ty => $resource:literal),* $(,)?) => {
        $(impl ReceivedId for $name {
            const RESOURCE: &'static str = $resource;
            fn wrap(raw: String) -> Self {
                Self::new(raw)
            }
        })*
    };
}

received_id!(TagId => "tag", ContactId => "contact", ActivityId => "activity",
    crate::model::TemplateId => "template", crate::model::LineId => "channel", MessageId => "message", EventId => "event",
    EndpointId => "webhook endpoint", CannedResponseId => "canned response", MemberId => "member",
    RuleId => "rule");

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wraps an id as stored or as received. Ids are opaque: an id of the wrong shape
            /// simply matches nothing, which callers report as not found.
            pub fn new(raw: impl Into<String>) -> Self {
                Self(raw.into())
            }

            /// The id as text, exactly as minted or received.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id as an owned string, exactly as minted or received.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(/// Identifies a tenant (`agt_…`): every other record belongs to one.
    AgentId);
id_type!(/// Identifies an API key's record (`key_…`), not the key itself: shown in key lists and
    /// used to revoke it.
    ApiKeyId);
id_type!(/// Identifies a tag (`tag_…`).
    TagId);
id_type!(/// Identifies a canned response (`cnr_…`).
    CannedResponseId);
id_type!(/// Identifies an automation rule (`rul_…`).
    RuleId);
id_type!(/// Identifies a team member of an agent (`usr_…`).
    MemberId);
id_type!(/// Identifies a member's signed-in session (`ses_…`): never the cookie's secret.
    SessionId);
id_type!(/// Identifies a contact (`con_…`), who may be reached on several channels.
    ContactId);
id_type!(/// Identifies an activity (`act_…`): a contact's one conversation.
    ActivityId);
id_type!(/// Identifies a message of an activity's timeline (`msg_…`).
    MessageId);
id_type!(/// Identifies an event (`evt_…`), also each delivery's `webhook-id`.
    EventId);
id_type!(/// Identifies a webhook endpoint (`we_…`).
    EndpointId);
