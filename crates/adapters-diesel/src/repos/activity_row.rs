//! An activity's own columns as stored, read by both the activity repository and the views that
//! add its contact, tags and newest message.

use diesel::prelude::*;
use parley_domain::model::*;

use crate::error::DbError;
use crate::rows::{from_millis, opt_from_millis, valid};
use crate::schema::activities;

#[derive(Queryable, Selectable)]
#[diesel(table_name = activities)]
pub(crate) struct ActivityRow {
    pub(crate) id: String,
    agent_id: String,
    contact_id: String,
    status: String,
    assigned_to: Option<String>,
    last_inbound_at: Option<i64>,
    first_response_opened_at: Option<i64>,
    first_response_due_at: Option<i64>,
    first_responded_at: Option<i64>,
    first_response_missed_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl ActivityRow {
    pub(crate) fn into_domain(self) -> Result<Activity, DbError> {
        Ok(Activity {
            id: ActivityId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            contact_id: ContactId::new(self.contact_id),
            status: valid(ActivityStatus::parse(&self.status))?,
            assigned_to: self.assigned_to.map(|a| valid(Assignee::new(&a))).transpose()?,
            last_inbound_at: opt_from_millis(self.last_inbound_at)?,
            first_response: FirstResponse {
                opened_at: opt_from_millis(self.first_response_opened_at)?,
                due_at: opt_from_millis(self.first_response_due_at)?,
                responded_at: opt_from_millis(self.first_responded_at)?,
                missed_at: opt_from_millis(self.first_response_missed_at)?,
            },
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}
