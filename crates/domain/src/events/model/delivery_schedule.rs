//! When a failed event delivery is tried again (docs/events.md, "Delivery"): after about a
//! minute, then twice as long each time, at most 8 hours apart, each wait spread by ±20% jitter
//! so that endpoints failing together do not retry together; given up once the next try would
//! fall more than 3 days after the event. An endpoint whose deliveries have done nothing but fail
//! for 3 days is disabled.

use chrono::TimeDelta;

use crate::model::Timestamp;

/// The first retry's wait before jitter.
pub const FIRST_RETRY: TimeDelta = TimeDelta::minutes(1);
/// The longest wait between tries, before jitter.
pub const MAX_WAIT: TimeDelta = TimeDelta::hours(8);
/// How long after its event a delivery is still tried; also how long an endpoint may fail
/// without a success before it is disabled.
pub const RETRY_WINDOW: TimeDelta = TimeDelta::days(3);
/// How far jitter moves a wait, as a fraction of it.
pub const JITTER: f64 = 0.2;

/// The wait after the `failures`-th failed try (1 for the first), before jitter.
pub fn base_wait(failures: u32) -> TimeDelta {
    let doublings = failures.saturating_sub(1).min(20);
    (FIRST_RETRY * (1i32 << doublings)).min(MAX_WAIT)
}

/// When to try again after the `failures`-th failure at `now`, for an event created at
/// `event_at`; `None`: give up. `jitter` is uniform in [0, 1) (the caller's random source),
/// mapped onto ±[`JITTER`] of the wait.
pub fn next_try(event_at: Timestamp, failures: u32, now: Timestamp, jitter: f64) -> Option<Timestamp> {
    let wait = base_wait(failures);
    let spread = (jitter.clamp(0.0, 1.0) * 2.0 - 1.0) * JITTER;
    let millis = wait.num_milliseconds() as f64 * (1.0 + spread);
    let at = now + TimeDelta::milliseconds(millis.round() as i64);
    (at <= event_at + RETRY_WINDOW).then_some(at)
}

/// Whether an endpoint is disabled: its oldest failure since its last success is 3 days old.
pub fn failing_too_long(failing_since: Option<Timestamp>, now: Timestamp) -> bool {
    failing_since.is_some_and(|since| now - since >= RETRY_WINDOW)
}

/// The shortest time a breaker stays open.
pub const MIN_PAUSE: TimeDelta = TimeDelta::seconds(10);
/// The longest time a breaker stays open: a receiver back up waits at most this long.
pub const MAX_PAUSE: TimeDelta = TimeDelta::minutes(5);

/// How long an endpoint's circuit breaker opens after a failure at `now`, the endpoint failing
/// since `failing_since`: as long as it has been failing, within [`MIN_PAUSE`, `MAX_PAUSE`].
/// Each failed probe after a pause then opens it about twice as long as the one before, so a
/// receiver that hangs holds one slot for its time limit once per pause, not one per delivery.
pub fn breaker_pause(failing_since: Timestamp, now: Timestamp) -> TimeDelta {
    (now - failing_since).clamp(MIN_PAUSE, MAX_PAUSE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn t0() -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
    }

    #[test]
    fn waits_double_from_a_minute_up_to_eight_hours() {
        let waits: Vec<i64> = (1..=12).map(|n| base_wait(n).num_minutes()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 480, 480, 480]);
        assert_eq!(base_wait(u32::MAX), MAX_WAIT, "no overflow");
    }

    #[test]
    fn jitter_spreads_a_wait_by_a_fifth_either_way() {
        let now = t0();
        let at = |j| next_try(now, 1, now, j).unwrap() - now;
        assert_eq!(at(0.0), TimeDelta::seconds(48));
        assert_eq!(at(0.5), TimeDelta::seconds(60));
        assert_eq!(at(1.0), TimeDelta::seconds(72));
        assert!(at(0.25) < at(0.75));
    }

    #[test]
    fn tries_stop_three_days_after_the_event() {
        // Failing every time, trying whenever due: the tries and the last one's time.
        let (event_at, mut now, mut failures) = (t0(), t0(), 0);
        while let Some(at) = next_try(event_at, failures + 1, now, 0.5) {
            failures += 1;
            now = at;
        }
        assert!(now <= event_at + RETRY_WINDOW && now > event_at + RETRY_WINDOW - MAX_WAIT, "{now}");
        assert!((15..=20).contains(&failures), "{failures} retries over three days");
    }

    #[test]
    fn an_endpoint_is_disabled_after_three_days_of_failures() {
        let now = t0() + RETRY_WINDOW;
        assert!(failing_too_long(Some(t0()), now));
        assert!(!failing_too_long(Some(t0() + TimeDelta::seconds(1)), now));
        assert!(!failing_too_long(None, now));
    }

    #[test]
    fn a_breaker_opens_as_long_as_the_endpoint_has_failed_within_bounds() {
        let pause = |failing_for: TimeDelta| breaker_pause(t0(), t0() + failing_for);
        assert_eq!(pause(TimeDelta::zero()), MIN_PAUSE, "a failure right after the first");
        assert_eq!(pause(TimeDelta::seconds(40)), TimeDelta::seconds(40));
        assert_eq!(pause(TimeDelta::hours(2)), MAX_PAUSE);
        assert_eq!(pause(TimeDelta::seconds(-5)), MIN_PAUSE, "a clock step back");
    }
}
