//! `cargo xtask bench reports`: the conversations report over months of history. Per backend,
//! `parley demo history` writes the conversations (contacts, messages both ways, assignments
//! to five members, closes) through the storage ports as the live paths write them; then
//! `parley serve` (release) answers the report over the whole range by day, member and
//! channel, timed against `/healthz` in the same run, and the two statements' plans are shown.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::http::{Client, Stats, measure};
use super::{Server, analyze, fresh_database, json_field, parley, release_binary, write_report};

pub struct ReportsOptions {
    pub backends: Vec<String>,
    pub conversations: usize,
    pub days: usize,
    pub binary: Option<PathBuf>,
}

impl ReportsOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options = Self { backends: vec!["sqlite".into()], conversations: 100_000, days: 90, binary: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            let number = |v: &str| v.parse::<usize>().map_err(|_| format!("{flag}: {v:?} is not a number"));
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--conversations" => options.conversations = number(value)?.max(1),
                "--days" => options.days = number(value)?.clamp(1, 366),
                "--binary" => options.binary = Some(PathBuf::from(value)),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }
}

/// Members the history's conversations are assigned to.
const MEMBERS: usize = 5;
/// Timed requests per endpoint, after a few untimed ones.
const WARMUP: usize = 3;
const REQUESTS: usize = 30;
/// The target: a report of the whole range in under this.
const TARGET_MS: f64 = 200.0;

struct Figures {
    backend: String,
    history_seconds: f64,
    messages: String,
    healthz: Stats,
    /// (grouping, latency) for day, member, channel, and the CSV by day.
    reports: Vec<(&'static str, Stats)>,
    plans: String,
}

pub fn run(options: &ReportsOptions) -> Result<(), String> {
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let mut figures = Vec::new();
    for backend in &options.backends {
        figures.push(measure_backend(&bin, backend, options)?);
    }
    let (n, days) = (options.conversations, options.days);
    let mut section = format!(
        "### Reports: {n} conversations over {days} days\n\n`cargo xtask bench reports`: `parley demo history` writes {n} conversations over the {days} days before now (each a new contact; messages both ways, about 5.5 a conversation; 85% assigned to one of {MEMBERS} members; 90% closed) through the storage ports, each write in its own transaction as the live paths write them; then `parley serve` (release) answers `GET /v1/reports/conversations` over the whole range, {REQUESTS} sequential requests each after {WARMUP} untimed. Target: under {TARGET_MS:.0} ms.\n\n| backend | history written (s) | messages | `/healthz` p50 (ms) | by day p50 / p99 (ms) | by member p50 / p99 (ms) | by channel p50 / p99 (ms) | CSV by day p50 (ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    for f in &figures {
        let cell = |i: usize| format!("{:.1} / {:.1}", ms(f.reports[i].1.p50), ms(f.reports[i].1.p99));
        let _ = writeln!(
            section,
            "| {} | {:.0} | {} | {:.2} | {} | {} | {} | {:.1} |",
            f.backend,
            f.history_seconds,
            f.messages,
            ms(f.healthz.p50),
            cell(0),
            cell(1),
            cell(2),
            ms(f.reports[3].1.p50)
        );
    }
    for f in &figures {
        let _ = write!(
            section,
            "\nThe statements a report runs (its counts by day and by member, its spans by day), as the {} planner takes them:\n\n```\n{}```\n",
            f.backend, f.plans
        );
    }
    print!("{section}");
    write_report("reports", &section)?;
    for f in &figures {
        if let Some((grouping, slow)) = f.reports.iter().find(|(_, s)| ms(s.p50) > TARGET_MS) {
            return Err(format!("{}: the report by {grouping} took {:.1} ms (target {TARGET_MS} ms)", f.backend, ms(slow.p50)));
        }
    }
    Ok(())
}

fn measure_backend(bin: &Path, backend: &str, options: &ReportsOptions) -> Result<Figures, String> {
    let url = fresh_database(backend)?;
    parley(bin, &url, &["migrate"])?;
    let agent = json_field(&parley(bin, &url, &["agents", "create", "--name", "Reports bench"])?.0, "id")?;
    for m in 0..MEMBERS {
        let email = format!("member{m}@bench.example");
        parley(bin, &url, &["members", "add", "--agent", &agent, "--email", &email, "--name", &format!("Member {m}"), "--role", "member"])?;
    }
    eprintln!("{backend}: writing {} conversations over {} days…", options.conversations, options.days);
    let (conversations, days) = (options.conversations.to_string(), options.days.to_string());
    let (written, took) = parley(bin, &url, &["demo", "history", "--agent", &agent, "--conversations", &conversations, "--days", &days])?;
    let messages =
        written.split("\"messages\":").nth(1).and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next()).unwrap_or("?").to_string();
    analyze(bin, &url)?;
    let key = json_field(&parley(bin, &url, &["keys", "create", "--agent", &agent])?.0, "key")?;
    let port = super::free_port()?;
    let _server = Server::start_with(bin, &url, port, &[("PARLEY_EMBEDDER", "static")])?;
    let mut client = Client::connect(port, &key)?;
    let (from, to) = (utc_date(options.days - 1)?, utc_date(0)?);
    let range = format!("/v1/reports/conversations?from={from}&to={to}");
    let healthz = measure(&mut client, "/healthz", WARMUP, REQUESTS)?;
    let mut reports = Vec::new();
    for grouping in ["day", "member", "channel"] {
        eprintln!("{backend}: the report by {grouping}…");
        reports.push((grouping, measure(&mut client, &format!("{range}&group_by={grouping}"), WARMUP, REQUESTS)?));
    }
    let mut csv = Client::connect(port, &key)?;
    reports.push(("day, as CSV", measure_csv(&mut csv, &range)?));
    let plans = plans(backend, &url, &agent)?;
    Ok(Figures { backend: backend.into(), history_seconds: took.as_secs_f64(), messages, healthz, reports, plans })
}

/// Times the CSV of `path`.
fn measure_csv(client: &mut Client, path: &str) -> Result<Stats, String> {
    let mut times = Vec::new();
    for n in 0..WARMUP + REQUESTS {
        let started = std::time::Instant::now();
        let (status, body) = client.send_with("GET", path, "Accept: text/csv\r\n", None)?;
        if status != 200 || !body.starts_with(b"day,") {
            return Err(format!("the CSV report answered {status}: {}", String::from_utf8_lossy(&body)));
        }
        if n >= WARMUP {
            times.push(started.elapsed());
        }
    }
    times.sort();
    Ok(Stats { p50: times[times.len() / 2], p99: times[(times.len() * 99 / 100).min(times.len() - 1)] })
}

/// The UTC date `days_ago` days before today, by the system's `date`.
fn utc_date(days_ago: usize) -> Result<String, String> {
    let out = Command::new("date").args(["-u", "-d", &format!("{days_ago} days ago"), "+%F"]).output().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The plans of the report's statements (as `repos/reports.rs` writes them: the counts by day
/// and by member, the spans by day) over the whole table, from the backend's own client.
fn plans(backend: &str, url: &str, agent: &str) -> Result<String, String> {
    let range = |column: &str| format!("agent_id = '{agent}' AND {column} >= 0 AND {column} < 9999999999999");
    let sums = "SUM(opened), SUM(closed), SUM(messages_in), SUM(messages_out)";
    let counts = format!("SELECT slot, {sums} FROM report_counts WHERE {} GROUP BY slot", range("slot"));
    let by_member = format!("SELECT member, {sums} FROM report_counts WHERE {} GROUP BY member", range("slot"));
    let spans = format!("SELECT kind = 'resolution', started_at, ended_at FROM report_spans WHERE {}", range("ended_at"));
    let mut shown = String::new();
    for sql in [counts, by_member, spans] {
        let out = match backend {
            "sqlite" => Command::new("sqlite3").arg(url.trim_start_matches("sqlite://")).arg(format!("EXPLAIN QUERY PLAN {sql}")).output(),
            _ => Command::new("psql").args([url, "-qAtc", &format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) {sql}")]).output(),
        }
        .map_err(|e| format!("the plan of {sql}: {e}"))?;
        let _ = writeln!(shown, "{sql}\n{}", String::from_utf8_lossy(&out.stdout).trim_end());
    }
    Ok(shown)
}
