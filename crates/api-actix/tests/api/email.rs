//! Email end to end over HTTP, on both backends: raw mail posted to `/webhooks/email/{id}` with
//! the line's inbound token, stored once by its Message-ID with its attachments, and replies
//! sent by SMTP to the test sink `.ci/mail-servers` starts, read back exactly as sent.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_domain::model::{Line, LineId};
use std::sync::Arc;

use parley_adapters_email::ports::ImapReader;
use parley_domain::services::{MailAccessInput, MailboxService};
use serde_json::{Value, json};

backend_tests!(
    mail_arrives_once_with_its_attachments_and_replies_join_its_thread,
    tokens_content_types_and_unstorable_mail_are_refused_with_nothing_stored,
    smtp_refusals_and_outages_store_nothing_and_email_has_no_window,
    tenants_never_see_each_others_mail,
    a_sandbox_mailbox_takes_mail_and_replies_without_a_network,
    a_polled_mailbox_brings_each_message_once_and_goes_on_where_it_left,
    hostile_mail_is_bounded_and_answered_never_a_5xx,
    rich_replies_go_out_as_html_beside_their_plain_text,
);

fn smtp_url() -> String {
    std::env::var("PARLEY_TEST_SMTP").unwrap_or_else(|_| "smtp://127.0.0.1:10025".into())
}

fn spool() -> PathBuf {
    std::env::var("PARLEY_TEST_SMTP_SPOOL").unwrap_or_else(|_| "/tmp/parley-mail/spool".into()).into()
}

/// A name no other run uses: spooled mail is found by its recipient.
fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// Agent A's mailbox `address`, sending through the test sink (or `smtp`), and its inbound token.
async fn mailbox(app: &TestApp, address: &str, smtp: Option<&str>) -> (Line, String) {
    let url = smtp.map_or_else(smtp_url, str::to_string);
    let access = MailAccessInput { send_url: &url, receive_url: None, username: address, password: "secret" };
    app.state.lines.add_email(&app.a.agent, address, Some(access)).await.unwrap()
}

async fn post_mail(app: &TestApp, line: &LineId, token: Option<&str>, content_type: &str, raw: &[u8]) -> Reply {
    let mut req = TestRequest::post().uri(&format!("/webhooks/email/{}", line.as_str())).insert_header(("Content-Type", content_type));
    if let Some(token) = token {
        req = req.insert_header(("Authorization", format!("Bearer {token}")));
    }
    app.call(req.set_payload(raw.to_vec())).await
}

async fn deliver(app: &TestApp, line: &Line, token: &str, raw: &str) {
    post_mail(app, &line.id, Some(token), "message/rfc822", raw.as_bytes()).await.assert_status(200);
}

/// A plain email from `from` to `to`.
fn mail(from: &str, to: &str, subject: &str, message_id: &str, extra_headers: &str, text: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{message_id}>\r\n{extra_headers}\
Date: Tue, 1 Dec 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n"
    )
}

async fn activity_of(app: &TestApp, search: &str) -> String {
    let found = app.get(&format!("/v1/activities?search={search}"), &app.a.secret).await;
    found.assert_status(200);
    found.data()[0]["id"].as_str().unwrap_or_else(|| panic!("an activity for {search}: {}", found.body)).to_string()
}

async fn timeline(app: &TestApp, activity: &str) -> Vec<Value> {
    let r = app.get(&format!("/v1/activities/{activity}/messages?limit=100"), &app.a.secret).await;
    r.assert_status(200);
    r.data().as_array().unwrap().clone()
}

async fn reply(app: &TestApp, activity: &str, body: Value) -> Reply {
    app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, body).await
}

/// The raw message the sink accepted for `recipient`, waiting up to 10 s for it.
async fn spooled_to(recipient: &str) -> String {
    for _ in 0..100 {
        for entry in std::fs::read_dir(spool()).unwrap_or_else(|e| panic!("{}: {e}; start .ci/mail-servers", spool().display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json")
                && std::fs::read_to_string(&path).unwrap_or_default().contains(recipient)
                && let Ok(raw) = std::fs::read_to_string(path.with_extension("eml"))
            {
                return raw;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no mail to {recipient} reached the SMTP sink")
}

/// A header's value in raw mail (unfolded), if present.
fn header_of(raw: &str, name: &str) -> Option<String> {
    let head = raw.split("\r\n\r\n").next().unwrap_or(raw).replace("\r\n ", " ").replace("\r\n\t", " ");
    head.lines().find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()))
}

async fn mail_arrives_once_with_its_attachments_and_replies_join_its_thread(backend: &str) {
    let app = TestApp::new(backend).await;
    let shop = format!("{}@parley.test", unique("shop"));
    let ana = format!("{}@example.com", unique("ana"));
    let (line, token) = mailbox(&app, &shop, None).await;
    assert!(token.starts_with("it_") && token.len() > 40, "{token}");
    let raw = format!(
        "From: \"Ana Souza\" <{}>\r\nTo: {shop}\r\nCc: Bo <bo@example.com>\r\nSubject: Order 42\r\nMessage-ID: <a1.{ana}>\r\n\
References: <root.{ana}>\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
<p>Is the <b>blue mug</b> back?</p>\r\n--b\r\nContent-Type: text/plain; name=notes.txt\r\n\
Content-Disposition: attachment; filename=notes.txt\r\n\r\nsize M, please\r\n--b--\r\n",
        ana.to_uppercase()
    );
    deliver(&app, &line, &token, &raw).await;
    deliver(&app, &line, &token, &raw).await; // a forwarder's retry: stored once

    let activity = activity_of(&app, "Ana%20Souza").await;
    let messages = timeline(&app, &activity).await;
    assert_eq!(messages.len(), 1, "one message per Message-ID: {messages:?}");
    let m = &messages[0];
    assert_eq!((m["type"].as_str(), m["direction"].as_str(), m["status"].as_str()), (Some("email"), Some("inbound"), Some("received")));
    assert_eq!(m["channel"], json!({"channel_type": "email", "channel_id": ana}), "the From address, lowercased");
    assert_eq!(m["line_id"], line.id.as_str());
    assert!(m["text"].as_str().unwrap().contains("blue mug"), "HTML turned into text: {}", m["text"]);
    assert!(!m["text"].as_str().unwrap().contains("<b>"), "never rendered: {}", m["text"]);
    let first_id = format!("a1.{ana}");
    assert_eq!(m["platform_message_id"], first_id);
    assert_eq!(
        m["email"],
        json!({"subject": "Order 42", "from": ana, "to": [shop], "cc": ["bo@example.com"], "message_id": first_id, "in_reply_to": null})
    );
    let attachments = m["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 1);
    assert_eq!((attachments[0]["filename"].as_str(), attachments[0]["mime_type"].as_str()), (Some("notes.txt"), Some("text/plain")));
    assert_eq!(attachments[0]["size"], 14);
    let one = app.get(&format!("/v1/activities/{activity}/messages/{}", m["id"].as_str().unwrap()), &app.a.secret).await;
    assert_eq!(one.data(), m, "a message reads the same alone and on its page");

    // The attachment downloads, by id or as the first.
    let media = format!("/v1/activities/{activity}/messages/{}/media", m["id"].as_str().unwrap());
    for uri in [format!("{media}?attachment={}", attachments[0]["id"].as_str().unwrap()), media.clone()] {
        let file = app.get(&uri, &app.a.secret).await;
        file.assert_status(200);
        assert_eq!(file.body, "size M, please");
        assert_eq!(file.header("content-type"), Some("text/plain"));
    }
    app.get(&format!("{media}?attachment=att_nope"), &app.a.secret).await.assert_error(404, "NOT_FOUND");

    // The reply: from the mailbox, to Ana, in her thread.
    let sent = reply(&app, &activity, json!({"type": "text", "text": {"body": "It is back!\nSee you."}})).await;
    sent.assert_status(201);
    let r = sent.data();
    assert_eq!((r["type"].as_str(), r["direction"].as_str(), r["status"].as_str()), (Some("email"), Some("outbound"), Some("sent")));
    assert_eq!(r["email"]["subject"], "Re: Order 42");
    assert_eq!(r["email"]["in_reply_to"], first_id.as_str());
    assert_eq!(r["email"]["to"], json!([ana]));
    let reply_id = r["email"]["message_id"].as_str().unwrap().to_string();
    assert_eq!(reply_id, format!("{}@parley.test", r["id"].as_str().unwrap()), "Parley's id at the mailbox's domain");
    assert_eq!(r["platform_message_id"], reply_id.as_str());
    let wire = spooled_to(&ana).await;
    assert_eq!(header_of(&wire, "Subject").as_deref(), Some("Re: Order 42"));
    assert_eq!(header_of(&wire, "From").as_deref(), Some(shop.as_str()));
    assert_eq!(header_of(&wire, "To").as_deref(), Some(ana.as_str()));
    assert_eq!(header_of(&wire, "Message-ID"), Some(format!("<{reply_id}>")));
    assert_eq!(header_of(&wire, "In-Reply-To"), Some(format!("<{first_id}>")));
    assert_eq!(header_of(&wire, "References"), Some(format!("<root.{ana}> <{first_id}>")));
    assert!(wire.contains("It is back!\r\nSee you."), "{wire}");
    let sent_events = app.get("/v1/events?type=message.sent", &app.a.secret).await;
    assert_eq!(sent_events.data()[0]["data"]["object"], *r, "message.sent once the SMTP server took it");

    // Ana answers the reply: her message quotes it; a reply with its own subject uses it as given.
    let answer = mail(&ana, &shop, "Re: Order 42", &format!("a2.{ana}"), &format!("In-Reply-To: <{reply_id}>\r\n"), "Great, thanks");
    deliver(&app, &line, &token, &answer).await;
    let messages = timeline(&app, &activity).await;
    let second = messages.iter().find(|m| m["platform_message_id"] == format!("a2.{ana}")).unwrap();
    assert_eq!(second["reply_to"], r["id"], "In-Reply-To names Parley's reply");
    let named = reply(&app, &activity, json!({"type": "text", "text": {"body": "Shipped."}, "subject": "Your order 42 shipped"})).await;
    named.assert_status(201);
    assert_eq!(named.data()["email"]["subject"], "Your order 42 shipped");
    assert_eq!(named.data()["email"]["in_reply_to"], format!("a2.{ana}"), "the contact's last email");
}

async fn tokens_content_types_and_unstorable_mail_are_refused_with_nothing_stored(backend: &str) {
    let app = TestApp::new(backend).await;
    let shop = format!("{}@parley.test", unique("shop"));
    let (line, token) = mailbox(&app, &shop, None).await;
    let raw = mail("ana@example.com", &shop, "Hi", "t1@example.com", "", "Hello");
    for (given, status) in [(None, 401), (Some("it_wrong"), 401), (Some(&token[..token.len() - 1]), 401)] {
        post_mail(&app, &line.id, given, "message/rfc822", raw.as_bytes()).await.assert_error(status, "UNAUTHORIZED");
    }
    post_mail(&app, &LineId::new("chn_nope"), Some(&token), "message/rfc822", raw.as_bytes()).await.assert_error(401, "UNAUTHORIZED");
    post_mail(&app, &line.id, Some(&token), "text/plain", raw.as_bytes()).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let anonymous = "Subject: who?\r\nMessage-ID: <x@y>\r\n\r\nno sender\r\n";
    let refused = post_mail(&app, &line.id, Some(&token), "message/rfc822", anonymous.as_bytes()).await;
    refused.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(refused.body["error"]["details"][0]["field"], "body");
    let garbage = post_mail(&app, &line.id, Some(&token), "message/rfc822", b"\x00\x01\x02 not mail").await;
    garbage.assert_error(400, "VALIDATION_ERROR");
    let listed = app.get("/v1/activities", &app.a.secret).await;
    assert_eq!(listed.data(), &json!([]), "nothing stored");
    // A WhatsApp line's id never takes mail.
    let whatsapp = app.state.lines.add(&app.a.agent, "106540352242999", "900000000000009", None).await.unwrap();
    post_mail(&app, &whatsapp.id, Some(&token), "message/rfc822", raw.as_bytes()).await.assert_error(401, "UNAUTHORIZED");
    // The right token: stored.
    post_mail(&app, &line.id, Some(&token), "message/rfc822; charset=utf-8", raw.as_bytes()).await.assert_status(200);
    assert_eq!(app.get("/v1/activities", &app.a.secret).await.data().as_array().unwrap().len(), 1);
}

async fn smtp_refusals_and_outages_store_nothing_and_email_has_no_window(backend: &str) {
    let app = TestApp::new(backend).await;
    let shop = format!("{}@parley.test", unique("shop"));
    let (line, token) = mailbox(&app, &shop, None).await;
    for (who, status, code) in [("reject", 422, "MESSAGE_REJECTED"), ("busy", 502, "UPSTREAM_ERROR")] {
        let contact = format!("{}@example.com", unique(who));
        deliver(&app, &line, &token, &mail(&contact, &shop, "Hi", &format!("m.{contact}"), "", "Hello")).await;
        let activity = activity_of(&app, &contact.replace('@', "%40")).await;
        let refused = reply(&app, &activity, json!({"type": "text", "text": {"body": "Hi back"}})).await;
        refused.assert_error(status, code);
        assert_eq!(timeline(&app, &activity).await.len(), 1, "{who}: nothing stored of the refused reply");
        assert_eq!(app.get("/v1/events?type=message.sent", &app.a.secret).await.data(), &json!([]), "{who}: nothing sent");
    }
    // The contact wrote 3 days ago: email has no window.
    let cleo = format!("{}@example.com", unique("cleo"));
    deliver(&app, &line, &token, &mail(&cleo, &shop, "Hi", &format!("m.{cleo}"), "", "Hello")).await;
    let activity = activity_of(&app, &cleo.replace('@', "%40")).await;
    app.clock.advance(chrono::TimeDelta::days(3));
    reply(&app, &activity, json!({"type": "text", "text": {"body": "Sorry for the wait"}})).await.assert_status(201);
    // Email replies are text, and only email takes a subject.
    let media = reply(&app, &activity, json!({"type": "image", "image": {"link": "https://cdn.example.com/a.jpg"}})).await;
    media.assert_error(400, "VALIDATION_ERROR");
    // An unreachable server: 502, nothing stored.
    let (down, down_token) = mailbox(&app, &format!("{}@parley.test", unique("down")), Some("smtp://127.0.0.1:1")).await;
    let dan = format!("{}@example.com", unique("dan"));
    deliver(&app, &down, &down_token, &mail(&dan, down.account_id(), "Hi", &format!("m.{dan}"), "", "Hello")).await;
    let activity = activity_of(&app, &dan.replace('@', "%40")).await;
    reply(&app, &activity, json!({"type": "text", "text": {"body": "Hi"}})).await.assert_error(502, "UPSTREAM_ERROR");
    assert_eq!(timeline(&app, &activity).await.len(), 1);
}

async fn tenants_never_see_each_others_mail(backend: &str) {
    let app = TestApp::new(backend).await;
    let shop = format!("{}@parley.test", unique("shop"));
    let (line, token) = mailbox(&app, &shop, None).await;
    let ana = format!("{}@example.com", unique("ana"));
    let raw = format!(
        "From: {ana}\r\nTo: {shop}\r\nSubject: s\r\nMessage-ID: <t.{ana}>\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=a.pdf\r\n\r\n%PDF\r\n--b--\r\n"
    );
    deliver(&app, &line, &token, &raw).await;
    let activity = activity_of(&app, &ana.replace('@', "%40")).await;
    let m = timeline(&app, &activity).await[0].clone();
    let media = format!("/v1/activities/{activity}/messages/{}/media", m["id"].as_str().unwrap());
    app.get(&media, &app.a.secret).await.assert_status(200);
    app.get(&media, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/activities/{activity}/messages"), &app.b.secret).await.assert_error(404, "NOT_FOUND");
    let theirs = reply_as_b(&app, &activity).await;
    theirs.assert_error(404, "NOT_FOUND");
    // B's own mailbox token does not open A's.
    let (_, b_token) = app.state.lines.add_email(&app.b.agent, &format!("{}@parley.test", unique("b")), None).await.unwrap();
    post_mail(&app, &line.id, Some(&b_token), "message/rfc822", raw.as_bytes()).await.assert_error(401, "UNAUTHORIZED");
    assert_eq!(app.get("/v1/activities", &app.b.secret).await.data(), &json!([]));
}

async fn reply_as_b(app: &TestApp, activity: &str) -> Reply {
    app.post(&format!("/v1/activities/{activity}/messages"), &app.b.secret, json!({"type": "text", "text": {"body": "x"}})).await
}

async fn a_sandbox_mailbox_takes_mail_and_replies_without_a_network(backend: &str) {
    let app = TestApp::new(backend).await;
    let (line, token) = app.state.lines.add_email(&app.a.agent, "Hello@Demo.Parley.test", None).await.unwrap();
    assert_eq!(line.account_id(), "hello@demo.parley.test");
    deliver(&app, &line, &token, &mail("Zoe <zoe@example.com>", "hello@demo.parley.test", "Sizes", "z1@example.com", "", "Do you have L?"))
        .await;
    let activity = activity_of(&app, "Zoe").await;
    let sent = reply(&app, &activity, json!({"type": "text", "text": {"body": "We do!"}})).await;
    sent.assert_status(201);
    assert_eq!(sent.data()["status"], "sent");
    assert_eq!(sent.data()["email"]["subject"], "Re: Sizes");
    assert_eq!(sent.data()["email"]["from"], "hello@demo.parley.test");
}

/// A maildir of its own in the test dovecot (any user logs in with "secret"), written as an MTA
/// does: each message into tmp/, renamed into new/.
struct Maildir {
    user: String,
    dir: PathBuf,
    written: usize,
}

impl Maildir {
    fn new() -> Self {
        let user = unique("imap");
        let root: PathBuf = std::env::var("PARLEY_TEST_MAILDIR").unwrap_or_else(|_| "/tmp/parley-mail/mail".into()).into();
        let home = root.join(&user);
        let dir = home.join("Maildir");
        for d in [home.clone(), dir.clone(), dir.join("cur"), dir.join("new"), dir.join("tmp")] {
            std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}; start .ci/mail-servers", d.display()));
            // Dovecot's mail processes run as nobody.
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        Self { user, dir, written: 0 }
    }

    fn drop_mail(&mut self, raw: &str) {
        self.written += 1;
        let name = format!("{}.M{}P{}.parley", self.written, self.written, std::process::id());
        std::fs::write(self.dir.join("tmp").join(&name), raw).unwrap();
        std::fs::rename(self.dir.join("tmp").join(&name), self.dir.join("new").join(&name)).unwrap();
    }
}

/// Waits up to 10 s for the agent's email messages to number `n`.
async fn until_messages(app: &TestApp, activity_search: &str, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let found = app.get(&format!("/v1/activities?search={activity_search}"), &app.a.secret).await;
        if let Some(id) = found.data()[0]["id"].as_str() {
            let messages = timeline(app, id).await;
            if messages.len() >= n {
                return messages;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{n} messages did not arrive from the mailbox")
}

async fn a_polled_mailbox_brings_each_message_once_and_goes_on_where_it_left(backend: &str) {
    let app = TestApp::new(backend).await;
    let imap = std::env::var("PARLEY_TEST_IMAP").unwrap_or_else(|_| "imap://127.0.0.1:10143".into());
    let mut maildir = Maildir::new();
    let shop = format!("{}@parley.test", unique("shop"));
    let access = MailAccessInput { send_url: &smtp_url(), receive_url: Some(&imap), username: &maildir.user, password: "secret" };
    let (line, token) = app.state.lines.add_email(&app.a.agent, &shop, Some(access)).await.unwrap();
    let ana = format!("{}@example.com", unique("ana"));
    for n in 1..=3 {
        maildir.drop_mail(&mail(&format!("Ana <{ana}>"), &shop, &format!("Mail {n}"), &format!("p{n}.{ana}"), "", "Hello"));
    }
    let search = ana.replace('@', "%40");
    let first = until_messages(&app, &search, 3).await;
    assert!(first.iter().all(|m| m["type"] == "email" && m["line_id"] == line.id.as_str()));
    // The same mail forwarded, then in the mailbox with a copy of mail already read.
    deliver(&app, &line, &token, &mail(&ana, &shop, "Mail 4", &format!("p4.{ana}"), "", "Again")).await;
    maildir.drop_mail(&mail(&ana, &shop, "Mail 4", &format!("p4.{ana}"), "", "Again"));
    maildir.drop_mail(&mail(&ana, &shop, "Mail 2", &format!("p2.{ana}"), "", "Hello"));
    // Another instance polls too, until it claims the mailbox and finds nothing new: the position
    // has moved past both (this app's workers may hold it meanwhile, or read them first).
    let repos = app.db.store.repositories();
    let clock = Arc::new(parley_adapters_system::SystemClock);
    let other = MailboxService::new(repos.lines, repos.mailboxes, Arc::new(ImapReader), clock, "another-instance".into());
    let mut read_by_hand = 0;
    for _ in 0..100 {
        match other.poll(&line, app.state.inbound.as_ref(), &|| false).await.unwrap() {
            Some(0) => break,
            Some(n) => read_by_hand += n,
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    assert!(read_by_hand <= 2, "only the new mail is read: {read_by_hand}");
    let after = timeline(&app, first[0]["activity_id"].as_str().unwrap()).await;
    let mut ids: Vec<&str> = after.iter().map(|m| m["platform_message_id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let expected: Vec<String> = (1..=4).map(|n| format!("p{n}.{ana}")).collect();
    assert_eq!(ids, expected.iter().map(String::as_str).collect::<Vec<_>>(), "each message once, none missing");
}

/// Mail built to hurt: each is answered (refused with why, or stored bounded), never a 5xx.
async fn hostile_mail_is_bounded_and_answered_never_a_5xx(backend: &str) {
    let app = TestApp::new(backend).await;
    let shop = format!("{}@parley.test", unique("shop"));
    let (line, token) = mailbox(&app, &shop, None).await;
    let post = |raw: Vec<u8>| {
        let (app, line, token) = (&app, &line, &token);
        async move { post_mail(app, &line.id, Some(token), "message/rfc822", &raw).await }
    };
    // Multipart nested 100 deep.
    let mut nested = String::from("From: a@example.com\r\nMessage-ID: <deep@example.com>\r\n");
    for level in 0..100 {
        nested.push_str(&format!("Content-Type: multipart/mixed; boundary=b{level}\r\n\r\n--b{level}\r\n"));
    }
    nested.push_str("Content-Type: text/plain\r\n\r\ndeep\r\n");
    let deep = post(nested.into_bytes()).await;
    deep.assert_error(400, "VALIDATION_ERROR");
    assert!(deep.body["error"]["details"][0]["issue"].as_str().unwrap().contains("deeper"), "{}", deep.body);
    // A 200 KiB header.
    let huge = format!("From: a@example.com\r\nX-Junk: {}\r\n\r\nbody\r\n", "j".repeat(200 * 1024));
    post(huge.into_bytes()).await.assert_error(400, "VALIDATION_ERROR");
    // A 50 MB attachment: over the 25 MiB a message may have.
    let mut big =
        b"From: a@example.com\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: application/octet-stream\r\n\r\n"
            .to_vec();
    big.resize(50 * 1024 * 1024, b'A');
    post(big).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    // No From.
    post(b"To: shop@example.com\r\nSubject: anonymous\r\n\r\nhi\r\n".to_vec()).await.assert_error(400, "VALIDATION_ERROR");
    // An unknown charset and bytes that are not UTF-8: stored, the text made readable.
    let odd = format!(
        "From: Odd <odd@example.com>\r\nTo: {shop}\r\nSubject: =?x-unknown?B?/////w==?=\r\nMessage-ID: <odd@example.com>\r\n\
Content-Type: text/plain; charset=x-no-such-charset\r\n\r\n"
    );
    let mut odd = odd.into_bytes();
    odd.extend_from_slice(b"caf\xe9 \xff\xfe\x00 end\r\n");
    post(odd).await.assert_status(200);
    let activity = activity_of(&app, "Odd").await;
    let stored = &timeline(&app, &activity).await[0];
    let text = stored["text"].as_str().unwrap();
    assert!(text.contains("caf") && text.contains("end") && !text.contains('\u{0}'), "{text:?}");
    // Arbitrary bytes: never a 5xx.
    for seed in 0u32..40 {
        let bytes: Vec<u8> = (0..(seed * 37 % 600)).map(|i| (i.wrapping_mul(seed + 7) ^ (i >> 3)) as u8).collect();
        let r = post(bytes).await;
        assert!(r.status < 500, "seed {seed}: {}", r.body);
    }
}

/// The MIME part of `raw` with `content_type`, decoded (lettre writes quoted-printable or
/// base64 as the text needs).
fn part(raw: &str, content_type: &str) -> String {
    use mail_parser::MimeHeaders;
    let message = mail_parser::MessageParser::default().parse(raw.as_bytes()).expect("a MIME message");
    let found = message
        .parts
        .iter()
        .find(|p| content_type.split_once('/').is_some_and(|(kind, sub)| p.is_content_type(kind, sub)))
        .unwrap_or_else(|| panic!("no {content_type} part in {raw}"));
    found.text_contents().expect("a text part").to_string()
}

async fn rich_replies_go_out_as_html_beside_their_plain_text(backend: &str) {
    let app = TestApp::with_config(
        backend,
        parley_api::runtime::config::ApiConfig { storefront_url: Some("https://shop.example.com".into()), ..Default::default() },
    )
    .await;
    let shop = format!("{}@parley.test", unique("shop"));
    let ana = format!("{}@example.com", unique("rich"));
    let (line, token) = mailbox(&app, &shop, None).await;
    deliver(&app, &line, &token, &mail(&ana, &shop, "Sizes", &format!("r1.{ana}"), "", "Which sizes do you have?")).await;
    let activity = activity_of(&app, &ana.replace('@', "%40")).await;

    // Buttons: listed in the text, each a link in the HTML that opens an answer saying it.
    let buttons = json!({"type": "interactive", "interactive": {"type": "button", "body": {"text": "Which size <b>fits</b>?"},
        "footer": {"text": "Free returns"}, "action": {"buttons": [
        {"type": "reply", "reply": {"id": "s", "title": "Small"}}, {"type": "reply", "reply": {"id": "m", "title": "Medium & up"}}]}}});
    let sent = reply(&app, &activity, buttons).await;
    sent.assert_status(201);
    let m = sent.data();
    assert_eq!((m["type"].as_str(), m["status"].as_str()), (Some("email"), Some("sent")));
    assert_eq!(m["text"], "Which size <b>fits</b>?\n\nReply with one of:\n- Small\n- Medium & up\n\nFree returns");
    assert_eq!(m["content"]["email"]["rich"]["type"], "interactive");
    assert_eq!(m["content"]["email"]["rich"]["interactive"]["action"]["buttons"][1]["reply"]["title"], "Medium & up");
    let wire = spooled_to(&ana).await;
    assert!(header_of(&wire, "Content-Type").unwrap().starts_with("multipart/alternative"), "{wire}");
    assert_eq!(part(&wire, "text/plain").replace("\r\n", "\n"), m["text"].as_str().unwrap());
    let html = part(&wire, "text/html");
    assert!(html.contains("Which size &lt;b&gt;fits&lt;/b&gt;?"), "the body is escaped: {html}");
    assert!(html.contains(&format!("href=\"mailto:{shop}?subject=Re%3A%20Sizes&amp;body=Medium%20%26%20up\"")), "{html}");
    assert!(html.contains(">Medium &amp; up</a>"), "{html}");

    // A cart: its lines and exact total in both parts, and the storefront link.
    app.import_products(&app.a, vec![json!({"_id": "mug", "kind": "product", "title": "Blue mug", "currency": "EUR", "base_price": 9.9})])
        .await;
    let cart = app.post("/v1/carts", &app.a.secret, json!({"items": [{"id": "mug", "qty": 3}]})).await;
    cart.assert_status(201);
    let code = cart.data()["code"].as_str().unwrap().to_string();
    let second = format!("{}@example.com", unique("cart"));
    deliver(&app, &line, &token, &mail(&second, &shop, "Order", &format!("r2.{second}"), "", "My cart?")).await;
    let activity = activity_of(&app, &second.replace('@', "%40")).await;
    let sent = reply(&app, &activity, json!({"type": "cart", "cart": {"code": code}})).await;
    sent.assert_status(201);
    let m = sent.data();
    assert_eq!(m["content"]["email"]["rich"]["cart"]["total"], json!(29.7), "{m}");
    let url = format!("https://shop.example.com/c/{code}");
    assert!(m["text"].as_str().unwrap().ends_with(&format!("\n\nView cart: {url}")), "{}", m["text"]);
    let wire = spooled_to(&second).await;
    let html = part(&wire, "text/html");
    for shown in ["3 × Blue mug", "29.70 EUR", &format!("href=\"{url}\""), ">View cart</a>"] {
        assert!(html.contains(shown), "{shown} in {html}");
    }
    // What email truly cannot carry stays refused, with nothing sent or stored.
    let before = timeline(&app, &activity).await.len();
    let located = reply(&app, &activity, json!({"type": "location", "location": {"latitude": 38.7, "longitude": -9.1}})).await;
    located.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(located.body["error"]["details"][0]["field"], "type");
    assert_eq!(timeline(&app, &activity).await.len(), before);
}
