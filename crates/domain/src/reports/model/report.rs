//! A report: the agent's counts and median times over a range of its local days, one row per
//! group, computed from the kept counts and durations ([`super::report_facts`]).

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate};

use super::{EndedSpan, GroupBy, ReportQuery, SlotCount, SpanKind, Tally};
use crate::model::{Assignee, BusinessHours, ChannelType, OpenTime, Timestamp};

/// What one row of a report groups.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupKey {
    /// A local day.
    Day(NaiveDate),
    /// An assignee's id; `None`: unassigned (ordered last).
    Member(Option<String>),
    /// A channel type's name; `None`: a conversation with no message (ordered last).
    Channel(Option<&'static str>),
}

impl GroupKey {
    /// The key's value as the API shows it: the date, the id or the type; `None` for null.
    pub fn value(&self) -> Option<String> {
        match self {
            GroupKey::Day(day) => Some(day.to_string()),
            GroupKey::Member(member) => member.clone(),
            GroupKey::Channel(channel) => channel.map(str::to_string),
        }
    }
}

/// One row of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRow {
    /// What it groups.
    pub key: GroupKey,
    /// Conversations opened and closed, messages in and out.
    pub tally: Tally,
    /// The median business seconds from an opening to the team's first answer, over the answers
    /// of the group; `None` when there were none.
    pub median_first_response_seconds: Option<i64>,
    /// The median business seconds from an opening to the close, over the closes of the group.
    pub median_resolution_seconds: Option<i64>,
}

/// A report: its range and grouping, the time zone its days are cut in, and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What was asked.
    pub query: ReportQuery,
    /// The IANA name of the agent's time zone (UTC without business hours).
    pub timezone: &'static str,
    /// Days in order, every day of the range; members and channels by value, null last, only
    /// those with anything counted.
    pub rows: Vec<ReportRow>,
}

/// The median of `values` in whole seconds (the lower whole second of the mean of the middle
/// two, for an even count); `None` for none. Reorders `values`.
pub fn median(values: &mut [i64]) -> Option<i64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let (_, upper, _) = values.select_nth_unstable(n / 2);
    let upper = *upper;
    if n % 2 == 1 {
        return Some(upper);
    }
    // The lower middle: the largest of the values below the upper one's place.
    let lower = values[..n / 2].iter().copied().max().unwrap_or(upper);
    Some((lower + upper).div_euclid(2))
}

/// One group's sums while a report is built.
#[derive(Default)]
struct Group {
    tally: Tally,
    first_responses: Vec<i64>,
    resolutions: Vec<i64>,
}

impl Report {
    /// The start and end (excluded) of the query's range as instants in `hours`' time zone.
    pub fn range(query: &ReportQuery, hours: &BusinessHours) -> (Timestamp, Timestamp) {
        (hours.start_of_day(query.from), hours.start_of_day(query.to + Days::new(1)))
    }

    /// The report of `query` from the range's counts and spans as its grouping reads them
    /// ([`ReportRange`](super::ReportRange)); times are counted in `hours` (`None`: always
    /// open, days cut in UTC).
    pub fn build(query: ReportQuery, hours: Option<&BusinessHours>, counts: &[SlotCount], spans: &[EndedSpan]) -> Report {
        let always = BusinessHours::always_open();
        let calendar = hours.unwrap_or(&always);
        let open = hours.map(|h| open_time_of(h, spans));
        let seconds = |s: &EndedSpan| match &open {
            Some(open) => open.seconds_between(s.started_at, s.ended_at),
            None => (s.ended_at - s.started_at).num_seconds().max(0),
        };
        let rows = match query.group_by {
            GroupBy::Day => {
                // Each day's first instant, so an instant's day is one binary search (a time
                // zone's conversion for each of a few hundred thousand spans cost more).
                let days: Vec<NaiveDate> = query.days().collect();
                let starts: Vec<Timestamp> = days.iter().map(|d| calendar.start_of_day(*d)).collect();
                let day_of = |at: Timestamp| starts.partition_point(|start| *start <= at).checked_sub(1);
                let mut groups: Vec<Group> = days.iter().map(|_| Group::default()).collect();
                for c in counts {
                    if let Some(day) = day_of(c.slot) {
                        groups[day].tally = groups[day].tally.plus(c.tally);
                    }
                }
                for s in spans {
                    if let Some(day) = day_of(s.ended_at) {
                        groups[day].push(s.kind, seconds(s));
                    }
                }
                days.into_iter().zip(groups).map(|(day, g)| g.into_row(GroupKey::Day(day))).collect()
            }
            GroupBy::Member => {
                grouped(counts, spans, seconds, |member, _| member.map(Assignee::as_str), |m| GroupKey::Member(m.map(str::to_string)))
            }
            GroupBy::Channel => grouped(
                counts,
                spans,
                seconds,
                |_, channel| channel.map(ChannelType::as_str),
                |c| GroupKey::Channel(c.and_then(|c| ChannelType::parse(c).ok()).map(ChannelType::as_str)),
            ),
        };
        Report { query, timezone: calendar.timezone(), rows }
    }
}

impl Group {
    fn push(&mut self, kind: SpanKind, seconds: i64) {
        match kind {
            SpanKind::FirstResponse => self.first_responses.push(seconds),
            SpanKind::Resolution => self.resolutions.push(seconds),
        }
    }

    fn into_row(mut self, key: GroupKey) -> ReportRow {
        ReportRow {
            key,
            tally: self.tally,
            median_first_response_seconds: median(&mut self.first_responses),
            median_resolution_seconds: median(&mut self.resolutions),
        }
    }
}

/// Rows grouped by the key `key_of` reads off an assignee and a channel (borrowed: no copy per
/// span), values first, `None` last; `row_key` names each.
fn grouped<'a>(
    counts: &'a [SlotCount],
    spans: &'a [EndedSpan],
    seconds: impl Fn(&EndedSpan) -> i64,
    key_of: impl Fn(Option<&'a Assignee>, Option<ChannelType>) -> Option<&'a str>,
    row_key: impl Fn(Option<&str>) -> GroupKey,
) -> Vec<ReportRow> {
    // (is none, value): values in order, then none.
    let mut groups: BTreeMap<(bool, Option<&'a str>), Group> = BTreeMap::new();
    for c in counts {
        let key = key_of(c.member.as_ref(), c.channel);
        let group = groups.entry((key.is_none(), key)).or_default();
        group.tally = group.tally.plus(c.tally);
    }
    for s in spans {
        let key = key_of(s.member.as_ref(), s.channel);
        groups.entry((key.is_none(), key)).or_default().push(s.kind, seconds(s));
    }
    groups.into_iter().map(|((_, key), g)| g.into_row(row_key(key))).collect()
}

/// The open time of the stretch `spans` cover, from the earliest start to the latest end.
fn open_time_of(hours: &BusinessHours, spans: &[EndedSpan]) -> OpenTime {
    let earliest = spans.iter().map(|s| s.started_at).min();
    let latest = spans.iter().map(|s| s.ended_at).max();
    match (earliest, latest) {
        (Some(from), Some(to)) => hours.open_time(from, to + chrono::TimeDelta::seconds(1)),
        _ => OpenTime::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [7]), Some(7));
        assert_eq!(median(&mut [9, 1, 5]), Some(5));
        assert_eq!(median(&mut [10, 1, 4, 100]), Some(7), "(4 + 10) / 2");
        assert_eq!(median(&mut [3, 4]), Some(3), "3.5, the lower whole second");
        assert_eq!(median(&mut [5, 5, 5, 5]), Some(5));
    }
}
