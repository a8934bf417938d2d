//! The scheduled-message worker: claims the messages whose `send_at` has come, earliest first,
//! and sends them several at once, each waiting for its line's turn (so a burst goes out at
//! the line's pace, not all at once, and lines do not wait for each other). Every process that
//! processes webhooks runs one; the claims' leases and the start's compare-and-set make them
//! one sender between them. At shutdown the sends in hand finish; the rest wait, scheduled.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use parley_domain::model::MessageStatus;
use tokio::sync::watch;

use crate::runtime::passes::run_passes;
use crate::runtime::state::AppState;

/// How often due messages are looked for: a message goes out within this of its time (plus
/// its line's queue).
const POLL: Duration = Duration::from_millis(500);
/// Messages claimed per pass: a little over two seconds of one line at the default pace, well
/// inside the claim's lease.
const BATCH: u32 = 200;
/// Sends in flight at once: enough to keep a line at its pace while the platform takes a
/// while to answer each one.
const IN_FLIGHT: usize = 64;
/// Sends scheduled messages until `stopping`.
pub async fn send_scheduled(state: Arc<AppState>, stopping: watch::Receiver<bool>) {
    run_passes(stopping, POLL, "scheduled messages' claim", || async {
        let claimed = state.scheduled.claim(BATCH).await?;
        let full = claimed.len() == BATCH as usize;
        if !claimed.is_empty() {
            send_all(&state, claimed).await;
        }
        Ok::<_, parley_domain::DomainError>(full)
    })
    .await;
}

/// Sends a pass's claims, [`IN_FLIGHT`] at a time, and says what became of them.
async fn send_all(state: &AppState, claimed: Vec<parley_domain::model::ScheduledSend>) {
    let claimed_count = claimed.len();
    let outcomes: Vec<Option<MessageStatus>> = futures_util::stream::iter(claimed)
        .map(|send| async move {
            let id = send.message_id.clone();
            match state.scheduled.send(send).await {
                Ok(Some(message)) => {
                    if let Some(why) = &message.error_message {
                        tracing::warn!(message = message.id.as_str(), error = why.as_str(), "a scheduled message failed");
                    }
                    Some(message.status)
                }
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!(message = id.as_str(), error = %e, "a scheduled message could not be sent");
                    None
                }
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let count = |status: MessageStatus| outcomes.iter().filter(|s| **s == Some(status)).count();
    tracing::info!(
        claimed = claimed_count,
        sent = count(MessageStatus::Sent),
        failed = count(MessageStatus::Failed),
        unanswered = count(MessageStatus::Sending),
        "scheduled messages sent"
    );
}
