//! A contact's erasure (`ContactRepository::erase`, GDPR's right to erasure): everything that
//! holds what the contact wrote or what they are, removed in the one transaction that removes
//! the contact, and the kept counts moved back. What stays, and why, is in `docs/storage.md`
//! ("Erasing a contact").

use parley_domain::model::{AgentId, Event, MessageContent};

/// The stored files a message's content names (email attachments, media kept by id).
pub(crate) fn files_of(content: &str) -> Vec<String> {
    let Ok(content) = MessageContent::from_json_text(content) else { return Vec::new() };
    let mut ids: Vec<String> = content.email().map(|e| e.attachments.iter().map(|a| a.id.clone()).collect()).unwrap_or_default();
    ids.extend(content.media().and_then(|m| m.id.clone()));
    ids
}

/// A stored event of `agent` with its object reduced to its id ([`Event::erased`]), in the
/// stored form; `None` when the text is not a stored event (left as it is).
pub(crate) fn erased_body(agent: &str, stored: &str) -> Option<String> {
    Event::from_stored(AgentId::new(agent), stored).ok().map(|event| event.erased().to_stored())
}

/// Erases the agent's contact `$contact` as [`ContactRepository::erase`] says, in the
/// transaction `$conn` runs; `false` when the agent has no such contact. Locks in the order
/// every writer takes them: the contact, the activity's tags, the activity.
macro_rules! erase_contact {
    ($conn:expr, $agent:expr, $contact:expr) => {{
        use crate::contains::contains;
        use crate::in_list::in_list;
        use crate::locks::OrderedLocks as _;
        use crate::schema::{
            activities, activity_search_terms, activity_tags, contact_channels, contact_counts, contact_search_terms, contacts, events,
            executions, files, idempotency_keys, messages, tags, webhook_events,
        };
        let (agent, contact): (&str, &str) = ($agent, $contact);
        let found = diesel::update(contacts::table.filter(contacts::agent_id.eq(agent)).filter(contacts::id.eq(contact)))
            .set(contacts::updated_at.eq(contacts::updated_at))
            .execute($conn)
            .await?;
        if found > 0 {
            // Its addresses and its user ids: a send or a delivery may name it by either.
            let identifiers: Vec<(String, Option<String>)> = contact_channels::table
                .filter(contact_channels::contact_id.eq(contact))
                .select((contact_channels::channel_id, contact_channels::user_id))
                .load($conn)
                .await?;
            let mut channel_ids: Vec<String> = Vec::with_capacity(identifiers.len());
            for (channel_id, user_id) in identifiers {
                channel_ids.extend(user_id.filter(|u| *u != channel_id));
                channel_ids.push(channel_id);
            }
            let activity: Option<(String, String, bool)> = activities::table
                .filter(activities::agent_id.eq(agent))
                .filter(activities::contact_id.eq(contact))
                .select((activities::id, activities::status, activities::assigned_to.is_null()))
                .first($conn)
                .await
                .optional()?;
            // Events about the contact name it; those about its activity and messages, the activity.
            let mut named: Vec<String> = vec![contact.to_string()];
            if let Some((activity, status, unassigned)) = &activity {
                named.push(activity.clone());
                let tag_ids: Vec<String> =
                    activity_tags::table.filter(activity_tags::activity_id.eq(activity)).select(activity_tags::tag_id).load($conn).await?;
                let tag_refs: Vec<&str> = tag_ids.iter().map(String::as_str).collect();
                let locked = $conn.lock_tags(agent, &tag_refs).await?;
                diesel::update(activities::table.filter(activities::id.eq(activity)))
                    .set(activities::updated_at.eq(activities::updated_at))
                    .execute($conn)
                    .await?;
                let stored: Vec<(String, String)> = messages::table
                    .filter(messages::agent_id.eq(agent))
                    .filter(messages::activity_id.eq(activity))
                    .select((messages::id, messages::content))
                    .load($conn)
                    .await?;
                let message_ids: Vec<&str> = stored.iter().map(|(id, _)| id.as_str()).collect();
                let file_ids: Vec<String> = stored.iter().flat_map(|(_, content)| crate::repos::erasure::files_of(content)).collect();
                if !file_ids.is_empty() {
                    diesel::delete(files::table.filter(files::agent_id.eq(agent)).filter(in_list(files::id, &file_ids)))
                        .execute($conn)
                        .await?;
                }
                if !message_ids.is_empty() {
                    diesel::delete(
                        executions::table
                            .filter(executions::agent_id.eq(agent))
                            .filter(in_list(executions::message_id.assume_not_null(), &message_ids)),
                    )
                    .execute($conn)
                    .await?;
                    diesel::delete(
                        idempotency_keys::table
                            .filter(idempotency_keys::agent_id.eq(agent))
                            .filter(in_list(idempotency_keys::recovery_point.assume_not_null(), &message_ids)),
                    )
                    .execute($conn)
                    .await?;
                }
                // Answers kept for retries of requests about the activity (its replies).
                diesel::delete(
                    idempotency_keys::table
                        .filter(idempotency_keys::agent_id.eq(agent))
                        .filter(contains(idempotency_keys::response_body.assume_not_null(), activity.as_str())),
                )
                .execute($conn)
                .await?;
                diesel::delete(messages::table.filter(messages::activity_id.eq(activity))).execute($conn).await?;
                diesel::delete(activity_search_terms::table.filter(activity_search_terms::activity_id.eq(activity))).execute($conn).await?;
                diesel::delete(activity_tags::table.filter(activity_tags::activity_id.eq(activity))).execute($conn).await?;
                for tag in &locked {
                    diesel::update(tags::table.filter(tags::id.eq(tag)))
                        .set(tags::activity_count.eq(tags::activity_count - 1))
                        .execute($conn)
                        .await?;
                }
                diesel::delete(activities::table.filter(activities::id.eq(activity))).execute($conn).await?;
                crate::repos::activities::count_status!($conn, agent, activity.as_str(), status.as_str(), -1, *unassigned);
            }
            // Template sends addressed to it, and the platforms' processed deliveries that named
            // it (a delivery still to process is left: it may carry other contacts' messages).
            if !channel_ids.is_empty() {
                diesel::delete(
                    executions::table.filter(executions::agent_id.eq(agent)).filter(in_list(executions::recipient, &channel_ids)),
                )
                .execute($conn)
                .await?;
            }
            for channel_id in &channel_ids {
                diesel::delete(
                    webhook_events::table
                        .filter(webhook_events::processed_at.is_not_null().or(webhook_events::failed_at.is_not_null()))
                        .filter(contains(webhook_events::body, channel_id)),
                )
                .execute($conn)
                .await?;
            }
            diesel::delete(contact_search_terms::table.filter(contact_search_terms::contact_id.eq(contact))).execute($conn).await?;
            diesel::delete(contact_channels::table.filter(contact_channels::contact_id.eq(contact))).execute($conn).await?;
            diesel::delete(contacts::table.filter(contacts::id.eq(contact))).execute($conn).await?;
            {
                use crate::prepared::Prepare as _;
                let shard = crate::count_shards::shard(&*$conn, contact);
                diesel::update(contact_counts::table.filter(contact_counts::agent_id.eq(agent)).filter(contact_counts::shard.eq(shard)))
                    .set(contact_counts::count.eq(contact_counts::count - 1))
                    .prepared()
                    .execute($conn)
                    .await?;
            }
            // Events stored about it keep their ids and nothing else.
            for name in &named {
                let about: Vec<(String, String)> = events::table
                    .filter(events::agent_id.eq(agent))
                    .filter(contains(events::body, &format!("\"{name}\"")))
                    .select((events::id, events::body))
                    .load($conn)
                    .await?;
                for (id, body) in about {
                    if let Some(erased) = crate::repos::erasure::erased_body(agent, &body) {
                        diesel::update(events::table.filter(events::id.eq(&id))).set(events::body.eq(erased)).execute($conn).await?;
                    }
                }
            }
        }
        found > 0
    }};
}

pub(crate) use erase_contact;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_erased_event_keeps_its_ids_even_when_stored_before_snapshots() {
        let shown = r#"{"id":"evt_1","type":"contact.updated","created_at":"2026-01-01T00:00:00.000Z","data":{"object":{"id":"con_1","profile_name":"Ana"}}}"#;
        assert_eq!(
            erased_body("agt_1", shown).unwrap(),
            r#"{"v":1,"id":"evt_1","type":"contact.updated","created_at":"2026-01-01T00:00:00.000Z","object":{"erased":{"id":"con_1"}}}"#
        );
        assert!(erased_body("agt_1", "not json").is_none());
    }

    #[test]
    fn files_are_named_by_email_attachments_and_media_ids() {
        let email = r#"{"type":"email","email":{"subject":"s","from":"a@b.co","to":["c@d.co"],"cc":[],"message_id":"m@b.co","references":[],"text":"t","attachments":[{"id":"att_1","mime_type":"text/plain","size":1}]}}"#;
        assert_eq!(files_of(email), ["att_1"]);
        assert_eq!(files_of(r#"{"type":"image","image":{"id":"att_2"}}"#), ["att_2"]);
        assert!(files_of(r#"{"type":"text","text":{"body":"hi"}}"#).is_empty());
    }
}
