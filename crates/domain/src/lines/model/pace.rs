//! A line's pace: how many messages a second Parley sends through it.

use std::time::Duration;

use crate::FieldError;

/// Messages a second through one line: WhatsApp's Cloud API takes 80 a second per business
/// number by default (more once Meta raises the number's throughput), so sends are spaced to it
/// rather than refused by it (error 130429).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pace(u32);

impl Pace {
    /// The platform's default throughput per number.
    pub const DEFAULT: Pace = Pace(80);
    /// The most Parley spaces to: Meta's highest tier (1,000 a second).
    pub const MAX: u32 = 1000;

    /// `n` messages a second, 1 to [`MAX`](Self::MAX); a `FieldError` on `field` otherwise.
    pub fn new(field: &str, n: i64) -> Result<Self, FieldError> {
        u32::try_from(n)
            .ok()
            .filter(|n| (1..=Self::MAX).contains(n))
            .map(Self)
            .ok_or_else(|| FieldError::new(field, format!("must be a whole number of messages a second from 1 to {}", Self::MAX)))
    }

    /// Messages a second.
    pub fn per_second(self) -> u32 {
        self.0
    }

    /// The time between two messages at this pace.
    pub fn interval(self) -> Duration {
        Duration::from_secs(1) / self.0
    }
}

impl Default for Pace {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pace_is_one_to_a_thousand_messages_a_second() {
        assert_eq!(Pace::default().per_second(), 80);
        assert_eq!(Pace::DEFAULT.interval(), Duration::from_micros(12_500));
        assert_eq!(Pace::new("p", 1000).unwrap().interval(), Duration::from_millis(1));
        for bad in [0, -1, 1001, i64::MAX] {
            assert_eq!(Pace::new("messages_per_second", bad).unwrap_err().field, "messages_per_second", "{bad}");
        }
    }
}
