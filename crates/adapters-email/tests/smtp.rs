//! SMTP sends against the aiosmtpd sink started by `.ci/mail-servers`: the exact headers it
//! receives, and refusals told apart from outages.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use parley_adapters_email::{Mailbox, OutgoingEmail, ServerUrl, SmtpError, SmtpSender, parse};

fn sender(password: &str) -> SmtpSender {
    let url = ServerUrl::smtp(&common::smtp_url()).unwrap();
    SmtpSender::new(&url, "shop@parley.test", password).unwrap()
}

fn reply(to: &str) -> OutgoingEmail {
    OutgoingEmail {
        from: Mailbox::named("Parley Shop", "shop@parley.test"),
        to: Mailbox::named("Ana", to),
        subject: "Re: Order 42".into(),
        text: "Your order ships today.\nThanks!".into(),
        html: None,
        in_reply_to: Some("prev.1@example.com".into()),
        references: vec!["root.0@example.com".into(), "<prev.1@example.com>".into()],
        message_id: None,
    }
}

/// The spooled message carrying `message_id`, and its envelope, waiting a little for the sink.
fn received(message_id: &str) -> (Vec<u8>, String) {
    let needle = format!("Message-ID: <{message_id}>");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let entries = std::fs::read_dir(common::smtp_spool()).unwrap_or_else(|e| panic!("the SMTP spool: {e}; {}", common::START_THEM));
        for entry in entries {
            let path: PathBuf = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "eml") {
                let raw = std::fs::read(&path).unwrap();
                if String::from_utf8_lossy(&raw).contains(&needle) {
                    let envelope = std::fs::read_to_string(path.with_extension("json")).unwrap();
                    return (raw, envelope);
                }
            }
        }
        assert!(Instant::now() < deadline, "{message_id} never reached the sink");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn header<'a>(raw: &'a str, name: &str) -> Vec<&'a str> {
    let prefix = format!("{name}: ");
    raw.split("\r\n\r\n").next().unwrap().split("\r\n").filter_map(|line| line.strip_prefix(prefix.as_str())).collect()
}

#[tokio::test]
async fn a_reply_arrives_with_its_threading_headers() {
    let to = format!("{}@example.com", common::unique("ana"));
    let sent = sender(common::PASSWORD).send(&reply(&to)).await.unwrap_or_else(|e| panic!("{e}; {}", common::START_THEM));
    assert!(sent.message_id.ends_with("@parley.test"), "{}", sent.message_id);
    assert!(!sent.message_id.contains('<'));

    let (raw, envelope) = received(&sent.message_id);
    let text = String::from_utf8(raw.clone()).unwrap();
    assert_eq!(header(&text, "From"), vec!["\"Parley Shop\" <shop@parley.test>"]);
    assert_eq!(header(&text, "To"), vec![format!("Ana <{to}>").as_str()]);
    assert_eq!(header(&text, "Subject"), vec!["Re: Order 42"]);
    assert_eq!(header(&text, "In-Reply-To"), vec!["<prev.1@example.com>"]);
    assert_eq!(header(&text, "References"), vec!["<root.0@example.com> <prev.1@example.com>"]);
    assert_eq!(header(&text, "Message-ID"), vec![format!("<{}>", sent.message_id).as_str()]);
    assert!(envelope.contains("\"mail_from\": \"shop@parley.test\""), "{envelope}");
    assert!(envelope.contains(&format!("\"rcpt_tos\": [\"{to}\"]")), "{envelope}");

    // And our own parser reads it back as the same conversation.
    let mail = parse(&raw).unwrap();
    assert_eq!(mail.message_id, sent.message_id);
    assert_eq!(mail.in_reply_to.as_deref(), Some("prev.1@example.com"));
    assert_eq!(mail.references, vec!["root.0@example.com", "prev.1@example.com"]);
    assert_eq!(mail.text.as_deref(), Some("Your order ships today.\r\nThanks!"));
}

/// A rich reply: `multipart/alternative`, the plain text first (what a text-only reader shows),
/// then the HTML, each readable back as sent.
#[tokio::test]
async fn a_rich_reply_arrives_with_its_plain_text_and_html_parts() {
    let to = format!("{}@example.com", common::unique("rich"));
    let mut mail = reply(&to);
    mail.text = "Which size?\n\nReply with one of:\n- S\n- M".into();
    mail.html = Some("<!doctype html><html><body><p>Which size?</p><a href=\"mailto:shop@parley.test?body=S\">S</a></body></html>".into());
    let sent = sender(common::PASSWORD).send(&mail).await.unwrap();
    let (raw, _) = received(&sent.message_id);
    use mail_parser::MimeHeaders;
    let message = mail_parser::MessageParser::default().parse(&raw).expect("a MIME message");
    assert!(message.root_part().is_content_type("multipart", "alternative"));
    assert_eq!(message.body_text(0).as_deref(), Some("Which size?\r\n\r\nReply with one of:\r\n- S\r\n- M"));
    let html = message.body_html(0).expect("an HTML part");
    assert!(html.contains("<a href=\"mailto:shop@parley.test?body=S\">S</a>"), "{html}");
}

#[tokio::test]
async fn non_ascii_names_and_subjects_survive() {
    let to = format!("{}@example.com", common::unique("zoe"));
    let mut mail = reply(&to);
    mail.to = Mailbox::named("Zoë Łukasz", &to);
    mail.subject = "Re: Commande n° 42 — livrée ?".into();
    mail.in_reply_to = None;
    mail.references = vec![];
    mail.text = "Merci, à bientôt ✓".into();
    let sent = sender(common::PASSWORD).send(&mail).await.unwrap();
    let (raw, _) = received(&sent.message_id);
    let text = String::from_utf8(raw.clone()).unwrap();
    assert!(header(&text, "In-Reply-To").is_empty());
    assert!(header(&text, "References").is_empty());
    let back = parse(&raw).unwrap();
    assert_eq!(back.subject.as_deref(), Some("Re: Commande n° 42 — livrée ?"));
    assert_eq!(back.to, vec![Mailbox::named("Zoë Łukasz", to)]);
    assert_eq!(back.text.as_deref(), Some("Merci, à bientôt ✓"));
}

#[tokio::test]
async fn a_550_is_a_rejection() {
    let err = sender(common::PASSWORD).send(&reply("reject-me@example.com")).await.unwrap_err();
    match err {
        SmtpError::Rejected { code, text } => {
            assert_eq!(code, 550);
            assert!(text.contains("Mailbox unavailable"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn bad_credentials_are_a_rejection() {
    let err = sender("wrong").send(&reply("ana@example.com")).await.unwrap_err();
    assert!(matches!(err, SmtpError::Rejected { code: 535, .. }), "{err:?}");
}

#[tokio::test]
async fn a_451_is_an_outage_not_a_rejection() {
    let err = sender(common::PASSWORD).send(&reply("busy-now@example.com")).await.unwrap_err();
    assert!(matches!(&err, SmtpError::Unavailable(text) if text.contains("451")), "{err:?}");
}

#[tokio::test]
async fn a_closed_port_is_an_outage() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = ServerUrl::smtp(&format!("smtp://127.0.0.1:{port}")).unwrap();
    let err = SmtpSender::new(&url, "shop@parley.test", "x").unwrap().send(&reply("ana@example.com")).await.unwrap_err();
    assert!(matches!(err, SmtpError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn implicit_tls_to_a_plain_server_is_an_outage() {
    let plain = ServerUrl::smtp(&common::smtp_url()).unwrap();
    let url = ServerUrl { tls: true, ..plain };
    let err = SmtpSender::new(&url, "shop@parley.test", common::PASSWORD).unwrap().send(&reply("ana@example.com")).await.unwrap_err();
    assert!(matches!(err, SmtpError::Unavailable(_)), "{err:?}");
}
