//! `cargo xtask bench events`: event webhooks through the release binary. Per backend: 10,000
//! changes (contacts created over the API by 4 clients) delivered to a local receiver: events
//! delivered per second, and commit-to-receipt latency (the event's `created_at`, written in
//! the change's transaction, to the receiver reading the body). Then the API's own throughput
//! (wrk on a page read, while a background client keeps writing) with a receiver that never
//! answers subscribed, against the same load without it.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::api::SERVER_ENV;
use super::http::Client;
use super::wrk::{Load, Wrk};
use super::{Server, fresh_database, json_field, parley, release_binary, scratch};

pub struct EventsOptions {
    pub backends: Vec<String>,
    pub changes: usize,
    pub seconds: u64,
    pub binary: Option<PathBuf>,
}

impl EventsOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options = Self { backends: vec!["sqlite".into(), "postgres".into()], changes: 10_000, seconds: 5, binary: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{flag}: {value:?} is not a number"));
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--changes" => options.changes = number()?.max(100),
                "--seconds" => options.seconds = number()?.max(1) as u64,
                "--binary" => options.binary = Some(PathBuf::from(value)),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }
}

const WRITERS: usize = 4;

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Unix milliseconds of `2026-11-26T09:04:34.430Z` (the API's one form of a time).
pub(super) fn parse_ms(t: &str) -> Option<i64> {
    let n = |a: usize, b: usize| t.get(a..b)?.parse::<i64>().ok();
    let (y, m, d) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let (hh, mm, ss, ms) = (n(11, 13)?, n(14, 16)?, n(17, 19)?, n(20, 23)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + ms)
}

/// A local receiver: answers 200 to every POST, recording when each event arrived against the
/// `created_at` its body carries.
struct Receiver {
    port: u16,
    latencies: Arc<Mutex<Vec<i64>>>,
    count: Arc<AtomicUsize>,
    last_ms: Arc<Mutex<i64>>,
}

impl Receiver {
    fn start() -> Result<Self, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let receiver = Self { port, latencies: Arc::default(), count: Arc::default(), last_ms: Arc::default() };
        let (latencies, count, last) = (receiver.latencies.clone(), receiver.count.clone(), receiver.last_ms.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let (latencies, count, last) = (latencies.clone(), count.clone(), last.clone());
                std::thread::spawn(move || {
                    let _ = serve_connection(stream, &latencies, &count, &last);
                });
            }
        });
        Ok(receiver)
    }

    fn received(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

fn serve_connection(stream: TcpStream, latencies: &Mutex<Vec<i64>>, count: &AtomicUsize, last: &Mutex<i64>) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut length = 0;
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let at = now_ms();
        let body = String::from_utf8_lossy(&body);
        if let Some(created) = json_field(&body, "created_at").ok().and_then(|t| parse_ms(&t)) {
            latencies.lock().unwrap_or_else(|p| p.into_inner()).push(at - created);
        }
        *last.lock().unwrap_or_else(|p| p.into_inner()) = at;
        count.fetch_add(1, Ordering::SeqCst);
        writer.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")?;
    }
}

/// A receiver that accepts connections and never answers: each delivery waits out the 10 s limit.
fn hanging_receiver() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().map_while(Result::ok) {
            held.push(stream);
        }
    });
    Ok(port)
}

fn contact_body(n: usize) -> String {
    format!(r#"{{"channel_type":"whatsapp","channel_id":"52{n:010}"}}"#)
}

fn endpoint(client: &mut Client, url: &str) -> Result<(), String> {
    let body = format!(r#"{{"url":"{url}","events":["contact.created"]}}"#);
    let (status, answer) = client.send("POST", "/v1/webhook_endpoints", Some(&body))?;
    if status != 201 {
        return Err(format!("creating the endpoint answered {status}: {}", String::from_utf8_lossy(&answer)));
    }
    Ok(())
}

/// Creates contacts `from..to` from `WRITERS` clients at once; returns when all answered.
fn write_contacts(port: u16, key: &str, from: usize, to: usize) -> Result<(), String> {
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let key = key.to_string();
            std::thread::spawn(move || -> Result<(), String> {
                let mut client = Client::connect(port, &key)?;
                for n in (from + w..to).step_by(WRITERS) {
                    let (status, body) = client.send("POST", "/v1/contacts", Some(&contact_body(n)))?;
                    if status != 201 {
                        return Err(format!("POST /v1/contacts answered {status}: {}", String::from_utf8_lossy(&body)));
                    }
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join().map_err(|_| "a writer panicked")??;
    }
    Ok(())
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted.get(((sorted.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(0)
}

struct Delivered {
    events_per_second: f64,
    changes_per_second: f64,
    p50: i64,
    p99: i64,
    max: i64,
}

fn deliver(port: u16, key: &str, receiver: &Receiver, changes: usize) -> Result<Delivered, String> {
    let started = Instant::now();
    let started_ms = now_ms();
    write_contacts(port, key, 0, changes)?;
    let written = started.elapsed();
    while receiver.received() < changes {
        if started.elapsed() > Duration::from_secs(300) {
            return Err(format!("only {} of {changes} events arrived in 5 minutes", receiver.received()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let last = *receiver.last_ms.lock().unwrap_or_else(|p| p.into_inner());
    let mut latencies = receiver.latencies.lock().unwrap_or_else(|p| p.into_inner()).clone();
    latencies.sort_unstable();
    Ok(Delivered {
        events_per_second: changes as f64 / ((last - started_ms).max(1) as f64 / 1000.0),
        changes_per_second: changes as f64 / written.as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        max: latencies.last().copied().unwrap_or(0),
    })
}

/// wrk on a contacts page for `seconds`, while one client keeps creating contacts from `from`.
fn api_under_writes(port: u16, key: &str, wrk: &Wrk, from: usize) -> Result<f64, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, key) = (stop.clone(), key.to_string());
        std::thread::spawn(move || -> Result<(), String> {
            let mut client = Client::connect(port, &key)?;
            let mut n = from;
            while !stop.load(Ordering::SeqCst) {
                client.send("POST", "/v1/contacts", Some(&contact_body(n)))?;
                n += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(())
        })
    };
    let figures = wrk.run(port, key, &Load::get("/v1/contacts?limit=20"), &scratch()?);
    stop.store(true, Ordering::SeqCst);
    writer.join().map_err(|_| "the writer panicked")??;
    Ok(figures?.requests_per_second)
}

fn prepare(bin: &Path, backend: &str) -> Result<(String, String), String> {
    let url = fresh_database(backend)?;
    let (agent, _) = parley(bin, &url, &["agents", "create", "--name", "events bench"])?;
    let agent = json_field(&agent, "id")?;
    let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
    Ok((url, json_field(&key, "key")?))
}

pub fn run(options: &EventsOptions) -> Result<(), String> {
    Wrk::check_installed()?;
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let wrk = Wrk { connections: 16, duration: Duration::from_secs(options.seconds) };
    let mut delivery = String::from(
        "| backend | changes/s made | events/s delivered | p50 ms commit → receipt | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let mut backlog = String::from("| backend | backlog | events/s delivered, from the process start |\n|---|---:|---:|\n");
    let mut hanging =
        String::from("| backend | API requests/s, healthy receiver | with a hanging receiver too | ratio |\n|---|---:|---:|---:|\n");
    for backend in &options.backends {
        let (url, key) = prepare(&bin, backend)?;
        let port = super::free_port()?;
        let mut env = SERVER_ENV.to_vec();
        env.push(("PARLEY_WEBHOOK_ALLOW_PRIVATE", "true"));
        let server = Server::start_with(&bin, &url, port, &env)?;
        let receiver = Receiver::start()?;
        let mut client = Client::connect(port, &key)?;
        endpoint(&mut client, &format!("http://127.0.0.1:{}/events", receiver.port))?;

        let d = deliver(port, &key, &receiver, options.changes)?;
        eprintln!(
            "{backend}: {} changes at {:.0}/s, delivered at {:.0} events/s, commit → receipt p50 {} ms, p99 {} ms",
            options.changes, d.changes_per_second, d.events_per_second, d.p50, d.p99
        );
        let _ = writeln!(
            delivery,
            "| {backend} | {:.0} | {:.0} | {} | {} | {} |",
            d.changes_per_second, d.events_per_second, d.p50, d.p99, d.max
        );

        // Delivery capacity alone: a backlog stored by an instance that does not deliver, then
        // drained by one that does (the live run above is bounded by the rate of changes).
        drop(server);
        let mut quiet = env.clone();
        quiet.push(("PARLEY_WEBHOOK_PROCESSING", "false"));
        let storing = Server::start_with(&bin, &url, port, &quiet)?;
        write_contacts(port, &key, options.changes, 2 * options.changes)?;
        drop(storing);
        let before = receiver.received();
        let draining = Instant::now();
        let draining_ms = now_ms();
        let server = Server::start_with(&bin, &url, port, &env)?;
        while receiver.received() < before + options.changes {
            if draining.elapsed() > Duration::from_secs(300) {
                return Err(format!("the backlog did not drain: {} of {}", receiver.received() - before, options.changes));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let last = *receiver.last_ms.lock().unwrap_or_else(|p| p.into_inner());
        let drained = options.changes as f64 / ((last - draining_ms).max(1) as f64 / 1000.0);
        eprintln!("{backend}: a backlog of {} drained at {drained:.0} events/s (from the process start)", options.changes);
        let _ = writeln!(backlog, "| {backend} | {} | {drained:.0} |", options.changes);

        let healthy = api_under_writes(port, &key, &wrk, 3_000_000)?;
        // A fresh connection: the first one idled past the server's keep-alive.
        endpoint(&mut Client::connect(port, &key)?, &format!("http://127.0.0.1:{}/never", hanging_receiver()?))?;
        let with_hanging = api_under_writes(port, &key, &wrk, 2_000_000)?;
        eprintln!("{backend}: API {healthy:.0} requests/s, {with_hanging:.0} with a hanging receiver");
        let _ = writeln!(hanging, "| {backend} | {healthy:.0} | {with_hanging:.0} | {:.2} |", with_hanging / healthy);
        drop(server);
    }
    let which = options.binary.as_ref().map_or_else(|| "this tree's release build".to_string(), |b| format!("`{}`", b.display()));
    let section = format!(
        "## Event webhooks: `cargo xtask bench events`\n\n\
         {which}. {} contacts created over the API by {WRITERS} clients, each a `contact.created` event delivered to a local \
         receiver (one endpoint, plain HTTP, answering 200 at once); events/s from the first change to the last receipt; \
         latency from the event's `created_at` (its commit) to the receiver reading it. The delivered rate follows the rate \
         of changes; the backlog run measures delivery alone: the same number of changes stored by an instance that does \
         not deliver, then drained by a fresh one.\n\n{delivery}\n{backlog}\n\
         The API's throughput (wrk, 16 connections, {} s, `GET /v1/contacts?limit=20`) while one client keeps creating contacts, \
         first with the healthy receiver only, then with a second endpoint whose receiver accepts connections and never answers \
         (each of its deliveries waits out the 10 s limit).\n\n{hanging}",
        options.changes, options.seconds
    );
    println!("{section}");
    super::write_report("events", &section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_to_unix_milliseconds() {
        assert_eq!(parse_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_ms("2026-01-01T00:00:00.123Z"), Some(1_767_225_600_123));
        assert_eq!(parse_ms("2024-02-29T12:00:00.000Z"), Some(1_709_208_000_000));
        assert_eq!(parse_ms("nope"), None);
    }
}
