//! Campaign executions: the delivery record of one template send made under a campaign key.
//! Statuses only move forward (sent → delivered → read; failed from any), whatever order and
//! however often the platform reports them.

use crate::FieldError;
use crate::model::{AgentId, Pricing, TemplateId, Timestamp};

/// 1–64 characters of `[A-Za-z0-9_.:-]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CampaignKey(String);

impl CampaignKey {
    /// `raw` exactly; a `FieldError` on `campaign.key` unless it is 1–64 characters of
    /// `A-Z a-z 0-9 _ . : -`.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let ok = (1..=64).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
        if ok {
            Ok(Self(raw.to_string()))
        } else {
            Err(FieldError::new("campaign.key", "must be 1 to 64 characters of A-Z a-z 0-9 _ . : -"))
        }
    }

    /// The key, as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where a template send's delivery stands, as the platform last reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// The platform accepted it (`sent`).
    Sent,
    /// It reached the recipient's device (`delivered`).
    Delivered,
    /// The recipient read it (`read`).
    Read,
    /// The platform refused it or could not deliver it (`failed`): final.
    Failed,
}

impl ExecutionStatus {
    /// Every status, in the order they are reached.
    pub const ALL: [ExecutionStatus; 4] =
        [ExecutionStatus::Sent, ExecutionStatus::Delivered, ExecutionStatus::Read, ExecutionStatus::Failed];

    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionStatus::Sent => "sent",
            ExecutionStatus::Delivered => "delivered",
            ExecutionStatus::Read => "read",
            ExecutionStatus::Failed => "failed",
        }
    }

    /// The status named exactly `raw` (lowercase); `None` otherwise.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "sent" => Some(ExecutionStatus::Sent),
            "delivered" => Some(ExecutionStatus::Delivered),
            "read" => Some(ExecutionStatus::Read),
            "failed" => Some(ExecutionStatus::Failed),
            _ => None,
        }
    }

    /// Forward moves only: along sent → delivered → read, or to failed from any other status.
    pub fn can_move_to(self, next: ExecutionStatus) -> bool {
        use ExecutionStatus::*;
        match (self, next) {
            (Failed, _) => false,
            (_, Failed) => true,
            (Sent, Delivered | Read) | (Delivered, Read) => true,
            _ => false,
        }
    }
}

/// What the platform reported about one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusUpdate {
    /// The platform's id of the message (`pm.…`).
    pub message_id: String,
    /// The status reported.
    pub status: ExecutionStatus,
    /// When it happened, by the platform's clock (not when the webhook arrived).
    pub at: Timestamp,
    /// For `failed`: why, as the platform told it.
    pub error: Option<String>,
    /// The send's `biz_opaque_callback_data`, echoed: a reply's Parley message id, which finds
    /// a reply still `sending` whose platform id Parley never learned (a crash, an outage).
    pub callback_data: Option<String>,
    /// What the platform charges for the message, when the report says.
    pub pricing: Option<Pricing>,
}

/// The delivery record of one template send made under a campaign key: the only sends Parley
/// records this way.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Execution {
    /// Its id (`exe_…`).
    pub id: String,
    /// The agent that sent.
    pub agent_id: AgentId,
    /// The caller's key grouping the sends of one campaign.
    pub campaign_key: CampaignKey,
    /// The campaign's name as the caller gave it with the send (1–128 characters).
    pub campaign_name: String,
    /// The recipient's phone number, digits only with country code.
    pub to: String,
    /// The template sent.
    pub template_id: TemplateId,
    /// The platform's `pm.…`; `None` when the platform refused the send outright.
    pub message_id: Option<String>,
    /// Where the delivery stands; it only moves forward ([`ExecutionStatus::can_move_to`]).
    pub status: ExecutionStatus,
    /// Why it failed; `None` unless `failed`.
    pub error_message: Option<String>,
    /// When the platform accepted the send; `None` when it refused it.
    pub sent_at: Option<Timestamp>,
    /// The earliest time it is known to have been delivered (a `read` implies it).
    pub delivered_at: Option<Timestamp>,
    /// When the recipient read it.
    pub read_at: Option<Timestamp>,
    /// When Parley last changed the record: what `since` polls against.
    pub updated_at: Timestamp,
}

/// Records a reported status's time or failure on an outbound message's fields (executions
/// and messages alike), once [`ExecutionStatus::can_move_to`] has allowed the move.
/// `delivered_at` is the earliest time the message is known to have been delivered: a `read`
/// implies delivered by the read's time at the latest (the platform skips `delivered` for a
/// message read at once, and reports can arrive in any order).
pub(crate) fn record_delivery(
    update: &StatusUpdate,
    delivered_at: &mut Option<Timestamp>,
    read_at: &mut Option<Timestamp>,
    error_message: &mut Option<String>,
) {
    match update.status {
        ExecutionStatus::Sent => {}
        ExecutionStatus::Delivered => {
            earlier_delivery(update, delivered_at);
        }
        ExecutionStatus::Read => {
            earlier_delivery(update, delivered_at);
            *read_at = Some(update.at);
        }
        ExecutionStatus::Failed => *error_message = Some(update.error.clone().unwrap_or_else(|| "the platform reported a failure".into())),
    }
}

/// A `delivered` or `read` report that is earlier than the recorded delivery time moves it
/// earlier; `true` when it did. This holds even for a report that no longer moves the status: a
/// `delivered` processed after the `read` that stood in for it carries the real, earlier time.
pub(crate) fn earlier_delivery(update: &StatusUpdate, delivered_at: &mut Option<Timestamp>) -> bool {
    let tells_delivery = matches!(update.status, ExecutionStatus::Delivered | ExecutionStatus::Read);
    if tells_delivery && delivered_at.is_none_or(|known| update.at < known) {
        *delivered_at = Some(update.at);
        return true;
    }
    false
}

impl Execution {
    /// Applies a reported status if it moves the record forward, or a late report that tells
    /// an earlier delivery of a delivered or read record (its time becomes `delivered_at`);
    /// `false` (and no change) for duplicates and other late, out-of-order reports.
    pub fn apply(&mut self, update: &StatusUpdate, now: Timestamp) -> bool {
        if !self.status.can_move_to(update.status) {
            let delivered = matches!(self.status, ExecutionStatus::Delivered | ExecutionStatus::Read);
            if delivered && earlier_delivery(update, &mut self.delivered_at) {
                self.updated_at = now;
                return true;
            }
            return false;
        }
        record_delivery(update, &mut self.delivered_at, &mut self.read_at, &mut self.error_message);
        self.status = update.status;
        self.updated_at = now;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExecutionStatus::*;
    use chrono::{TimeDelta, TimeZone, Utc};

    fn t(s: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap() + TimeDelta::seconds(s)
    }

    fn sent() -> Execution {
        Execution {
            id: "exe_1".into(),
            agent_id: AgentId::new("agt"),
            campaign_key: CampaignKey::new("spring-sale:2026").unwrap(),
            campaign_name: "Spring".into(),
            to: "14155550100".into(),
            template_id: TemplateId::new("1"),
            message_id: Some("pm.1".into()),
            status: Sent,
            error_message: None,
            sent_at: Some(t(0)),
            delivered_at: None,
            read_at: None,
            updated_at: t(0),
        }
    }

    fn update(status: ExecutionStatus, at: i64) -> StatusUpdate {
        StatusUpdate { message_id: "pm.1".into(), status, at: t(at), error: None, callback_data: None, pricing: None }
    }

    #[test]
    fn statuses_only_move_forward() {
        for (from, to, ok) in [
            (Sent, Delivered, true),
            (Sent, Read, true),
            (Delivered, Read, true),
            (Read, Delivered, false),
            (Delivered, Sent, false),
            (Read, Failed, true),
            (Failed, Read, false),
            (Delivered, Delivered, false),
        ] {
            assert_eq!(from.can_move_to(to), ok, "{from:?} → {to:?}");
        }
    }

    #[test]
    fn out_of_order_and_duplicate_reports_change_nothing() {
        let mut e = sent();
        assert!(e.apply(&update(Read, 20), t(100)));
        assert_eq!((e.delivered_at, e.read_at), (Some(t(20)), Some(t(20))), "read without delivered sets both, at the event's time");
        let after_read = e.clone();
        assert!(!e.apply(&update(Read, 20), t(300)), "a duplicate is ignored");
        assert!(!e.apply(&update(Delivered, 25), t(300)), "a late delivered after the read's time tells nothing new");
        assert!(!e.apply(&update(Sent, 1), t(300)), "a late sent is ignored");
        assert_eq!(e, after_read);
        assert_eq!(e.updated_at, t(100));
    }

    #[test]
    fn a_late_delivered_with_the_earlier_real_time_moves_delivered_at_earlier() {
        let mut e = sent();
        assert!(e.apply(&update(Read, 20), t(100)));
        assert!(e.apply(&update(Delivered, 10), t(200)), "the real delivery time is news");
        assert_eq!((e.status, e.delivered_at, e.read_at, e.updated_at), (Read, Some(t(10)), Some(t(20)), t(200)));
        assert!(!e.apply(&update(Delivered, 10), t(300)), "once");
        assert!(!e.apply(&update(Delivered, 15), t(300)), "never later again");
        assert_eq!(e.delivered_at, Some(t(10)));

        // Delivered, then a read stamped before it (clocks, reordering): delivered by the read.
        let mut e = sent();
        assert!(e.apply(&update(Delivered, 30), t(100)));
        assert!(e.apply(&update(Read, 25), t(200)));
        assert_eq!((e.delivered_at, e.read_at), (Some(t(25)), Some(t(25))), "delivered at the latest when read");

        // A failed record stays as it is.
        let mut f = sent();
        assert!(f.apply(&update(Failed, 3), t(4)));
        assert!(!f.apply(&update(Delivered, 1), t(5)));
        assert_eq!(f.delivered_at, None);
    }

    #[test]
    fn delivered_then_read_keeps_both_times_and_failures_keep_their_reason() {
        let mut e = sent();
        assert!(e.apply(&update(Delivered, 5), t(6)));
        assert!(e.apply(&update(Read, 9), t(10)));
        assert_eq!((e.delivered_at, e.read_at), (Some(t(5)), Some(t(9))));

        let mut f = sent();
        assert!(f.apply(&StatusUpdate { error: Some("131026: Message undeliverable".into()), ..update(Failed, 3) }, t(4)));
        assert_eq!(f.error_message.as_deref(), Some("131026: Message undeliverable"));
        assert!(!f.apply(&update(Read, 9), t(10)), "failed is final");
    }

    #[test]
    fn campaign_keys_are_bounded() {
        assert!(CampaignKey::new("a.b:c_d-9").is_ok());
        for bad in ["", "has space", "ñ", &"k".repeat(65)] {
            assert!(CampaignKey::new(bad).is_err(), "{bad}");
        }
    }
}
