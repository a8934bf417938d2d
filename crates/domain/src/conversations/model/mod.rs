//! Contacts, their one conversation each (activities), tags, notes and canned responses: the entities and value objects.

pub mod activity;
pub mod canned_response;
pub mod contact;
pub mod first_response;
pub mod note;
pub mod platform_user;
pub mod search;
pub mod tag;

pub use activity::*;
pub use canned_response::*;
pub use contact::*;
pub use first_response::{FirstResponse, ResponseMark};
pub use note::Note;
pub use platform_user::*;
pub use search::*;
pub use tag::*;
