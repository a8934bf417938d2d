//! The activities DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::double_option;
use parley_domain::services::{ActivityDetail, ActivityPatchInput, Patch};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
pub struct TagRefDto {
    pub id: String,
    pub name: String,
    pub color: String,
}

/// The member an activity is assigned to.
#[derive(Debug, Serialize, ToSchema)]
pub struct AssigneeDto {
    #[schema(example = "usr_4fJq0ZpXr3TyLk5bW0cMd7Hs")]
    pub id: String,
    pub name: String,
}

/// An activity as listed.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActivityDto {
    #[schema(example = "act_1nQv8ZpXr3TyLk5bW0cMd7Hs")]
    pub id: String,
    /// open, closed or pending.
    #[schema(value_type = ActivityStatusName, example = "open")]
    pub status: String,
    pub profile_name: String,
    pub channel_identifiers: Vec<String>,
    pub tags: Vec<TagRefDto>,
    /// Who has it: a member id (`usr_…`) or another user id of the caller's system; null while
    /// unassigned.
    pub assigned_to: Option<String>,
    /// The team member it is assigned to, while `assigned_to` is one of the agent's members.
    pub assignee: Option<AssigneeDto>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The newest message, or null before the first.
    pub last_message: Option<MessageSummaryDto>,
    /// Inbound messages since the business last marked the conversation read
    /// (`POST /v1/activities/{id}/read`).
    pub unread_count: u64,
    /// When the team's first answer since the contact last opened the conversation falls due
    /// (the agent's first-response target then, counted in business hours); null without a
    /// target then, or before the contact first wrote.
    #[schema(format = DateTime)]
    pub first_response_due_at: Option<String>,
    /// When the team first answered since the contact last opened the conversation; null
    /// while they wait.
    #[schema(format = DateTime)]
    pub first_responded_at: Option<String>,
}

/// One activity: the list item plus its contact and channels.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActivityDetailDto {
    #[serde(flatten)]
    pub item: ActivityDto,
    pub contact_id: String,
    pub channels: Vec<ChannelDto>,
    /// When the contact last wrote; null if never. The 24-hour messaging window runs from here.
    #[schema(format = DateTime)]
    pub last_inbound_at: Option<String>,
    /// The agent's carts the contact linked to in this conversation (`…/c/<code>`), newest first.
    pub carts: Vec<CartMentionDto>,
}

impl From<&ActivityView> for ActivityDto {
    fn from(v: &ActivityView) -> Self {
        let a = &v.activity;
        Self {
            id: a.id.as_str().to_string(),
            status: a.status.as_str().to_string(),
            profile_name: v.profile_name.as_str().to_string(),
            channel_identifiers: v.channels.iter().flat_map(Channel::identifiers).map(str::to_string).collect(),
            tags: v
                .tags
                .iter()
                .map(|t| TagRefDto {
                    id: t.id.as_str().to_string(),
                    name: t.name.as_str().to_string(),
                    color: t.color.as_str().to_string(),
                })
                .collect(),
            assigned_to: a.assigned_to.as_ref().map(|x| x.as_str().to_string()),
            assignee: v.assignee.as_ref().map(|m| AssigneeDto { id: m.id.as_str().to_string(), name: m.name.as_str().to_string() }),
            created_at: timestamp(a.created_at),
            updated_at: timestamp(a.updated_at),
            last_message: v.last_message.as_ref().map(MessageSummaryDto::from),
            unread_count: v.unread_count,
            first_response_due_at: a.first_response.due_at.map(timestamp),
            first_responded_at: a.first_response.responded_at.map(timestamp),
        }
    }
}

impl From<ActivityView> for ActivityDto {
    fn from(v: ActivityView) -> Self {
        Self::from(&v)
    }
}

impl From<ActivityDetail> for ActivityDetailDto {
    fn from(ActivityDetail { view: v, carts }: ActivityDetail) -> Self {
        Self {
            item: ActivityDto::from(&v),
            contact_id: v.activity.contact_id.as_str().to_string(),
            channels: v.channels.iter().map(ChannelDto::from).collect(),
            last_inbound_at: v.activity.last_inbound_at.map(timestamp),
            carts: carts.iter().map(CartMentionDto::from).collect(),
        }
    }
}

/// What reading a conversation also shows the contact. The body is optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadActivity {
    /// Also show the contact a typing indicator (WhatsApp: until the reply or for 25 seconds;
    /// Instagram: `typing_on`). Default false.
    pub typing: Option<bool>,
}

/// Opens the conversation with a known contact (or returns the one it has).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenActivity {
    /// The contact's id.
    #[schema(value_type = String, required = true, example = "con_1nQv8ZpXr3TyLk5bW0cMd7Hs", pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub contact_id: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActivityListParams {
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
    /// open, closed or pending, or several separated by commas (`open,pending`).
    #[param(value_type = Option<String>, pattern = r"^(open|closed|pending)(,(open|closed|pending))*$", example = "open,pending")]
    pub status: Option<String>,
    /// A tag id: only activities with that tag.
    #[param(pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub tag: Option<String>,
    /// A piece of the contact's name (any case) or, with 3+ digits, of a phone number: 1–100 characters, none a control character.
    #[param(min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    pub search: Option<String>,
    /// A user id (1–128 characters): only that user's activities; `none`: only unassigned ones;
    /// `me`: the signed-in member's (in a member's session).
    #[param(
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "none"
    )]
    pub assigned_to: Option<String>,
    /// Only activities whose contact has a channel of this type.
    #[param(value_type = Option<ChannelTypeName>)]
    pub channel_type: Option<String>,
    /// `true`: only activities with unread inbound messages (`unread_count` > 0); `false`: only those without.
    #[param(value_type = Option<bool>)]
    pub unread: Option<String>,
    /// RFC 3339: only activities updated after this time (`updated_at` later than it).
    #[param(value_type = Option<String>, format = DateTime, example = "2026-11-21T10:00:00Z")]
    pub since: Option<String>,
}

impl From<ActivityListParams> for parley_domain::services::ActivityListQuery {
    fn from(q: ActivityListParams) -> Self {
        Self {
            status: q.status,
            tag: q.tag,
            search: q.search,
            assigned_to: q.assigned_to,
            channel_type: q.channel_type,
            unread: q.unread,
            since: q.since,
            limit: q.limit,
            offset: q.offset,
            me: None,
        }
    }
}

/// Only the fields sent change; `assigned_to: null` unassigns.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateActivity {
    /// open, closed or pending; any move is allowed. Cannot be null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = ActivityStatusName, required = false)]
    pub status: Option<Option<String>>,
    /// One of the agent's member ids (`usr_…`), `me` (the signed-in member, in a member's
    /// session), another user id of 1–128 characters, or null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 128, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub assigned_to: Option<Option<String>>,
    /// Renames the contact: 1–256 characters, cannot be null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub profile_name: Option<Option<String>>,
    /// With `assigned_to`: assign only if nobody has the activity (409 otherwise), so two
    /// people cannot take one conversation.
    pub if_unassigned: Option<bool>,
}

impl From<UpdateActivity> for ActivityPatchInput {
    fn from(b: UpdateActivity) -> Self {
        Self {
            status: Patch::from_double_option(b.status),
            assigned_to: Patch::from_double_option(b.assigned_to),
            profile_name: Patch::from_double_option(b.profile_name),
            if_unassigned: b.if_unassigned,
            me: None,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachTags {
    /// 1–50 tag ids of this agent; already attached ones are left as they are.
    #[schema(value_type = Vec<IdText>, required = true, min_items = 1, max_items = 50)]
    pub tag_ids: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DetachTagParams {
    /// The tag to remove.
    #[param(required = true, min_length = 1, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    pub tag_id: Option<String>,
}
