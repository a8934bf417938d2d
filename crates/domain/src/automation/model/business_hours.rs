//! A shop's business hours: the periods of each weekday its team answers, in its own time zone,
//! the dates it is closed, and what a contact who writes out of hours is told. The arithmetic
//! is done on real instants: a period is the span between its start and end as the shop's
//! clocks show them that day, so a day that skips an hour (spring) counts one less and a day
//! that repeats one (autumn) one more, as the team's working time really does.

use std::collections::{BTreeMap, BTreeSet};

use chrono::offset::LocalResult;
use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

use crate::FieldError;
use crate::automation::model::OpenTime;
use crate::error::Violations;
use crate::model::has_control_characters;

/// Days of the week as the API names them, Monday first (chrono's `num_days_from_monday`).
pub const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
/// At most this many periods in one day.
pub const MAX_PERIODS_PER_DAY: usize = 12;
/// At most this many closed dates.
pub const MAX_CLOSED_DATES: usize = 366;
/// The away message's length, in characters.
pub const MAX_AWAY_MESSAGE: usize = 4096;
const MINUTES_PER_DAY: u32 = 24 * 60;

/// Business hours as a client sends them, before any check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessHoursInput {
    /// An IANA time zone name (`Europe/Lisbon`).
    pub timezone: Option<String>,
    /// Each day's periods, `[["09:00", "13:00"], ["14:00", "18:00"]]`, by `mon` … `sun`; a day
    /// left out is closed.
    pub week: Option<BTreeMap<String, Vec<Vec<String>>>>,
    /// Dates (`YYYY-MM-DD`, in the shop's time zone) the shop is closed all day.
    pub closed_dates: Option<Vec<String>>,
    /// What a contact who writes out of hours is told; `None` sends nothing.
    pub away_message: Option<String>,
}

/// An opening period of a day, in minutes after midnight: `start < end ≤ 1440` (`24:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Period {
    start: u32,
    end: u32,
}

impl Period {
    /// `start` and `end` as `HH:MM`; `24:00` only as an end.
    pub fn new(field: &str, raw: &[String]) -> Result<Self, FieldError> {
        let [start, end] = raw else {
            return Err(FieldError::new(field, "must be a pair of times, [\"09:00\", \"17:00\"]"));
        };
        let start = minutes(start).filter(|m| *m < MINUTES_PER_DAY);
        let end = minutes(end);
        match (start, end) {
            (Some(start), Some(end)) if start < end => Ok(Self { start, end }),
            (Some(_), Some(_)) => Err(FieldError::new(field, "must end after it starts")),
            _ => Err(FieldError::new(field, "must be two times of day as HH:MM (00:00 to 24:00)")),
        }
    }

    /// Minutes after midnight it starts.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// Minutes after midnight it ends (1440 for `24:00`).
    pub fn end(&self) -> u32 {
        self.end
    }

    /// As the API writes it.
    pub fn to_pair(self) -> [String; 2] {
        [hh_mm(self.start), hh_mm(self.end)]
    }
}

/// `HH:MM` as minutes after midnight; `24:00` is 1440.
fn minutes(raw: &str) -> Option<u32> {
    let (h, m) = raw.split_once(':')?;
    if h.len() != 2 || m.len() != 2 || !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) => Some(MINUTES_PER_DAY),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

fn hh_mm(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// Checked business hours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusinessHours {
    timezone: Tz,
    /// Monday first; each day's periods sorted, none overlapping.
    week: [Vec<Period>; 7],
    closed_dates: BTreeSet<NaiveDate>,
    away_message: Option<String>,
}

impl BusinessHours {
    /// Checks every field, naming each fault (`week.mon[1]`, `closed_dates[2]`).
    pub fn new(input: BusinessHoursInput) -> Result<Self, Vec<FieldError>> {
        let mut v = Violations::default();
        let timezone = v.check(match input.timezone.as_deref().map(str::trim) {
            None | Some("") => Err(FieldError::new("timezone", "is required: an IANA time zone name, such as Europe/Lisbon")),
            Some(name) => name
                .parse::<Tz>()
                .map_err(|_| FieldError::new("timezone", format!("must be an IANA time zone name, such as Europe/Lisbon, not {name:?}"))),
        });
        let mut week: [Vec<Period>; 7] = Default::default();
        for (day, periods) in input.week.unwrap_or_default() {
            let Some(index) = WEEKDAYS.iter().position(|d| *d == day) else {
                v.push(FieldError::new(format!("week.{day}"), "is not a day: use mon, tue, wed, thu, fri, sat, sun"));
                continue;
            };
            if periods.len() > MAX_PERIODS_PER_DAY {
                v.push(FieldError::new(format!("week.{day}"), format!("must have at most {MAX_PERIODS_PER_DAY} periods")));
                continue;
            }
            let mut checked: Vec<(usize, Period)> = Vec::new();
            for (i, raw) in periods.iter().enumerate() {
                if let Some(period) = v.check(Period::new(&format!("week.{day}[{i}]"), raw)) {
                    checked.push((i, period));
                }
            }
            checked.sort_by_key(|(_, p)| *p);
            for pair in checked.windows(2) {
                let ((i, a), (j, b)) = (pair[0], pair[1]);
                if b.start < a.end {
                    let (first, second) = (i.min(j), i.max(j));
                    v.push(FieldError::new(format!("week.{day}[{second}]"), format!("overlaps week.{day}[{first}]")));
                }
            }
            week[index] = checked.into_iter().map(|(_, p)| p).collect();
        }
        let raw_dates = input.closed_dates.unwrap_or_default();
        if raw_dates.len() > MAX_CLOSED_DATES {
            v.push(FieldError::new("closed_dates", format!("must have at most {MAX_CLOSED_DATES} dates")));
        }
        let mut closed_dates = BTreeSet::new();
        for (i, raw) in raw_dates.iter().enumerate().take(MAX_CLOSED_DATES) {
            let parsed = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
                .ok()
                .filter(|_| raw.trim().len() == 10)
                .ok_or_else(|| FieldError::new(format!("closed_dates[{i}]"), format!("must be a date as YYYY-MM-DD, not {raw:?}")));
            if let Some(date) = v.check(parsed) {
                closed_dates.insert(date);
            }
        }
        let away_message = match input.away_message.map(|m| m.trim().to_string()) {
            None => None,
            Some(m) if m.is_empty() || m.chars().count() > MAX_AWAY_MESSAGE || has_control_characters(&m.replace(['\n', '\t'], " ")) => {
                v.push(FieldError::new("away_message", format!("must be 1 to {MAX_AWAY_MESSAGE} characters, or null")));
                None
            }
            Some(m) => Some(m),
        };
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(errors);
        }
        let timezone = timezone.expect(crate::error::CHECKED);
        Ok(Self { timezone, week, closed_dates, away_message })
    }

    /// Open at every instant: what an agent without business hours has.
    pub fn always_open() -> Self {
        let all_day = Period { start: 0, end: MINUTES_PER_DAY };
        Self { timezone: Tz::UTC, week: std::array::from_fn(|_| vec![all_day]), closed_dates: BTreeSet::new(), away_message: None }
    }

    /// The IANA name of its time zone.
    pub fn timezone(&self) -> &'static str {
        self.timezone.name()
    }

    /// Each day's periods, `mon` first.
    pub fn week(&self) -> impl Iterator<Item = (&'static str, &[Period])> {
        WEEKDAYS.iter().copied().zip(self.week.iter().map(Vec::as_slice))
    }

    /// The closed dates, in order.
    pub fn closed_dates(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        self.closed_dates.iter().copied()
    }

    /// What a contact who writes out of hours is told.
    pub fn away_message(&self) -> Option<&str> {
        self.away_message.as_deref()
    }

    /// What a client sends to set these very hours: the API's shape, and the stored one (read
    /// back through [`new`](Self::new), so stored hours are checked as sent ones are).
    pub fn to_input(&self) -> BusinessHoursInput {
        BusinessHoursInput {
            timezone: Some(self.timezone().to_string()),
            week: Some(
                self.week()
                    .filter(|(_, periods)| !periods.is_empty())
                    .map(|(day, periods)| (day.to_string(), periods.iter().map(|p| p.to_pair().to_vec()).collect()))
                    .collect(),
            ),
            closed_dates: Some(self.closed_dates().map(|d| d.format("%Y-%m-%d").to_string()).collect()),
            away_message: self.away_message.clone(),
        }
    }

    /// The stored document: `{"timezone", "week", "closed_dates", "away_message"}`.
    pub fn to_document(&self) -> String {
        let input = self.to_input();
        serde_json::json!({
            "timezone": input.timezone,
            "week": input.week,
            "closed_dates": input.closed_dates,
            "away_message": input.away_message,
        })
        .to_string()
    }

    /// Reads what [`to_document`](Self::to_document) wrote, checked again; the reason when it
    /// cannot be read.
    pub fn from_document(text: &str) -> Result<Self, String> {
        #[derive(serde::Deserialize)]
        struct Stored {
            timezone: String,
            week: BTreeMap<String, Vec<Vec<String>>>,
            closed_dates: Vec<String>,
            away_message: Option<String>,
        }
        let stored: Stored = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let input = BusinessHoursInput {
            timezone: Some(stored.timezone),
            week: Some(stored.week),
            closed_dates: Some(stored.closed_dates),
            away_message: stored.away_message,
        };
        Self::new(input).map_err(|errors| errors.iter().map(|e| format!("{}: {}", e.field, e.issue)).collect::<Vec<_>>().join("; "))
    }

    /// Whether the team is at work at `at`.
    pub fn is_open(&self, at: DateTime<Utc>) -> bool {
        self.open_spans(at - TimeDelta::days(1), at + TimeDelta::days(1)).any(|(start, end)| start <= at && at < end)
    }

    /// How much of `[from, to)` falls within business hours, in whole seconds (0 when `to` is
    /// not after `from`).
    pub fn open_seconds_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
        if to <= from {
            return 0;
        }
        self.open_spans(from, to).map(|(start, end)| (end.min(to) - start.max(from)).num_milliseconds().max(0)).sum::<i64>() / 1000
    }

    /// The first instant at or after `from` that is `seconds` of business time later: when a
    /// target of that much working time falls due. `None` when the hours never open again
    /// within a year (a week with no period, say).
    pub fn add_open_seconds(&self, from: DateTime<Utc>, seconds: i64) -> Option<DateTime<Utc>> {
        let mut left = TimeDelta::seconds(seconds.max(0));
        let mut cursor = from;
        // A day's spans at a time, for at most a year.
        for _ in 0..366 {
            let until = cursor + TimeDelta::days(1);
            for (start, end) in self.open_spans(cursor, until) {
                let (start, end) = (start.max(cursor), end);
                if end <= start {
                    continue;
                }
                if end - start >= left {
                    return Some(start + left);
                }
                left -= end - start;
                cursor = end;
            }
            cursor = cursor.max(until);
        }
        None
    }

    /// The date the shop's clocks show at `at`.
    pub fn local_date(&self, at: DateTime<Utc>) -> NaiveDate {
        at.with_timezone(&self.timezone).date_naive()
    }

    /// The instant the shop's `day` begins (its first minute, where midnight is skipped).
    pub fn start_of_day(&self, day: NaiveDate) -> DateTime<Utc> {
        self.instant(day, 0)
    }

    /// The open time of `[from, to)`, ready to answer many questions of it
    /// ([`OpenTime::seconds_between`]).
    pub fn open_time(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> OpenTime {
        OpenTime::of_spans(self.open_spans(from, to))
    }

    /// The open spans (as instants) of every local day that can touch `[from, to)`, in order.
    fn open_spans(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> impl Iterator<Item = (DateTime<Utc>, DateTime<Utc>)> + '_ {
        let first = from.with_timezone(&self.timezone).date_naive() - Days::new(1);
        let last = to.with_timezone(&self.timezone).date_naive() + Days::new(1);
        first
            .iter_days()
            .take_while(move |day| *day <= last)
            .filter(|day| !self.closed_dates.contains(day))
            .flat_map(move |day| {
                let periods = &self.week[day.weekday().num_days_from_monday() as usize];
                periods.iter().map(move |p| (self.instant(day, p.start), self.instant(day, p.end)))
            })
            .filter(move |(start, end)| start < end && *end > from && *start < to)
    }

    /// The instant the shop's clocks show `minutes` after midnight of `day`: the earlier of a
    /// repeated time, and for a time the clocks skip, the moment they jump to.
    fn instant(&self, day: NaiveDate, minutes: u32) -> DateTime<Utc> {
        let local = NaiveDateTime::new(day, NaiveTime::MIN) + TimeDelta::minutes(i64::from(minutes));
        match self.timezone.from_local_datetime(&local) {
            LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => t.with_timezone(&Utc),
            LocalResult::None => {
                // In a gap: the clocks jump over it, to the first local minute after it, which
                // is the instant of the jump (gaps start and end on whole minutes).
                (1..=MINUTES_PER_DAY)
                    .map(|m| local + TimeDelta::minutes(i64::from(m)))
                    .find_map(|later| match self.timezone.from_local_datetime(&later) {
                        LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => Some(t.with_timezone(&Utc)),
                        LocalResult::None => None,
                    })
                    .unwrap_or_else(|| Utc.from_utc_datetime(&local))
            }
        }
    }
}
