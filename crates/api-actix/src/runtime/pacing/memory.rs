//! Pacing in this process: per line, the time its next turn starts (GCRA's theoretical
//! arrival time); a turn is that time or now, whichever is later, and moves it one interval on.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use parley_domain::model::{LineId, Pace};
use parley_domain::ports::SendPacer;
use tokio::time::Instant;

#[derive(Default)]
pub struct MemoryPacer {
    next_turn: Mutex<HashMap<LineId, Instant>>,
}

impl MemoryPacer {
    /// Takes `line`'s next turn: when it starts.
    pub fn take_turn(&self, line: &LineId, pace: Pace) -> Instant {
        let now = Instant::now();
        let mut next = self.next_turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = next.get(line).copied().filter(|at| *at > now).unwrap_or(now);
        next.insert(line.clone(), slot + pace.interval());
        // Lines that have been quiet for a while hold nothing worth keeping.
        if next.len() > 10_000 {
            next.retain(|_, at| *at > now);
        }
        slot
    }
}

#[async_trait]
impl SendPacer for MemoryPacer {
    async fn wait_turn(&self, line: &LineId, pace: Pace) {
        tokio::time::sleep_until(self.take_turn(line, pace)).await;
    }

    async fn hold(&self, line: &LineId, pause: Duration) {
        let until = Instant::now() + pause;
        let mut next = self.next_turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = next.entry(line.clone()).or_insert(until);
        *at = (*at).max(until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_on_a_line_are_one_interval_apart_and_lines_are_apart() {
        let pacer = MemoryPacer::default();
        let (a, b, c) = (LineId::new("chn_a"), LineId::new("chn_b"), LineId::new("chn_c"));
        let pace = Pace::new("p", 4).unwrap();
        let turns: Vec<Instant> = (0..3).map(|_| pacer.take_turn(&a, pace)).collect();
        assert_eq!((turns[1] - turns[0], turns[2] - turns[1]), (Duration::from_millis(250), Duration::from_millis(250)));
        assert!(pacer.take_turn(&b, pace) < turns[1], "another line has its own turns");
        pacer.hold(&b, Duration::from_secs(2)).await;
        assert!(pacer.take_turn(&b, pace) >= Instant::now() + Duration::from_millis(1900), "a held line waits out the hold");
        let fast = Pace::new("p", 1000).unwrap();
        pacer.take_turn(&c, fast);
        std::thread::sleep(Duration::from_millis(5));
        assert!(pacer.take_turn(&c, fast) <= Instant::now(), "a quiet line's turn is now");
    }
}
