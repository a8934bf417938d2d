//! `MessageRepository`: an activity's timeline. A message's content is stored as one JSON text
//! column (`MessageContent::to_json`); its insert also keeps the activity's `updated_at` (with
//! its mirrors), `message_count` and `last_message_*` columns, in the same transaction.

use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{MessageRepository, StoreResult};

use super::activities::{count_status, mirror_updated_at};
use super::activity_search::mirror_to_terms;
use crate::Store;
use crate::dsl;
use crate::error::DbError;
use crate::locks::status_move;
use crate::pool::{in_transaction, read_conn, read_direct, run};
use crate::prepared::Prepare;
use crate::repos::contacts::write_channel_update;
use crate::repos::events::emit_all;
use crate::repos::first_response::{ClockColumns, ClockMove};
use crate::repos::reports::record_report;
use crate::repos::scheduled::insert_scheduled_send;
use crate::rows::{from_millis, millis, opt_from_millis, valid};
use crate::schema::{activities, activity_tags, carts, messages};

/// A stored message. `type` and `text` are left out: both derive from `content`.
#[derive(Queryable, Selectable)]
#[diesel(table_name = messages)]
pub(crate) struct MessageRow {
    id: String,
    agent_id: String,
    activity_id: String,
    direction: String,
    content: String,
    reply_to: Option<String>,
    platform_message_id: Option<String>,
    channel_type: String,
    channel_id: String,
    line_id: Option<String>,
    status: String,
    error_message: Option<String>,
    template_id: Option<String>,
    campaign_key: Option<String>,
    cart_code: Option<String>,
    referral: Option<String>,
    created_at: i64,
    sent_at: Option<i64>,
    delivered_at: Option<i64>,
    read_at: Option<i64>,
    updated_at: i64,
    deleted_at: Option<i64>,
    pricing: Option<String>,
    send_at: Option<i64>,
}

impl MessageRow {
    pub(crate) fn into_domain(self) -> Result<Message, DbError> {
        let corrupt = |what: &str, e: &dyn std::fmt::Display| DbError::Corrupt(format!("{what} of message {}: {e}", self.id));
        let content = MessageContent::from_json_text(&self.content).map_err(|e| corrupt("content", &e))?;
        let referral = self.referral.as_deref().map(serde_json::from_str).transpose().map_err(|e| corrupt("referral", &e))?;
        let pricing = match self.pricing.as_deref() {
            Some(text) => {
                let value: serde_json::Value = serde_json::from_str(text).map_err(|e| corrupt("pricing", &e))?;
                Some(Pricing::from_json(&value).ok_or_else(|| corrupt("pricing", &text))?)
            }
            None => None,
        };
        let cart_code = match &self.cart_code {
            Some(code) => Some(CartCode::parse(code).ok_or_else(|| corrupt("cart_code", code))?),
            None => None,
        };
        Ok(Message {
            direction: valid(MessageDirection::parse(&self.direction))?,
            content,
            reply_to: self.reply_to.map(MessageId::new),
            platform_message_id: self.platform_message_id,
            channel: Channel::from_stored(valid(ChannelType::parse(&self.channel_type))?, self.channel_id),
            line_id: self.line_id.map(LineId::new),
            status: valid(MessageStatus::parse(&self.status))?,
            error_message: self.error_message,
            template_id: self.template_id.map(TemplateId::new),
            campaign_key: self.campaign_key.map(|k| valid(CampaignKey::new(&k))).transpose()?,
            cart_code,
            referral,
            pricing,
            created_at: from_millis(self.created_at)?,
            sent_at: opt_from_millis(self.sent_at)?,
            send_at: opt_from_millis(self.send_at)?,
            delivered_at: opt_from_millis(self.delivered_at)?,
            read_at: opt_from_millis(self.read_at)?,
            deleted_at: opt_from_millis(self.deleted_at)?,
            updated_at: from_millis(self.updated_at)?,
            id: MessageId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            activity_id: ActivityId::new(self.activity_id),
        })
    }
}

/// One page of an activity's messages, newest first, with its total under the same filter, run
/// as `$mode` says (see [`run!`]): `None` when the activity is not the agent's. Without `since`
/// the total is the activity's kept `message_count`, read with the ownership check; with it, the
/// changed messages are counted. Two fixed shapes, never boxed.
macro_rules! page_of_messages {
    ($mode:ident, $conn:ident, $agent:ident, $activity:ident, $since:ident, $page:ident) => {{
        let (agent, activity, since, page): (&str, &str, Option<i64>, PageRequest) = ($agent.as_str(), $activity.as_str(), $since, $page);
        let kept_count = activities::table.filter(activities::id.eq(activity)).filter(activities::agent_id.eq(agent));
        let kept_count: Option<i64> = run!($mode, optional, $conn, kept_count.select(activities::message_count));
        let timeline = || messages::table.filter(messages::activity_id.eq(activity)).filter(messages::agent_id.eq(agent));
        let newest_first = (messages::created_at.desc(), messages::id.desc());
        let (limit, offset) = (i64::from(page.limit()), page.offset() as i64);
        let loaded: Option<(i64, Vec<MessageRow>)> = match (kept_count, since) {
            (None, _) => None,
            (Some(_), Some(since)) => {
                let changed = || timeline().filter(messages::updated_at.gt(since));
                let total = run!($mode, one, $conn, changed().count());
                let rows =
                    run!($mode, load, $conn, changed().order(newest_first).limit(limit).offset(offset).select(MessageRow::as_select()));
                Some((total, rows))
            }
            (Some(total), None) => {
                let rows =
                    run!($mode, load, $conn, timeline().order(newest_first).limit(limit).offset(offset).select(MessageRow::as_select()));
                Some((total, rows))
            }
        };
        loaded
    }};
}

/// What an activity holds before a message joins it: status, `last_inbound_at`, its last
/// message's `created_at` and id, whether it has tags (whose rows copy its `updated_at`), and
/// its assignee (whether it is unassigned, its status's kept counts say so; reports count under
/// it), and its first-response clock.
pub(crate) type ActivityBefore = (String, Option<i64>, Option<i64>, Option<String>, bool, Option<String>, ClockColumns);

/// What a stored message changes on its activity, beside `updated_at` and the count.
pub(crate) struct Moved<'a> {
    /// An inbound message reopens the activity; an outbound one leaves its status.
    pub(crate) status: &'a str,
    /// Raised to an inbound message's `created_at` when later, never lowered: deliveries of one
    /// contact may be processed out of order, or at once by several instances.
    pub(crate) last_inbound_at: Option<i64>,
    /// Whether the message is the activity's newest (by `created_at`, then id), and so its
    /// `last_message`: a late, older one joins the timeline without replacing it.
    pub(crate) newest: bool,
}

impl<'a> Moved<'a> {
    pub(crate) fn by(before: &'a ActivityBefore, m: &Message) -> Self {
        let (status, last_inbound_at, last_at, last_id, _, _, _) = before;
        let created = millis(m.created_at);
        let newest = match last_at {
            None => true,
            Some(at) => *at < created || (*at == created && last_id.as_deref().is_some_and(|id| id < m.id.as_str())),
        };
        // A scheduled message has not gone out: it becomes the last message when it does.
        let newest = newest && m.status != MessageStatus::Scheduled;
        match m.direction {
            MessageDirection::Inbound => Self {
                status: ActivityStatus::Open.as_str(),
                last_inbound_at: Some(last_inbound_at.map_or(created, |l| l.max(created))),
                newest,
            },
            // The business's messages and its team's notes leave status and window as they are.
            MessageDirection::Outbound | MessageDirection::Internal => Self { status, last_inbound_at: *last_inbound_at, newest },
        }
    }
}

/// The read of what the agent's activity `id` holds before a message joins it
/// ([`ActivityBefore`]).
#[auto_type(dsl_path = "crate::dsl")]
fn before_of<'a>(agent: &'a str, id: &'a str) -> _ {
    activities::table.filter(activities::agent_id.eq(agent)).filter(activities::id.eq(id)).select((
        activities::status,
        activities::last_inbound_at,
        activities::last_message_at,
        activities::last_message_id,
        dsl::exists(activity_tags::table.filter(activity_tags::activity_id.eq(activities::id))),
        activities::assigned_to,
        (
            activities::first_response_opened_at,
            activities::first_response_due_at,
            activities::first_responded_at,
            activities::first_response_missed_at,
        ),
    ))
}

/// The assignee the lock read: who reports count the message under.
pub(crate) fn assignee_of(before: &ActivityBefore) -> Result<Option<Assignee>, DbError> {
    before.5.as_deref().map(|a| Assignee::new(a).map_err(|e| DbError::Corrupt(format!("assignee {a:?}: {}", e.issue)))).transpose()
}

/// Locks the agent's activity for a message's insert and reads what it holds before: `None`
/// when the agent has no such activity.
pub(crate) trait LockForMessage {
    async fn lock_for_message(&mut self, agent: &str, activity: &str) -> Result<Option<ActivityBefore>, DbError>;
}

#[cfg(feature = "postgres")]
impl LockForMessage for crate::pool::PgConn {
    async fn lock_for_message(&mut self, agent: &str, activity: &str) -> Result<Option<ActivityBefore>, DbError> {
        // The lock the update that follows takes anyway, taken without writing a row version
        // (the no-op update this replaces wrote a tuple and its WAL record, later pruned).
        Ok(before_of(agent, activity).for_no_key_update().get_result(self).await.optional()?)
    }
}

#[cfg(feature = "sqlite")]
impl LockForMessage for crate::pool::SqliteWriteConn {
    async fn lock_for_message(&mut self, agent: &str, activity: &str) -> Result<Option<ActivityBefore>, DbError> {
        // Write transactions run one at a time (`BEGIN IMMEDIATE`): a read is enough.
        Ok(before_of(agent, activity).get_result(self).await.optional()?)
    }
}

impl Store {
    /// `MessageRepository::insert`, with what the message taught of its contact when `update`
    /// is given (`insert_learning`).
    ///
    /// A scheduled message's `send` is stored with it, in the same transaction.
    pub(crate) async fn insert_message(
        &self,
        m: &Message,
        update: Option<&ChannelUpdate>,
        events: &[Event],
        send: Option<&ScheduledSend>,
        mark: ResponseMark,
    ) -> StoreResult<bool> {
        let content = m.content.to_json().to_string();
        let referral = m.referral.as_ref().map(serde_json::Value::to_string);
        let pricing = m.pricing.as_ref().map(|p| p.to_json().to_string());
        let summary = MessageSummary::of(m);
        let (agent, activity, created) = (m.agent_id.as_str(), m.activity_id.as_str(), millis(m.created_at));
        let values = (
            (
                messages::id.eq(m.id.as_str()),
                messages::agent_id.eq(agent),
                messages::activity_id.eq(activity),
                messages::direction.eq(m.direction.as_str()),
                messages::message_type.eq(m.message_type().as_str()),
                messages::content.eq(&content),
                messages::text.eq(m.text()),
                messages::reply_to.eq(m.reply_to.as_ref().map(MessageId::as_str)),
                messages::platform_message_id.eq(m.platform_message_id.as_deref()),
                messages::channel_type.eq(m.channel.channel_type().as_str()),
                messages::channel_id.eq(m.channel.channel_id()),
                messages::line_id.eq(m.line_id.as_ref().map(LineId::as_str)),
            ),
            (
                messages::status.eq(m.status.as_str()),
                messages::error_message.eq(m.error_message.as_deref()),
                messages::template_id.eq(m.template_id.as_ref().map(TemplateId::as_str)),
                messages::campaign_key.eq(m.campaign_key.as_ref().map(CampaignKey::as_str)),
                messages::cart_code.eq(m.cart_code.as_ref().map(CartCode::as_str)),
                messages::referral.eq(referral.as_deref()),
                messages::created_at.eq(created),
                messages::sent_at.eq(m.sent_at.map(millis)),
                messages::delivered_at.eq(m.delivered_at.map(millis)),
                messages::read_at.eq(m.read_at.map(millis)),
                messages::updated_at.eq(millis(m.updated_at)),
                messages::deleted_at.eq(m.deleted_at.map(millis)),
                messages::pricing.eq(pricing.as_deref()),
                messages::send_at.eq(m.send_at.map(millis)),
            ),
        );
        let stored = in_transaction!(self, |conn| {
            // What the message taught of its contact first: the contact's row comes before the
            // activity's in the lock order. In a savepoint, so that losing its compare-and-set,
            // or finding the phone or user id another contact's, undoes it alone.
            if let Some(update) = update {
                let made = conn
                    .transaction::<_, DbError, _>(async |c| {
                        write_channel_update!(c, &update.contact, &update.before, &update.after, &update.events)
                    })
                    .await;
                match made {
                    Ok(_) | Err(DbError::Query(diesel::result::Error::RollbackTransaction)) => {}
                    Err(e) if e.is_conflict() => {
                        tracing::warn!(contact = %update.contact.id.as_str(), error = %e,
                            "a message named the contact by a phone or user id another contact has; both kept as they are");
                    }
                    Err(e) => return Err(e),
                }
            }
            // The activity first, locked (lock order step 3; the message hangs off it, step 4),
            // which also checks whose it is and returns what the message moves.
            // Not the agent's: nothing stored, what the message taught rolled back with it.
            let Some(before) = conn.lock_for_message(agent, activity).await? else {
                return if update.is_some() { Err(DbError::Query(diesel::result::Error::RollbackTransaction)) } else { Ok(None) };
            };
            // A platform message id the agent already has: the platform delivered it again.
            let inserted = diesel::insert_into(messages::table)
                .values(values)
                .on_conflict((messages::agent_id, messages::platform_message_id))
                .do_nothing()
                .execute(conn)
                .await?;
            if inserted == 0 {
                return Ok(Some(false));
            }
            if let Some(send) = send {
                insert_scheduled_send!(conn, send);
            }
            emit_all!(conn, events);
            let moved = Moved::by(&before, m);
            let clock = ClockMove::of(&before, mark, m.created_at)?;
            let member = assignee_of(&before)?;
            record_report!(conn, agent, activity, ReportFacts::of_message(m, &clock.before, &clock.after, member.as_ref()));
            let at = millis(m.updated_at);
            let unread = i64::from(m.direction == MessageDirection::Inbound);
            let last_message = moved.newest.then_some((
                activities::last_message_id.eq(m.id.as_str()),
                activities::last_message_direction.eq(summary.direction.as_str()),
                activities::last_message_type.eq(summary.message_type.as_str()),
                activities::last_message_text.eq(summary.text.as_deref()),
                activities::last_message_at.eq(created),
            ));
            diesel::update(activities::table.filter(activities::id.eq(activity)))
                .set((
                    activities::updated_at.eq(at),
                    activities::message_count.eq(activities::message_count + 1),
                    activities::unread_count.eq(activities::unread_count + unread),
                    activities::status.eq(moved.status),
                    activities::last_inbound_at.eq(moved.last_inbound_at),
                    last_message,
                    clock.write(),
                ))
                .prepared()
                .execute(conn)
                .await?;
            // Most conversations carry no tag: no statement for their (absent) tag rows. The
            // activity's lock keeps its links as they are until this commits (lock order).
            if before.4 {
                mirror_updated_at(activity, m.updated_at).execute(conn).await?;
            }
            if moved.status != before.0 {
                mirror_to_terms(activity, moved.status).execute(conn).await?;
                for (status, delta) in status_move(&before.0, moved.status) {
                    count_status!(conn, agent, activity, status, delta, before.5.is_none());
                }
            }
            Ok(Some(true))
        });
        let stored = match stored {
            Err(DbError::Query(diesel::result::Error::RollbackTransaction)) => None,
            other => other?,
        };
        stored.ok_or(StoreError::NotFound("activity"))
    }
}

/// The carts an activity's messages name, newest first: from the activity's messages that
/// carry a code (the `messages_carts` partial index) to each cart by its key. A join, so SQLite's
/// planner does not walk every cart of the agent (by `carts_agent`) to test it against the
/// codes, as it did for `code IN (subquery)`; a statement of fixed shape (`read_direct!`), as a
/// get's others are, since every activity's detail runs it.
macro_rules! carts_of_activity {
    ($mode:ident, $conn:ident, $agent:ident, $activity:ident) => {{
        let rows: Vec<(String, i64)> = run!(
            $mode,
            load,
            $conn,
            messages::table
                .inner_join(carts::table.on(carts::code.nullable().eq(messages::cart_code)))
                .filter(messages::activity_id.eq($activity.as_str()))
                .filter(messages::agent_id.eq($agent.as_str()))
                .filter(messages::cart_code.is_not_null())
                .filter(carts::agent_id.eq($agent.as_str()))
                .select((carts::code, carts::created_at))
                .distinct()
                .order((carts::created_at.desc(), carts::code.desc()))
        );
        rows
    }};
}

#[async_trait]
impl MessageRepository for Store {
    async fn insert(&self, m: &Message, events: &[Event]) -> StoreResult<bool> {
        self.insert_message(m, None, events, None, ResponseMark::Nothing).await
    }

    async fn insert_learning(&self, m: &Message, update: &ChannelUpdate, events: &[Event]) -> StoreResult<bool> {
        self.insert_message(m, Some(update), events, None, ResponseMark::Nothing).await
    }

    async fn insert_marked<'a>(
        &self,
        m: &Message,
        update: Option<&'a ChannelUpdate>,
        mark: ResponseMark,
        events: &[Event],
    ) -> StoreResult<bool> {
        self.insert_message(m, update, events, None, mark).await
    }

    async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> StoreResult<Option<Message>> {
        let row = read_conn!(self, |conn| messages::table
            .filter(messages::id.eq(id.as_str()))
            .filter(messages::agent_id.eq(agent.as_str()))
            .filter(messages::activity_id.eq(activity.as_str()))
            .select(MessageRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(MessageRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId, activity: &ActivityId, filter: MessageFilter, page: PageRequest) -> StoreResult<Page<Message>> {
        let (agent, activity, since) = (agent.as_str().to_string(), activity.as_str().to_string(), filter.since.map(millis));
        // The ownership check, the total and the page read one snapshot (SQLite).
        let loaded = read_direct!(self, page_of_messages!(agent, activity, since, page))?;
        let (total, rows) = loaded.ok_or(StoreError::NotFound("activity"))?;
        let items = rows.into_iter().map(MessageRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn find_by_platform_id(&self, agent: &AgentId, platform_message_id: &str) -> StoreResult<Option<Message>> {
        let row = read_conn!(self, |conn| messages::table
            .filter(messages::agent_id.eq(agent.as_str()))
            .filter(messages::platform_message_id.eq(platform_message_id))
            .select(MessageRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(MessageRow::into_domain).transpose()?)
    }

    async fn update_status(&self, m: &Message, expected: MessageStatus, events: &[Event]) -> StoreResult<bool> {
        // What the platform reports about a message, nothing else: its content never changes.
        let pricing = m.pricing.as_ref().map(|p| p.to_json().to_string());
        let changes = (
            messages::platform_message_id.eq(m.platform_message_id.as_deref()),
            messages::status.eq(m.status.as_str()),
            messages::sent_at.eq(m.sent_at.map(millis)),
            messages::delivered_at.eq(m.delivered_at.map(millis)),
            messages::read_at.eq(m.read_at.map(millis)),
            messages::error_message.eq(m.error_message.as_deref()),
            messages::pricing.eq(pricing.as_deref()),
            messages::updated_at.eq(millis(m.updated_at)),
        );
        let moved = in_transaction!(self, |conn| {
            let n = diesel::update(
                messages::table
                    .filter(messages::id.eq(m.id.as_str()))
                    .filter(messages::agent_id.eq(m.agent_id.as_str()))
                    .filter(messages::status.eq(expected.as_str())),
            )
            .set(changes)
            .prepared()
            .execute(conn)
            .await?;
            if n > 0 {
                emit_all!(conn, events);
            }
            Ok(n > 0)
        })?;
        Ok(moved)
    }

    async fn find_by_id(&self, agent: &AgentId, id: &MessageId) -> StoreResult<Option<Message>> {
        let row = read_conn!(self, |conn| messages::table
            .filter(messages::id.eq(id.as_str()))
            .filter(messages::agent_id.eq(agent.as_str()))
            .select(MessageRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(MessageRow::into_domain).transpose()?)
    }

    async fn remove_sending(&self, m: &Message, activity_updated_at: Timestamp) -> StoreResult<bool> {
        let (agent, activity, id) = (m.agent_id.as_str(), m.activity_id.as_str(), m.id.as_str());
        let (inserted_at, restored_at) = (millis(m.updated_at), millis(activity_updated_at));
        let removed = in_transaction!(self, |conn| {
            // The activity first, locked, as for an insert (lock order step 3, then its message).
            let Some(before) = conn.lock_for_message(agent, activity).await? else { return Ok(false) };
            let deleted = diesel::delete(
                messages::table
                    .filter(messages::id.eq(id))
                    .filter(messages::agent_id.eq(agent))
                    .filter(messages::status.eq(MessageStatus::Sending.as_str())),
            )
            .execute(conn)
            .await?;
            if deleted == 0 {
                return Ok(false);
            }
            let this_activity = || activities::table.filter(activities::id.eq(activity));
            diesel::update(this_activity()).set(activities::message_count.eq(activities::message_count - 1)).execute(conn).await?;
            if before.3.as_deref() == Some(id) {
                let newest: Option<MessageRow> = messages::table
                    .filter(messages::activity_id.eq(activity))
                    .filter(messages::agent_id.eq(agent))
                    .order((messages::created_at.desc(), messages::id.desc()))
                    .select(MessageRow::as_select())
                    .first(conn)
                    .await
                    .optional()?;
                let summary = newest.map(MessageRow::into_domain).transpose()?.as_ref().map(MessageSummary::of);
                diesel::update(this_activity())
                    .set((
                        activities::last_message_id.eq(summary.as_ref().map(|s| s.id.as_str())),
                        activities::last_message_direction.eq(summary.as_ref().map(|s| s.direction.as_str())),
                        activities::last_message_type.eq(summary.as_ref().map(|s| s.message_type.as_str())),
                        activities::last_message_text.eq(summary.as_ref().and_then(|s| s.text.as_deref())),
                        activities::last_message_at.eq(summary.as_ref().map(|s| millis(s.created_at))),
                    ))
                    .execute(conn)
                    .await?;
            }
            // Back to before the insert, unless another change moved it since.
            let restored = diesel::update(this_activity().filter(activities::updated_at.eq(inserted_at)))
                .set(activities::updated_at.eq(restored_at))
                .execute(conn)
                .await?;
            if restored > 0 && before.4 {
                mirror_updated_at(activity, activity_updated_at).execute(conn).await?;
            }
            Ok(true)
        })?;
        Ok(removed)
    }

    async fn last_inbound(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Option<Message>> {
        let row = read_conn!(self, |conn| messages::table
            .filter(messages::activity_id.eq(activity.as_str()))
            .filter(messages::direction.eq(MessageDirection::Inbound.as_str()))
            .filter(messages::agent_id.eq(agent.as_str()))
            .order((messages::created_at.desc(), messages::id.desc()))
            .select(MessageRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(MessageRow::into_domain).transpose()?)
    }

    async fn unread_outbound(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        line: &LineId,
        up_to: Timestamp,
        limit: u32,
    ) -> StoreResult<Vec<Message>> {
        let unread = [MessageStatus::Sent.as_str(), MessageStatus::Delivered.as_str()];
        let rows = read_conn!(self, |conn| messages::table
            .filter(messages::activity_id.eq(activity.as_str()))
            .filter(messages::agent_id.eq(agent.as_str()))
            .filter(messages::direction.eq(MessageDirection::Outbound.as_str()))
            .filter(messages::line_id.eq(line.as_str()))
            .filter(messages::status.eq_any(unread))
            .filter(messages::created_at.le(millis(up_to)))
            .order((messages::created_at.asc(), messages::id.asc()))
            .limit(i64::from(limit))
            .select(MessageRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(MessageRow::into_domain).collect::<Result<_, _>>()?)
    }

    async fn mark_deleted(&self, m: &Message, events: &[Event]) -> StoreResult<bool> {
        let (deleted_at, updated_at) = (m.deleted_at.map(millis), millis(m.updated_at));
        let marked = in_transaction!(self, |conn| {
            let n = diesel::update(
                messages::table
                    .filter(messages::id.eq(m.id.as_str()))
                    .filter(messages::agent_id.eq(m.agent_id.as_str()))
                    .filter(messages::deleted_at.is_null()),
            )
            .set((messages::deleted_at.eq(deleted_at), messages::updated_at.eq(updated_at)))
            .execute(conn)
            .await?;
            if n == 1 {
                emit_all!(conn, events);
            }
            Ok(n == 1)
        })?;
        Ok(marked)
    }

    async fn pricing_counts(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<Vec<(Pricing, u64)>> {
        // Grouped by the stored document: a few distinct texts (a category, billed or free),
        // read by `messages_campaign_pricing` alone.
        let rows: Vec<(Option<String>, i64)> = read_conn!(self, |conn| messages::table
            .filter(messages::agent_id.eq(agent.as_str()))
            .filter(messages::campaign_key.eq(key.as_str()))
            .filter(messages::pricing.is_not_null())
            .group_by(messages::pricing)
            .select((messages::pricing, diesel::dsl::count_star()))
            .load(conn)
            .await
            .map_err(DbError::from))?;
        let mut counts: Vec<(Pricing, u64)> = Vec::with_capacity(rows.len());
        for (text, n) in rows {
            let Some(text) = text else { continue };
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| DbError::Corrupt(format!("pricing {text:?}: {e}")))?;
            let pricing = Pricing::from_json(&value).ok_or_else(|| DbError::Corrupt(format!("pricing {text:?}")))?;
            // Two texts of one pricing (written by another serializer) count as one.
            match counts.iter_mut().find(|(p, _)| *p == pricing) {
                Some((_, total)) => *total += n as u64,
                None => counts.push((pricing, n as u64)),
            }
        }
        Ok(counts)
    }

    async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Vec<CartMention>> {
        let (agent, activity) = (agent.as_str().to_string(), activity.as_str().to_string());
        let rows: Vec<(String, i64)> = read_direct!(self, single, carts_of_activity!(agent, activity))?;
        let mentions = rows
            .into_iter()
            .map(|(code, created_at)| {
                let code = CartCode::parse(&code).ok_or_else(|| DbError::Corrupt(format!("cart code {code:?}")))?;
                Ok(CartMention { code, created_at: from_millis(created_at)? })
            })
            .collect::<Result<_, DbError>>()?;
        Ok(mentions)
    }
}
