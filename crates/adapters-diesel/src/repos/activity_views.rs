//! What an activity shows of its contact, tags, assignee and newest message, kept on its own row
//! (`contact_name`, `channel_list`, `tag_list`, `assignee_name`, `last_message_*`; see the `activity_views` and
//! `messages` migrations) so that a page or a get reads one row per activity instead of joining
//! contacts, channels, tags and messages.
//!
//! The columns are written in the transactions that change what they copy: an activity's insert
//! (`ActivityRepository::insert`), a contact rename, every change to an activity's tags or to a tag it
//! carries ([`refresh_tag_list!`]), and a message's insert (`repos/messages.rs`).

use diesel::prelude::*;
use parley_domain::model::*;
use serde::Deserialize;

use super::activity_row::ActivityRow;
use super::channel_lists::parse_channel_list;
use crate::error::DbError;
use crate::rows::{from_millis, valid};
use crate::schema::activities;

/// An activity with what it shows of its contact and tags.
#[derive(Queryable, Selectable)]
#[diesel(table_name = activities)]
pub(crate) struct ViewRow {
    #[diesel(embed)]
    activity: ActivityRow,
    contact_name: String,
    channel_list: String,
    tag_list: String,
    last_message_id: Option<String>,
    last_message_direction: Option<String>,
    last_message_type: Option<String>,
    last_message_text: Option<String>,
    last_message_at: Option<i64>,
    unread_count: i64,
    assignee_name: Option<String>,
}

/// One entry of `tag_list`.
#[derive(Deserialize)]
struct StoredTag {
    id: String,
    name: String,
    color: String,
}

impl ViewRow {
    pub(crate) fn into_view(self) -> Result<ActivityView, DbError> {
        let corrupt = |what: &str, e: serde_json::Error| DbError::Corrupt(format!("{what} of activity {}: {e}", self.activity.id));
        let channels = parse_channel_list(&self.channel_list, ("activity", &self.activity.id))?;
        let tags: Vec<StoredTag> = serde_json::from_str(&self.tag_list).map_err(|e| corrupt("tag_list", e))?;
        let tags = tags
            .into_iter()
            .map(|t| Ok(TagRef { id: TagId::new(t.id), name: valid(TagName::new(&t.name))?, color: valid(TagColor::new(&t.color))? }))
            .collect::<Result<_, DbError>>()?;
        let last_message = match (self.last_message_id, self.last_message_direction, self.last_message_type, self.last_message_at) {
            (None, None, None, None) => None,
            (Some(id), Some(direction), Some(kind), Some(at)) => Some(MessageSummary {
                id: MessageId::new(id),
                direction: valid(MessageDirection::parse(&direction))?,
                message_type: valid(MessageType::parse(&kind))?,
                text: self.last_message_text,
                created_at: from_millis(at)?,
            }),
            // The columns are written together, all or none.
            _ => return Err(DbError::Corrupt(format!("last_message of activity {}: some columns are null", self.activity.id))),
        };
        let activity = self.activity.into_domain()?;
        let assignee = match (activity.assigned_to.as_ref().and_then(Assignee::member), self.assignee_name) {
            (Some(id), Some(name)) => Some(MemberRef { id, name: valid(MemberName::new(&name))? }),
            _ => None,
        };
        Ok(ActivityView {
            profile_name: valid(ProfileName::new(&self.contact_name))?,
            activity,
            assignee,
            channels,
            tags,
            last_message,
            unread_count: u64::try_from(self.unread_count).unwrap_or(0),
        })
    }
}

/// `tag_list` from `(id, name, color)` rows ordered by name, then id.
pub(crate) fn tag_list(tags: &[(String, String, String)]) -> String {
    let entries: Vec<serde_json::Value> =
        tags.iter().map(|(id, name, color)| serde_json::json!({"id": id, "name": name, "color": color})).collect();
    serde_json::Value::Array(entries).to_string()
}

/// Rewrites `tag_list` of activity `$activity` from its tag rows; run in the transaction that
/// changed them, or a tag it carries.
macro_rules! refresh_tag_list {
    ($conn:expr, $activity:expr) => {{
        use crate::schema::{activities, activity_tags, tags};
        let activity: &str = $activity;
        let rows: Vec<(String, String, String)> = activity_tags::table
            .inner_join(tags::table)
            .filter(activity_tags::activity_id.eq(activity))
            .order((tags::name_key.asc(), tags::id.asc()))
            .select((tags::id, tags::name, tags::color))
            .load($conn)
            .await?;
        diesel::update(activities::table.filter(activities::id.eq(activity)))
            .set(activities::tag_list.eq(crate::repos::activity_views::tag_list(&rows)))
            .execute($conn)
            .await?;
    }};
}

pub(crate) use refresh_tag_list;
