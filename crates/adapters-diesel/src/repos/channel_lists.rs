//! A contact's channels kept as one JSON text column, `[["whatsapp","14155550100"], …]` in
//! position order: on the contact's row, and copied from there onto each of its activities' rows
//! (`channel_list`), so a page of either reads one row per item instead of a second query. Both
//! copies are written in the transaction that inserts the contact or the activity, and again
//! when a WhatsApp channel learns a phone, a user id or a username (`update_channel`);
//! `contact_channels` stays the source of truth for lookups by channel (docs/storage.md, "Kept
//! copies and counts").

use parley_domain::model::{Channel, ChannelType, PlatformUser};

use crate::error::DbError;

/// One channel in the kept text: `[type, id]`, or `[type, id, user_id, parent_user_id,
/// username]` for a channel that knows more of its user than its id says.
type Entry<'a> = Vec<Option<&'a str>>;

/// The kept text of a contact's channels.
pub(crate) fn channel_list_of(channels: &[Channel]) -> String {
    let entries: Vec<Entry<'_>> = channels
        .iter()
        .map(|c| {
            let mut entry = vec![Some(c.channel_type().as_str()), Some(c.channel_id())];
            if c.user() != c.address().user() {
                let user = c.user();
                entry.extend([
                    user.user_id.as_ref().map(|id| id.as_str()),
                    user.parent_user_id.as_ref().map(|id| id.as_str()),
                    user.username.as_ref().map(|name| name.as_str()),
                ]);
            }
            entry
        })
        .collect();
    serde_json::to_string(&entries).expect("strings serialize")
}

/// The channels of kept text; `(table, id)` name the row in the error if it is not one (named
/// only then: a page parses twenty of these).
pub(crate) fn parse_channel_list(text: &str, (table, id): (&str, &str)) -> Result<Vec<Channel>, DbError> {
    let corrupt = |what: String| DbError::Corrupt(format!("{what} of {table} {id}"));
    let entries: Vec<Vec<Option<String>>> = serde_json::from_str(text).map_err(|e| corrupt(format!("channel_list ({e})")))?;
    entries
        .into_iter()
        .map(|entry| {
            let mut parts = entry.into_iter();
            let (Some(Some(kind)), Some(Some(channel))) = (parts.next(), parts.next()) else {
                return Err(corrupt("a channel without a type and an id".into()));
            };
            let kind = ChannelType::parse(&kind).map_err(|_| corrupt(format!("channel type {kind:?}")))?;
            let channel = Channel::from_stored(kind, channel);
            let [user_id, parent, username] = [parts.next().flatten(), parts.next().flatten(), parts.next().flatten()];
            if user_id.is_none() && parent.is_none() && username.is_none() {
                return Ok(channel);
            }
            let user = PlatformUser::from_platform(user_id.as_deref(), parent.as_deref(), username.as_deref())
                .map_err(|e| corrupt(format!("channel {} ({})", e.field, e.issue)))?;
            Ok(channel.with_user(user))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_round_trip_with_and_without_what_they_know_of_their_user() {
        let user = PlatformUser::from_platform(Some("US.1"), Some("US.ENT.2"), Some("ana")).unwrap();
        let channels = vec![
            Channel::new(ChannelType::Whatsapp, "14155550100").unwrap(),
            Channel::new(ChannelType::Whatsapp, "US.9").unwrap(),
            Channel::new(ChannelType::Whatsapp, "14155550101").unwrap().with_user(user),
            Channel::new(ChannelType::Email, "a@b.co").unwrap(),
        ];
        let text = channel_list_of(&channels);
        assert!(
            text.starts_with(r#"[["whatsapp","14155550100"],["whatsapp","US.9"],["whatsapp","14155550101","US.1","US.ENT.2","ana"]"#),
            "{text}"
        );
        assert_eq!(parse_channel_list(&text, ("contact", "c")).unwrap(), channels);
        assert!(parse_channel_list(r#"[["whatsapp"]]"#, ("contact", "c")).is_err());
        assert!(parse_channel_list(r#"[["whatsapp","1415555010","us.1",null,null]]"#, ("contact", "c")).is_err());
    }
}
