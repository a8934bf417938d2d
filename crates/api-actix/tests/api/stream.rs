//! `GET /v1/stream` with two real `parley serve` processes on one database: a change made
//! through one instance reaches a stream held by the other, in order, as `/v1/events` lists it;
//! another agent's events never do; `Last-Event-ID` resumes after an event; a quiet stream sends
//! its comment line; a member's session (signed in through the real binary) streams as a key
//! does.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::KeyKind;
use parley_domain::services::NewMemberInput;
use serde_json::{Value, json};

use crate::common::server::{ParleyServer, free_port};

const SERVING: fn(&str) -> bool = |l| l.starts_with("Parley is serving");

fn serve(db: &TestDb) -> ParleyServer {
    ParleyServer::start_on(&db.url, free_port(), &[("PARLEY_STREAM_HEARTBEAT_SECS", "1")], SERVING)
}

/// One Server-Sent Event as read: its id, event name and data, or a comment.
#[derive(Debug)]
enum Frame {
    Event { id: String, event: String, data: Value },
    Comment(String),
}

/// A stream being read, frame by frame.
struct Reader {
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<actix_web::web::Bytes>> + Send>>,
    buffer: String,
}

impl Reader {
    /// The stream at `url`, or the answer when it is not 200.
    async fn open(url: &str, auth: (&str, &str), last_event_id: Option<&str>) -> Result<Self, reqwest::Response> {
        let mut req = reqwest::Client::new().get(url).header(auth.0, auth.1);
        if let Some(id) = last_event_id {
            req = req.header("Last-Event-ID", id);
        }
        let response = req.send().await.unwrap();
        if response.status() != 200 {
            return Err(response);
        }
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        assert_eq!(response.headers()["cache-control"], "no-cache");
        Ok(Self { body: Box::pin(response.bytes_stream()), buffer: String::new() })
    }

    /// The next frame within `wait`, or `None`.
    async fn next(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                return Some(parse(&block));
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            match tokio::time::timeout(left, self.body.next()).await {
                Ok(Some(Ok(chunk))) => self.buffer.push_str(std::str::from_utf8(&chunk).unwrap()),
                _ => return None,
            }
        }
    }

    /// The next event (comments skipped) within `wait`.
    async fn event(&mut self, wait: Duration) -> Option<(String, String, Value)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.next(left).await? {
                Frame::Event { id, event, data } => return Some((id, event, data)),
                Frame::Comment(_) => {}
            }
        }
    }
}

fn parse(block: &str) -> Frame {
    let mut id = None;
    let mut event = None;
    let mut data = None;
    let mut comment = None;
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix(':') {
            comment = Some(rest.trim().to_string());
        } else if let Some((field, value)) = line.split_once(": ") {
            match field {
                "id" => id = Some(value.to_string()),
                "event" => event = Some(value.to_string()),
                "data" => data = Some(serde_json::from_str(value).unwrap()),
                "retry" => {}
                other => panic!("unexpected field {other} in {block:?}"),
            }
        } else if let Some(value) = line.strip_prefix("retry:") {
            assert!(value.trim().parse::<u32>().is_ok());
        }
    }
    match (id, event, data) {
        (Some(id), Some(event), Some(data)) => Frame::Event { id, event, data },
        _ => Frame::Comment(comment.unwrap_or_default()),
    }
}

async fn a_stream_on_one_instance_sees_what_another_wrote(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let a = state.keys.create_agent("A").await.unwrap().id;
    let b = state.keys.create_agent("B").await.unwrap().id;
    let key_a = state.keys.issue_key(&a, KeyKind::Secret).await.unwrap().plaintext;
    let key_b = state.keys.issue_key(&b, KeyKind::Secret).await.unwrap().plaintext;
    let writer = serve(&db);
    let reader = serve(&db);
    let http = reqwest::Client::new();
    let tag = |server: &ParleyServer, key: &str, name: &str| {
        let req = http.post(format!("{}/v1/tags", server.url())).header("X-API-Key", key).json(&json!({"name": name}));
        async move {
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 201);
            r.json::<Value>().await.unwrap()["data"]["id"].as_str().unwrap().to_string()
        }
    };

    let stream_url = format!("{}/v1/stream", reader.url());
    let mut stream = Reader::open(&stream_url, ("X-API-Key", &key_a), None).await.unwrap();
    // The stream opens with its comment, then a quiet stream keeps talking.
    assert!(matches!(stream.next(Duration::from_secs(5)).await, Some(Frame::Comment(_))));
    assert!(matches!(stream.next(Duration::from_secs(5)).await, Some(Frame::Comment(c)) if c == "keep-alive"));

    tag(&writer, &key_b, "not yours").await;
    let first = tag(&writer, &key_a, "first").await;
    let second = tag(&writer, &key_a, "second").await;
    let started = Instant::now();
    let (id1, event1, data1) = stream.event(Duration::from_secs(10)).await.expect("the first event arrives");
    let (id2, _, data2) = stream.event(Duration::from_secs(10)).await.expect("the second event arrives");
    eprintln!("two events crossed instances in {:?}", started.elapsed());
    assert_eq!(event1, "tag.created");
    let mut got = [data1["data"]["object"]["id"].as_str().unwrap(), data2["data"]["object"]["id"].as_str().unwrap()];
    // Oldest first (two changes in one millisecond go by id, as the list orders them).
    assert!(data1["created_at"].as_str() <= data2["created_at"].as_str(), "oldest first: {data1} then {data2}");
    got.sort();
    let mut made = [first.as_str(), second.as_str()];
    made.sort();
    assert_eq!(got, made, "A's two tags, not B's");
    let listed = http.get(format!("{}/v1/events?type=tag.created", writer.url())).header("X-API-Key", &key_a).send().await.unwrap();
    let listed: Value = listed.json().await.unwrap();
    let listed = listed["data"].as_array().unwrap();
    assert!(listed.contains(&data1) && listed.contains(&data2), "the stream's data is each event as /v1/events lists it");
    assert_eq!((data1["id"].as_str(), data2["id"].as_str()), (Some(id1.as_str()), Some(id2.as_str())));

    // Resuming after the first event sends the second (and what came while away) first.
    drop(stream);
    let third = tag(&writer, &key_a, "third").await;
    let mut resumed = Reader::open(&stream_url, ("X-API-Key", &key_a), Some(&id1)).await.unwrap();
    let (again, _, _) = resumed.event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(again, id2);
    let (_, _, data3) = resumed.event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(data3["data"]["object"]["id"], third.as_str());
    // An event of another agent, or an unknown id, resumes from now.
    let mut other = Reader::open(&stream_url, ("X-API-Key", &key_b), Some(&id1)).await.unwrap();
    assert!(other.event(Duration::from_secs(2)).await.is_none(), "B sees none of A's events");

    let refused = Reader::open(&stream_url, ("X-API-Key", "sk_nope"), None).await.err().expect("a bad key is refused");
    assert_eq!(refused.status(), 401);

    // A member's session streams as a key does, once its one-time password is replaced.
    let input = NewMemberInput { email: Some("ana@shop.example".into()), name: Some("Ana".into()), role: None };
    let added = state.members.add(&a, input).await.unwrap();
    let sign_in = json!({"email": "ana@shop.example", "password": added.one_time_password});
    let signed = http.post(format!("{}/v1/sign_in", reader.url())).json(&sign_in).send().await.unwrap();
    assert_eq!(signed.status(), 200);
    let cookie = signed.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let csrf = signed.json::<Value>().await.unwrap()["data"]["csrf_token"].as_str().unwrap().to_string();
    let early = Reader::open(&stream_url, ("Cookie", &cookie), None).await.err().expect("not before the password change");
    assert_eq!(early.status(), 403);
    let change = json!({"current_password": added.one_time_password, "new_password": "a long new passphrase"});
    let changed = http
        .post(format!("{}/v1/session/password", reader.url()))
        .header("Cookie", &cookie)
        .header("X-CSRF-Token", &csrf)
        .json(&change)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 200);
    let mut member_stream = Reader::open(&stream_url, ("Cookie", &cookie), Some(&id2)).await.unwrap();
    let (_, _, resumed) = member_stream.event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(resumed["data"]["object"]["id"], third.as_str(), "the session resumes after the second tag: the third");
}

backend_tests!(a_stream_on_one_instance_sees_what_another_wrote);
