//! Each agent's business hours, one row per agent holding the API's document.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, BusinessHours, Timestamp};
use parley_domain::ports::{BusinessHoursRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{read_conn, write_conn};
use crate::rows::millis;
use crate::schema::business_hours as bh;

#[async_trait]
impl BusinessHoursRepository for Store {
    async fn get(&self, agent: &AgentId) -> StoreResult<Option<BusinessHours>> {
        let document: Option<String> = read_conn!(self, |conn| bh::table
            .filter(bh::agent_id.eq(agent.as_str()))
            .select(bh::document)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        let hours = document
            .map(|text| BusinessHours::from_document(&text).map_err(|e| DbError::Corrupt(format!("business hours of {agent}: {e}"))))
            .transpose()?;
        Ok(hours)
    }

    async fn put<'a>(&self, agent: &AgentId, hours: Option<&'a BusinessHours>, at: Timestamp) -> StoreResult<()> {
        match hours {
            Some(hours) => {
                let document = hours.to_document();
                let away = hours.away_message().is_some();
                let row = (bh::agent_id.eq(agent.as_str()), bh::document.eq(&document), bh::updated_at.eq(millis(at)), bh::away.eq(away));
                write_conn!(self, |conn| diesel::insert_into(bh::table)
                    .values(row)
                    .on_conflict(bh::agent_id)
                    .do_update()
                    .set((bh::document.eq(&document), bh::updated_at.eq(millis(at)), bh::away.eq(away)))
                    .execute(conn)
                    .await
                    .map_err(DbError::from))?;
            }
            None => {
                write_conn!(self, |conn| diesel::delete(bh::table.filter(bh::agent_id.eq(agent.as_str())))
                    .execute(conn)
                    .await
                    .map_err(DbError::from))?;
            }
        }
        Ok(())
    }
}
