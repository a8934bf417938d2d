//! Inbound parsing: ordinary mail, and every kind of hostile mail answered with a value or a
//! typed refusal (never a panic).

use parley_adapters_email::limits::{MAX_HEADER_BYTES, MAX_MESSAGE_BYTES, MAX_MIME_DEPTH, MAX_MIME_PARTS};
use parley_adapters_email::{DERIVED_ID_DOMAIN, MailRefusal, Mailbox, parse};

fn crlf(s: &str) -> Vec<u8> {
    s.replace("\r\n", "\n").replace('\n', "\r\n").into_bytes()
}

#[test]
fn a_plain_message_keeps_every_field() {
    let raw = crlf(
        "From: \"Ana Díaz\" <Ana.Diaz@Example.COM>\n\
         To: Shop <shop@parley.test>, other@parley.test\n\
         Cc: =?UTF-8?B?w4lsaWU=?= <elie@example.org>\n\
         Subject: Where is my order?\n\
         Message-ID: <abc.123@mail.example.com>\n\
         In-Reply-To: <prev.1@parley.test>\n\
         References: <root.0@parley.test>\n <prev.1@parley.test>\n\
         Date: Tue, 4 Mar 2025 10:15:00 +0100\n\
         Content-Type: text/plain; charset=utf-8\n\
         \n\
         Hello,\n\
         it has not arrived.\n",
    );
    let mail = parse(&raw).unwrap();
    assert_eq!(mail.message_id, "abc.123@mail.example.com");
    assert!(!mail.message_id_derived);
    assert_eq!(mail.from, Mailbox::named("Ana Díaz", "ana.diaz@example.com"));
    assert_eq!(mail.to, vec![Mailbox::named("Shop", "shop@parley.test"), Mailbox::new("other@parley.test")]);
    assert_eq!(mail.cc, vec![Mailbox::named("Élie", "elie@example.org")]);
    assert_eq!(mail.subject.as_deref(), Some("Where is my order?"));
    assert_eq!(mail.in_reply_to.as_deref(), Some("prev.1@parley.test"));
    assert_eq!(mail.references, vec!["root.0@parley.test", "prev.1@parley.test"]);
    assert_eq!(mail.date.unwrap().to_rfc3339(), "2025-03-04T09:15:00+00:00");
    assert_eq!(mail.text.as_deref(), Some("Hello,\r\nit has not arrived."));
    assert!(mail.attachments.is_empty());
}

#[test]
fn html_only_mail_is_turned_into_text() {
    let raw = crlf(
        "From: a@example.com\n\
         Message-ID: <h@example.com>\n\
         Content-Type: text/html; charset=utf-8\n\
         \n\
         <html><head><style>p {color: red}</style><script>alert(1)</script></head>\n\
         <body><p>Hello <b>there</b>,</p><p>see <a href=\"https://example.com/x\">this</a>.</p></body></html>\n",
    );
    let text = parse(&raw).unwrap().text.unwrap();
    assert!(text.contains("Hello there,"), "{text}");
    assert!(text.contains("this"), "{text}");
    assert!(!text.contains('<') && !text.contains("alert"), "{text}");
}

#[test]
fn the_plain_alternative_wins_over_html() {
    let raw = crlf(
        "From: a@example.com\n\
         Message-ID: <alt@example.com>\n\
         Content-Type: multipart/alternative; boundary=\"b\"\n\
         \n\
         --b\n\
         Content-Type: text/plain; charset=utf-8\n\
         \n\
         plain version\n\
         --b\n\
         Content-Type: text/html; charset=utf-8\n\
         \n\
         <p>html version</p>\n\
         --b--\n",
    );
    assert_eq!(parse(&raw).unwrap().text.as_deref(), Some("plain version"));
}

#[test]
fn attachments_are_decoded_with_name_type_and_size() {
    let raw = crlf(
        "From: a@example.com\n\
         Message-ID: <att@example.com>\n\
         Content-Type: multipart/mixed; boundary=\"b\"\n\
         \n\
         --b\n\
         Content-Type: text/plain\n\
         \n\
         see attached\n\
         --b\n\
         Content-Type: application/PDF; name=\"ignored.pdf\"\n\
         Content-Disposition: attachment; filename=\"invoice 42.pdf\"\n\
         Content-Transfer-Encoding: base64\n\
         \n\
         JVBERi0xLjQKJcTl8uXr\n\
         --b\n\
         Content-Type: image/png; name=\"=?UTF-8?Q?f=C3=B6to.png?=\"\n\
         Content-Transfer-Encoding: base64\n\
         \n\
         iVBORw0KGgo=\n\
         --b\n\
         Content-Type: application/octet-stream\n\
         Content-Disposition: attachment\n\
         \n\
         raw\n\
         --b--\n",
    );
    let mail = parse(&raw).unwrap();
    assert_eq!(mail.text.as_deref(), Some("see attached"));
    let summary: Vec<_> = mail.attachments.iter().map(|a| (a.filename.as_deref(), a.mime_type.as_str(), a.size())).collect();
    assert_eq!(
        summary,
        vec![(Some("invoice 42.pdf"), "application/pdf", 15), (Some("föto.png"), "image/png", 8), (None, "application/octet-stream", 3),]
    );
    assert_eq!(mail.attachments[0].bytes, b"%PDF-1.4\n%\xc4\xe5\xf2\xe5\xeb");
    assert_eq!(mail.attachments[1].bytes, b"\x89PNG\r\n\x1a\n");
}

#[test]
fn charsets_are_decoded_and_invalid_ones_lossily() {
    let mut raw = crlf(
        "From: =?ISO-8859-1?Q?Andr=E9?= <andre@example.com>\n\
         Message-ID: <cs@example.com>\n\
         Subject: =?windows-1252?Q?=93quoted=94?=\n\
         Content-Type: text/plain; charset=iso-8859-1\n\
         \n",
    );
    raw.extend_from_slice(b"caf\xe9\r\n");
    let mail = parse(&raw).unwrap();
    assert_eq!(mail.from.name.as_deref(), Some("André"));
    assert_eq!(mail.subject.as_deref(), Some("\u{201c}quoted\u{201d}"));
    assert_eq!(mail.text.as_deref(), Some("café"));

    // Invalid UTF-8 under a UTF-8 label, and a charset nobody knows: answered, never refused.
    for charset in ["utf-8", "x-no-such-charset"] {
        let mut raw = crlf(&format!(
            "From: a@example.com\nMessage-ID: <bad@example.com>\n\
             Subject: =?{charset}?B?/w==?= tail\n\
             Content-Type: text/plain; charset={charset}\n\n"
        ));
        raw.extend_from_slice(b"ok \xff\xfe\xc3 end\r\n");
        let mail = parse(&raw).unwrap();
        let text = mail.text.unwrap();
        assert!(text.starts_with("ok ") && text.ends_with(" end"), "{charset}: {text:?}");
        assert!(mail.subject.is_some(), "{charset}");
    }
}

#[test]
fn nul_characters_never_reach_the_strings() {
    let raw = crlf(
        "From: \"N\0ul\" <nul@example.com>\n\
         Message-ID: <nul\0id@example.com>\n\
         Subject: a\0b\n\
         Content-Type: text/plain\n\
         \n\
         x\0y\n",
    );
    let mail = parse(&raw).unwrap();
    let strings =
        [mail.from.name.clone().unwrap_or_default(), mail.subject.clone().unwrap(), mail.text.clone().unwrap(), mail.message_id.clone()];
    for s in &strings {
        assert!(!s.contains('\0'), "{s:?}");
    }
    assert_eq!(mail.subject.as_deref(), Some("a\u{FFFD}b"));
    assert_eq!(mail.text.as_deref(), Some("x\u{FFFD}y"));
}

#[test]
fn mail_without_a_from_address_is_refused() {
    for headers in [
        "To: a@example.com\nMessage-ID: <x@y>\n",
        "From: \nMessage-ID: <x@y>\n",
        "From: Just A Name\nMessage-ID: <x@y>\n",
        "From: undisclosed-recipients:;\nMessage-ID: <x@y>\n",
    ] {
        let raw = crlf(&format!("{headers}\nbody\n"));
        assert_eq!(parse(&raw), Err(MailRefusal::NoSender), "{headers}");
    }
}

#[test]
fn bytes_that_are_not_mail_are_refused() {
    assert_eq!(parse(b""), Err(MailRefusal::NotMail));
    let noise: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    assert!(parse(&noise).is_err());
}

#[test]
fn mail_without_message_id_gets_a_stable_derived_one() {
    let raw = crlf("From: a@example.com\nSubject: no id\n\nbody\n");
    let first = parse(&raw).unwrap();
    let again = parse(&raw).unwrap();
    assert!(first.message_id_derived);
    assert_eq!(first.message_id, again.message_id);
    assert!(first.message_id.ends_with(DERIVED_ID_DOMAIN), "{}", first.message_id);
    let other = parse(&crlf("From: a@example.com\nSubject: no id\n\nother body\n")).unwrap();
    assert_ne!(first.message_id, other.message_id);
}

#[test]
fn an_invalid_date_is_dropped_not_refused() {
    let raw = crlf("From: a@example.com\nMessage-ID: <d@x>\nDate: Mon, 45 Foo 99999 99:99\n\nb\n");
    assert_eq!(parse(&raw).unwrap().date, None);
}

fn nested_multipart(depth: usize) -> Vec<u8> {
    let mut raw = String::from("From: a@example.com\nMessage-ID: <deep@x>\n");
    for i in 0..depth {
        raw.push_str(&format!("Content-Type: multipart/mixed; boundary=\"b{i}\"\n\n--b{i}\n"));
    }
    raw.push_str("Content-Type: text/plain\n\ndeep text\n");
    for i in (0..depth).rev() {
        raw.push_str(&format!("--b{i}--\n"));
    }
    crlf(&raw)
}

#[test]
fn multipart_nesting_is_capped() {
    let mail = parse(&nested_multipart(MAX_MIME_DEPTH - 1)).unwrap();
    assert_eq!(mail.text.as_deref(), Some("deep text"));
    for depth in [MAX_MIME_DEPTH, 100, 100_000] {
        assert_eq!(parse(&nested_multipart(depth)), Err(MailRefusal::TooDeep { max: MAX_MIME_DEPTH }), "depth {depth}");
    }
}

fn nested_messages(depth: usize) -> Vec<u8> {
    let mut raw = String::new();
    for _ in 0..depth {
        raw.push_str("From: a@example.com\nContent-Type: message/rfc822\n\n");
    }
    raw.push_str("From: a@example.com\n\ninnermost\n");
    crlf(&raw)
}

#[test]
fn attached_message_chains_are_capped_before_they_are_built() {
    assert!(parse(&nested_messages(5)).is_ok());
    // 50 levels: built, then refused by depth; 400,000 (20 MB): refused before parsing (it
    // would overflow the stack when dropped).
    for depth in [50, 400_000] {
        let raw = nested_messages(depth);
        assert!(raw.len() < MAX_MESSAGE_BYTES);
        assert_eq!(parse(&raw), Err(MailRefusal::TooDeep { max: MAX_MIME_DEPTH }), "depth {depth}");
    }
}

#[test]
fn too_many_parts_are_refused() {
    let mut raw = String::from("From: a@example.com\nMessage-ID: <parts@x>\nContent-Type: multipart/mixed; boundary=\"b\"\n\n");
    for _ in 0..MAX_MIME_PARTS + 10 {
        raw.push_str("--b\nContent-Type: text/plain\n\nx\n");
    }
    raw.push_str("--b--\n");
    assert_eq!(parse(&crlf(&raw)), Err(MailRefusal::TooManyParts { max: MAX_MIME_PARTS }));
}

#[test]
fn huge_headers_are_refused() {
    let fold = "X-Filler: ".to_owned() + &"a".repeat(70) + "\n";
    let top = format!("From: a@example.com\nMessage-ID: <h@x>\n{}\nbody\n", fold.repeat(MAX_HEADER_BYTES / fold.len() + 10));
    assert_eq!(parse(&crlf(&top)), Err(MailRefusal::HeadersTooLarge { max: MAX_HEADER_BYTES }));
    // A header without end at all, over the limit.
    let endless = format!("From: a@example.com\nSubject: {}", "s".repeat(MAX_HEADER_BYTES * 2));
    assert_eq!(parse(endless.as_bytes()), Err(MailRefusal::HeadersTooLarge { max: MAX_HEADER_BYTES }));
    // A MIME part's headers.
    let part = format!(
        "From: a@example.com\nMessage-ID: <h@x>\nContent-Type: multipart/mixed; boundary=\"b\"\n\n\
         --b\nContent-Type: text/plain\n{}\nbody\n--b--\n",
        fold.repeat(MAX_HEADER_BYTES / fold.len() + 10)
    );
    assert_eq!(parse(&crlf(&part)), Err(MailRefusal::HeadersTooLarge { max: MAX_HEADER_BYTES }));
    // Just under: accepted.
    let fine = format!("From: a@example.com\nMessage-ID: <h@x>\n{}\nbody\n", fold.repeat(MAX_HEADER_BYTES / fold.len() / 2));
    assert!(parse(&crlf(&fine)).is_ok());
}

fn with_attachment(bytes: usize) -> Vec<u8> {
    let mut raw = crlf(
        "From: a@example.com\n\
         Message-ID: <big@x>\n\
         Content-Type: multipart/mixed; boundary=\"b\"\n\
         \n\
         --b\n\
         Content-Type: text/plain\n\
         \n\
         big one\n\
         --b\n\
         Content-Type: application/octet-stream\n\
         Content-Disposition: attachment; filename=\"big.bin\"\n\
         Content-Transfer-Encoding: base64\n\
         \n",
    );
    // base64 of zero bytes is "AAAA", in 76-character lines.
    let line = "A".repeat(76) + "\r\n";
    let encoded_len = bytes.div_ceil(3) * 4;
    raw.reserve(encoded_len + encoded_len / 76 * 2 + 64);
    for _ in 0..encoded_len / 76 {
        raw.extend_from_slice(line.as_bytes());
    }
    raw.extend_from_slice("A".repeat(encoded_len % 76).as_bytes());
    raw.extend_from_slice(b"\r\n--b--\r\n");
    raw
}

#[test]
fn a_50_mb_attachment_is_refused_before_parsing() {
    let raw = with_attachment(50 * 1000 * 1000);
    let started = std::time::Instant::now();
    assert_eq!(parse(&raw), Err(MailRefusal::TooLarge { size: raw.len(), max: MAX_MESSAGE_BYTES }));
    assert!(started.elapsed().as_millis() < 100, "{:?}", started.elapsed());
}

#[test]
fn a_large_attachment_under_the_limit_is_kept_whole() {
    let raw = with_attachment(12 * 1000 * 1000);
    assert!(raw.len() < MAX_MESSAGE_BYTES);
    let mail = parse(&raw).unwrap();
    assert_eq!(mail.text.as_deref(), Some("big one"));
    assert_eq!(mail.attachments.len(), 1);
    assert_eq!(mail.attachments[0].filename.as_deref(), Some("big.bin"));
    assert_eq!(mail.attachments[0].size(), 12 * 1000 * 1000);
}

#[test]
fn group_and_odd_addresses_are_flattened() {
    let raw = crlf(
        "From: A <A@Example.com>\n\
         To: Team: one@example.com, Two <TWO@example.com>;, broken-address\n\
         Message-ID: <g@x>\n\nb\n",
    );
    let mail = parse(&raw).unwrap();
    let to: Vec<_> = mail.to.iter().map(|m| m.address.as_str()).collect();
    assert_eq!(to, vec!["one@example.com", "two@example.com"]);
}
