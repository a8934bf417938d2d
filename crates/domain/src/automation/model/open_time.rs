//! The open time of a stretch of business hours as running totals, so that the business time
//! between two instants is two binary searches: what a report asks of hundreds of thousands of
//! conversations at once ([`BusinessHours::open_seconds_between`](super::BusinessHours) walks
//! the days for each).

use chrono::{DateTime, Utc};

/// The open spans of a stretch of time, in order, with the open time before each.
#[derive(Debug, Clone, Default)]
pub struct OpenTime {
    /// Each span's start and end, in milliseconds since the epoch; sorted, none overlapping.
    spans: Vec<(i64, i64)>,
    /// The open milliseconds before each span's start.
    before: Vec<i64>,
}

impl OpenTime {
    /// From spans in order of their start (a later one that overlaps an earlier is cut to
    /// begin where the earlier ends).
    pub fn of_spans(spans: impl IntoIterator<Item = (DateTime<Utc>, DateTime<Utc>)>) -> Self {
        let mut open = Self::default();
        let mut total = 0;
        for (start, end) in spans {
            let (mut start, end) = (start.timestamp_millis(), end.timestamp_millis());
            if let Some(&(_, last_end)) = open.spans.last() {
                start = start.max(last_end);
            }
            if end <= start {
                continue;
            }
            open.spans.push((start, end));
            open.before.push(total);
            total += end - start;
        }
        open
    }

    /// Open milliseconds before `at` (from the first span on).
    fn open_before(&self, at: i64) -> i64 {
        // The spans that start at or before `at`: the last of them may hold it.
        let n = self.spans.partition_point(|&(start, _)| start <= at);
        let Some(i) = n.checked_sub(1) else { return 0 };
        let (start, end) = self.spans[i];
        self.before[i] + (at.min(end) - start)
    }

    /// How much of `[from, to)` is open, in whole seconds (0 when `to` is not after `from`):
    /// the same as [`BusinessHours::open_seconds_between`](super::BusinessHours::open_seconds_between)
    /// for instants inside the stretch it was made for.
    pub fn seconds_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
        if to <= from {
            return 0;
        }
        (self.open_before(to.timestamp_millis()) - self.open_before(from.timestamp_millis())) / 1000
    }
}
