//! Events and their outbox (`events`, `event_deliveries`). [`emit!`] writes an event and one
//! delivery, due at once, per endpoint subscribed to its type, inside the caller's transaction:
//! the transaction that makes a change emits its event, so a rollback emits nothing and a
//! commit loses nothing.

use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{EventRepository, StoreResult};

use super::webhook_endpoints::EndpointRow;
use crate::Store;
use crate::dsl;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn};
use crate::rows::{from_millis, millis, opt_from_millis};
use crate::schema::{delivery_attempts, event_deliveries, events, webhook_endpoints};

/// Writes `$event` (`&Event`) and its deliveries: to `$only` (`Option<&EndpointId>`) alone
/// when given, else to each of its agent's enabled endpoints subscribed to its type; run in the
/// transaction that makes the change the event reports.
macro_rules! emit {
    ($conn:expr, $event:expr, $only:expr) => {{
        use diesel::IntoSql as _;
        let event: &parley_domain::model::Event = $event;
        let only: Option<&parley_domain::model::EndpointId> = $only;
        let at = crate::rows::millis(event.created_at);
        diesel::insert_into(crate::schema::events::table)
            .values((
                crate::schema::events::id.eq(event.id.as_str()),
                crate::schema::events::agent_id.eq(event.agent_id.as_str()),
                crate::schema::events::event_type.eq(event.event_type.as_str()),
                crate::schema::events::body.eq(event.to_stored()),
                crate::schema::events::created_at.eq(at),
            ))
            .execute($conn)
            .await?;
        crate::repos::rule_queue::queue_for_rules!($conn, event, at);
        let columns = (
            crate::schema::event_deliveries::event_id,
            crate::schema::event_deliveries::endpoint_id,
            crate::schema::event_deliveries::agent_id,
            crate::schema::event_deliveries::event_created_at,
            crate::schema::event_deliveries::attempts,
            crate::schema::event_deliveries::next_attempt_at,
        );
        let fields = (
            event.id.as_str().into_sql::<diesel::sql_types::Text>(),
            crate::schema::webhook_endpoints::id,
            crate::schema::webhook_endpoints::agent_id,
            at.into_sql::<diesel::sql_types::BigInt>(),
            0.into_sql::<diesel::sql_types::Integer>(),
            Some(at).into_sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(),
        );
        let of_agent =
            crate::schema::webhook_endpoints::table.filter(crate::schema::webhook_endpoints::agent_id.eq(event.agent_id.as_str()));
        match only {
            Some(endpoint) => {
                of_agent
                    .filter(crate::schema::webhook_endpoints::id.eq(endpoint.as_str()))
                    .select(fields)
                    .insert_into(crate::schema::event_deliveries::table)
                    .into_columns(columns)
                    .execute($conn)
                    .await?
            }
            None => {
                let subscribed = format!("%,{},%", event.event_type.as_str());
                of_agent
                    .filter(crate::schema::webhook_endpoints::disabled_at.is_null())
                    .filter(crate::schema::webhook_endpoints::events.eq("*").or(crate::schema::webhook_endpoints::events.like(subscribed)))
                    .select(fields)
                    .insert_into(crate::schema::event_deliveries::table)
                    .into_columns(columns)
                    .execute($conn)
                    .await?
            }
        }
    }};
}

/// [`emit!`] for each of `$events` (`&[Event]`), in the caller's transaction: what every
/// change's writer runs once its change is made.
macro_rules! emit_all {
    ($conn:expr, $events:expr) => {{
        for event in $events {
            crate::repos::events::emit!($conn, event, None);
        }
    }};
}

pub(crate) use {emit, emit_all};

/// The (event, endpoint) keys of the oldest deliveries due by `now`, at most `limit`, of
/// endpoints neither disabled nor with their breaker open.
#[auto_type(dsl_path = "crate::dsl")]
fn due_keys(now: i64, limit: i64) -> _ {
    event_deliveries::table
        .filter(event_deliveries::next_attempt_at.le(now))
        // A subquery, so a PostgreSQL claim locks delivery rows alone, never endpoints.
        .filter(dsl::not(
            event_deliveries::endpoint_id.eq_any(
                webhook_endpoints::table
                    .filter(webhook_endpoints::disabled_at.is_not_null().or(webhook_endpoints::paused_until.gt(now)))
                    .select(webhook_endpoints::id),
            ),
        ))
        .order((event_deliveries::event_created_at.asc(), event_deliveries::event_id.asc(), event_deliveries::endpoint_id.asc()))
        .limit(limit)
        .select((event_deliveries::event_id, event_deliveries::endpoint_id))
}

/// The keys a claim takes, read in the claiming transaction.
trait DueKeys {
    /// Of every endpoint, or of `endpoint` alone.
    async fn due_keys(&mut self, now: i64, limit: i64, endpoint: Option<&str>) -> Result<Vec<(String, String)>, DbError>;
}

#[cfg(feature = "postgres")]
impl DueKeys for crate::pool::PgConn {
    async fn due_keys(&mut self, now: i64, limit: i64, endpoint: Option<&str>) -> Result<Vec<(String, String)>, DbError> {
        // Rows another process is claiming right now are passed over, not waited for.
        Ok(match endpoint {
            Some(e) => due_keys(now, limit).filter(event_deliveries::endpoint_id.eq(e)).for_update().skip_locked().load(self).await?,
            None => due_keys(now, limit).for_update().skip_locked().load(self).await?,
        })
    }
}

#[cfg(feature = "sqlite")]
impl DueKeys for crate::pool::SqliteWriteConn {
    async fn due_keys(&mut self, now: i64, limit: i64, endpoint: Option<&str>) -> Result<Vec<(String, String)>, DbError> {
        // Write transactions run one at a time: nobody claims between this read and the update.
        Ok(match endpoint {
            Some(e) => due_keys(now, limit).filter(event_deliveries::endpoint_id.eq(e)).load(self).await?,
            None => due_keys(now, limit).load(self).await?,
        })
    }
}

impl Store {
    /// [`EventRepository::claim_due`], of every endpoint or of one.
    async fn claim(&self, now: Timestamp, until: Timestamp, limit: u32, endpoint: Option<&str>) -> StoreResult<Vec<DueDelivery>> {
        let (now, until, limit) = (millis(now), millis(until), i64::from(limit));
        type Row = (i64, String, String, i32, EndpointRow);
        let mut rows: Vec<Row> = in_transaction!(self, |conn| {
            let keys = conn.due_keys(now, limit, endpoint).await?;
            // Two statements per endpoint (a worker claims one endpoint at a time), not per key.
            let mut by_endpoint: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
            for (event, endpoint) in keys {
                by_endpoint.entry(endpoint).or_default().push(event);
            }
            let mut rows = Vec::new();
            for (endpoint, events) in &by_endpoint {
                let held = || {
                    event_deliveries::table
                        .filter(event_deliveries::endpoint_id.eq(endpoint))
                        .filter(event_deliveries::event_id.eq_any(events))
                };
                diesel::update(held()).set(event_deliveries::next_attempt_at.eq(Some(until))).execute(conn).await?;
                let claimed: Vec<Row> = held()
                    .inner_join(events::table)
                    .inner_join(webhook_endpoints::table)
                    .select((
                        event_deliveries::event_created_at,
                        events::agent_id,
                        events::body,
                        event_deliveries::attempts,
                        EndpointRow::as_select(),
                    ))
                    .load(conn)
                    .await?;
                rows.extend(claimed);
            }
            if let Some(endpoint) = endpoint {
                // Served now, whatever was taken: it goes to the back of the rotation
                // (`due_endpoints`). Last, so a PostgreSQL claim holds the endpoint's row briefly.
                diesel::update(webhook_endpoints::table.filter(webhook_endpoints::id.eq(endpoint)))
                    .set(webhook_endpoints::served_at.eq(now))
                    .execute(conn)
                    .await?;
            }
            Ok(rows)
        })?;
        // Oldest event first, as they were picked.
        rows.sort_by_key(|r| r.0);
        let mut due = Vec::with_capacity(rows.len());
        for (_, agent, body, attempts, endpoint) in rows {
            due.push(DueDelivery {
                event: Event::from_stored(AgentId::new(agent), &body).map_err(DbError::Corrupt)?,
                endpoint: endpoint.into_domain()?,
                attempts: u32::try_from(attempts).map_err(|_| DbError::Corrupt(format!("delivery attempts {attempts}")))?,
            });
        }
        Ok(due)
    }
}

fn to_domain(agent: &AgentId, bodies: Vec<String>) -> Result<Vec<Event>, DbError> {
    bodies.into_iter().map(|body| Event::from_stored(agent.clone(), &body).map_err(DbError::Corrupt)).collect()
}

#[async_trait]
impl EventRepository for Store {
    async fn emit<'a>(&self, event: &Event, only: Option<&'a EndpointId>) -> StoreResult<()> {
        in_transaction!(self, |conn| {
            emit!(conn, event, only);
            Ok(())
        })?;
        Ok(())
    }

    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>> {
        self.claim(now, until, limit, None).await
    }

    async fn claim_due_for(&self, endpoint: &EndpointId, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>> {
        self.claim(now, until, limit, Some(endpoint.as_str())).await
    }

    async fn due_endpoints(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<DueEndpoint>> {
        let now = millis(now);
        let rows: Vec<(String, String, Option<i64>)> = read_conn!(self, |conn| async {
            // Most polls find nothing due: one probe of `event_deliveries_due` answers them,
            // instead of a walk over every enabled endpoint.
            let any_due: bool =
                diesel::select(diesel::dsl::exists(event_deliveries::table.filter(event_deliveries::next_attempt_at.le(now))))
                    .get_result(conn)
                    .await?;
            if !any_due {
                return Ok::<_, DbError>(Vec::new());
            }
            // Walks the enabled endpoints in rotation order (`webhook_endpoints_rotation`), each
            // checked for a due delivery through `event_deliveries_endpoint_due`: the least
            // recently served come first whoever owns them, and the walk stops after `limit` with work.
            Ok(webhook_endpoints::table
                .filter(webhook_endpoints::disabled_at.is_null())
                .filter(webhook_endpoints::paused_until.is_null().or(webhook_endpoints::paused_until.le(now)))
                .filter(diesel::dsl::exists(
                    event_deliveries::table
                        .filter(event_deliveries::endpoint_id.eq(webhook_endpoints::id))
                        .filter(event_deliveries::next_attempt_at.le(now)),
                ))
                .order((webhook_endpoints::served_at.asc(), webhook_endpoints::id.asc()))
                .limit(i64::from(limit))
                .select((webhook_endpoints::id, webhook_endpoints::agent_id, webhook_endpoints::failing_since))
                .load(conn)
                .await?)
        }
        .await)?;
        Ok(rows
            .into_iter()
            .map(|(id, agent, failing_since)| DueEndpoint {
                id: EndpointId::new(id),
                agent_id: AgentId::new(agent),
                failing: failing_since.is_some(),
            })
            .collect())
    }

    async fn record_attempt(&self, attempt: &DeliveryAttempt, until: Timestamp, after: EndpointAfterAttempt) -> StoreResult<bool> {
        let at = millis(attempt.attempted_at);
        let next = attempt.next_attempt_at.map(millis);
        let (delivered_at, given_up_at) = match (attempt.delivered(), next) {
            (true, _) => (Some(at), None),
            (false, None) => (None, Some(at)),
            (false, Some(_)) => (None, None),
        };
        let number = i32::try_from(attempt.attempt).unwrap_or(i32::MAX);
        let recorded = in_transaction!(self, |conn| {
            let held = event_deliveries::table
                .filter(event_deliveries::event_id.eq(attempt.event_id.as_str()))
                .filter(event_deliveries::endpoint_id.eq(attempt.endpoint_id.as_str()))
                .filter(event_deliveries::next_attempt_at.eq(millis(until)));
            let n = diesel::update(held)
                .set((
                    event_deliveries::attempts.eq(number),
                    event_deliveries::next_attempt_at.eq(next),
                    event_deliveries::delivered_at.eq(delivered_at),
                    event_deliveries::given_up_at.eq(given_up_at),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Ok(false);
            }
            diesel::insert_into(delivery_attempts::table)
                .values((
                    delivery_attempts::event_id.eq(attempt.event_id.as_str()),
                    delivery_attempts::endpoint_id.eq(attempt.endpoint_id.as_str()),
                    delivery_attempts::attempt.eq(number),
                    delivery_attempts::attempted_at.eq(at),
                    delivery_attempts::response_status.eq(attempt.response_status.map(i32::from)),
                    delivery_attempts::duration_ms.eq(i64::try_from(attempt.duration_ms).unwrap_or(i64::MAX)),
                    delivery_attempts::error.eq(attempt.error.as_deref()),
                    delivery_attempts::next_attempt_at.eq(next),
                ))
                .execute(conn)
                .await?;
            let endpoint = webhook_endpoints::table.filter(webhook_endpoints::id.eq(attempt.endpoint_id.as_str()));
            match after {
                EndpointAfterAttempt::Unchanged => {}
                EndpointAfterAttempt::Healthy => {
                    diesel::update(
                        endpoint.filter(webhook_endpoints::failing_since.is_not_null().or(webhook_endpoints::paused_until.is_not_null())),
                    )
                    .set((webhook_endpoints::failing_since.eq(None::<i64>), webhook_endpoints::paused_until.eq(None::<i64>)))
                    .execute(conn)
                    .await?;
                }
                EndpointAfterAttempt::Pause(until) => {
                    diesel::update(endpoint).set(webhook_endpoints::paused_until.eq(Some(millis(until)))).execute(conn).await?;
                }
                EndpointAfterAttempt::Failing => {
                    diesel::update(endpoint.filter(webhook_endpoints::failing_since.is_null()))
                        .set(webhook_endpoints::failing_since.eq(Some(at)))
                        .execute(conn)
                        .await?;
                }
                EndpointAfterAttempt::Disable => {
                    diesel::update(endpoint.filter(webhook_endpoints::disabled_at.is_null()))
                        .set((
                            webhook_endpoints::disabled_at.eq(Some(at)),
                            webhook_endpoints::disabled_reason.eq(Some(DisabledReason::Failing.as_str())),
                        ))
                        .execute(conn)
                        .await?;
                }
            }
            Ok(true)
        })?;
        Ok(recorded)
    }

    async fn attempts(&self, agent: &AgentId, endpoint: &EndpointId, page: PageRequest) -> StoreResult<Page<DeliveryAttempt>> {
        type Row = (String, String, i32, i64, Option<i32>, i64, Option<String>, Option<i64>);
        let loaded: Option<(i64, Vec<Row>)> = read_conn!(self, |conn| async {
            let known: i64 = webhook_endpoints::table
                .filter(webhook_endpoints::agent_id.eq(agent.as_str()))
                .filter(webhook_endpoints::id.eq(endpoint.as_str()))
                .count()
                .get_result(conn)
                .await?;
            if known == 0 {
                return Ok::<_, DbError>(None);
            }
            let of_endpoint = delivery_attempts::table.filter(delivery_attempts::endpoint_id.eq(endpoint.as_str()));
            let total: i64 = of_endpoint.count().get_result(conn).await?;
            let rows: Vec<Row> = of_endpoint
                .order((delivery_attempts::attempted_at.desc(), delivery_attempts::event_id.desc(), delivery_attempts::attempt.desc()))
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select((
                    delivery_attempts::event_id,
                    delivery_attempts::endpoint_id,
                    delivery_attempts::attempt,
                    delivery_attempts::attempted_at,
                    delivery_attempts::response_status,
                    delivery_attempts::duration_ms,
                    delivery_attempts::error,
                    delivery_attempts::next_attempt_at,
                ))
                .load(conn)
                .await?;
            Ok::<_, DbError>(Some((total, rows)))
        }
        .await)?;
        let (total, rows) = loaded.ok_or(StoreError::NotFound("webhook endpoint"))?;
        let corrupt = |what: &str| DbError::Corrupt(format!("delivery attempt {what}"));
        let mut items = Vec::with_capacity(rows.len());
        for (event, endpoint, attempt, at, status, duration, error, next) in rows {
            items.push(DeliveryAttempt {
                event_id: EventId::new(event),
                endpoint_id: EndpointId::new(endpoint),
                attempt: u32::try_from(attempt).map_err(|_| corrupt("number"))?,
                attempted_at: from_millis(at)?,
                response_status: status.map(u16::try_from).transpose().map_err(|_| corrupt("status"))?,
                duration_ms: u64::try_from(duration).map_err(|_| corrupt("duration"))?,
                error,
                next_attempt_at: opt_from_millis(next)?,
            });
        }
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn redeliver(&self, agent: &AgentId, event: &EventId, endpoint: &EndpointId, now: Timestamp) -> StoreResult<bool> {
        let now = millis(now);
        let done = in_transaction!(self, |conn| {
            let created: Option<i64> = events::table
                .filter(events::agent_id.eq(agent.as_str()))
                .filter(events::id.eq(event.as_str()))
                .select(events::created_at)
                .first(conn)
                .await
                .optional()?;
            let known: i64 = webhook_endpoints::table
                .filter(webhook_endpoints::agent_id.eq(agent.as_str()))
                .filter(webhook_endpoints::id.eq(endpoint.as_str()))
                .count()
                .get_result(conn)
                .await?;
            let Some(created) = created.filter(|_| known == 1) else { return Ok(false) };
            let key = event_deliveries::table
                .filter(event_deliveries::event_id.eq(event.as_str()))
                .filter(event_deliveries::endpoint_id.eq(endpoint.as_str()));
            let n = diesel::update(key)
                .set((event_deliveries::next_attempt_at.eq(Some(now)), event_deliveries::given_up_at.eq(None::<i64>)))
                .execute(conn)
                .await?;
            if n == 0 {
                diesel::insert_into(event_deliveries::table)
                    .values((
                        event_deliveries::event_id.eq(event.as_str()),
                        event_deliveries::endpoint_id.eq(endpoint.as_str()),
                        event_deliveries::agent_id.eq(agent.as_str()),
                        event_deliveries::event_created_at.eq(created),
                        event_deliveries::attempts.eq(0),
                        event_deliveries::next_attempt_at.eq(Some(now)),
                    ))
                    .execute(conn)
                    .await?;
            }
            Ok(true)
        })?;
        Ok(done)
    }

    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        let n = in_transaction!(self, |conn| {
            let oldest: Vec<String> = events::table
                .filter(events::created_at.lt(millis(before)))
                .order(events::created_at.asc())
                .limit(i64::from(limit))
                .select(events::id)
                .load(conn)
                .await?;
            // Deliveries and attempts go with their event (ON DELETE CASCADE).
            Ok(diesel::delete(events::table.filter(events::id.eq_any(&oldest))).execute(conn).await?)
        })?;
        Ok(n as u64)
    }

    async fn backlog(&self) -> StoreResult<u64> {
        let n: i64 = read_conn!(self, |conn| event_deliveries::table
            .filter(event_deliveries::next_attempt_at.is_not_null())
            .count()
            .get_result(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n as u64)
    }

    async fn get(&self, agent: &AgentId, id: &EventId) -> StoreResult<Option<Event>> {
        let body: Option<String> = read_conn!(self, |conn| events::table
            .filter(events::agent_id.eq(agent.as_str()))
            .filter(events::id.eq(id.as_str()))
            .select(events::body)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(to_domain(agent, body.into_iter().collect())?.pop())
    }

    async fn after<'a>(&self, agent: Option<&'a AgentId>, cursor: &EventCursor, limit: u32) -> StoreResult<Vec<Event>> {
        let at = millis(cursor.at);
        let after_id = cursor.after_id.as_ref().map(|id| id.as_str().to_string());
        // One index range either way: `events_newest` for an agent, `events_age` for all.
        macro_rules! after {
            ($conn:ident) => {{
                let mut query = events::table.select((events::agent_id, events::body)).into_boxed();
                if let Some(agent) = agent {
                    query = query.filter(events::agent_id.eq(agent.as_str()));
                }
                query = match &after_id {
                    Some(id) => query.filter(events::created_at.gt(at).or(events::created_at.eq(at).and(events::id.gt(id.clone())))),
                    None => query.filter(events::created_at.ge(at)),
                };
                query
                    .order((events::created_at.asc(), events::id.asc()))
                    .limit(i64::from(limit))
                    .load::<(String, String)>($conn)
                    .await
                    .map_err(DbError::from)
            }};
        }
        let rows = read_conn!(self, |conn| after!(conn))?;
        let events = rows.into_iter().map(|(agent, body)| Event::from_stored(AgentId::new(agent), &body).map_err(DbError::Corrupt));
        Ok(events.collect::<Result<_, _>>()?)
    }

    async fn list(&self, agent: &AgentId, filter: &EventFilter, page: PageRequest) -> StoreResult<Page<Event>> {
        let since = filter.since.map(millis).unwrap_or(i64::MIN);
        // Two fixed shapes (with and without the type), each one index range.
        macro_rules! page_of {
            ($conn:ident, $of:expr) => {{
                let total: i64 = $of.count().get_result($conn).await.map_err(DbError::from)?;
                let bodies: Vec<String> = $of
                    .order((events::created_at.desc(), events::id.desc()))
                    .limit(i64::from(page.limit()))
                    .offset(page.offset() as i64)
                    .select(events::body)
                    .load($conn)
                    .await
                    .map_err(DbError::from)?;
                Ok::<_, DbError>((total, bodies))
            }};
        }
        let of_agent = || events::table.filter(events::agent_id.eq(agent.as_str())).filter(events::created_at.gt(since));
        let (total, bodies) = match filter.event_type {
            Some(t) => read_conn!(self, |conn| page_of!(conn, of_agent().filter(events::event_type.eq(t.as_str()))))?,
            None => read_conn!(self, |conn| page_of!(conn, of_agent()))?,
        };
        Ok(Page { items: to_domain(agent, bodies)?, total: total as u64, request: page })
    }
}
