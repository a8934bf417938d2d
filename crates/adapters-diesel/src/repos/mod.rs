//! One module per repository port, each implemented on [`Store`](crate::Store).

use std::collections::HashMap;

use parley_domain::model::{Channel, ChannelType};

use crate::error::DbError;

/// Loads `(contact_id, channel_type, channel_id)` rows of the given contacts, in channel order,
/// running the query as `$mode` says (see [`run!`](crate::pool::run)). A macro rather than a
/// function so one body serves both backends' connection types.
macro_rules! load_channels {
    ($mode:ident, $conn:expr, $contact_ids:expr) => {{
        let rows: Vec<(String, String, String)> = crate::pool::run!(
            $mode,
            load,
            $conn,
            crate::schema::contact_channels::table
                .filter(crate::in_list::in_list(crate::schema::contact_channels::contact_id, $contact_ids))
                .order((crate::schema::contact_channels::contact_id.asc(), crate::schema::contact_channels::position.asc()))
                .select((
                    crate::schema::contact_channels::contact_id,
                    crate::schema::contact_channels::channel_type,
                    crate::schema::contact_channels::channel_id,
                ))
        );
        rows
    }};
}

mod activities;
pub(crate) mod activity_search;
mod activity_views;
mod agents;
mod bulk;
mod carts;
mod contacts;
mod executions;
mod idempotency;
mod keys;
mod lines;
mod products;
mod tags;
mod templates;
mod vectors;
mod webhooks;

/// Groups loaded channel rows by contact id.
pub(crate) fn group_channels(rows: Vec<(String, String, String)>) -> Result<HashMap<String, Vec<Channel>>, DbError> {
    let mut by_contact: HashMap<String, Vec<Channel>> = HashMap::new();
    for (contact_id, kind, id) in rows {
        let kind = ChannelType::parse(&kind).map_err(|_| DbError::Corrupt(format!("channel type {kind:?}")))?;
        by_contact.entry(contact_id).or_default().push(Channel::from_stored(kind, id));
    }
    Ok(by_contact)
}
