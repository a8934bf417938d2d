use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ContactRepository, StoreResult};

use super::activities::{count_status, write_activity};
use super::activity_row::ActivityRow;
use super::channel_lists::{channel_list_of, parse_channel_list};
use super::contact_search::{page_of_filtered_contacts, replace_contact_terms};
use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, read_direct, run};
use crate::repos::events::emit_all;
use crate::rows::{from_millis, millis, valid};
use crate::schema::{activities, contact_channels, contact_counts, contacts};

#[derive(Queryable, Selectable)]
#[diesel(table_name = contacts)]
struct ContactRow {
    id: String,
    agent_id: String,
    profile_name: String,
    email: Option<String>,
    notes: Option<String>,
    custom_attributes: String,
    created_at: i64,
    updated_at: i64,
    /// Kept copy of its `contact_channels` rows (`channel_lists.rs`).
    channel_list: String,
}

impl ContactRow {
    fn into_domain(self) -> Result<Contact, DbError> {
        let channels = parse_channel_list(&self.channel_list, ("contact", &self.id))?;
        let attributes = match serde_json::from_str(&self.custom_attributes) {
            Ok(serde_json::Value::Object(map)) => valid(CustomAttributes::new(map))?,
            _ => return Err(DbError::Corrupt(format!("custom_attributes of {}", self.id))),
        };
        Ok(Contact {
            id: ContactId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            profile_name: valid(ProfileName::new(&self.profile_name))?,
            email: self.email.map(|e| valid(Email::new(&e))).transpose()?,
            notes: self.notes.map(|n| valid(Notes::new(&n))).transpose()?,
            channels,
            custom_attributes: attributes,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

fn attributes_json(contact: &Contact) -> String {
    serde_json::Value::Object(contact.custom_attributes.as_map().clone()).to_string()
}

/// One page of the agent's contacts and the kept total, each query run as `$mode` says (see
/// [`run!`]): the total is the agent's kept count (`contact_counts`, summed), not a count of its
/// contacts, and each row carries its channels (`channel_list`).
macro_rules! page_of_contacts {
    ($mode:ident, $conn:ident, $agent:ident, $page:ident) => {{
        let (agent, page): (&str, PageRequest) = ($agent.as_str(), $page);
        let counts: Vec<i64> =
            run!($mode, load, $conn, contact_counts::table.filter(contact_counts::agent_id.eq(agent)).select(contact_counts::count));
        let rows: Vec<ContactRow> = run!(
            $mode,
            load,
            $conn,
            contacts::table
                .filter(contacts::agent_id.eq(agent))
                .order((contacts::created_at.desc(), contacts::id.desc()))
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select(ContactRow::as_select())
        );
        (counts.into_iter().sum::<i64>(), rows)
    }};
}

/// Writes new contact `$contact` (`&Contact`) with its kept `$channel_list`: its row and its
/// channels; run in the transaction that inserts it, with [`count_contact!`].
macro_rules! write_contact {
    ($conn:expr, $contact:expr, $channel_list:expr) => {{
        let contact: &Contact = $contact;
        diesel::insert_into(contacts::table)
            .values((
                contacts::id.eq(contact.id.as_str()),
                contacts::agent_id.eq(contact.agent_id.as_str()),
                contacts::profile_name.eq(contact.profile_name.as_str()),
                contacts::name_search.eq(contact.profile_name.search_key()),
                contacts::email.eq(contact.email.as_ref().map(Email::as_str)),
                contacts::notes.eq(contact.notes.as_ref().map(Notes::as_str)),
                contacts::custom_attributes.eq(attributes_json(contact)),
                contacts::created_at.eq(millis(contact.created_at)),
                contacts::updated_at.eq(millis(contact.updated_at)),
                contacts::channel_list.eq($channel_list),
            ))
            .execute($conn)
            .await?;
        // Inserted in (type, id) order, not position order: two contacts claiming the same two
        // channels then wait on the same unique key first instead of deadlocking (`locks.rs`).
        let mut by_key: Vec<_> = contact.channels.iter().enumerate().collect();
        by_key.sort_by_key(|(_, ch)| (ch.channel_type().as_str(), ch.channel_id()));
        for (position, ch) in by_key {
            diesel::insert_into(contact_channels::table)
                .values((
                    contact_channels::agent_id.eq(contact.agent_id.as_str()),
                    contact_channels::channel_type.eq(ch.channel_type().as_str()),
                    contact_channels::channel_id.eq(ch.channel_id()),
                    contact_channels::contact_id.eq(contact.id.as_str()),
                    contact_channels::digits.eq(ch.digits()),
                    contact_channels::position.eq(position as i32),
                    contact_channels::user_id.eq(ch.user().user_id.as_ref().map(BusinessUserId::as_str)),
                    contact_channels::parent_user_id.eq(ch.user().parent_user_id.as_ref().map(BusinessUserId::as_str)),
                    contact_channels::username.eq(ch.user().username.as_ref().map(Username::as_str)),
                ))
                .execute($conn)
                .await?;
        }
        let terms = crate::repos::contact_search::terms_of(contact);
        crate::repos::contact_search::write_contact_terms!($conn, contact.agent_id.as_str(), contact.id.as_str(), terms);
    }};
}

/// Adds one to the agent's kept count of contacts (`contact_counts`, in `$contact`'s shard:
/// see `count_shards.rs`): run last in the transaction that writes a contact, as the agent's
/// count rows are every new contact's.
macro_rules! count_contact {
    ($conn:expr, $agent:expr, $contact:expr) => {{
        use crate::prepared::Prepare as _;
        let shard = crate::count_shards::shard(&*$conn, $contact);
        diesel::insert_into(contact_counts::table)
            .values((contact_counts::agent_id.eq($agent), contact_counts::shard.eq(shard), contact_counts::count.eq(1)))
            .on_conflict((contact_counts::agent_id, contact_counts::shard))
            .do_update()
            .set(contact_counts::count.eq(contact_counts::count + 1))
            .prepared()
            .execute($conn)
            .await?;
    }};
}

/// `ContactRepository::update_channel`'s writes, run in the caller's transaction (a message's
/// insert runs them too, `MessageRepository::insert_learning`): the contact's row first (its
/// `channel_list` and `updated_at`), as every writer of a contact and its activity locks it, then
/// the channel row as a compare-and-set on `$before`, the activity's `channel_list`, the search
/// terms, and `$events`. `Ok(false)` when the agent has no such contact; a
/// `RollbackTransaction` error when the channel changed since it was read; a unique violation
/// when the new phone or user id is another contact's.
macro_rules! write_channel_update {
    ($conn:expr, $contact:expr, $before:expr, $after:expr, $events:expr) => {{
        use crate::schema::{activities, contact_channels, contacts};
        use parley_domain::model::{BusinessUserId, Username};
        let (contact, before, after): (&Contact, &Channel, &Channel) = ($contact, $before, $after);
        let (agent, id) = (contact.agent_id.as_str(), contact.id.as_str());
        let channel_list = crate::repos::channel_lists::channel_list_of(&contact.channels);
        let user = after.user();
        let n = diesel::update(contacts::table.filter(contacts::agent_id.eq(agent)).filter(contacts::id.eq(id)))
            .set((contacts::channel_list.eq(&channel_list), contacts::updated_at.eq(crate::rows::millis(contact.updated_at))))
            .execute($conn)
            .await?;
        if n == 0 {
            Ok(false)
        } else {
            let n = diesel::update(
                contact_channels::table
                    .filter(contact_channels::agent_id.eq(agent))
                    .filter(contact_channels::channel_type.eq(before.channel_type().as_str()))
                    .filter(contact_channels::channel_id.eq(before.channel_id()))
                    .filter(contact_channels::contact_id.eq(id)),
            )
            .set((
                contact_channels::channel_id.eq(after.channel_id()),
                contact_channels::digits.eq(after.digits()),
                contact_channels::user_id.eq(user.user_id.as_ref().map(BusinessUserId::as_str)),
                contact_channels::parent_user_id.eq(user.parent_user_id.as_ref().map(BusinessUserId::as_str)),
                contact_channels::username.eq(user.username.as_ref().map(Username::as_str)),
            ))
            .execute($conn)
            .await?;
            if n == 0 {
                // Another request changed the channel first: roll the contact's row back.
                Err(crate::error::DbError::Query(diesel::result::Error::RollbackTransaction))
            } else {
                diesel::update(activities::table.filter(activities::agent_id.eq(agent)).filter(activities::contact_id.eq(id)))
                    .set(activities::channel_list.eq(&channel_list))
                    .execute($conn)
                    .await?;
                crate::repos::contact_search::replace_contact_terms!($conn, agent, id);
                crate::repos::events::emit_all!($conn, $events);
                Ok(true)
            }
        }
    }};
}
pub(crate) use write_channel_update;

#[async_trait]
impl ContactRepository for Store {
    async fn insert(&self, contact: &Contact, events: &[Event]) -> StoreResult<()> {
        let channel_list = channel_list_of(&contact.channels);
        in_transaction!(self, |conn| {
            write_contact!(conn, contact, &channel_list);
            emit_all!(conn, events);
            count_contact!(conn, contact.agent_id.as_str(), contact.id.as_str());
            Ok(())
        })?;
        Ok(())
    }

    async fn insert_conversation(&self, contact: &Contact, activity: &Activity, events: &[Event]) -> StoreResult<()> {
        let channel_list = channel_list_of(&contact.channels);
        in_transaction!(self, |conn| {
            write_contact!(conn, contact, &channel_list);
            write_activity!(conn, activity, contact.profile_name.as_str(), &channel_list);
            emit_all!(conn, events);
            // Last, as in an activity's insert: every new conversation's rows.
            count_status!(
                conn,
                activity.agent_id.as_str(),
                activity.id.as_str(),
                activity.status.as_str(),
                1,
                activity.assigned_to.is_none()
            );
            count_contact!(conn, contact.agent_id.as_str(), contact.id.as_str());
            Ok(())
        })?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, id: &ContactId) -> StoreResult<Option<Contact>> {
        let row = read_conn!(self, |conn| contacts::table
            .filter(contacts::agent_id.eq(agent.as_str()))
            .filter(contacts::id.eq(id.as_str()))
            .select(ContactRow::as_select())
            .first::<ContactRow>(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(ContactRow::into_domain).transpose()?)
    }

    async fn find_by_channel(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<Contact>> {
        Ok(self.find_conversation(agent, channel).await?.map(|(contact, _)| contact))
    }

    async fn find_conversation(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<(Contact, Option<Activity>)>> {
        // One query per key: every inbound delivery asks it, and on PostgreSQL a round trip is
        // most of a lookup's cost. A user id is asked first (a known WhatsApp user's every
        // message), the address only when it finds no one.
        let agent_id = agent.as_str();
        // A macro, not a closure: each backend's expansion selects for its own connection.
        macro_rules! conversation_where {
            ($key:expr) => {
                read_conn!(self, |conn| contact_channels::table
                    .inner_join(contacts::table)
                    .left_join(activities::table.on(activities::contact_id.eq(contacts::id).and(activities::agent_id.eq(agent_id))))
                    .filter(contact_channels::agent_id.eq(agent_id))
                    .filter(contacts::agent_id.eq(agent_id))
                    .filter($key)
                    .select((ContactRow::as_select(), Option::<ActivityRow>::as_select()))
                    .first::<(ContactRow, Option<ActivityRow>)>(conn)
                    .await
                    .optional()
                    .map_err(DbError::from))
            };
        }
        let mut row = None;
        if let Some(user_id) = &channel.user().user_id {
            row = conversation_where!(contact_channels::user_id.eq(user_id.as_str()))?;
        }
        if row.is_none() {
            let (kind, id) = (channel.channel_type().as_str(), channel.channel_id());
            row = conversation_where!(contact_channels::channel_type.eq(kind).and(contact_channels::channel_id.eq(id)))?;
        }
        let Some((contact, activity)) = row else { return Ok(None) };
        Ok(Some((contact.into_domain()?, activity.map(ActivityRow::into_domain).transpose()?)))
    }

    async fn update_channel(&self, contact: &Contact, before: &Channel, after: &Channel, events: &[Event]) -> StoreResult<bool> {
        let updated = in_transaction!(self, |conn| write_channel_update!(conn, contact, before, after, events));
        match updated {
            Ok(updated) => Ok(updated),
            Err(DbError::Query(diesel::result::Error::RollbackTransaction)) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn list(&self, agent: &AgentId, filter: &ContactFilter, page: PageRequest) -> StoreResult<Page<Contact>> {
        let agent = agent.as_str().to_string();
        let (total, rows) = if filter.is_empty() {
            read_direct!(self, page_of_contacts!(agent, page))?
        } else {
            // Inline when the search's term ranges hold few rows; otherwise every match is read
            // (or a channel type's contacts counted) off the request's thread.
            // A channel type alone is never probed: it counts all of the type's contacts.
            let (filter, probe) = (filter.clone(), true);
            let again = (agent.clone(), filter.clone());
            let inline =
                if filter.search.is_some() { read_direct!(self, page_of_filtered_contacts!(agent, filter, page, probe))? } else { None };
            match inline {
                Some(found) => found,
                None => {
                    let ((agent, filter), probe) = (again, false);
                    let counted = read_direct!(self, blocking, page_of_filtered_contacts!(agent, filter, page, probe))?;
                    counted.expect("without a probe the list is always read")
                }
            }
        };
        let items = rows.into_iter().map(ContactRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn erase(&self, agent: &AgentId, id: &ContactId, events: &[Event]) -> StoreResult<bool> {
        let erased = in_transaction!(self, |conn| {
            let erased = crate::repos::erasure::erase_contact!(conn, agent.as_str(), id.as_str());
            if erased {
                emit_all!(conn, events);
            }
            Ok(erased)
        })?;
        Ok(erased)
    }

    async fn update(&self, contact: &Contact, events: &[Event]) -> StoreResult<bool> {
        let changes = (
            contacts::profile_name.eq(contact.profile_name.as_str()),
            contacts::name_search.eq(contact.profile_name.search_key()),
            contacts::email.eq(contact.email.as_ref().map(Email::as_str)),
            contacts::notes.eq(contact.notes.as_ref().map(Notes::as_str)),
            contacts::custom_attributes.eq(attributes_json(contact)),
            contacts::updated_at.eq(millis(contact.updated_at)),
        );
        let (agent, id) = (contact.agent_id.as_str(), contact.id.as_str());
        let updated = in_transaction!(self, |conn| {
            let n = diesel::update(contacts::table.filter(contacts::agent_id.eq(agent)).filter(contacts::id.eq(id)))
                .set(changes.clone())
                .execute(conn)
                .await?;
            // Its activity shows the name (`contact_name`); the contact's row, locked by the
            // update above, comes first, as for every writer of both.
            diesel::update(activities::table.filter(activities::agent_id.eq(agent)).filter(activities::contact_id.eq(id)))
                .set(activities::contact_name.eq(contact.profile_name.as_str()))
                .execute(conn)
                .await?;
            replace_contact_terms!(conn, agent, id);
            if n > 0 {
                emit_all!(conn, events);
            }
            Ok(n > 0)
        })?;
        Ok(updated)
    }
}
