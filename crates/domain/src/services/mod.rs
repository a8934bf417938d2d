//! Use-case services. Each takes raw input, validates it through the value objects, applies
//! the business rules and talks to the ports. Handlers call exactly one service method.

mod activities;
mod canned_responses;
mod carts;
mod catalog;
mod contacts;
mod conversations;
mod event_delivery;
mod event_maker;
mod inbound;
mod key_cache;
mod keys;
mod lines;
mod mailboxes;
mod messages;
mod search;
mod sends;
mod tags;
mod template_notices;
mod timeline;
mod webhook_endpoints;

pub use activities::*;
pub use canned_responses::*;
pub use carts::*;
pub use catalog::*;
pub use contacts::*;
pub use event_delivery::*;
pub use event_maker::EventMaker;
pub use inbound::*;
pub use key_cache::KEY_CACHE_TTL;
pub use keys::*;
pub use lines::*;
pub use mailboxes::*;
pub use messages::*;
pub use search::*;
pub use sends::*;
pub use tags::*;
pub use webhook_endpoints::*;

use crate::FieldError;

/// One field of a partial update: left alone, cleared (JSON `null`), or set.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Patch<T> {
    /// The field was absent: the stored value stays as it is (the default).
    #[default]
    Keep,
    /// The field was `null`: the stored value is removed, for fields that may be empty.
    Clear,
    /// The field held a value: it replaces the stored one, once validated.
    Set(T),
}

impl<T> Patch<T> {
    /// `None` = keep, `Some(None)` = clear, `Some(Some(v))` = set: the usual double-option shape.
    pub fn from_double_option(v: Option<Option<T>>) -> Self {
        match v {
            None => Patch::Keep,
            Some(None) => Patch::Clear,
            Some(Some(v)) => Patch::Set(v),
        }
    }

    /// Validates a value being set; keep and clear pass through.
    pub fn try_map<U>(self, f: impl FnOnce(T) -> Result<U, FieldError>) -> Result<Patch<U>, FieldError> {
        Ok(match self {
            Patch::Keep => Patch::Keep,
            Patch::Clear => Patch::Clear,
            Patch::Set(v) => Patch::Set(f(v)?),
        })
    }

    /// Applies the change to an optional field.
    pub fn apply_to(self, slot: &mut Option<T>) {
        match self {
            Patch::Keep => {}
            Patch::Clear => *slot = None,
            Patch::Set(v) => *slot = Some(v),
        }
    }
}

impl<T> Patch<Option<T>> {
    /// Setting "nothing" (say, a blank description) is clearing.
    pub fn flatten(self) -> Patch<T> {
        match self {
            Patch::Keep => Patch::Keep,
            Patch::Clear | Patch::Set(None) => Patch::Clear,
            Patch::Set(Some(v)) => Patch::Set(v),
        }
    }
}

/// A required input field, reported as missing when absent.
fn required<T>(field: &str, value: Option<T>) -> Result<T, FieldError> {
    value.ok_or_else(|| FieldError::new(field, "is required"))
}

/// For fields that may be changed but never cleared.
fn not_null<T>(field: &str, patch: Patch<T>) -> Result<Option<T>, FieldError> {
    match patch {
        Patch::Keep => Ok(None),
        Patch::Clear => Err(FieldError::new(field, "must not be null")),
        Patch::Set(v) => Ok(Some(v)),
    }
}
