//! `cargo xtask bench stream`: many `GET /v1/stream` clients on one release process. Per
//! backend: N streams open at once (one thread each, plain HTTP/1.1), then changes made one at a
//! time over the API (a tag each, 200 ms apart, so each is timed on its own): for every stream
//! and every event, the latency from the event's `created_at` (its change) to the stream reading
//! it; and the server's resident memory with the streams open against before they opened.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::api::SERVER_ENV;
use super::http::Client;
use super::{Server, fresh_database, json_field, parley, release_binary};

pub struct StreamOptions {
    pub backends: Vec<String>,
    pub streams: usize,
    pub events: usize,
    pub binary: Option<PathBuf>,
}

impl StreamOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options = Self { backends: vec!["sqlite".into(), "postgres".into()], streams: 1000, events: 20, binary: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{flag}: {value:?} is not a number"));
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--streams" => options.streams = number()?.max(1),
                "--events" => options.events = number()?.max(1),
                "--binary" => options.binary = Some(PathBuf::from(value)),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// What the streams saw: every (stream, event) latency, and how many events each stream got.
#[derive(Default)]
struct Seen {
    latencies: Mutex<Vec<i64>>,
    events: AtomicUsize,
    open: AtomicUsize,
}

/// One stream on its own thread: reads events until the connection ends, recording each one's
/// latency from the `created_at` its data carries.
fn listen(port: u16, key: &str, seen: Arc<Seen>) -> Result<(), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    write!(stream, "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\nAccept: text/event-stream\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    if !line.starts_with("HTTP/1.1 200") {
        return Err(format!("the stream answered {line:?}"));
    }
    seen.open.fetch_add(1, Ordering::SeqCst);
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Ok(());
        }
        // Chunked framing lines and comments pass; a data line carries the event.
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            let received = now_ms();
            let created = data.find("\"created_at\":\"").and_then(|i| super::events::parse_ms(&data[i + 14..i + 38]));
            if let Some(created) = created {
                seen.latencies.lock().unwrap_or_else(|p| p.into_inner()).push(received - created);
            }
            seen.events.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

struct Figures {
    p50: i64,
    p99: i64,
    max: i64,
    rss_before_mib: f64,
    rss_streams_mib: f64,
    open_secs: f64,
}

fn measure(bin: &std::path::Path, backend: &str, options: &StreamOptions) -> Result<Figures, String> {
    let url = fresh_database(backend)?;
    let (agent, _) = parley(bin, &url, &["agents", "create", "--name", "stream bench"])?;
    let agent = json_field(&agent, "id")?;
    let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
    let key = json_field(&key, "key")?;
    let port = super::free_port()?;
    let mut env = SERVER_ENV.to_vec();
    // Limits off: a thousand streams from one address is the point here.
    env.extend([("PARLEY_RATE_LIMIT_PER_MINUTE", "0"), ("PARLEY_BAD_KEY_RATE_LIMIT_PER_MINUTE", "0")]);
    let server = Server::start_with(bin, &url, port, &env)?;
    let mut client = Client::connect(port, &key)?;
    // Warm the process up (a first write, a first read) before measuring its memory.
    super::http::call(&mut client, "POST", "/v1/tags", Some("{\"name\":\"warm-up\"}"))?;
    super::http::call(&mut client, "GET", "/v1/tags", None)?;
    let rss_before = server.resident_kib().unwrap_or(0);

    let seen = Arc::new(Seen::default());
    let opening = Instant::now();
    for _ in 0..options.streams {
        let (seen, key) = (seen.clone(), key.clone());
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                if let Err(e) = listen(port, &key, seen) {
                    eprintln!("a stream failed: {e}");
                }
            })
            .map_err(|e| e.to_string())?;
    }
    while seen.open.load(Ordering::SeqCst) < options.streams {
        if opening.elapsed() > Duration::from_secs(60) {
            return Err(format!("only {} of {} streams opened in a minute", seen.open.load(Ordering::SeqCst), options.streams));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let open_secs = opening.elapsed().as_secs_f64();
    // Let the live tail start reading before the first change.
    std::thread::sleep(Duration::from_secs(1));
    let rss_streams = server.resident_kib().unwrap_or(0);

    let mut client = Client::connect(port, &key)?;
    for i in 0..options.events {
        super::http::call(&mut client, "POST", "/v1/tags", Some(&format!("{{\"name\":\"stream {i}\"}}")))?;
        std::thread::sleep(Duration::from_millis(200));
    }
    let expected = options.streams * options.events;
    let waiting = Instant::now();
    while seen.events.load(Ordering::SeqCst) < expected {
        if waiting.elapsed() > Duration::from_secs(60) {
            return Err(format!("only {} of {expected} stream deliveries arrived", seen.events.load(Ordering::SeqCst)));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(server);
    let mut latencies = seen.latencies.lock().unwrap_or_else(|p| p.into_inner()).clone();
    latencies.sort_unstable();
    Ok(Figures {
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        max: latencies.last().copied().unwrap_or(0),
        rss_before_mib: rss_before as f64 / 1024.0,
        rss_streams_mib: rss_streams as f64 / 1024.0,
        open_secs,
    })
}

pub fn run(options: &StreamOptions) -> Result<(), String> {
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let mut table = String::from(
        "| backend | streams | opened in s | p50 ms change → every stream | p99 ms | max ms | RSS MiB before | with the streams | extra |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for backend in &options.backends {
        let f = measure(&bin, backend, options)?;
        let extra = f.rss_streams_mib - f.rss_before_mib;
        eprintln!(
            "{backend}: {} streams, {} events each: p50 {} ms, p99 {} ms, max {} ms; memory {:.1} → {:.1} MiB (+{extra:.1})",
            options.streams, options.events, f.p50, f.p99, f.max, f.rss_before_mib, f.rss_streams_mib
        );
        let _ = writeln!(
            table,
            "| {backend} | {} | {:.1} | {} | {} | {} | {:.1} | {:.1} | {extra:.1} |",
            options.streams, f.open_secs, f.p50, f.p99, f.max, f.rss_before_mib, f.rss_streams_mib
        );
    }
    let which = options.binary.as_ref().map_or_else(|| "this tree's release build".to_string(), |b| format!("`{}`", b.display()));
    let section = format!(
        "## Event streams: `cargo xtask bench stream`\n\n\
         {which}. {} `GET /v1/stream` clients held open on one process (plain HTTP/1.1 from another process, one \
         thread each), then {} tags created over the API one at a time, 200 ms apart: the latency of every (stream, event) \
         pair from the event's `created_at` to the stream reading its data line, and the server's resident memory with \
         the streams open against before they opened. The live tail is read every 250 ms, so about 125 ms of the median \
         is the wait for the next read.\n\n{table}",
        options.streams, options.events
    );
    println!("{section}");
    super::write_report("stream", &section)
}
