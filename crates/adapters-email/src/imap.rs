//! INBOX polled by UID, resumable and read-only.
//!
//! The caller keeps a [`Cursor`] (UIDVALIDITY, last UID it stored) and asks for what comes
//! after it, one bounded [`Batch`] at a time; it stores the batch's messages, then the batch's
//! cursor. The mailbox is opened with EXAMINE (read-only) and bodies are read with BODY.PEEK,
//! so nothing is ever marked `\Seen`, moved or deleted.

use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;

use async_imap::{Client, Session};
use futures_util::TryStreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_rustls::rustls::pki_types::ServerName;

use crate::limits::{MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, MAX_MESSAGE_BYTES, MESSAGE_TIMEOUT, NETWORK_TIMEOUT};
use crate::tls;
use crate::url::ServerUrl;

/// Where a caller is in a mailbox: UIDs are only comparable under one UIDVALIDITY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cursor {
    pub uid_validity: u32,
    /// The highest UID already handed out (0: none yet).
    pub last_uid: u32,
}

/// One message as fetched, raw bytes for [`crate::parse()`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedMail {
    pub uid: u32,
    pub raw: Vec<u8>,
}

/// A message over [`MAX_MESSAGE_BYTES`]: not downloaded, reported so it can be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OversizedMail {
    pub uid: u32,
    pub size: u64,
}

/// One batch of new mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub uid_validity: u32,
    /// The UIDVALIDITY differs from the caller's cursor: the mailbox was rebuilt and its UIDs
    /// restarted, so this batch starts again from the first message (messages already stored
    /// come again and are absorbed by their Message-ID).
    pub reset: bool,
    /// UID order.
    pub messages: Vec<FetchedMail>,
    pub oversized: Vec<OversizedMail>,
    /// To store once `messages` are stored, and to pass to the next call.
    pub cursor: Cursor,
    /// More messages are waiting after `cursor`: call again without waiting.
    pub more: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImapError {
    /// Unreachable, timed out, TLS failed or the connection broke: may work later.
    #[error("the IMAP server is unavailable: {0}")]
    Unavailable(String),
    /// The server refused the username and password.
    #[error("the IMAP server refused the login: {0}")]
    LoginRefused(String),
    /// The server answered a command with NO or BAD, or something unreadable.
    #[error("the IMAP server failed: {0}")]
    Server(String),
    /// The server gave no UIDVALIDITY, without which UIDs cannot be trusted.
    #[error("the IMAP server gave no UIDVALIDITY for INBOX")]
    NoUidValidity,
}

/// Plain TCP or TLS under the one client type.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Debug> Io for T {}

/// A logged-in IMAP session on one account. Open one per poll, or keep it between polls and
/// open a new one after an [`ImapError::Unavailable`].
pub struct ImapMailbox {
    session: Session<Box<dyn Io>>,
}

impl Debug for ImapMailbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapMailbox").finish_non_exhaustive()
    }
}

impl ImapMailbox {
    /// Connects to `url` (`imaps://`: TLS checked against the webpki roots) and logs in.
    pub async fn connect(url: &ServerUrl, username: &str, password: &str) -> Result<Self, ImapError> {
        let tcp = step(TcpStream::connect((url.host.as_str(), url.port)))
            .await?
            .map_err(|e| ImapError::Unavailable(format!("connecting to {url}: {e}")))?;
        let stream: Box<dyn Io> = if url.tls {
            let name = ServerName::try_from(url.host.clone()).map_err(|e| ImapError::Unavailable(format!("{:?}: {e}", url.host)))?;
            let tls = step(tls::connector().map_err(ImapError::Unavailable)?.connect(name, tcp))
                .await?
                .map_err(|e| ImapError::Unavailable(format!("TLS with {url}: {e}")))?;
            Box::new(tls)
        } else {
            Box::new(tcp)
        };
        let mut client = Client::new(stream);
        step(client.read_response())
            .await?
            .map_err(|e| ImapError::Unavailable(format!("reading the greeting: {e}")))?
            .ok_or_else(|| ImapError::Unavailable("closed before its greeting".into()))?;
        let session = step(client.login(username, password)).await?.map_err(|(e, _)| match e {
            async_imap::error::Error::No(text) | async_imap::error::Error::Bad(text) => ImapError::LoginRefused(text),
            other => unavailable(other),
        })?;
        Ok(Self { session })
    }

    /// The messages after `known` (all of them without a cursor, or when UIDVALIDITY changed),
    /// at most `batch` (1..=[`MAX_BATCH_MESSAGES`]) and about [`MAX_BATCH_BYTES`] at a time.
    pub async fn fetch_after(&mut self, known: Option<Cursor>, batch: u32) -> Result<Batch, ImapError> {
        let mailbox = step(self.session.examine("INBOX")).await?.map_err(command)?;
        let uid_validity = mailbox.uid_validity.ok_or(ImapError::NoUidValidity)?;
        let reset = known.is_some_and(|k| k.uid_validity != uid_validity);
        let after = known.filter(|_| !reset).map_or(0, |k| k.last_uid);
        let mut result = Batch {
            uid_validity,
            reset,
            messages: Vec::new(),
            oversized: Vec::new(),
            cursor: Cursor { uid_validity, last_uid: after },
            more: false,
        };
        if mailbox.exists == 0 || mailbox.uid_next.is_some_and(|next| next <= after.saturating_add(1)) {
            return Ok(result);
        }

        // "n:*" always includes the highest UID, even below n: hence the filter.
        let mut uids: Vec<u32> = step(self.session.uid_search(format!("UID {}:*", after.saturating_add(1))))
            .await?
            .map_err(command)?
            .into_iter()
            .filter(|uid| *uid > after)
            .collect();
        uids.sort_unstable();
        let limit = batch.clamp(1, MAX_BATCH_MESSAGES) as usize;
        result.more = uids.len() > limit;
        uids.truncate(limit);
        if uids.is_empty() {
            return Ok(result);
        }

        // Sizes first, so nothing over the limits is ever downloaded.
        let sizes: HashMap<u32, u64> =
            self.fetch(&uids, "(UID RFC822.SIZE)").await?.into_iter().filter_map(|(uid, size, _)| Some((uid, u64::from(size?)))).collect();
        let mut wanted = Vec::new();
        let mut bytes = 0u64;
        for (index, uid) in uids.iter().copied().enumerate() {
            // A UID without a size was expunged meanwhile: nothing to fetch, and it never returns.
            let size = sizes.get(&uid).copied().unwrap_or(0);
            if size > MAX_MESSAGE_BYTES as u64 {
                result.oversized.push(OversizedMail { uid, size });
            } else if !wanted.is_empty() && bytes + size > MAX_BATCH_BYTES {
                uids.truncate(index);
                result.more = true;
                break;
            } else if sizes.contains_key(&uid) {
                bytes += size;
                wanted.push(uid);
            }
        }
        if let Some(last) = uids.last() {
            result.cursor.last_uid = *last;
        }

        if !wanted.is_empty() {
            for (uid, _, raw) in self.fetch(&wanted, "(UID BODY.PEEK[])").await? {
                let Some(raw) = raw else { continue };
                if raw.len() > MAX_MESSAGE_BYTES {
                    result.oversized.push(OversizedMail { uid, size: raw.len() as u64 });
                } else {
                    result.messages.push(FetchedMail { uid, raw });
                }
            }
        }
        result.messages.sort_unstable_by_key(|m| m.uid);
        result.oversized.sort_unstable_by_key(|m| m.uid);
        Ok(result)
    }

    /// Logs out politely (dropping the mailbox also ends the session, less politely).
    pub async fn logout(mut self) -> Result<(), ImapError> {
        step(self.session.logout()).await?.map_err(command)
    }

    /// UID FETCH of `uids` with `query`: (uid, RFC822.SIZE, body) of each answer.
    async fn fetch(&mut self, uids: &[u32], query: &str) -> Result<Vec<(u32, Option<u32>, Option<Vec<u8>>)>, ImapError> {
        let mut stream = step(self.session.uid_fetch(uid_set(uids), query)).await?.map_err(command)?;
        let mut answers = Vec::with_capacity(uids.len());
        // Bounded per message, not per batch: a batch of large messages on a slow link still
        // progresses. A timeout leaves the session mid-answer: the caller reconnects.
        loop {
            let next = timeout(MESSAGE_TIMEOUT, stream.try_next())
                .await
                .map_err(|_| ImapError::Unavailable(format!("no message within {MESSAGE_TIMEOUT:?}")))?
                .map_err(command)?;
            let Some(fetch) = next else { break };
            if let Some(uid) = fetch.uid {
                answers.push((uid, fetch.size, fetch.body().map(<[u8]>::to_vec)));
            }
        }
        Ok(answers)
    }
}

/// A UID set with runs collapsed: `1:3,7,9:10`. `uids` is sorted.
fn uid_set(uids: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < uids.len() {
        let start = uids[i];
        let mut end = start;
        while i + 1 < uids.len() && uids[i + 1] == end.saturating_add(1) {
            i += 1;
            end = uids[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}:{end}"));
        }
        i += 1;
    }
    out
}

/// One network step, bounded by [`NETWORK_TIMEOUT`].
async fn step<T>(future: impl Future<Output = T>) -> Result<T, ImapError> {
    timeout(NETWORK_TIMEOUT, future).await.map_err(|_| ImapError::Unavailable(format!("no answer within {NETWORK_TIMEOUT:?}")))
}

fn command(error: async_imap::error::Error) -> ImapError {
    match error {
        async_imap::error::Error::No(text) | async_imap::error::Error::Bad(text) => ImapError::Server(text),
        other => unavailable(other),
    }
}

fn unavailable(error: async_imap::error::Error) -> ImapError {
    match error {
        async_imap::error::Error::Parse(e) => ImapError::Server(e.to_string()),
        other => ImapError::Unavailable(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_sets_collapse_runs() {
        assert_eq!(uid_set(&[1, 2, 3, 7, 9, 10]), "1:3,7,9:10");
        assert_eq!(uid_set(&[5]), "5");
        assert_eq!(uid_set(&[u32::MAX - 1, u32::MAX]), format!("{}:{}", u32::MAX - 1, u32::MAX));
    }
}
