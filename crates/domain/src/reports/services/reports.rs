use std::sync::Arc;

use crate::DomainError;
use crate::model::*;
use crate::ports::{BusinessHoursRepository, Clock, ReportRepository};

/// Conversation reports, in the agent's own days and business hours.
pub struct ReportService {
    reports: Arc<dyn ReportRepository>,
    hours: Arc<dyn BusinessHoursRepository>,
    clock: Arc<dyn Clock>,
}

impl ReportService {
    /// A service over these ports.
    pub fn new(reports: Arc<dyn ReportRepository>, hours: Arc<dyn BusinessHoursRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { reports, hours, clock }
    }

    /// The agent's conversations report for `input` (defaults: the last 30 days, by day), its
    /// days cut and its times counted in the agent's business hours (none: always open, UTC).
    pub async fn conversations(&self, agent: &AgentId, input: &ReportQueryInput) -> Result<Report, DomainError> {
        let hours = self.hours.get(agent).await?;
        let calendar = hours.clone().unwrap_or_else(BusinessHours::always_open);
        let query = ReportQuery::new(input, calendar.local_date(self.clock.now()))?;
        let (from, to) = Report::range(&query, &calendar);
        let range = self.reports.range(agent, from, to, query.group_by).await?;
        Ok(Report::build(query, hours.as_ref(), &range.counts, &range.spans))
    }
}
