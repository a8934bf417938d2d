//! An activity's first-response clock: it starts when the contact opens the conversation (their
//! message finds it not open, or finds no clock started yet), falls due at the agent's target counted in
//! business hours, and stops at the team's first answer after it started.

use crate::model::Timestamp;

/// Where an activity's first response stands. All `None` until the contact first opens it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FirstResponse {
    /// When the contact last opened the conversation: the inbound message that made it open.
    /// What first responses and resolutions are counted from.
    pub opened_at: Option<Timestamp>,
    /// When the team's first answer since `opened_at` falls due; `None` when the agent had no
    /// target then.
    pub due_at: Option<Timestamp>,
    /// When the team first answered since `opened_at`.
    pub responded_at: Option<Timestamp>,
    /// When the miss was announced (`activity.first_response_missed`): once per opening.
    pub missed_at: Option<Timestamp>,
}

impl FirstResponse {
    /// The clock as a message the contact sent at `at` leaves it, when it opens the
    /// conversation: restarted from `at`, due at `due`.
    pub fn started(at: Timestamp, due: Option<Timestamp>) -> Self {
        Self { opened_at: Some(at), due_at: due, responded_at: None, missed_at: None }
    }

    /// Whether an inbound message opens the conversation: it finds it not open, or open with no
    /// clock started (the contact's first message; or the first since the clock was kept). A
    /// second message while the clock runs, answered or not, restarts nothing.
    pub fn opened_by_inbound(&self, open: bool) -> bool {
        !open || self.opened_at.is_none()
    }

    /// Whether an answer of the team at `at` is the first response: the clock runs (it started
    /// at or before `at`) and nothing answered yet.
    pub fn answered_by(&self, at: Timestamp) -> bool {
        self.responded_at.is_none() && self.opened_at.is_some_and(|opened| opened <= at)
    }

    /// Whether the target is missed by `now` and not yet announced: still unanswered, still open.
    pub fn missed_by(&self, now: Timestamp, open: bool) -> bool {
        open && self.responded_at.is_none() && self.missed_at.is_none() && self.due_at.is_some_and(|due| due <= now)
    }
}

/// What a recorded message does to its activity's clock, decided by who wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseMark {
    /// Nothing: a note, a notice, an automated send (a rule's, the away message), a campaign's.
    Nothing,
    /// The contact's message: when it opens the conversation ([`FirstResponse::opened_by_inbound`]), the
    /// clock restarts from it, due at `due` (the agent's target then, in business hours).
    Opens {
        /// When the first response falls due; `None` without a target.
        due: Option<Timestamp>,
    },
    /// The team's answer (a reply, a template send, a message from the platform's own app): the
    /// first since the clock started is the first response.
    Answers,
}

impl ResponseMark {
    /// The team's message going out: its answer, unless a campaign sent it (a send to many
    /// answers nobody in particular).
    pub fn team_message(campaign: Option<&crate::model::CampaignKey>) -> Self {
        if campaign.is_some() { ResponseMark::Nothing } else { ResponseMark::Answers }
    }

    /// The clock after a message of `message_at` marks it, from `before` with the conversation
    /// `open`: storage applies this under the activity's lock, so racing messages move it once.
    pub fn apply(self, before: FirstResponse, open: bool, message_at: Timestamp) -> FirstResponse {
        match self {
            ResponseMark::Opens { due } if before.opened_by_inbound(open) => FirstResponse::started(message_at, due),
            ResponseMark::Answers if before.answered_by(message_at) => FirstResponse { responded_at: Some(message_at), ..before },
            _ => before,
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    fn t(s: i64) -> Timestamp {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    #[test]
    fn a_first_message_or_one_to_a_conversation_not_open_starts_the_clock_and_others_leave_it() {
        let due = Some(t(600));
        let started = ResponseMark::Opens { due }.apply(FirstResponse::default(), true, t(0));
        assert_eq!(started, FirstResponse::started(t(0), due));
        // A second message while nobody answered: the clock keeps its start and due time.
        assert_eq!(ResponseMark::Opens { due: Some(t(900)) }.apply(started, true, t(300)), started);
        // Closed, then the contact writes: a new opening.
        let answered = ResponseMark::Answers.apply(started, true, t(100));
        let reopened = ResponseMark::Opens { due: None }.apply(answered, false, t(5_000));
        assert_eq!(reopened, FirstResponse::started(t(5_000), None));
    }

    #[test]
    fn only_the_first_answer_after_the_start_counts() {
        let started = FirstResponse::started(t(10), Some(t(70)));
        assert_eq!(ResponseMark::Answers.apply(FirstResponse::default(), true, t(5)), FirstResponse::default());
        assert_eq!(ResponseMark::Answers.apply(started, true, t(5)), started, "an answer older than the opening");
        let first = ResponseMark::Answers.apply(started, true, t(40));
        assert_eq!(first.responded_at, Some(t(40)));
        assert_eq!(ResponseMark::Answers.apply(first, true, t(50)), first);
        assert_eq!(ResponseMark::Nothing.apply(started, true, t(40)), started);
    }

    #[test]
    fn a_miss_is_an_open_unanswered_conversation_past_its_due_time_not_yet_announced() {
        let started = FirstResponse::started(t(0), Some(t(60)));
        assert!(!started.missed_by(t(59), true));
        assert!(started.missed_by(t(60), true));
        assert!(!started.missed_by(t(60), false), "closed or pending: nobody is waiting");
        assert!(!FirstResponse { responded_at: Some(t(61)), ..started }.missed_by(t(100), true));
        assert!(!FirstResponse { missed_at: Some(t(61)), ..started }.missed_by(t(100), true));
        assert!(!FirstResponse::started(t(0), None).missed_by(t(1_000_000), true), "no target, no miss");
    }
}
