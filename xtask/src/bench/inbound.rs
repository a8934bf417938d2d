//! Inbound messages for `bench api`: signed webhook bodies in the platform's shape, the seeding
//! of conversations with messages, and the ingestion measurement (bodies POSTed at full speed by
//! several connections, timed from each POST until its message is stored and visible).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::http::Client;
use super::http::call;
use super::json::{Json, quote};

/// The app secret the bench's servers verify webhook signatures with.
pub const APP_SECRET: &str = "bench-app-secret";
/// The sandbox line's phone number id (`bench api` adds it).
pub const PHONE_NUMBER_ID: &str = "100200300";
/// The sandbox Instagram line's account id (`bench api` adds it).
pub const INSTAGRAM_ACCOUNT_ID: &str = "17841400000000001";

/// The platform whose webhooks an ingestion run POSTs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Whatsapp,
    /// WhatsApp with every other sender hiding their phone: named by a business-scoped user id
    /// and a username alone, as the platform's webhooks name such users.
    WhatsappUsernames,
    Instagram,
}

impl Platform {
    fn path(self) -> &'static str {
        match self {
            Platform::Whatsapp | Platform::WhatsappUsernames => "/webhooks/whatsapp",
            Platform::Instagram => "/webhooks/instagram",
        }
    }

    /// One delivery of one text message `(id, text)` from `from`.
    fn delivery(self, from: &str, message: &(String, String)) -> String {
        match self {
            Platform::Whatsapp => webhook(from, unix_now().as_secs(), std::slice::from_ref(message)),
            // Senders of odd number hide their phone.
            Platform::WhatsappUsernames if from.ends_with(['1', '3', '5', '7', '9']) => {
                username_webhook(from, unix_now().as_secs(), message)
            }
            Platform::WhatsappUsernames => webhook(from, unix_now().as_secs(), std::slice::from_ref(message)),
            Platform::Instagram => instagram_webhook(from, unix_now().as_millis(), message),
        }
    }
}

/// An Instagram webhook body of one text message `(mid, text)` from `from` at `at_ms`.
pub fn instagram_webhook(from: &str, at_ms: u128, (mid, text): &(String, String)) -> String {
    format!(
        r#"{{"object":"instagram","entry":[{{"id":"{INSTAGRAM_ACCOUNT_ID}","time":{at_ms},"messaging":[{{"sender":{{"id":{}}},"recipient":{{"id":"{INSTAGRAM_ACCOUNT_ID}"}},"timestamp":{at_ms},"message":{{"mid":{},"text":{}}}}}]}}]}}"#,
        quote(from),
        quote(mid),
        quote(text)
    )
}

/// The `X-Hub-Signature-256` header line of `body`, as the platform signs it.
pub fn signature_header(body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(APP_SECRET.as_bytes()).expect("HMAC takes any key length");
    mac.update(body.as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("X-Hub-Signature-256: sha256={hex}\r\n")
}

/// A webhook body of text messages `(wamid, text)` from `from` to the bench's line at `at`.
pub fn webhook(from: &str, at: u64, messages: &[(String, String)]) -> String {
    let objects: Vec<String> = messages
        .iter()
        .map(|(id, text)| {
            format!(r#"{{"from":{},"id":{},"timestamp":"{at}","type":"text","text":{{"body":{}}}}}"#, quote(from), quote(id), quote(text))
        })
        .collect();
    format!(
        r#"{{"object":"whatsapp_business_account","entry":[{{"id":"400500600","changes":[{{"field":"messages","value":{{"messaging_product":"whatsapp","metadata":{{"display_phone_number":"15550001111","phone_number_id":"{PHONE_NUMBER_ID}"}},"contacts":[{{"profile":{{"name":"Shopper {from}"}},"wa_id":{}}}],"messages":[{}]}}}}]}}]}}"#,
        quote(from),
        objects.join(",")
    )
}

/// A webhook body of one text message `(wamid, text)` from a user who hides their phone: the
/// user id `US.{digits}` and a username, no `from` and no `wa_id`. Named `Shopper US.{digits}`,
/// so a search for the digits finds them as it finds a phone's.
pub fn username_webhook(digits: &str, at: u64, (id, text): &(String, String)) -> String {
    let user_id = format!("US.{digits}");
    format!(
        r#"{{"object":"whatsapp_business_account","entry":[{{"id":"400500600","changes":[{{"field":"messages","value":{{"messaging_product":"whatsapp","metadata":{{"display_phone_number":"15550001111","phone_number_id":"{PHONE_NUMBER_ID}"}},"contacts":[{{"profile":{{"name":"Shopper {user_id}","username":"shopper.{digits}"}},"user_id":{}}}],"messages":[{{"from_user_id":{},"id":{},"timestamp":"{at}","type":"text","text":{{"body":{}}}}}]}}}}]}}]}}"#,
        quote(&user_id),
        quote(&user_id),
        quote(id),
        quote(text)
    )
}

/// POSTs one signed WhatsApp webhook body; anything but 200 stops the bench.
pub fn post(client: &mut Client, body: &str) -> Result<(), String> {
    post_to(client, Platform::Whatsapp, body)
}

/// POSTs one signed webhook body of `platform`; anything but 200 stops the bench.
fn post_to(client: &mut Client, platform: Platform, body: &str) -> Result<(), String> {
    let (status, answer) = client.send_with("POST", platform.path(), &signature_header(body), Some(body))?;
    if status != 200 {
        return Err(format!("POST {} answered {status}: {}", platform.path(), String::from_utf8_lossy(&answer)));
    }
    Ok(())
}

pub fn unix_now() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// Waits until the server's inbound backlog (from `/metrics`) is empty. Builds before the metric
/// was named `parley_inbound_backlog` report it as `parley_webhook_backlog` (benches compare them).
pub fn drained(client: &mut Client, timeout: Duration) -> Result<(), String> {
    drained_of(client, &["parley_inbound_backlog", "parley_webhook_backlog"], timeout)
}

/// Waits until the first of the gauges `names` the server's `/metrics` reports reads 0.
pub fn drained_of(client: &mut Client, names: &[&str], timeout: Duration) -> Result<(), String> {
    let started = std::time::Instant::now();
    loop {
        let (_, metrics) = client.get("/metrics")?;
        let text = String::from_utf8_lossy(&metrics);
        let backlog = text
            .lines()
            .find_map(|l| names.iter().find_map(|name| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' '))))
            .and_then(|v| v.trim().parse::<u64>().ok());
        if backlog == Some(0) {
            return Ok(());
        }
        if started.elapsed() > timeout {
            return Err(format!("{} never drained (still {backlog:?})", names[0]));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One conversation with `count` inbound messages (seeded in bodies of 50), from `from`;
/// returns its activity id.
pub fn seed_conversation(client: &mut Client, from: &str, count: usize) -> Result<String, String> {
    let at = unix_now().as_secs() - 60;
    let messages: Vec<(String, String)> =
        (0..count).map(|n| (format!("wamid.seed{from}x{n}"), format!("Message {n}: is the blue one still in stock?"))).collect();
    for chunk in messages.chunks(50) {
        post(client, &webhook(from, at, chunk))?;
    }
    drained(client, Duration::from_secs(120))?;
    let found = call(client, "GET", &format!("/v1/activities?search={from}"), None)?;
    Ok(found.array_field("data")?.first().ok_or("no activity for the seeded conversation")?.str_field("id")?.to_string())
}

/// When a delivery was POSTed, and when its answer arrived.
type Timing = (Duration, Duration);

/// What the ingestion run measured.
pub struct Ingestion {
    pub messages: usize,
    /// Messages a second, from the first POST until the last message was visible.
    pub per_second: f64,
    /// From a delivery's POST until its message was visible.
    pub p50: Duration,
    pub p99: Duration,
    /// From a delivery's POST until its answer: a server that processes before answering has
    /// the message visible by then.
    pub answer_p99: Duration,
}

/// POSTs `messages` deliveries of `platform` (one message each, from `contacts` senders) over
/// `connections` connections at full speed, then reads every message back to time it from its POST.
pub fn ingest(platform: Platform, port: u16, key: &str, messages: usize, contacts: usize, connections: usize) -> Result<Ingestion, String> {
    // Each platform's senders apart, so each run reads back its own conversations.
    let prefix = match platform {
        Platform::Whatsapp => "1666",
        Platform::Instagram => "1667",
        Platform::WhatsappUsernames => "1668",
    };
    ingest_from(platform, prefix, port, key, messages, contacts, connections)
}

/// [`ingest`] from senders whose numbers start with `prefix` (four digits): a run of its own,
/// every sender new to the server.
pub fn ingest_from(
    platform: Platform,
    prefix: &str,
    port: u16,
    key: &str,
    messages: usize,
    contacts: usize,
    connections: usize,
) -> Result<Ingestion, String> {
    let run = unix_now().as_millis();
    let started = unix_now();
    let per_connection = messages.div_ceil(connections);
    let prefix = prefix.to_string();
    let workers: Vec<_> = (0..connections)
        .map(|c| {
            let key = key.to_string();
            let prefix = prefix.clone();
            std::thread::spawn(move || -> Result<Vec<(String, Timing)>, String> {
                let mut client = Client::connect(port, &key)?;
                let mut answered = Vec::with_capacity(per_connection);
                for n in (c * per_connection)..((c + 1) * per_connection).min(messages) {
                    let wamid = format!("m.ingest{run}x{n}");
                    let from = format!("{prefix}{:07}", n % contacts);
                    let body = platform.delivery(&from, &(wamid.clone(), format!("Ingested message {n}")));
                    // Timed from the POST, not its answer: a server may store the message
                    // before it answers.
                    let sent = unix_now();
                    post_to(&mut client, platform, &body)?;
                    answered.push((wamid, (sent, unix_now())));
                }
                Ok(answered)
            })
        })
        .collect();
    let mut answered = std::collections::HashMap::with_capacity(messages);
    for worker in workers {
        answered.extend(worker.join().map_err(|_| "a posting thread panicked")??);
    }
    let mut client = Client::connect(port, key)?;
    drained(&mut client, Duration::from_secs(600))?;

    // Every message's `updated_at` is when its insert committed: when it became visible.
    let mut answers: Vec<Duration> = answered.values().map(|(sent, answer)| answer.saturating_sub(*sent)).collect();
    answers.sort();
    let mut latencies = Vec::with_capacity(messages);
    let mut last_visible = Duration::ZERO;
    for activity in activity_ids(&mut client, &prefix)? {
        let mut offset = 0;
        loop {
            let page = call(&mut client, "GET", &format!("/v1/activities/{activity}/messages?limit=100&offset={offset}"), None)?;
            let items = page.array_field("data")?;
            for m in items {
                let Some((sent, _)) = m.get("platform_message_id").and_then(Json::as_str).and_then(|id| answered.get(id)) else { continue };
                let visible = parse_time(m.str_field("updated_at")?)?;
                last_visible = last_visible.max(visible);
                latencies.push(visible.saturating_sub(*sent));
            }
            offset += items.len();
            if items.len() < 100 {
                break;
            }
        }
    }
    if latencies.len() != messages {
        return Err(format!("{} of {messages} ingested messages were found", latencies.len()));
    }
    latencies.sort();
    let elapsed = last_visible.saturating_sub(started).as_secs_f64();
    Ok(Ingestion {
        messages,
        per_second: messages as f64 / elapsed.max(0.001),
        p50: latencies[messages / 2],
        p99: latencies[(messages * 99 / 100).min(messages - 1)],
        answer_p99: answers[(messages * 99 / 100).min(messages - 1)],
    })
}

/// Ids of the activities found by a search for `digits`, every page.
fn activity_ids(client: &mut Client, digits: &str) -> Result<Vec<String>, String> {
    let mut ids = Vec::new();
    loop {
        let page = call(client, "GET", &format!("/v1/activities?search={digits}&limit=100&offset={}", ids.len()), None)?;
        let items = page.array_field("data")?;
        ids.extend(items.iter().map(|a| a.str_field("id").map(str::to_string)).collect::<Result<Vec<_>, _>>()?);
        if items.len() < 100 {
            return Ok(ids);
        }
    }
}

/// `2026-11-25T18:40:00.123Z` (the API's form) as time since the Unix epoch.
fn parse_time(raw: &str) -> Result<Duration, String> {
    let bad = || format!("not an API timestamp: {raw}");
    let number = |range: std::ops::Range<usize>| raw.get(range).and_then(|s| s.parse::<i64>().ok()).ok_or_else(bad);
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second, millis) = (number(11..13)?, number(14..16)?, number(17..19)?, number(20..23)?);
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
    Ok(Duration::from_millis(u64::try_from(ms).map_err(|_| bad())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_timestamps_read_as_unix_time() {
        assert_eq!(parse_time("1970-01-01T00:00:00.000Z").unwrap(), Duration::ZERO);
        assert_eq!(parse_time("2026-01-01T00:00:00.000Z").unwrap(), Duration::from_secs(1_767_225_600));
        assert_eq!(parse_time("2024-02-29T12:34:56.789Z").unwrap(), Duration::from_millis(1_709_210_096_789));
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn bodies_are_signed_as_the_platform_signs_them() {
        // HMAC-SHA256("bench-app-secret", "{}"), computed independently.
        assert_eq!(
            signature_header("{}"),
            "X-Hub-Signature-256: sha256=9b5ef672df90d9669f462897e19a32ba53a937b0042e92dc27ac00969d93cb66\r\n"
        );
    }
}
