//! Slow requests against the real `parley serve`, over real TCP: a body dripped a byte at a time
//! is answered 408 once the read deadline passes and its connection closed, whether its length
//! is announced or chunked, read by the handler or not; and the per-worker connection cap holds
//! new connections back until a slot frees. (The mechanism is the HTTP layer's, the same on both
//! backends: SQLite serves here.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};

/// The deadline the server is started with.
const DEADLINE: Duration = Duration::from_secs(1);

fn serve(dir: &tempfile::TempDir, extra: &[(&str, &str)]) -> ParleyServer {
    let mut env = vec![("PARLEY_REQUEST_READ_TIMEOUT_SECS", "1")];
    env.extend_from_slice(extra);
    ParleyServer::start(&dir.path().join("parley.db"), free_port(), &env, |l| l.contains("publishable key:"))
}

/// What came back on one connection: the bytes, when the answer's head arrived, and whether
/// the server closed the connection (within `wait` of the start).
struct Outcome {
    text: String,
    answered_after: Option<Duration>,
    closed_after: Option<Duration>,
}

/// Sends `head`, then `drip` every 200 ms, reading what comes back, for at most `wait`.
fn drip(port: u16, head: &str, drip: &[u8], wait: Duration) -> Outcome {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let (mut got, mut answered_after, mut closed_after) = (Vec::new(), None, None);
    let mut buf = [0u8; 8192];
    while started.elapsed() < wait {
        // The server may close while a byte is on its way: that is the point, not a failure.
        let _ = stream.write_all(drip);
        match stream.read(&mut buf) {
            Ok(0) => {
                closed_after = Some(started.elapsed());
                break;
            }
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                answered_after.get_or_insert(started.elapsed());
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => {
                closed_after = Some(started.elapsed()); // reset by the server
                break;
            }
        }
    }
    Outcome { text: String::from_utf8_lossy(&got).into_owned(), answered_after, closed_after }
}

fn post_head(path: &str, key: &str, framing: &str) -> String {
    format!("POST {path} HTTP/1.1\r\nHost: test\r\nX-API-Key: {key}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n")
}

#[test]
fn a_dripped_body_is_answered_408_within_the_deadline_and_the_connection_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&dir, &[]);
    let pk = server.banner_value("publishable key:").unwrap();
    // The issue's attack: a public key, a long announced body, a byte at a time.
    let announced = drip(server.port, &post_head("/v1/carts", &pk, "Content-Length: 100000"), b" ", Duration::from_secs(10));
    // Chunked, where actix would otherwise drain the rest for as long as it comes.
    let chunked = drip(server.port, &post_head("/v1/carts", &pk, "Transfer-Encoding: chunked"), b"1\r\n \r\n", Duration::from_secs(10));
    for (what, o) in [("announced length", announced), ("chunked", chunked)] {
        assert!(o.text.starts_with("HTTP/1.1 408"), "{what}: {}", o.text);
        assert!(o.text.to_ascii_lowercase().contains("connection: close"), "{what}: {}", o.text);
        assert!(o.text.contains(r#""code":"REQUEST_TIMEOUT""#) && o.text.contains(r#""request_id":"req_"#), "{what}: {}", o.text);
        let answered = o.answered_after.unwrap();
        // The deadline, plus a shared machine's scheduling slack: never the 15 s default, never forever.
        assert!(answered >= DEADLINE && answered < DEADLINE + Duration::from_secs(3), "{what}: answered after {answered:?}");
        let closed = o.closed_after.unwrap_or_else(|| panic!("{what}: the connection stayed open"));
        assert!(closed < answered + Duration::from_secs(3), "{what}: closed after {closed:?}");
    }
}

#[test]
fn a_body_the_handler_never_reads_does_not_keep_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&dir, &[]);
    let pk = server.banner_value("publishable key:").unwrap();
    // A bad key is answered before the body is read; so is a GET that has one.
    for (what, head) in [
        ("401", post_head("/v1/carts", "pk_wrong", "Transfer-Encoding: chunked")),
        ("GET", format!("GET /v1/categories HTTP/1.1\r\nHost: test\r\nX-API-Key: {pk}\r\nTransfer-Encoding: chunked\r\n\r\n")),
    ] {
        let o = drip(server.port, &head, b"1\r\n \r\n", Duration::from_secs(10));
        assert!(o.text.starts_with("HTTP/1.1 401") || o.text.starts_with("HTTP/1.1 200"), "{what}: {}", o.text);
        assert!(o.answered_after.unwrap() < Duration::from_secs(1), "{what}: answered at once");
        let closed = o.closed_after.unwrap_or_else(|| panic!("{what}: the connection stayed open while the body dripped"));
        assert!(closed < DEADLINE + Duration::from_secs(3), "{what}: closed after {closed:?}");
    }
    // A whole request on a kept-alive connection is served as before.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    for _ in 0..2 {
        let body = r#"{"items":[{"id":"prd_thermos_500","qty":1}]}"#;
        write!(stream, "{}{body}", post_head("/v1/carts", &pk, &format!("Content-Length: {}", body.len()))).unwrap();
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf).unwrap();
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(text.starts_with("HTTP/1.1 201"), "{text}");
        assert!(!text.to_ascii_lowercase().contains("connection: close"), "{text}");
    }
}

#[test]
fn connections_past_the_cap_wait_for_a_free_slot() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&dir, &[("PARLEY_WORKERS", "1"), ("PARLEY_MAX_CONNECTIONS", "2")]);
    let pk = server.banner_value("publishable key:").unwrap();
    let port = server.port;
    // Two dripping clients take the only worker's two slots until the deadline frees them.
    let holders: Vec<_> = (0..2)
        .map(|_| {
            let head = post_head("/v1/carts", &pk, "Content-Length: 100000");
            std::thread::spawn(move || drip(port, &head, b" ", Duration::from_secs(10)))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let o = drip(port, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", b"", Duration::from_secs(10));
    let waited = o.answered_after.expect("served once a slot freed");
    assert!(o.text.starts_with("HTTP/1.1 200"), "{}", o.text);
    // Held back until a holder's 408 (at about DEADLINE from its start, 300 ms before ours).
    assert!(waited >= DEADLINE / 2, "answered after {waited:?}: the cap did not hold it back");
    assert!(waited < DEADLINE + Duration::from_secs(4), "answered after {waited:?}");
    for h in holders {
        assert!(h.join().unwrap().text.starts_with("HTTP/1.1 408"));
    }
}
