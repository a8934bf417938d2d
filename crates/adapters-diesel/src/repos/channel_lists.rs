//! A contact's channels kept as one JSON text column, `[["whatsapp","14155550100"], …]` in
//! position order: on the contact's row, and copied from there onto each of its activities' rows
//! (`channel_list`), so a page of either reads one row per item instead of a second query. A
//! contact's channels never change after it is inserted, so both copies are written once, in
//! the transaction that inserts the contact or the activity; `contact_channels` stays the
//! source of truth for lookups by channel (docs/storage.md, "Kept copies and counts").

use parley_domain::model::{Channel, ChannelType};

use crate::error::DbError;

/// The kept text of a contact's channels.
pub(crate) fn channel_list_of(channels: &[Channel]) -> String {
    let pairs: Vec<(&str, &str)> = channels.iter().map(|c| (c.channel_type().as_str(), c.channel_id())).collect();
    serde_json::to_string(&pairs).expect("strings serialize")
}

/// The channels of kept text; `(table, id)` name the row in the error if it is not one (named
/// only then: a page parses twenty of these).
pub(crate) fn parse_channel_list(text: &str, (table, id): (&str, &str)) -> Result<Vec<Channel>, DbError> {
    let corrupt = |what: String| DbError::Corrupt(format!("{what} of {table} {id}"));
    let pairs: Vec<(String, String)> = serde_json::from_str(text).map_err(|e| corrupt(format!("channel_list ({e})")))?;
    pairs
        .into_iter()
        .map(|(kind, channel)| {
            let kind = ChannelType::parse(&kind).map_err(|_| corrupt(format!("channel type {kind:?}")))?;
            Ok(Channel::from_stored(kind, channel))
        })
        .collect()
}
