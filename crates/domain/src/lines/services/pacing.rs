//! Sends at each line's pace: every platform call that sends a message takes the line's next
//! turn first, and a refusal for throughput (WhatsApp's 130429) holds the line back and tries
//! again instead of failing the message.

use std::time::Duration;

use async_trait::async_trait;

use crate::model::{Line, LineId, Pace};
use crate::ports::{PlatformError, SendPacer};

/// Throughput refusals of one send retried before it fails with the platform's reason.
pub const THROTTLE_RETRIES: u32 = 5;
/// The line's first hold after a throughput refusal, doubled after each further one (1, 2, 4,
/// 8, 16 s: the platform's own advice is to back off exponentially).
pub const FIRST_HOLD: Duration = Duration::from_secs(1);

/// No pacing at all: what a service without a pacer uses (a library user who paces elsewhere).
pub struct Unpaced;

#[async_trait]
impl SendPacer for Unpaced {
    async fn wait_turn(&self, _line: &LineId, _pace: Pace) {}
    async fn hold(&self, _line: &LineId, _pause: Duration) {}
}

/// Whether a send waits for its line's turn first, or already took it (a scheduled message
/// takes its turn before it is started, so a process stopped while waiting leaves it scheduled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Wait for the line's turn, then send.
    Wait,
    /// The turn was taken: send at once (a retry after a refusal still waits).
    Taken,
}

/// `send` through `line` at its pace, retried after throughput refusals (up to
/// [`THROTTLE_RETRIES`], holding the line [`FIRST_HOLD`], then twice as long each time).
pub(crate) async fn paced<T, F>(pacer: &dyn SendPacer, line: &Line, turn: Turn, mut send: impl FnMut() -> F) -> Result<T, PlatformError>
where
    F: Future<Output = Result<T, PlatformError>>,
{
    let (mut hold, mut refusals) = (FIRST_HOLD, 0);
    let mut wait = turn == Turn::Wait;
    loop {
        if wait {
            pacer.wait_turn(&line.id, line.pace).await;
        }
        wait = true;
        match send().await {
            Err(e) if e.is_throughput_limit() && refusals < THROTTLE_RETRIES => {
                refusals += 1;
                tracing::warn!(
                    line = line.id.as_str(),
                    refusals,
                    hold_ms = hold.as_millis() as u64,
                    "the platform refused a send for throughput: holding the line, then trying again"
                );
                pacer.hold(&line.id, hold).await;
                hold *= 2;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::model::{AgentId, LineAccess, LineAccount, PhoneNumberId, Timestamp, WabaId};

    /// Records what was asked of it.
    #[derive(Default)]
    struct Recorded(Mutex<Vec<String>>);

    #[async_trait]
    impl SendPacer for Recorded {
        async fn wait_turn(&self, line: &LineId, pace: Pace) {
            self.0.lock().unwrap().push(format!("turn {} {}", line.as_str(), pace.per_second()));
        }
        async fn hold(&self, line: &LineId, pause: Duration) {
            self.0.lock().unwrap().push(format!("hold {} {}", line.as_str(), pause.as_secs()));
        }
    }

    fn line() -> Line {
        Line {
            id: LineId::new("chn_1"),
            agent_id: AgentId::new("agt_1"),
            account: LineAccount::Whatsapp { phone_number_id: PhoneNumberId::new("1065").unwrap(), waba_id: WabaId::new("9000").unwrap() },
            access: LineAccess::Sandbox,
            created_at: Timestamp::default(),
            pace: Pace::new("p", 40).unwrap(),
        }
    }

    fn throttled() -> PlatformError {
        PlatformError::Rejected { code: Some(130429), message: "Rate limit hit".into(), details: None }
    }

    #[tokio::test]
    async fn throughput_refusals_hold_the_line_longer_each_time_then_the_send_goes_out() {
        let pacer = Recorded::default();
        let mut answers = vec![Ok("pm.1"), Err(throttled()), Err(throttled())];
        let sent = paced(&pacer, &line(), Turn::Wait, || std::future::ready(answers.pop().unwrap())).await;
        assert_eq!(sent, Ok("pm.1"));
        let asked = pacer.0.lock().unwrap().clone();
        assert_eq!(asked, ["turn chn_1 40", "hold chn_1 1", "turn chn_1 40", "hold chn_1 2", "turn chn_1 40"]);
    }

    #[tokio::test]
    async fn a_taken_turn_is_not_waited_for_and_other_refusals_are_not_retried() {
        let pacer = Recorded::default();
        let refused = PlatformError::Rejected { code: Some(131026), message: "undeliverable".into(), details: None };
        let answer = refused.clone();
        let sent: Result<&str, _> = paced(&pacer, &line(), Turn::Taken, || std::future::ready(Err(answer.clone()))).await;
        assert_eq!(sent, Err(refused));
        assert!(pacer.0.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_line_still_refused_after_the_retries_fails_with_the_platforms_reason() {
        let pacer = Recorded::default();
        let sent: Result<&str, _> = paced(&pacer, &line(), Turn::Wait, || std::future::ready(Err(throttled()))).await;
        assert_eq!(sent, Err(throttled()));
        let holds: Vec<String> = pacer.0.lock().unwrap().iter().filter(|a| a.starts_with("hold")).cloned().collect();
        assert_eq!(holds, ["hold chn_1 1", "hold chn_1 2", "hold chn_1 4", "hold chn_1 8", "hold chn_1 16"]);
    }
}
