//! Events and their outbox (`events`, `event_deliveries`). [`emit!`] writes an event and one
//! delivery, due at once, per endpoint subscribed to its type, inside the caller's transaction:
//! the transaction that makes a change emits its event, so a rollback emits nothing and a
//! commit loses nothing.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{EventRepository, StoreResult};

use super::webhook_endpoints::EndpointRow;
use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn};
use crate::rows::millis;
use crate::schema::{event_deliveries, events, webhook_endpoints};

/// Writes `$event` (`&Event`) and its deliveries: to `$only` (`Option<&EndpointId>`) alone
/// when given, else to each of its agent's enabled endpoints subscribed to its type; run in the
/// transaction that makes the change the event reports.
macro_rules! emit {
    ($conn:expr, $event:expr, $only:expr) => {{
        use diesel::IntoSql as _;
        let event: &Event = $event;
        let only: Option<&EndpointId> = $only;
        let at = crate::rows::millis(event.created_at);
        diesel::insert_into(events::table)
            .values((
                events::id.eq(event.id.as_str()),
                events::agent_id.eq(event.agent_id.as_str()),
                events::event_type.eq(event.event_type.as_str()),
                events::body.eq(event.body()),
                events::created_at.eq(at),
            ))
            .execute($conn)
            .await?;
        let columns = (
            event_deliveries::event_id,
            event_deliveries::endpoint_id,
            event_deliveries::agent_id,
            event_deliveries::event_created_at,
            event_deliveries::attempts,
            event_deliveries::next_attempt_at,
        );
        let fields = (
            event.id.as_str().into_sql::<Text>(),
            webhook_endpoints::id,
            webhook_endpoints::agent_id,
            at.into_sql::<BigInt>(),
            0.into_sql::<Integer>(),
            Some(at).into_sql::<Nullable<BigInt>>(),
        );
        let of_agent = webhook_endpoints::table.filter(webhook_endpoints::agent_id.eq(event.agent_id.as_str()));
        match only {
            Some(endpoint) => {
                of_agent
                    .filter(webhook_endpoints::id.eq(endpoint.as_str()))
                    .select(fields)
                    .insert_into(event_deliveries::table)
                    .into_columns(columns)
                    .execute($conn)
                    .await?
            }
            None => {
                let subscribed = format!("%,{},%", event.event_type.as_str());
                of_agent
                    .filter(webhook_endpoints::disabled_at.is_null())
                    .filter(webhook_endpoints::events.eq("*").or(webhook_endpoints::events.like(subscribed)))
                    .select(fields)
                    .insert_into(event_deliveries::table)
                    .into_columns(columns)
                    .execute($conn)
                    .await?
            }
        }
    }};
}

/// The (event, endpoint) keys of the oldest deliveries due by `$now`, at most `$limit`.
macro_rules! due_keys {
    ($now:expr, $limit:expr) => {
        event_deliveries::table
            .filter(event_deliveries::next_attempt_at.le($now))
            .order((event_deliveries::event_created_at.asc(), event_deliveries::event_id.asc(), event_deliveries::endpoint_id.asc()))
            .limit($limit)
            .select((event_deliveries::event_id, event_deliveries::endpoint_id))
    };
}

/// The keys a claim takes, read in the claiming transaction.
trait DueKeys {
    async fn due_keys(&mut self, now: i64, limit: i64) -> Result<Vec<(String, String)>, DbError>;
}

#[cfg(feature = "postgres")]
impl DueKeys for crate::pool::PgConn {
    async fn due_keys(&mut self, now: i64, limit: i64) -> Result<Vec<(String, String)>, DbError> {
        // Rows another process is claiming right now are passed over, not waited for.
        Ok(due_keys!(now, limit).for_update().skip_locked().load(self).await?)
    }
}

#[cfg(feature = "sqlite")]
impl DueKeys for crate::pool::SqliteWriteConn {
    async fn due_keys(&mut self, now: i64, limit: i64) -> Result<Vec<(String, String)>, DbError> {
        // Write transactions run one at a time: nobody claims between this read and the update.
        Ok(due_keys!(now, limit).load(self).await?)
    }
}

fn to_domain(agent: &AgentId, bodies: Vec<String>) -> Result<Vec<Event>, DbError> {
    bodies.into_iter().map(|body| Event::from_body(agent.clone(), &body).map_err(DbError::Corrupt)).collect()
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
        let (now, until, limit) = (millis(now), millis(until), i64::from(limit));
        let rows: Vec<(String, String, i32, EndpointRow)> = in_transaction!(self, |conn| {
            let keys = conn.due_keys(now, limit).await?;
            let mut rows = Vec::with_capacity(keys.len());
            // At most `limit` keys (a pass's batch): one short statement each.
            for (event, endpoint) in keys {
                let key = event_deliveries::table
                    .filter(event_deliveries::event_id.eq(&event))
                    .filter(event_deliveries::endpoint_id.eq(&endpoint));
                diesel::update(key).set(event_deliveries::next_attempt_at.eq(Some(until))).execute(conn).await?;
                let row: (String, String, i32, EndpointRow) = event_deliveries::table
                    .inner_join(events::table)
                    .inner_join(webhook_endpoints::table)
                    .filter(event_deliveries::event_id.eq(&event))
                    .filter(event_deliveries::endpoint_id.eq(&endpoint))
                    .select((events::agent_id, events::body, event_deliveries::attempts, EndpointRow::as_select()))
                    .first(conn)
                    .await?;
                rows.push(row);
            }
            Ok(rows)
        })?;
        let mut due = Vec::with_capacity(rows.len());
        for (agent, body, attempts, endpoint) in rows {
            due.push(DueDelivery {
                event: Event::from_body(AgentId::new(agent), &body).map_err(DbError::Corrupt)?,
                endpoint: endpoint.into_domain()?,
                attempts: u32::try_from(attempts).map_err(|_| DbError::Corrupt(format!("delivery attempts {attempts}")))?,
            });
        }
        Ok(due)
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
