//! Opaque, prefixed identifiers. The prefix names the kind so a misplaced id is obvious;
//! the random part comes from the [`IdSource`](crate::ports::IdSource) port.

use std::fmt;

/// The kinds of things Parley mints ids for, with their wire prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    Agent,
    ApiKey,
    Tag,
    Contact,
    Activity,
    Request,
    Line,
    Execution,
    Webhook,
}

impl IdKind {
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
        }
    }
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// Wraps an id as stored or as received. Ids are opaque: an id of the wrong shape
            /// simply matches nothing, which callers report as not found.
            pub fn new(raw: impl Into<String>) -> Self {
                Self(raw.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

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

id_type!(/// Identifies a tenant.
    AgentId);
id_type!(/// Identifies an API key (not the key itself).
    ApiKeyId);
id_type!(/// Identifies a tag.
    TagId);
id_type!(/// Identifies a contact.
    ContactId);
id_type!(/// Identifies an activity (a conversation).
    ActivityId);
