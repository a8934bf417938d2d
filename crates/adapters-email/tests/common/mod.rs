//! Where the test mail servers are (see the crate docs and `.ci/mail-servers`).

#![expect(dead_code, reason = "helpers shared by test modules, each using a part")]

use std::path::PathBuf;

pub const PASSWORD: &str = "secret";

fn var(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

pub fn imap_url() -> String {
    var("PARLEY_TEST_IMAP", "imap://127.0.0.1:10143")
}

pub fn smtp_url() -> String {
    var("PARLEY_TEST_SMTP", "smtp://127.0.0.1:10025")
}

pub fn maildir_root() -> PathBuf {
    var("PARLEY_TEST_MAILDIR", "/tmp/parley-mail/mail").into()
}

pub fn smtp_spool() -> PathBuf {
    var("PARLEY_TEST_SMTP_SPOOL", "/tmp/parley-mail/spool").into()
}

/// A name no other test run uses: each test has its own IMAP user (its own maildir).
pub fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// The hint printed when a server is not there.
pub const START_THEM: &str = "start the test mail servers with .ci/mail-servers";
