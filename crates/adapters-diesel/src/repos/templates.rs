use std::collections::HashSet;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{StoreResult, TemplateRepository};
use serde::{Deserialize, Serialize};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, with_conn};
use crate::repos::events::emit_all;
use crate::rows::{from_millis, millis};
use crate::schema::{lines, templates};

/// A stored component: [`TemplateComponent`] as JSON (the domain types carry no serde).
#[derive(Serialize, Deserialize)]
struct StoredComponent {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    buttons: Vec<StoredButton>,
}

#[derive(Serialize, Deserialize)]
struct StoredButton {
    kind: String,
    text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    phone_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    otp_type: Option<String>,
}

fn components_json(components: &[TemplateComponent]) -> Result<String, DbError> {
    let stored: Vec<StoredComponent> = components
        .iter()
        .map(|c| StoredComponent {
            kind: c.kind.clone(),
            format: c.format.clone(),
            text: c.text.clone(),
            buttons: c
                .buttons
                .iter()
                .map(|b| StoredButton {
                    kind: b.kind.clone(),
                    text: b.text.clone(),
                    url: b.url.clone(),
                    phone_number: b.phone_number.clone(),
                    otp_type: b.otp_type.clone(),
                })
                .collect(),
        })
        .collect();
    serde_json::to_string(&stored).map_err(|e| DbError::Corrupt(e.to_string()))
}

fn components_from_json(raw: &str) -> Result<Vec<TemplateComponent>, DbError> {
    let stored: Vec<StoredComponent> = serde_json::from_str(raw).map_err(|e| DbError::Corrupt(format!("template components: {e}")))?;
    Ok(stored
        .into_iter()
        .map(|c| TemplateComponent {
            kind: c.kind,
            format: c.format,
            text: c.text,
            buttons: c
                .buttons
                .into_iter()
                .map(|b| TemplateButton { kind: b.kind, text: b.text, url: b.url, phone_number: b.phone_number, otp_type: b.otp_type })
                .collect(),
        })
        .collect())
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = templates)]
struct TemplateRow {
    agent_id: String,
    line_id: String,
    id: String,
    name: String,
    language: String,
    status: String,
    category: String,
    components: String,
    created_at: i64,
    parameter_format: String,
}

impl TemplateRow {
    fn into_domain(self) -> Result<Template, DbError> {
        Ok(Template {
            definition: TemplateDefinition {
                id: TemplateId::new(self.id),
                name: self.name,
                language: self.language,
                status: self.status,
                category: self.category,
                parameter_format: ParameterFormat::parse(Some(&self.parameter_format)),
                components: components_from_json(&self.components)?,
            },
            agent_id: AgentId::new(self.agent_id),
            line_id: LineId::new(self.line_id),
            created_at: from_millis(self.created_at)?,
        })
    }
}

fn to_domain(rows: Vec<TemplateRow>) -> Result<Vec<Template>, DbError> {
    rows.into_iter().map(TemplateRow::into_domain).collect()
}

#[async_trait]
impl TemplateRepository for Store {
    async fn replace_for_line(&self, line: &Line, items: &[TemplateDefinition], at: Timestamp, events: &[Event]) -> StoreResult<()> {
        let (agent, line_id, at) = (line.agent_id.as_str(), line.id.as_str(), millis(at));
        let mut rows = Vec::with_capacity(items.len());
        for d in items {
            rows.push((d, components_json(&d.components)?));
        }
        let keep: Vec<&str> = items.iter().map(|d| d.id.as_str()).collect::<HashSet<_>>().into_iter().collect();
        in_transaction!(self, |conn| {
            // Known templates keep created_at: the upsert only replaces what the platform owns.
            for (d, components) in &rows {
                diesel::insert_into(templates::table)
                    .values((
                        templates::agent_id.eq(agent),
                        templates::line_id.eq(line_id),
                        templates::id.eq(d.id.as_str()),
                        templates::name.eq(d.name.as_str()),
                        templates::language.eq(d.language.as_str()),
                        templates::status.eq(d.status.as_str()),
                        templates::category.eq(d.category.as_str()),
                        templates::components.eq(components.as_str()),
                        templates::parameter_format.eq(d.parameter_format.as_str()),
                        templates::created_at.eq(at),
                        templates::updated_at.eq(at),
                    ))
                    .on_conflict((templates::agent_id, templates::line_id, templates::id))
                    .do_update()
                    .set((
                        templates::name.eq(excluded(templates::name)),
                        templates::language.eq(excluded(templates::language)),
                        templates::status.eq(excluded(templates::status)),
                        templates::category.eq(excluded(templates::category)),
                        templates::components.eq(excluded(templates::components)),
                        templates::parameter_format.eq(excluded(templates::parameter_format)),
                        templates::updated_at.eq(excluded(templates::updated_at)),
                    ))
                    .execute(conn)
                    .await?;
            }
            diesel::delete(
                templates::table
                    .filter(templates::agent_id.eq(agent))
                    .filter(templates::line_id.eq(line_id))
                    .filter(templates::id.ne_all(&keep)),
            )
            .execute(conn)
            .await?;
            emit_all!(conn, events);
            Ok(())
        })?;
        Ok(())
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Template>> {
        let rows = with_conn!(self, |conn| templates::table
            .inner_join(lines::table)
            .filter(templates::agent_id.eq(agent.as_str()))
            .filter(lines::agent_id.eq(agent.as_str()))
            .order((templates::name.asc(), templates::language.asc(), lines::created_at.asc(), lines::id.asc(), templates::id.asc()))
            .select(TemplateRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn list_for_line(&self, agent: &AgentId, line: &LineId) -> StoreResult<Vec<Template>> {
        let rows = with_conn!(self, |conn| templates::table
            .filter(templates::agent_id.eq(agent.as_str()))
            .filter(templates::line_id.eq(line.as_str()))
            .order((templates::name.asc(), templates::language.asc(), templates::id.asc()))
            .select(TemplateRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn get(&self, agent: &AgentId, id: &TemplateId) -> StoreResult<Option<Template>> {
        let row = with_conn!(self, |conn| templates::table
            .inner_join(lines::table)
            .filter(templates::agent_id.eq(agent.as_str()))
            .filter(lines::agent_id.eq(agent.as_str()))
            .filter(templates::id.eq(id.as_str()))
            .order((lines::created_at.asc(), lines::id.asc()))
            .select(TemplateRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(TemplateRow::into_domain).transpose()?)
    }
}
