//! Mailboxes Parley reads: where each one's reader is, and what one read brings.

/// How far a mailbox has been read: the mailbox's `epoch` (its numbering; a new one restarts
/// the numbers) and the number of the last message handed out under it. The default, epoch 0,
/// is a mailbox never read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MailboxPosition {
    /// The mailbox's numbering: when it changes, numbers restart and the mailbox is read whole.
    pub epoch: u32,
    /// The number of the last message handed out under `epoch`.
    pub last: u32,
}

impl MailboxPosition {
    /// `None` for a mailbox never read.
    pub fn known(self) -> Option<Self> {
        (self != Self::default()).then_some(self)
    }
}

/// One bounded read of a mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MailBatch {
    /// Each new message as a delivery's body, for the email platform's decoder, oldest first.
    pub deliveries: Vec<String>,
    /// Messages passed over, with why (over the size limit): logged, never fetched again.
    pub skipped: Vec<String>,
    /// Where the next read starts, once `deliveries` are stored.
    pub position: MailboxPosition,
    /// More messages wait after `position`: read again at once.
    pub more: bool,
}
