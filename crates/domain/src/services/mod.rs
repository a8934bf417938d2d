//! Use-case services. Each takes raw input, validates it through the value objects, applies
//! the business rules and talks to the ports. Handlers call exactly one service method.

mod idempotency;

pub use idempotency::*;

pub use crate::access::services::*;
pub use crate::automation::services::*;
pub use crate::catalog::services::*;
pub use crate::conversations::services::*;
pub use crate::events::services::*;
pub use crate::lines::services::*;
pub use crate::messaging::services::*;
pub use crate::reports::services::*;

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
pub(crate) fn required<T>(field: &str, value: Option<T>) -> Result<T, FieldError> {
    value.ok_or_else(|| FieldError::new(field, "is required"))
}

/// For fields that may be changed but never cleared.
pub(crate) fn not_null<T>(field: &str, patch: Patch<T>) -> Result<Option<T>, FieldError> {
    match patch {
        Patch::Keep => Ok(None),
        Patch::Clear => Err(FieldError::new(field, "must not be null")),
        Patch::Set(v) => Ok(Some(v)),
    }
}
