//! Polling the mailboxes of email lines: each new message is handed to the one inbound path
//! (stored as a delivery, processed once), and the mailbox's position moves past it.
//!
//! One instance reads a mailbox at a time: a lease in storage, renewed as the reader advances.
//! The position moves only after a batch is stored, so a crash reads the batch again, and the
//! messages' `Message-ID`s keep each one stored once: no gap, no duplicate.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;

use crate::DomainError;
use crate::model::*;
use crate::ports::{Clock, LineRepository, MailboxCursorRepository, MailboxReader};

/// How long a claim on a mailbox lasts without being renewed (each batch renews it).
pub const MAILBOX_LEASE: Duration = Duration::from_secs(300);
/// Messages read per batch (the reader also stops at about 64 MiB).
pub const MAIL_BATCH: u32 = 200;
/// Messages of a batch handed to the inbound path at once.
pub const PARALLEL_MESSAGES: usize = 8;

/// Where a delivery read from a mailbox goes: the webhook path every channel shares.
#[async_trait]
pub trait DeliveryIntake: Send + Sync {
    /// Stores and processes one delivery `body` of `platform` (for a mailbox: one raw message).
    /// An error fails the batch, and the mailbox's position stays before it: it is read again.
    async fn take(&self, platform: ChannelType, body: String) -> Result<(), DomainError>;
}

#[async_trait]
impl DeliveryIntake for crate::services::InboundService {
    async fn take(&self, platform: ChannelType, body: String) -> Result<(), DomainError> {
        self.receive_and_process(platform, body).await.map(drop)
    }
}

/// What one poll of every mailbox did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MailPollSummary {
    /// Mailboxes read by this instance.
    pub mailboxes: usize,
    /// Messages handed to the inbound path.
    pub messages: usize,
    /// Mailboxes that failed (logged): read again next time.
    pub failed: usize,
}

/// Reads the mailboxes of email lines that have an incoming server, one instance per mailbox at
/// a time, and hands each new message to a [`DeliveryIntake`].
pub struct MailboxService {
    lines: Arc<dyn LineRepository>,
    cursors: Arc<dyn MailboxCursorRepository>,
    reader: Arc<dyn MailboxReader>,
    clock: Arc<dyn Clock>,
    /// This instance's name in claims.
    holder: String,
}

impl MailboxService {
    /// A service over these ports; `holder` names this instance in mailbox claims, so it must
    /// differ between instances sharing the storage.
    pub fn new(
        lines: Arc<dyn LineRepository>,
        cursors: Arc<dyn MailboxCursorRepository>,
        reader: Arc<dyn MailboxReader>,
        clock: Arc<dyn Clock>,
        holder: String,
    ) -> Self {
        Self { lines, cursors, reader, clock, holder }
    }

    fn lease_end(&self) -> Timestamp {
        self.clock.now() + chrono::TimeDelta::from_std(MAILBOX_LEASE).expect("the lease fits a TimeDelta")
    }

    /// Reads every polled mailbox no other instance is reading, until each has nothing new or
    /// `stop` says so. One mailbox's failure does not stop the others.
    pub async fn poll_all(&self, intake: &dyn DeliveryIntake, stop: &(dyn Fn() -> bool + Sync)) -> Result<MailPollSummary, DomainError> {
        let mut summary = MailPollSummary::default();
        for line in self.lines.all().await?.iter().filter(|l| polled(l)) {
            if stop() {
                break;
            }
            match self.poll(line, intake, stop).await {
                Ok(Some(messages)) => {
                    summary.mailboxes += 1;
                    summary.messages += messages;
                }
                Ok(None) => {}
                Err(e) => {
                    summary.failed += 1;
                    tracing::warn!(line = %line.id.as_str(), error = %e, "mailbox poll failed; tried again at the next poll");
                }
            }
        }
        Ok(summary)
    }

    /// Reads `line`'s mailbox to its end (or until `stop`), when no other instance holds it:
    /// `None` when one does, else how many messages were handed on.
    pub async fn poll(
        &self,
        line: &Line,
        intake: &dyn DeliveryIntake,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<usize>, DomainError> {
        let Some(position) = self.cursors.claim(&line.id, &self.holder, self.clock.now(), self.lease_end()).await? else {
            return Ok(None);
        };
        let read = self.read(line, position, intake, stop).await;
        // Let it go either way: a failed read is tried again at the next poll, by any instance.
        let released = self.cursors.release(&line.id, &self.holder).await;
        let messages = read?;
        released?;
        Ok(Some(messages))
    }

    async fn read(
        &self,
        line: &Line,
        mut position: MailboxPosition,
        intake: &dyn DeliveryIntake,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<usize, DomainError> {
        let mut messages = 0;
        loop {
            let batch = self
                .reader
                .read_after(line, position.known(), MAIL_BATCH)
                .await
                .map_err(|e| DomainError::Upstream(crate::Cause::new(e)))?;
            if batch.position.epoch != position.epoch && position.known().is_some() {
                tracing::info!(line = %line.id.as_str(), "the mailbox was renumbered; reading it again from its start (stored mail is kept once)");
            }
            for skipped in &batch.skipped {
                tracing::warn!(line = %line.id.as_str(), reason = %skipped, "a message of the mailbox was skipped");
            }
            let count = batch.deliveries.len();
            // Several at once: each waits on the database most of its time (one at a time read
            // 68 messages/s on PostgreSQL). Mail of one sender may then run together, which the
            // inbound path allows (its shared writes are idempotent or only move forward).
            let stored: Vec<Result<(), DomainError>> = futures_util::stream::iter(batch.deliveries)
                .map(|body| intake.take(ChannelType::Email, body))
                .buffer_unordered(PARALLEL_MESSAGES)
                .collect()
                .await;
            stored.into_iter().collect::<Result<(), DomainError>>()?;
            messages += count;
            if !self.cursors.advance(&line.id, &self.holder, batch.position, self.lease_end()).await? {
                tracing::warn!(line = %line.id.as_str(), "the mailbox's claim ran out; another instance reads it now");
                return Ok(messages);
            }
            position = batch.position;
            if count > 0 {
                tracing::info!(line = %line.id.as_str(), messages = count, more = batch.more, "mail read");
            }
            if !batch.more || stop() {
                return Ok(messages);
            }
        }
    }
}

/// An email line with a mailbox to read.
fn polled(line: &Line) -> bool {
    matches!(&line.access, LineAccess::Mail(mail) if mail.receive_url.is_some()) && line.channel_type() == ChannelType::Email
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use chrono::{TimeZone, Utc};
    use mockall::predicate::eq;

    use super::*;
    use crate::ports::{MockLineRepository, MockMailboxCursorRepository, MockMailboxReader, PlatformError};

    struct Recorder(Mutex<Vec<String>>);

    #[async_trait]
    impl DeliveryIntake for Recorder {
        async fn take(&self, platform: ChannelType, body: String) -> Result<(), DomainError> {
            assert_eq!(platform, ChannelType::Email);
            self.0.lock().unwrap().push(body);
            Ok(())
        }
    }

    struct Fixed;
    impl Clock for Fixed {
        fn now(&self) -> Timestamp {
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
        }
    }

    fn mailbox_line(receive: bool) -> Line {
        Line {
            id: LineId::new("chn_mail"),
            agent_id: AgentId::new("agt_1"),
            account: LineAccount::Email { address: Email::new("shop@example.com").unwrap(), inbound_token: InboundTokenDigest::of("t") },
            access: LineAccess::Mail(MailAccess {
                send_url: ServerAddress::new("smtp_url", "smtp://mail.example.com").unwrap(),
                receive_url: receive.then(|| ServerAddress::new("imap_url", "imap://mail.example.com").unwrap()),
                username: "shop@example.com".into(),
                password: Password::new("pw").unwrap(),
            }),
            created_at: Fixed.now(),
            pace: Default::default(),
        }
    }

    fn batch(bodies: &[&str], last: u32, more: bool) -> MailBatch {
        MailBatch {
            deliveries: bodies.iter().map(|b| b.to_string()).collect(),
            skipped: vec![],
            position: MailboxPosition { epoch: 7, last },
            more,
        }
    }

    fn service(lines: MockLineRepository, cursors: MockMailboxCursorRepository, reader: MockMailboxReader) -> MailboxService {
        MailboxService::new(Arc::new(lines), Arc::new(cursors), Arc::new(reader), Arc::new(Fixed), "me".into())
    }

    #[tokio::test]
    async fn a_claimed_mailbox_is_read_batch_by_batch_moving_after_each() {
        let mut lines = MockLineRepository::new();
        lines.expect_all().returning(|| Ok(vec![mailbox_line(true), mailbox_line(false)]));
        let mut cursors = MockMailboxCursorRepository::new();
        cursors.expect_claim().times(1).returning(|_, _, _, _| Ok(Some(MailboxPosition { epoch: 7, last: 3 })));
        let mut seq = mockall::Sequence::new();
        for last in [5, 6] {
            cursors
                .expect_advance()
                .with(eq(LineId::new("chn_mail")), eq("me"), eq(MailboxPosition { epoch: 7, last }), mockall::predicate::always())
                .times(1)
                .in_sequence(&mut seq)
                .returning(|_, _, _, _| Ok(true));
        }
        cursors.expect_release().times(1).returning(|_, _| Ok(()));
        let mut reader = MockMailboxReader::new();
        reader
            .expect_read_after()
            .withf(|_, after, _| *after == Some(MailboxPosition { epoch: 7, last: 3 }))
            .returning(|_, _, _| Ok(batch(&["m4", "m5"], 5, true)));
        reader
            .expect_read_after()
            .withf(|_, after, _| after.is_some_and(|a| a.last == 5))
            .returning(|_, _, _| Ok(batch(&["m6"], 6, false)));
        let intake = Recorder(Mutex::new(vec![]));
        let summary = service(lines, cursors, reader).poll_all(&intake, &|| false).await.unwrap();
        assert_eq!(summary, MailPollSummary { mailboxes: 1, messages: 3, failed: 0 }, "the send-only line is not polled");
        let mut taken = intake.0.lock().unwrap().clone();
        taken.sort();
        assert_eq!(taken, ["m4", "m5", "m6"]);
    }

    #[tokio::test]
    async fn a_mailbox_another_instance_holds_is_left_alone() {
        let mut lines = MockLineRepository::new();
        lines.expect_all().returning(|| Ok(vec![mailbox_line(true)]));
        let mut cursors = MockMailboxCursorRepository::new();
        cursors.expect_claim().returning(|_, _, _, _| Ok(None));
        let intake = Recorder(Mutex::new(vec![]));
        let summary = service(lines, cursors, MockMailboxReader::new()).poll_all(&intake, &|| false).await.unwrap();
        assert_eq!(summary, MailPollSummary::default());
    }

    #[tokio::test]
    async fn a_failed_read_lets_the_mailbox_go_without_moving() {
        let mut lines = MockLineRepository::new();
        lines.expect_all().returning(|| Ok(vec![mailbox_line(true)]));
        let mut cursors = MockMailboxCursorRepository::new();
        cursors.expect_claim().returning(|_, _, _, _| Ok(Some(MailboxPosition::default())));
        cursors.expect_advance().never();
        cursors.expect_release().times(1).returning(|_, _| Ok(()));
        let mut reader = MockMailboxReader::new();
        reader
            .expect_read_after()
            .withf(|_, after, _| after.is_none())
            .returning(|_, _, _| Err(PlatformError::Unavailable { message: "connection refused".into() }));
        let intake = Recorder(Mutex::new(vec![]));
        let summary = service(lines, cursors, reader).poll_all(&intake, &|| false).await.unwrap();
        assert_eq!(summary.failed, 1);
    }

    #[tokio::test]
    async fn a_lost_claim_stops_the_reading() {
        let mut lines = MockLineRepository::new();
        lines.expect_all().returning(|| Ok(vec![mailbox_line(true)]));
        let mut cursors = MockMailboxCursorRepository::new();
        cursors.expect_claim().returning(|_, _, _, _| Ok(Some(MailboxPosition::default())));
        cursors.expect_advance().times(1).returning(|_, _, _, _| Ok(false));
        cursors.expect_release().times(1).returning(|_, _| Ok(()));
        let mut reader = MockMailboxReader::new();
        reader.expect_read_after().times(1).returning(|_, _, _| Ok(batch(&["m1"], 1, true)));
        let intake = Recorder(Mutex::new(vec![]));
        let summary = service(lines, cursors, reader).poll_all(&intake, &|| false).await.unwrap();
        assert_eq!(summary.messages, 1);
    }
}
