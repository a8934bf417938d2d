//! The agent's first-response target: how long, in business hours, a contact who opens a
//! conversation may wait for the team's first answer.

use chrono::TimeDelta;

use crate::FieldError;
use crate::automation::model::BusinessHours;
use crate::model::Timestamp;

/// At most a week of business time: a longer promise is not a response target.
pub const MAX_TARGET_MINUTES: u32 = 7 * 24 * 60;

/// A first-response target in whole minutes, 1 to [`MAX_TARGET_MINUTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseTarget(u32);

impl ResponseTarget {
    /// `minutes` when within bounds; a `FieldError` on `minutes` otherwise.
    pub fn new(minutes: i64) -> Result<Self, FieldError> {
        u32::try_from(minutes)
            .ok()
            .filter(|m| (1..=MAX_TARGET_MINUTES).contains(m))
            .map(Self)
            .ok_or_else(|| FieldError::new("minutes", format!("must be a whole number of minutes from 1 to {MAX_TARGET_MINUTES} (a week)")))
    }

    /// A JSON number that is a whole number of minutes (`30`, `30.0`) within bounds.
    pub fn from_json(raw: &serde_json::Value) -> Result<Self, FieldError> {
        Self::new(crate::model::integral::integral_i64(raw).unwrap_or(-1))
    }

    /// The target in minutes.
    pub fn minutes(self) -> u32 {
        self.0
    }

    /// When a first response to a conversation opened at `opened_at` falls due: the target's
    /// minutes counted in `hours` (all of them without hours). `None` when the hours never open
    /// again within a year.
    pub fn due(self, opened_at: Timestamp, hours: Option<&BusinessHours>) -> Option<Timestamp> {
        let seconds = i64::from(self.0) * 60;
        match hours {
            Some(hours) => hours.add_open_seconds(opened_at, seconds),
            None => Some(opened_at + TimeDelta::seconds(seconds)),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::automation::model::BusinessHoursInput;

    #[test]
    fn a_target_is_whole_minutes_within_a_week() {
        for bad in [0, -1, i64::from(MAX_TARGET_MINUTES) + 1, i64::MAX] {
            assert_eq!(ResponseTarget::new(bad).unwrap_err().field, "minutes", "{bad}");
        }
        assert_eq!(ResponseTarget::new(30).unwrap().minutes(), 30);
        assert_eq!(ResponseTarget::from_json(&serde_json::json!(30.0)).unwrap().minutes(), 30);
        for bad in [serde_json::json!(2.5), serde_json::json!("30"), serde_json::json!(true)] {
            assert_eq!(ResponseTarget::from_json(&bad).unwrap_err().field, "minutes", "{bad}");
        }
        assert_eq!(ResponseTarget::new(i64::from(MAX_TARGET_MINUTES)).unwrap().minutes(), MAX_TARGET_MINUTES);
    }

    #[test]
    fn the_due_time_counts_business_hours_only() {
        let hours = BusinessHours::new(BusinessHoursInput {
            timezone: Some("Europe/Lisbon".into()),
            week: Some([("fri".to_string(), vec![vec!["09:00".to_string(), "17:00".to_string()]])].into_iter().collect()),
            closed_dates: None,
            away_message: None,
        })
        .unwrap();
        let target = ResponseTarget::new(60).unwrap();
        // Friday 2026-11-27 16:30 Lisbon (UTC in winter): half an hour today, the rest next Friday.
        let opened = Utc.with_ymd_and_hms(2026, 11, 27, 16, 30, 0).unwrap();
        assert_eq!(target.due(opened, Some(&hours)), Some(Utc.with_ymd_and_hms(2026, 12, 4, 9, 30, 0).unwrap()));
        assert_eq!(target.due(opened, None), Some(Utc.with_ymd_and_hms(2026, 11, 27, 17, 30, 0).unwrap()));
    }
}
