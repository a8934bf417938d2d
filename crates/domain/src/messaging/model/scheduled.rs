//! Scheduled messages: a reply or template send asked for a later time (`send_at`), stored on
//! the timeline as `scheduled` and sent once, at that time, by the workers.

use chrono::TimeDelta;

use crate::FieldError;
use crate::model::{ActivityId, AgentId, CampaignKey, ComponentInput, LineId, MessageId, TemplateId, Timestamp, parse_timestamp};

/// How far ahead a message may be scheduled.
pub const SCHEDULE_HORIZON: TimeDelta = TimeDelta::days(30);

/// When a message is to go out: an RFC 3339 time after now and at most
/// [`SCHEDULE_HORIZON`] ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendAt(Timestamp);

impl SendAt {
    /// `raw` read as `send_at` at `now`; a `FieldError` on `send_at` when it is no time, not in
    /// the future, or more than 30 days ahead.
    pub fn parse(raw: &str, now: Timestamp) -> Result<Self, FieldError> {
        let at = parse_timestamp("send_at", raw)?;
        if at <= now {
            return Err(FieldError::new("send_at", "must be in the future"));
        }
        if at - now > SCHEDULE_HORIZON {
            return Err(FieldError::new("send_at", "must be at most 30 days ahead"));
        }
        Ok(Self(at))
    }

    /// The time.
    pub fn at(self) -> Timestamp {
        self.0
    }
}

/// What a scheduled message needs at its time beyond what its timeline entry holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScheduledRequest {
    /// A reply: the entry holds its content, channel and line.
    Reply {
        /// Whether the platform may show a preview of the text's first link.
        preview_url: bool,
        /// Sent by a person (Instagram's 7-day window instead of 24 hours).
        human_agent: bool,
    },
    /// A template send, checked again against the template as it is at send time.
    Template {
        /// The template sent.
        template_id: TemplateId,
        /// The recipient as asked (a phone number or a business-scoped user id).
        to: String,
        /// The components as asked.
        components: Option<Vec<ComponentInput>>,
        /// The campaign key and name the send belongs to, if any.
        campaign: Option<(CampaignKey, String)>,
    },
}

/// A message waiting for its time.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledSend {
    /// The timeline entry (`status: scheduled`) it becomes once sent.
    pub message_id: MessageId,
    /// Whose it is.
    pub agent_id: AgentId,
    /// The conversation it is on.
    pub activity_id: ActivityId,
    /// The line it goes out through, whose pace it waits for.
    pub line_id: LineId,
    /// When it is to go out.
    pub send_at: Timestamp,
    /// What sending it needs.
    pub request: ScheduledRequest,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(raw: &str) -> Timestamp {
        parse_timestamp("t", raw).unwrap()
    }

    #[test]
    fn send_at_is_a_future_time_within_thirty_days() {
        let now = t("2026-12-01T10:00:00Z");
        assert_eq!(SendAt::parse("2026-12-01T10:00:01Z", now).unwrap().at(), t("2026-12-01T10:00:01Z"));
        assert_eq!(SendAt::parse("2026-12-31T10:00:00Z", now).unwrap().at(), t("2026-12-31T10:00:00Z"), "30 days exactly");
        for (raw, why) in [
            ("2026-12-01T10:00:00Z", "must be in the future"),
            ("2026-11-30T10:00:00Z", "must be in the future"),
            ("2026-12-31T10:00:00.001Z", "must be at most 30 days ahead"),
        ] {
            let e = SendAt::parse(raw, now).unwrap_err();
            assert_eq!((e.field.as_str(), e.issue.as_str()), ("send_at", why), "{raw}");
        }
        assert_eq!(SendAt::parse("tomorrow", now).unwrap_err().field, "send_at");
    }

    #[test]
    fn a_request_reads_back_from_its_document() {
        let template = ScheduledRequest::Template {
            template_id: TemplateId::new("tpl_1"),
            to: "15551234567".into(),
            components: Some(vec![ComponentInput { kind: Some("body".into()), ..Default::default() }]),
            campaign: Some((CampaignKey::new("spring").unwrap(), "Spring".into())),
        };
        for request in [ScheduledRequest::Reply { preview_url: true, human_agent: false }, template] {
            let text = serde_json::to_string(&request).unwrap();
            assert_eq!(serde_json::from_str::<ScheduledRequest>(&text).unwrap(), request, "{text}");
        }
    }
}
