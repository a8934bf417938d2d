use std::sync::Arc;

use crate::model::*;
use crate::ports::{ActivityRepository, BusinessHoursRepository, Clock, FirstResponseRepository, IdSource};
use crate::services::{EventMaker, Patch};
use crate::{DomainError, FieldError};

/// When the team's first answer to a conversation opened at some instant falls due: the agent's
/// target counted in its business hours. Read at each opening, so a changed target or changed
/// hours apply from the next conversation that opens.
#[derive(Clone)]
pub struct ResponseDue {
    targets: Arc<dyn FirstResponseRepository>,
    hours: Arc<dyn BusinessHoursRepository>,
}

impl ResponseDue {
    /// Reading the agent's target and hours through these ports.
    pub fn new(targets: Arc<dyn FirstResponseRepository>, hours: Arc<dyn BusinessHoursRepository>) -> Self {
        Self { targets, hours }
    }

    /// For unit tests: no agent has a target.
    #[cfg(test)]
    pub(crate) fn no_targets() -> Self {
        let mut targets = crate::ports::MockFirstResponseRepository::new();
        targets.expect_target().returning(|_| Ok(None));
        Self::new(Arc::new(targets), Arc::new(crate::ports::MockBusinessHoursRepository::new()))
    }

    /// When a conversation of `agent` opened at `opened_at` must be answered; `None` without a
    /// target (or with hours that never open again). The hours are read only with a target.
    pub async fn due(&self, agent: &AgentId, opened_at: Timestamp) -> Result<Option<Timestamp>, DomainError> {
        let Some(target) = self.targets.target(agent).await? else { return Ok(None) };
        let hours = self.hours.get(agent).await?;
        Ok(target.due(opened_at, hours.as_ref()))
    }
}

/// The first-response target (read, set, removed) and the announcement of misses.
pub struct FirstResponseService {
    targets: Arc<dyn FirstResponseRepository>,
    activities: Arc<dyn ActivityRepository>,
    clock: Arc<dyn Clock>,
    events: EventMaker,
}

/// Misses one pass announces at most.
pub const MISSES_PER_PASS: u32 = 200;

impl FirstResponseService {
    /// A service over these ports.
    pub fn new(
        targets: Arc<dyn FirstResponseRepository>,
        activities: Arc<dyn ActivityRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { targets, activities, clock, events: EventMaker::new(ids) }
    }

    /// The agent's target, `None` when it has none.
    pub async fn target(&self, agent: &AgentId) -> Result<Option<ResponseTarget>, DomainError> {
        Ok(self.targets.target(agent).await?)
    }

    /// Sets the agent's target to `minutes` (a whole number, 1 to a week), or removes it
    /// (`Clear`); `minutes` left out is refused (the field is required, null included).
    pub async fn set_target(&self, agent: &AgentId, minutes: Patch<serde_json::Value>) -> Result<Option<ResponseTarget>, DomainError> {
        let target = match minutes {
            Patch::Keep => Err(FieldError::new("minutes", "is required: whole minutes from 1 to 10080, or null to remove the target")),
            Patch::Clear => Ok(None),
            Patch::Set(raw) => ResponseTarget::from_json(&raw).map(Some),
        }
        .map_err(|e| DomainError::Validation(vec![e]))?;
        self.targets.set_target(agent, target, self.clock.now()).await?;
        Ok(target)
    }

    /// Announces up to `limit` conversations that missed their first response: each once
    /// (`activity.first_response_missed`, the activity as it stands), across workers and
    /// processes (the mark and its event are one compare-and-set write). How many it announced.
    pub async fn announce_misses(&self, limit: u32) -> Result<usize, DomainError> {
        let now = self.clock.now();
        let mut announced = 0;
        for (agent, id) in self.targets.overdue(now, limit).await? {
            let Some(mut view) = self.activities.get(&agent, &id).await? else { continue };
            view.activity.first_response.missed_at = Some(now);
            let event = self.events.make(&agent, EventType::ActivityFirstResponseMissed, now, &view);
            if self.targets.mark_missed(&agent, &id, now, &[event]).await? {
                announced += 1;
            }
        }
        Ok(announced)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::ports::{MockActivityRepository, MockBusinessHoursRepository, MockClock, MockFirstResponseRepository, MockIdSource};

    fn at(s: i64) -> Timestamp {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    #[tokio::test]
    async fn without_a_target_nothing_falls_due_and_the_hours_are_not_read() {
        let mut targets = MockFirstResponseRepository::new();
        targets.expect_target().returning(|_| Ok(None));
        let hours = MockBusinessHoursRepository::new();
        let due = ResponseDue::new(Arc::new(targets), Arc::new(hours));
        assert_eq!(due.due(&AgentId::new("agt_1"), at(0)).await.unwrap(), None);
    }

    #[tokio::test]
    async fn with_a_target_and_no_hours_it_falls_due_that_many_minutes_later() {
        let mut targets = MockFirstResponseRepository::new();
        targets.expect_target().returning(|_| Ok(Some(ResponseTarget::new(15).unwrap())));
        let mut hours = MockBusinessHoursRepository::new();
        hours.expect_get().returning(|_| Ok(None));
        let due = ResponseDue::new(Arc::new(targets), Arc::new(hours));
        assert_eq!(due.due(&AgentId::new("agt_1"), at(0)).await.unwrap(), Some(at(900)));
    }

    #[tokio::test]
    async fn a_bad_target_is_refused_naming_minutes_and_nothing_is_written() {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| at(0));
        let service = FirstResponseService::new(
            Arc::new(MockFirstResponseRepository::new()),
            Arc::new(MockActivityRepository::new()),
            Arc::new(clock),
            Arc::new(MockIdSource::new()),
        );
        for bad in [Patch::Keep, Patch::Set(serde_json::json!(0)), Patch::Set(serde_json::json!(1.5))] {
            match service.set_target(&AgentId::new("agt_1"), bad).await {
                Err(DomainError::Validation(errors)) => assert_eq!(errors[0].field, "minutes"),
                other => panic!("{other:?}"),
            }
        }
    }
}
