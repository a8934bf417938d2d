//! The use cases of this feature.

pub(crate) mod activities;
pub(crate) mod canned_responses;
pub(crate) mod contacts;
pub(crate) mod conversations;
pub(crate) mod tags;

pub use activities::*;
pub use canned_responses::*;
pub use contacts::*;
pub use tags::*;
