//! Wire shapes: what the API reads and writes. Conversions from domain types live here so
//! handlers stay one-liners.

use parley_domain::model::*;
use serde::Serialize;
use utoipa::ToSchema;

/// RFC 3339, UTC, milliseconds, `Z`: `2026-11-21T10:00:00.000Z`.
pub fn timestamp(t: Timestamp) -> String {
    parley_domain::model::format_timestamp(t)
}

/// `{"data": …}`: every successful response.
#[derive(Debug, Serialize, ToSchema)]
pub struct DataBody<T> {
    pub data: T,
}

/// `{"data": […], "pagination": {…}}`: paginated lists.
#[derive(Debug, Serialize, ToSchema)]
pub struct PageBody<T> {
    pub data: Vec<T>,
    pub pagination: Pagination,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Pagination {
    /// Rows matching the query, across all pages.
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
    /// `offset + len(data) < total`.
    pub has_more: bool,
}

impl Pagination {
    pub fn of<D>(page: &Page<D>) -> Self {
        Self { total: page.total, limit: page.request.limit(), offset: page.request.offset(), has_more: page.has_more() }
    }
}

/// Answer of a delete.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub id: String,
    pub deleted: bool,
}

mod activities;
mod canned_responses;
mod carts;
mod catalog;
mod contacts;
mod event_objects;
mod event_webhooks;
mod members;
mod messages;
mod reply_schema;
mod reports;
mod rules;
mod schemas;
mod settings;
mod tags;
mod template_sends;
mod templates;

pub use activities::*;
pub use canned_responses::*;
pub use carts::*;
pub use catalog::*;
pub use contacts::*;
pub use event_objects::{event_body, event_object};

/// The representations the background work needs, handed to the wiring.
pub const REPRESENTATIONS: crate::runtime::state::Representations =
    crate::runtime::state::Representations { event_body, template_components: template_sends::components_from_json };
pub use event_webhooks::*;
pub use members::*;
pub use messages::*;
pub use reply_schema::ReplyBody;
pub use reports::*;
pub use rules::*;
pub use schemas::*;
pub use settings::*;
pub use tags::*;
pub use template_sends::*;
pub use templates::*;
