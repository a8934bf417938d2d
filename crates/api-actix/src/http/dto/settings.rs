use std::collections::BTreeMap;

use parley_domain::model::{BusinessHours, BusinessHoursInput, ResponseTarget};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Opening periods: each `["HH:MM", "HH:MM"]`, 00:00 to 23:59 for a start and up to `24:00`
/// for an end, the end after the start; at most 12 a day, none overlapping another.
type Periods = Option<Vec<Vec<String>>>;

/// Each day's opening periods, `mon` … `sun`: each period `["HH:MM", "HH:MM"]` (`24:00` as an
/// end), the end after the start, at most 12 a day, none overlapping another; a day left out
/// (or empty) is closed.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WeekShape {
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub mon: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub tue: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub wed: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub thu: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub fri: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub sat: Periods,
    #[schema(value_type = Option<Vec<Vec<String>>>, max_items = 12)]
    pub sun: Periods,
}

/// The agent's business hours, replaced whole: a field left out is empty (no period on that
/// day, no closed date, no away message).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutBusinessHours {
    /// Required: an IANA time zone name.
    #[schema(value_type = String, required = true, example = "Europe/Lisbon", min_length = 1, max_length = 64)]
    pub timezone: Option<String>,
    pub week: Option<WeekShape>,
    /// Whole days closed, `YYYY-MM-DD` in the agent's time zone; at most 366.
    #[schema(max_items = 366, value_type = Option<Vec<String>>)]
    pub closed_dates: Option<Vec<String>>,
    /// What a contact who writes out of hours is told (1–4,096 characters); null for nothing.
    #[schema(min_length = 1, max_length = 4096)]
    pub away_message: Option<String>,
}

impl From<PutBusinessHours> for BusinessHoursInput {
    fn from(b: PutBusinessHours) -> Self {
        let week = b.week.unwrap_or_default();
        let days = [
            ("mon", week.mon),
            ("tue", week.tue),
            ("wed", week.wed),
            ("thu", week.thu),
            ("fri", week.fri),
            ("sat", week.sat),
            ("sun", week.sun),
        ];
        Self {
            timezone: b.timezone,
            week: Some(days.into_iter().filter_map(|(day, periods)| periods.map(|p| (day.to_string(), p))).collect::<BTreeMap<_, _>>()),
            closed_dates: b.closed_dates,
            away_message: b.away_message,
        }
    }
}

/// An agent's business hours: every day listed (an empty list: closed that day).
#[derive(Debug, Serialize, ToSchema)]
pub struct BusinessHoursDto {
    #[schema(example = "Europe/Lisbon")]
    pub timezone: String,
    pub week: WeekShape,
    pub closed_dates: Vec<String>,
    pub away_message: Option<String>,
}

impl From<&BusinessHours> for BusinessHoursDto {
    fn from(h: &BusinessHours) -> Self {
        let mut days = h.week().map(|(_, periods)| Some(periods.iter().map(|p| p.to_pair().to_vec()).collect::<Vec<_>>()));
        let mut next = || days.next().flatten();
        Self {
            timezone: h.timezone().to_string(),
            week: WeekShape { mon: next(), tue: next(), wed: next(), thu: next(), fri: next(), sat: next(), sun: next() },
            closed_dates: h.closed_dates().map(|d| d.format("%Y-%m-%d").to_string()).collect(),
            away_message: h.away_message().map(str::to_string),
        }
    }
}

/// The agent's first-response target, replaced whole.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutFirstResponse {
    /// Required: minutes of business time, 1–10,080 (a week); null removes the target.
    #[serde(default, deserialize_with = "crate::http::extract::double_option")]
    #[schema(value_type = Option<i64>, required = true, minimum = 1, maximum = 10080)]
    pub minutes: Option<Option<serde_json::Value>>,
}

/// A first-response target.
#[derive(Debug, Serialize, ToSchema)]
pub struct FirstResponseDto {
    /// Minutes of business time a contact who opens a conversation may wait for the first answer.
    #[schema(example = 30, minimum = 1, maximum = 10080)]
    pub minutes: u32,
}

impl From<ResponseTarget> for FirstResponseDto {
    fn from(t: ResponseTarget) -> Self {
        Self { minutes: t.minutes() }
    }
}
