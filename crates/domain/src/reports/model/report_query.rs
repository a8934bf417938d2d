//! What a report is asked for: a range of the agent's local days and how its rows are grouped.

use chrono::{Days, NaiveDate};

use crate::error::Violations;
use crate::{DomainError, FieldError};

/// The longest range one report covers, in days: a year, leap day included.
pub const MAX_REPORT_DAYS: u64 = 366;
/// The range a report covers when `from` is left out: 30 days up to `to`.
const DEFAULT_DAYS: u64 = 30;

/// How a report's rows are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupBy {
    /// One row per local day of the range, days with nothing included.
    #[default]
    Day,
    /// One row per assignee (the conversation's when each thing counted happened), unassigned
    /// last.
    Member,
    /// One row per channel type.
    Channel,
}

impl GroupBy {
    /// Its name in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Member => "member",
            GroupBy::Channel => "channel",
        }
    }

    /// The grouping named `raw`.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        [GroupBy::Day, GroupBy::Member, GroupBy::Channel]
            .into_iter()
            .find(|g| g.as_str() == raw)
            .ok_or_else(|| FieldError::new("group_by", format!("must be one of day, member, channel, not {raw:?}")))
    }
}

/// A report's parameters as the caller sent them.
#[derive(Debug, Clone, Default)]
pub struct ReportQueryInput {
    /// The first day, `YYYY-MM-DD`; 29 days before `to` when left out.
    pub from: Option<String>,
    /// The last day, included, `YYYY-MM-DD`; the agent's today when left out.
    pub to: Option<String>,
    /// `day` (the default), `member` or `channel`.
    pub group_by: Option<String>,
}

/// A checked report request: `from` to `to` (both included, at most [`MAX_REPORT_DAYS`]), in the
/// agent's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportQuery {
    /// The first day.
    pub from: NaiveDate,
    /// The last day, included.
    pub to: NaiveDate,
    /// How rows are grouped.
    pub group_by: GroupBy,
}

impl ReportQuery {
    /// Checks `input`, naming each fault; `today` is the agent's date now, for what is left out.
    pub fn new(input: &ReportQueryInput, today: NaiveDate) -> Result<Self, DomainError> {
        let mut v = Violations::default();
        let to = input.to.as_deref().map(|raw| v.check(date("to", raw)));
        let from = input.from.as_deref().map(|raw| v.check(date("from", raw)));
        let group_by = input.group_by.as_deref().map_or(Ok(GroupBy::Day), GroupBy::parse);
        let group_by = v.check(group_by);
        v.finish()?;
        let to = to.flatten().unwrap_or(today);
        let from = from.flatten().unwrap_or_else(|| to - Days::new(DEFAULT_DAYS - 1));
        let issue = if from > to {
            Some(format!("must not be after to ({to})"))
        } else if (to - from).num_days() >= MAX_REPORT_DAYS as i64 {
            Some(format!("must be at most {MAX_REPORT_DAYS} days before to, both included"))
        } else {
            None
        };
        if let Some(issue) = issue {
            return Err(DomainError::Validation(vec![FieldError::new("from", issue)]));
        }
        Ok(Self { from, to, group_by: group_by.unwrap_or_default() })
    }

    /// Every day of the range, in order.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        self.from.iter_days().take_while(|d| *d <= self.to)
    }
}

/// `raw` as a date written `YYYY-MM-DD`.
fn date(field: &str, raw: &str) -> Result<NaiveDate, FieldError> {
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .ok()
        .filter(|_| raw.len() == 10)
        .ok_or_else(|| FieldError::new(field, format!("must be a date as YYYY-MM-DD, not {raw:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(from: Option<&str>, to: Option<&str>, group_by: Option<&str>) -> Result<ReportQuery, DomainError> {
        let input = ReportQueryInput { from: from.map(Into::into), to: to.map(Into::into), group_by: group_by.map(Into::into) };
        ReportQuery::new(&input, NaiveDate::from_ymd_opt(2026, 12, 10).unwrap())
    }

    fn fields(result: Result<ReportQuery, DomainError>) -> Vec<String> {
        match result {
            Err(DomainError::Validation(errors)) => errors.into_iter().map(|e| e.field).collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn left_out_means_the_last_thirty_days_by_day() {
        let q = query(None, None, None).unwrap();
        assert_eq!((q.from.to_string(), q.to.to_string(), q.group_by), ("2026-11-11".into(), "2026-12-10".into(), GroupBy::Day));
        assert_eq!(q.days().count(), 30);
        let q = query(None, Some("2026-01-31"), Some("channel")).unwrap();
        assert_eq!((q.from.to_string(), q.group_by), ("2026-01-02".into(), GroupBy::Channel));
        let one = query(Some("2026-02-28"), Some("2026-02-28"), Some("member")).unwrap();
        assert_eq!(one.days().collect::<Vec<_>>(), [one.from]);
    }

    #[test]
    fn each_fault_is_named() {
        assert_eq!(fields(query(Some("2026-02-30"), Some("12/10/2026"), Some("week"))), ["to", "from", "group_by"]);
        assert_eq!(fields(query(Some("2026-12-11"), Some("2026-12-10"), None)), ["from"]);
        assert_eq!(fields(query(Some("2026-1-05"), None, None)), ["from"]);
        assert_eq!(fields(query(Some("2026-12-11"), None, None)), ["from"], "after today, the default end");
        assert_eq!(fields(query(Some("2025-01-01"), Some("2026-01-02"), None)), ["from"], "367 days");
        assert!(query(Some("2025-01-02"), Some("2026-01-01"), None).is_ok(), "365 days");
        assert!(query(Some("2024-01-01"), Some("2024-12-31"), None).is_ok(), "a leap year: 366 days");
    }
}
