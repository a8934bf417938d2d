//! The storage contract of business hours (`BusinessHoursRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use std::collections::BTreeMap;

use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

fn lisbon(away: Option<&str>) -> BusinessHours {
    let week = BTreeMap::from([
        ("mon".to_string(), vec![vec!["09:00".to_string(), "13:00".to_string()], vec!["14:00".to_string(), "24:00".to_string()]]),
        ("sat".to_string(), vec![vec!["00:00".to_string(), "00:30".to_string()]]),
    ]);
    BusinessHours::new(BusinessHoursInput {
        timezone: Some("Europe/Lisbon".into()),
        week: Some(week),
        closed_dates: Some(vec!["2026-12-25".into(), "2027-01-01".into()]),
        away_message: away.map(Into::into),
    })
    .unwrap()
}

/// An agent's hours read back equal to what was put (every period, date and the message, or
/// none), are replaced whole, removed by `None`, and never seen by another agent.
pub async fn business_hours_are_one_set_per_agent_replaced_whole(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    assert_eq!(r.business_hours.get(&a).await.unwrap(), None, "none until set");
    let first = lisbon(Some("Back at 9:00.\nThanks for waiting."));
    r.business_hours.put(&a, Some(&first), t(1)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), Some(first));
    assert_eq!(r.business_hours.get(&b).await.unwrap(), None, "another agent's hours are not its own");
    let second = lisbon(None);
    r.business_hours.put(&a, Some(&second), t(2)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), Some(second), "replaced whole: no away message left");
    r.business_hours.put(&b, Some(&BusinessHours::always_open()), t(3)).await.unwrap();
    r.business_hours.put(&a, None, t(4)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), None, "removed");
    assert_eq!(r.business_hours.get(&b).await.unwrap(), Some(BusinessHours::always_open()));
    r.business_hours.put(&a, None, t(5)).await.unwrap();
}
