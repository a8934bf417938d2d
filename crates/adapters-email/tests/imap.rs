//! IMAP polling against dovecot started by `.ci/mail-servers`: each test has a user (a maildir)
//! of its own and drops messages into its `new/` folder.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

mod common;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use futures_util::TryStreamExt;
use parley_adapters_email::limits::{MAX_BATCH_BYTES, MAX_MESSAGE_BYTES};
use parley_adapters_email::{Cursor, ImapError, ImapMailbox, ServerUrl, parse};

struct TestBox {
    user: String,
    maildir: PathBuf,
    delivered: usize,
}

impl TestBox {
    fn new(prefix: &str) -> Self {
        let user = common::unique(prefix);
        let home = common::maildir_root().join(&user);
        let maildir = home.join("Maildir");
        for dir in [&home, &maildir, &maildir.join("cur"), &maildir.join("new"), &maildir.join("tmp")] {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}; {}", dir.display(), common::START_THEM));
            // Dovecot's mail processes run as nobody.
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        Self { user, maildir, delivered: 0 }
    }

    /// Delivers one raw message the way an MTA does: written in tmp/, renamed into new/.
    fn deliver_raw(&mut self, raw: &[u8]) {
        self.delivered += 1;
        let name = format!("{}.M{}P{}.parley", self.delivered, self.delivered, std::process::id());
        let tmp = self.maildir.join("tmp").join(&name);
        std::fs::write(&tmp, raw).unwrap();
        std::fs::rename(&tmp, self.maildir.join("new").join(&name)).unwrap();
    }

    /// Delivers a small message whose Message-ID is `id`.
    fn deliver(&mut self, id: &str) {
        let raw = format!(
            "From: Ana <ana@example.com>\r\nTo: shop@parley.test\r\nSubject: {id}\r\n\
             Message-ID: <{id}>\r\n\r\nbody of {id}\r\n"
        );
        self.deliver_raw(raw.as_bytes());
    }

    async fn open(&self) -> ImapMailbox {
        ImapMailbox::connect(&url(), &self.user, common::PASSWORD).await.unwrap_or_else(|e| panic!("{e}; {}", common::START_THEM))
    }

    /// Every message's flags, read with a separate session.
    async fn flags(&self) -> Vec<String> {
        let tcp = tokio::net::TcpStream::connect((url().host.as_str(), url().port)).await.unwrap();
        let mut client = async_imap::Client::new(tcp);
        client.read_response().await.unwrap();
        let mut session = client.login(&self.user, common::PASSWORD).await.map_err(|e| e.0).unwrap();
        session.examine("INBOX").await.unwrap();
        let fetches: Vec<_> = session.uid_fetch("1:*", "FLAGS").await.unwrap().try_collect().await.unwrap();
        let flags = fetches.iter().flat_map(|f| f.flags().map(|flag| format!("{flag:?}")).collect::<Vec<_>>()).collect();
        session.logout().await.unwrap();
        flags
    }
}

fn url() -> ServerUrl {
    ServerUrl::imap(&common::imap_url()).unwrap()
}

fn ids(raws: &[parley_adapters_email::FetchedMail]) -> Vec<String> {
    raws.iter().map(|m| parse(&m.raw).unwrap().message_id).collect()
}

#[tokio::test]
async fn batches_resume_after_the_last_uid_without_duplicates_or_gaps() {
    let mut inbox = TestBox::new("batches");
    let expected: BTreeSet<String> = (0..120).map(|i| format!("m{i}@example.com")).collect();
    for id in &expected {
        inbox.deliver(id);
    }

    let mut mailbox = inbox.open().await;
    let mut cursor: Option<Cursor> = None;
    let mut seen = Vec::new();
    let mut batches = 0;
    loop {
        let batch = mailbox.fetch_after(cursor, 25).await.unwrap();
        assert!(!batch.reset);
        assert!(batch.messages.len() <= 25);
        let uids: Vec<u32> = batch.messages.iter().map(|m| m.uid).collect();
        assert!(uids.windows(2).all(|w| w[0] < w[1]), "UID order: {uids:?}");
        if let (Some(before), Some(first)) = (cursor, uids.first()) {
            assert!(*first > before.last_uid);
        }
        seen.extend(ids(&batch.messages));
        cursor = Some(batch.cursor);
        batches += 1;
        if !batch.more {
            break;
        }
    }
    assert_eq!(batches, 5);
    assert_eq!(seen.len(), 120, "no duplicates");
    assert_eq!(seen.iter().cloned().collect::<BTreeSet<_>>(), expected, "no gaps");

    // Nothing new: an empty batch, the cursor unchanged.
    let idle = mailbox.fetch_after(cursor, 25).await.unwrap();
    assert!(idle.messages.is_empty() && !idle.more);
    assert_eq!(Some(idle.cursor), cursor);
    mailbox.logout().await.unwrap();

    // New mail, a new session, the saved cursor: exactly the new messages.
    for i in 0..7 {
        inbox.deliver(&format!("late{i}@example.com"));
    }
    let mut mailbox = inbox.open().await;
    let batch = mailbox.fetch_after(cursor, 25).await.unwrap();
    let mut late = ids(&batch.messages);
    late.sort();
    assert_eq!(late, (0..7).map(|i| format!("late{i}@example.com")).collect::<Vec<_>>());
    assert!(!batch.more);
}

#[tokio::test]
async fn fetching_never_marks_mail_seen() {
    let mut inbox = TestBox::new("unseen");
    for i in 0..3 {
        inbox.deliver(&format!("u{i}@example.com"));
    }
    let mut mailbox = inbox.open().await;
    let batch = mailbox.fetch_after(None, 10).await.unwrap();
    assert_eq!(batch.messages.len(), 3);
    mailbox.logout().await.unwrap();

    let flags = inbox.flags().await;
    assert!(flags.iter().all(|f| !f.contains("Seen")), "{flags:?}");
    let names: Vec<String> = std::fs::read_dir(inbox.maildir.join("cur"))
        .unwrap()
        .chain(std::fs::read_dir(inbox.maildir.join("new")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "nothing moved or deleted: {names:?}");
    assert!(names.iter().all(|n| !n.split_once(":2,").is_some_and(|(_, f)| f.contains('S'))), "{names:?}");
}

#[tokio::test]
async fn a_changed_uidvalidity_restarts_from_zero() {
    let mut inbox = TestBox::new("validity");
    for i in 0..3 {
        inbox.deliver(&format!("v{i}@example.com"));
    }
    let mut mailbox = inbox.open().await;
    let first = mailbox.fetch_after(None, 10).await.unwrap();
    assert_eq!(first.messages.len(), 3);
    mailbox.logout().await.unwrap();

    // The mailbox is rebuilt: dovecot forgets its UIDs and numbers the messages anew under a
    // new UIDVALIDITY (as after a server migration).
    for entry in std::fs::read_dir(&inbox.maildir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("dovecot") {
            std::fs::remove_file(&path).unwrap();
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(1100));
    inbox.deliver("v3@example.com");

    let mut mailbox = inbox.open().await;
    let again = mailbox.fetch_after(Some(first.cursor), 10).await.unwrap();
    assert!(again.reset);
    assert_ne!(again.uid_validity, first.uid_validity);
    assert_eq!(again.cursor.uid_validity, again.uid_validity);
    let mut got = ids(&again.messages);
    got.sort();
    assert_eq!(got, ["v0@example.com", "v1@example.com", "v2@example.com", "v3@example.com"]);

    // And from the new cursor on, it is ordinary resumption again.
    let after = mailbox.fetch_after(Some(again.cursor), 10).await.unwrap();
    assert!(!after.reset && after.messages.is_empty());
}

#[tokio::test]
async fn a_50_mb_message_is_reported_not_downloaded() {
    let mut inbox = TestBox::new("huge");
    inbox.deliver("before@example.com");
    let mut huge = b"From: a@example.com\r\nMessage-ID: <huge@example.com>\r\n\r\n".to_vec();
    let line = [b'A'; 76];
    while huge.len() < 50 * 1000 * 1000 {
        huge.extend_from_slice(&line);
        huge.extend_from_slice(b"\r\n");
    }
    inbox.deliver_raw(&huge);
    inbox.deliver("after@example.com");

    let mut mailbox = inbox.open().await;
    let batch = mailbox.fetch_after(None, 10).await.unwrap();
    let mut got = ids(&batch.messages);
    got.sort();
    assert_eq!(got, ["after@example.com", "before@example.com"]);
    assert_eq!(batch.oversized.len(), 1);
    assert_eq!(batch.oversized[0].size, huge.len() as u64);
    assert!(batch.oversized[0].size > MAX_MESSAGE_BYTES as u64);
    assert_eq!(batch.cursor.last_uid, 3, "the cursor moves past it");
}

#[tokio::test]
async fn a_batch_stops_before_its_byte_budget() {
    let mut inbox = TestBox::new("bytes");
    // Three messages of 24 MiB: two fit in the 64 MiB budget, the third waits.
    let size = 24 * 1024 * 1024;
    for i in 0..3 {
        let mut raw = format!("From: a@example.com\r\nMessage-ID: <big{i}@example.com>\r\n\r\n").into_bytes();
        while raw.len() < size {
            raw.extend_from_slice(&[b'B'; 510]);
            raw.extend_from_slice(b"\r\n");
        }
        inbox.deliver_raw(&raw);
    }
    assert!(2 * size as u64 <= MAX_BATCH_BYTES && 3 * size as u64 > MAX_BATCH_BYTES);
    let mut mailbox = inbox.open().await;
    let first = mailbox.fetch_after(None, 10).await.unwrap();
    assert_eq!(first.messages.len(), 2);
    assert!(first.more);
    let second = mailbox.fetch_after(Some(first.cursor), 10).await.unwrap();
    assert_eq!(second.messages.len(), 1);
    assert!(!second.more);
    let mut all = ids(&first.messages);
    all.extend(ids(&second.messages));
    all.sort();
    assert_eq!(all, ["big0@example.com", "big1@example.com", "big2@example.com"]);
}

#[tokio::test]
async fn an_empty_inbox_gives_an_empty_batch() {
    let inbox = TestBox::new("empty");
    let mut mailbox = inbox.open().await;
    let batch = mailbox.fetch_after(None, 10).await.unwrap();
    assert!(batch.messages.is_empty() && batch.oversized.is_empty() && !batch.more && !batch.reset);
    assert_eq!(batch.cursor, Cursor { uid_validity: batch.uid_validity, last_uid: 0 });
}

#[tokio::test]
async fn a_wrong_password_is_a_refused_login() {
    let inbox = TestBox::new("login");
    let err = ImapMailbox::connect(&url(), &inbox.user, "wrong").await.unwrap_err();
    assert!(matches!(err, ImapError::LoginRefused(_)), "{err:?}");
}

#[tokio::test]
async fn a_closed_port_is_unavailable() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = ServerUrl::imap(&format!("imap://127.0.0.1:{port}")).unwrap();
    let err = ImapMailbox::connect(&url, "u", "p").await.unwrap_err();
    assert!(matches!(err, ImapError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn implicit_tls_to_a_plain_server_is_unavailable() {
    let url = ServerUrl { tls: true, ..url() };
    let err = ImapMailbox::connect(&url, "u", "p").await.unwrap_err();
    assert!(matches!(err, ImapError::Unavailable(_)), "{err:?}");
}
