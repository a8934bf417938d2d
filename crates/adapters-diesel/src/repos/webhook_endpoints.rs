//! Webhook endpoints (`webhook_endpoints`): the subscribed types kept as `*` or between commas
//! (`,contact.created,message.received,`) so the outbox's fan-out matches a type with one LIKE;
//! the current secret and, after a rotation, the previous one with its expiry.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{StoreResult, WebhookEndpointRepository};

use crate::Store;
use crate::error::DbError;
use crate::locks::OrderedLocks;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::rows::{from_millis, millis, opt_from_millis, valid};
use crate::schema::webhook_endpoints;

/// How `events` is stored: `*`, or each type between commas.
pub(crate) fn stored_selection(events: &EventSelection) -> String {
    match events {
        EventSelection::All => "*".to_string(),
        EventSelection::Only(types) => types.iter().fold(",".to_string(), |out, t| out + t.as_str() + ","),
    }
}

fn parse_selection(stored: &str, id: &str) -> Result<EventSelection, DbError> {
    if stored == "*" {
        return Ok(EventSelection::All);
    }
    let names: Vec<String> = stored.split(',').filter(|n| !n.is_empty()).map(str::to_string).collect();
    EventSelection::new(&names).map_err(|e| DbError::Corrupt(format!("events of webhook endpoint {id}: {}", e.issue)))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
pub(crate) struct EndpointRow {
    id: String,
    agent_id: String,
    url: String,
    description: Option<String>,
    events: String,
    disabled_at: Option<i64>,
    disabled_reason: Option<String>,
    secret: String,
    previous_secret: Option<String>,
    previous_expires_at: Option<i64>,
    failing_since: Option<i64>,
    paused_until: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl EndpointRow {
    pub(crate) fn into_domain(self) -> Result<WebhookEndpoint, DbError> {
        let corrupt = |what: &str| DbError::Corrupt(format!("{what} of webhook endpoint {}", self.id));
        // Stored URLs passed the rules when written: read back as they are.
        let url = EndpointUrl::stored(&self.url).map_err(|_| corrupt("url"))?;
        let key = |secret: &str| SigningKey::from_secret(secret).map_err(|_| corrupt("secret"));
        let previous = match (&self.previous_secret, self.previous_expires_at) {
            (Some(secret), Some(at)) => Some(RotatedKey { key: key(secret)?, expires_at: from_millis(at)? }),
            (None, None) => None,
            _ => return Err(corrupt("previous secret")),
        };
        let disabled = match (self.disabled_at, &self.disabled_reason) {
            (Some(at), Some(reason)) => {
                Some(Disabled { at: from_millis(at)?, reason: DisabledReason::parse(reason).ok_or_else(|| corrupt("disabled_reason"))? })
            }
            (None, None) => None,
            _ => return Err(corrupt("disabled state")),
        };
        Ok(WebhookEndpoint {
            events: parse_selection(&self.events, &self.id)?,
            secrets: EndpointSecrets { current: key(&self.secret)?, previous },
            description: self.description.map(|d| valid(endpoint_description(&d))).transpose()?.flatten(),
            disabled,
            failing_since: opt_from_millis(self.failing_since)?,
            paused_until: opt_from_millis(self.paused_until)?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            id: EndpointId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            url,
        })
    }
}

/// The columns an endpoint's writes set: every one but the keys, `created_at` and `served_at`
/// (the event worker's). `None` is written as NULL, on insert and update alike, so each write
/// is one statement text.
#[derive(Insertable, AsChangeset)]
#[diesel(table_name = webhook_endpoints, treat_none_as_null = true, treat_none_as_default_value = false)]
struct EndpointChanges<'a> {
    url: &'a str,
    description: Option<&'a str>,
    events: String,
    disabled_at: Option<i64>,
    disabled_reason: Option<&'a str>,
    secret: String,
    previous_secret: Option<String>,
    previous_expires_at: Option<i64>,
    failing_since: Option<i64>,
    paused_until: Option<i64>,
    updated_at: i64,
}

impl<'a> EndpointChanges<'a> {
    fn of(e: &'a WebhookEndpoint) -> Self {
        Self {
            url: e.url.as_str(),
            description: e.description.as_deref(),
            events: stored_selection(&e.events),
            disabled_at: e.disabled.map(|d| millis(d.at)),
            disabled_reason: e.disabled.map(|d| d.reason.as_str()),
            secret: e.secrets.current.secret(),
            previous_secret: e.secrets.previous.as_ref().map(|p| p.key.secret()),
            previous_expires_at: e.secrets.previous.as_ref().map(|p| millis(p.expires_at)),
            failing_since: e.failing_since.map(millis),
            paused_until: e.paused_until.map(millis),
            updated_at: millis(e.updated_at),
        }
    }
}

#[async_trait]
impl WebhookEndpointRepository for Store {
    async fn insert(&self, endpoint: &WebhookEndpoint, max_per_agent: u32) -> StoreResult<bool> {
        let agent = endpoint.agent_id.as_str();
        let inserted = in_transaction!(self, |conn| {
            conn.lock_agent(agent).await?;
            let count: i64 = webhook_endpoints::table.filter(webhook_endpoints::agent_id.eq(agent)).count().get_result(conn).await?;
            if count >= i64::from(max_per_agent) {
                return Ok(false);
            }
            let values = (
                webhook_endpoints::id.eq(endpoint.id.as_str()),
                webhook_endpoints::agent_id.eq(agent),
                webhook_endpoints::created_at.eq(millis(endpoint.created_at)),
                EndpointChanges::of(endpoint),
            );
            diesel::insert_into(webhook_endpoints::table).values(values).execute(conn).await?;
            Ok(true)
        })?;
        Ok(inserted)
    }

    async fn get(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<Option<WebhookEndpoint>> {
        let row = read_conn!(self, |conn| webhook_endpoints::table
            .filter(webhook_endpoints::agent_id.eq(agent.as_str()))
            .filter(webhook_endpoints::id.eq(id.as_str()))
            .select(EndpointRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(EndpointRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<WebhookEndpoint>> {
        // An agent has a handful of endpoints: counted, not kept.
        let (total, rows) = read_conn!(self, |conn| {
            let total: i64 = webhook_endpoints::table
                .filter(webhook_endpoints::agent_id.eq(agent.as_str()))
                .count()
                .get_result(conn)
                .await
                .map_err(DbError::from)?;
            let rows: Vec<EndpointRow> = webhook_endpoints::table
                .filter(webhook_endpoints::agent_id.eq(agent.as_str()))
                .order((webhook_endpoints::created_at.desc(), webhook_endpoints::id.desc()))
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select(EndpointRow::as_select())
                .load(conn)
                .await
                .map_err(DbError::from)?;
            Ok::<_, DbError>((total, rows))
        })?;
        let items = rows.into_iter().map(EndpointRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn update(&self, endpoint: &WebhookEndpoint) -> StoreResult<bool> {
        let target = webhook_endpoints::table
            .filter(webhook_endpoints::agent_id.eq(endpoint.agent_id.as_str()))
            .filter(webhook_endpoints::id.eq(endpoint.id.as_str()));
        let n =
            write_conn!(self, |conn| diesel::update(target).set(EndpointChanges::of(endpoint)).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn delete(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<bool> {
        let target =
            webhook_endpoints::table.filter(webhook_endpoints::agent_id.eq(agent.as_str())).filter(webhook_endpoints::id.eq(id.as_str()));
        let n = write_conn!(self, |conn| diesel::delete(target).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }
}
