//! `cargo xtask bench scheduled`: a burst of scheduled messages at one line's pace. Per backend,
//! `parley serve` (release) with a WhatsApp line whose Graph API is a fake in this process:
//! 10,000 template sends scheduled over the API for the same instant, then the time from that
//! instant until the fake has taken every one, against the paced budget (count ÷ 80 a second,
//! plus 10%), and how many reached it more than once (none may).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::http::Client;
use super::{Server, fresh_database, json_field, parley, release_binary, write_report};

pub struct ScheduledOptions {
    pub backends: Vec<String>,
    pub messages: usize,
    pub binary: Option<PathBuf>,
}

impl ScheduledOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options = Self { backends: vec!["sqlite".into()], messages: 10_000, binary: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--messages" => {
                    options.messages = value.parse::<usize>().map_err(|_| format!("--messages: {value:?} is not a number"))?.max(1)
                }
                "--binary" => options.binary = Some(PathBuf::from(value)),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }
}

/// The line's pace: WhatsApp's default throughput per number, Parley's default pace.
const PACE: f64 = 80.0;
const TEMPLATE_ID: &str = "777001";
const PHONE_NUMBER_ID: &str = "106540352200001";
/// Clients scheduling the burst at once.
const SCHEDULERS: usize = 4;

struct Figures {
    backend: String,
    scheduling_seconds: f64,
    first_after: f64,
    last_after: f64,
    received: usize,
    twice: usize,
}

pub fn run(options: &ScheduledOptions) -> Result<(), String> {
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let mut figures = Vec::new();
    for backend in &options.backends {
        figures.push(burst(&bin, backend, options.messages)?);
    }
    let n = options.messages;
    let budget = n as f64 / PACE * 1.1;
    let mut section = format!(
        "### Scheduled messages: {n} due at the same instant, at one line's pace\n\n`cargo xtask bench scheduled`: {n} template sends to {n} recipients scheduled over the API for one instant, sent by `parley serve` (release) through one WhatsApp line at its default pace (80 a second) to a fake Graph API in the bench, which answers at once and records each send. Times from the instant the messages were due. Target: every one sent within {n} ÷ 80 s + 10% = {budget:.1} s, none twice.\n\n| backend | scheduling (s) | first sent after (s) | last sent after (s) | messages/s | received | sent twice |\n|---|---:|---:|---:|---:|---:|---:|\n"
    );
    for f in &figures {
        let _ = writeln!(
            section,
            "| {} | {:.1} | {:.2} | {:.1} | {:.1} | {} | {} |",
            f.backend,
            f.scheduling_seconds,
            f.first_after,
            f.last_after,
            f.received as f64 / f.last_after,
            f.received,
            f.twice
        );
    }
    section.push('\n');
    print!("{section}");
    write_report("scheduled", &section)?;
    for f in &figures {
        if f.received != n || f.twice > 0 || f.last_after > budget {
            return Err(format!(
                "{}: {} of {n} sent, {} twice, the last after {:.1} s (budget {budget:.1} s)",
                f.backend, f.received, f.twice, f.last_after
            ));
        }
    }
    Ok(())
}

/// RFC 3339 (UTC, milliseconds) of `at`, by the system's `date`.
fn rfc3339(at: SystemTime) -> Result<String, String> {
    let since = at.duration_since(UNIX_EPOCH).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{}", since.as_secs()), "+%Y-%m-%dT%H:%M:%S"])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(format!("{}.{:03}Z", String::from_utf8_lossy(&out.stdout).trim(), since.subsec_millis()))
}

fn burst(bin: &std::path::Path, backend: &str, count: usize) -> Result<Figures, String> {
    let graph = FakeGraph::start()?;
    let base = format!("http://127.0.0.1:{}", graph.port);
    let url = fresh_database(backend)?;
    parley(bin, &url, &["migrate"])?;
    let agent = json_field(&parley(bin, &url, &["agents", "create", "--name", "Scheduled bench"])?.0, "id")?;
    let key = json_field(&parley(bin, &url, &["keys", "create", "--agent", &agent])?.0, "key")?;
    let add = super::command(bin, &url)
        .args(["channels", "add", "--agent", &agent, "--phone-number-id", PHONE_NUMBER_ID, "--waba-id", "102290129300001"])
        .args(["--access-token-env", "BENCH_TOKEN"])
        .env("BENCH_TOKEN", "EAAG-bench")
        .env("PARLEY_WHATSAPP_API_BASE", &base)
        .output()
        .map_err(|e| e.to_string())?;
    if !add.status.success() {
        return Err(format!("channels add: {}", String::from_utf8_lossy(&add.stderr)));
    }
    let port = super::free_port()?;
    let _server = Server::start_with(bin, &url, port, &[("PARLEY_WHATSAPP_API_BASE", &base), ("PARLEY_EMBEDDER", "static")])?;

    // Due a while after scheduling starts, so all of them wait before any is due.
    let lead = Duration::from_secs(30 + (count as u64) / 125);
    let due_wall = SystemTime::now() + lead;
    let due = Instant::now() + lead;
    let send_at = rfc3339(due_wall)?;
    eprintln!("{backend}: scheduling {count} messages for {send_at}…");
    let scheduling = Instant::now();
    let scheduled: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..SCHEDULERS)
            .map(|w| {
                let (key, send_at) = (&key, &send_at);
                scope.spawn(move || -> Result<(), String> {
                    let mut client = Client::connect(port, key)?;
                    for n in (w..count).step_by(SCHEDULERS) {
                        let body = format!(r#"{{"to": "1555{n:07}", "send_at": "{send_at}"}}"#);
                        let (status, answer) = client.send("POST", &format!("/v1/templates/{TEMPLATE_ID}/send"), Some(&body))?;
                        if status != 201 {
                            return Err(format!("scheduling answered {status}: {}", String::from_utf8_lossy(&answer)));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|_| Err("a scheduler panicked".into()))).collect()
    });
    scheduled.into_iter().collect::<Result<Vec<()>, String>>()?;
    let scheduling_seconds = scheduling.elapsed().as_secs_f64();
    if Instant::now() >= due {
        return Err(format!("scheduling took {scheduling_seconds:.1} s, past the messages' time: give it a longer lead"));
    }
    eprintln!("{backend}: scheduled in {scheduling_seconds:.1} s; waiting for the sends…");
    let give_up = due + Duration::from_secs_f64(count as f64 / PACE * 3.0 + 60.0);
    while graph.received() < count && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(200));
    }
    // A moment more, for any send that would go out twice.
    std::thread::sleep(Duration::from_secs(3));
    let sends = graph.sends.lock().map_err(|_| "poisoned")?.clone();
    let mut per_recipient: HashMap<&str, usize> = HashMap::new();
    for (to, _) in &sends {
        *per_recipient.entry(to.as_str()).or_default() += 1;
    }
    let after = |at: Instant| at.checked_duration_since(due).map_or_else(|| -(due.duration_since(at).as_secs_f64()), |d| d.as_secs_f64());
    let first_after = sends.iter().map(|(_, at)| after(*at)).fold(f64::INFINITY, f64::min);
    let last_after = sends.iter().map(|(_, at)| after(*at)).fold(f64::NEG_INFINITY, f64::max);
    Ok(Figures {
        backend: backend.into(),
        scheduling_seconds,
        first_after,
        last_after,
        received: per_recipient.len(),
        twice: per_recipient.values().filter(|n| **n > 1).count(),
    })
}

/// A fake Graph API: lists one approved template, accepts every send at once and records its
/// recipient and when it came. One thread per connection (the server keeps a few alive).
struct FakeGraph {
    port: u16,
    sends: Arc<Mutex<Vec<(String, Instant)>>>,
}

impl FakeGraph {
    fn start() -> Result<Self, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let sends: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
        let recorded = sends.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let recorded = recorded.clone();
                std::thread::spawn(move || serve_connection(stream, &recorded));
            }
        });
        Ok(Self { port, sends })
    }

    fn received(&self) -> usize {
        self.sends.lock().map_or(0, |s| s.len())
    }
}

fn serve_connection(stream: TcpStream, sends: &Mutex<Vec<(String, Instant)>>) {
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let answer = if request_line.starts_with("GET") {
            format!(
                r#"{{"data": [{{"id": "{TEMPLATE_ID}", "name": "order_shipped", "language": "en_US", "status": "APPROVED", "category": "UTILITY", "components": [{{"type": "BODY", "text": "Your order is on its way."}}]}}], "paging": {{}}}}"#
            )
        } else {
            let body = String::from_utf8_lossy(&body);
            let to = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v["to"].as_str().map(str::to_string))
                .unwrap_or_default();
            let n = {
                let mut sends = sends.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                sends.push((to.clone(), Instant::now()));
                sends.len()
            };
            format!(
                r#"{{"messaging_product": "whatsapp", "contacts": [{{"input": "{to}", "wa_id": "{to}"}}], "messages": [{{"id": "wamid.bench{n}"}}]}}"#
            )
        };
        let response = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}", answer.len());
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}
