//! `cargo xtask bench …`: benchmarks of the release binary, reported as ratios against a
//! baseline measured in the same run. Benchmarks, not tests: they assert nothing about time.

mod api;
mod bm25;
mod catalog;
pub(crate) mod devset;
mod events;
mod generate;
mod http;
mod inbound;
mod index;
mod instructions;
mod json;
pub(crate) mod labeled;
mod mail;
mod metrics;
mod reports;
mod scheduled;
mod search;
mod stream;
mod writes;
mod wrk;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{cargo, root};

pub(crate) const USAGE: &str = "usage: cargo xtask bench catalog [--sizes 10000,100000] [--backends sqlite,postgres]
       cargo xtask bench search [--embedders static,minilm] [--sizes 10000,100000] [--backends sqlite] [--million]
       cargo xtask bench index [--sizes 100000,1000000]
       cargo xtask bench api [--backends sqlite,postgres] [--products 100000] [--contacts 10000] [--connections 16] [--seconds 5] [--deliveries 5000] [--only \"get activity,search\"] [--binary PATH]
       cargo xtask bench instructions [--backends sqlite] [--products 100000] [--contacts 10000] [--requests 200] [--only \"get activity\"] [--binary PATH]
       cargo xtask bench writes [--backends sqlite,postgres] [--connections 64] [--seconds 10] [--activities 200] [--binary PATH]
       cargo xtask bench events [--backends sqlite,postgres] [--changes 10000] [--seconds 5] [--binary PATH]
       cargo xtask bench mail [--backends sqlite,postgres] [--messages 10000] [--binary PATH]
       cargo xtask bench stream [--backends sqlite,postgres] [--streams 1000] [--events 20] [--binary PATH]
       cargo xtask bench scheduled [--backends sqlite] [--messages 10000] [--binary PATH]
       cargo xtask bench reports [--backends sqlite] [--conversations 100000] [--days 90] [--binary PATH]";

pub fn run(args: &[&str]) -> Result<(), String> {
    match args {
        ["catalog", rest @ ..] => catalog::run(&Options::parse("catalog", rest)?),
        ["search", rest @ ..] => search::run(&Options::parse("search", rest)?),
        ["api", rest @ ..] => api::run(&api::ApiOptions::parse(rest)?),
        ["instructions", rest @ ..] => instructions::run(&api::ApiOptions::parse_instructions(rest)?),
        ["writes", rest @ ..] => writes::run(&writes::WritesOptions::parse(rest)?),
        ["events", rest @ ..] => events::run(&events::EventsOptions::parse(rest)?),
        ["mail", rest @ ..] => mail::run(&mail::MailOptions::parse(rest)?),
        ["stream", rest @ ..] => stream::run(&stream::StreamOptions::parse(rest)?),
        ["scheduled", rest @ ..] => scheduled::run(&scheduled::ScheduledOptions::parse(rest)?),
        ["reports", rest @ ..] => reports::run(&reports::ReportsOptions::parse(rest)?),
        ["index"] => index::run(&[100_000, 1_000_000]),
        ["index", "--sizes", sizes] => {
            index::run(&sizes.split(',').map(|s| s.parse().map_err(|_| format!("bad size {s:?}"))).collect::<Result<Vec<usize>, _>>()?)
        }
        _ => Err(USAGE.into()),
    }
}

pub struct Options {
    pub sizes: Vec<usize>,
    pub backends: Vec<String>,
    /// Search only: the embedders whose quality is measured.
    pub embedders: Vec<String>,
    /// Search only: one latency measurement at 1,000,000 products, reported on its own.
    pub million: bool,
}

impl Options {
    fn parse(task: &str, args: &[&str]) -> Result<Self, String> {
        let search = task == "search";
        let mut options = Self {
            sizes: vec![10_000, 100_000],
            backends: if search { vec!["sqlite".into()] } else { vec!["sqlite".into(), "postgres".into()] },
            embedders: if search { vec!["static".into(), "minilm".into()] } else { Vec::new() },
            million: false,
        };
        let list = |value: &str| value.split(',').map(str::to_string).collect();
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            match *flag {
                "--million" if search => {
                    options.million = true;
                    options.sizes = vec![1_000_000];
                    continue;
                }
                "--sizes" | "--backends" => {}
                "--embedders" if search => {}
                other => return Err(format!("unknown option {other} for bench {task}\n{USAGE}")),
            }
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
            match *flag {
                "--sizes" => {
                    options.sizes = value.split(',').map(|s| s.parse().map_err(|_| format!("bad size {s:?}"))).collect::<Result<_, _>>()?
                }
                "--backends" => options.backends = list(value),
                _ => options.embedders = list(value),
            }
        }
        Ok(options)
    }
}

/// Builds and returns the release `parley` binary.
pub fn release_binary() -> Result<PathBuf, String> {
    eprintln!("building the release binary…");
    let status = cargo().args(["build", "--release", "--quiet", "--package", "parley-api"]).status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cargo build --release failed".into());
    }
    // Cargo builds under CARGO_TARGET_DIR when it is set (a target directory shared between
    // worktrees); run a copy in this worktree's scratch so another build cannot swap it mid-run.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), |dir| root().join(dir));
    let copy = scratch()?.join("parley");
    // Unlink first: overwriting a binary that a leftover process still runs fails.
    let _ = std::fs::remove_file(&copy);
    std::fs::copy(target.join("release/parley"), &copy).map_err(|e| format!("copying the release binary: {e}"))?;
    Ok(copy)
}

/// Scratch space for generated files and databases.
pub fn scratch() -> Result<PathBuf, String> {
    let dir = root().join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// A fresh, empty database of the backend; returns its URL.
pub fn fresh_database(backend: &str) -> Result<String, String> {
    match backend {
        "sqlite" => {
            let path = scratch()?.join("bench.db");
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            Ok(format!("sqlite://{}", path.display()))
        }
        "postgres" => {
            for sql in ["DROP DATABASE IF EXISTS parley_bench", "CREATE DATABASE parley_bench"] {
                let out = Command::new("psql")
                    .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-qc", sql])
                    .output()
                    .map_err(|e| format!("psql: {e}"))?;
                if !out.status.success() {
                    return Err(format!("{sql}: {}", String::from_utf8_lossy(&out.stderr)));
                }
            }
            Ok("postgres://postgres@127.0.0.1:5432/parley_bench".into())
        }
        other => Err(format!("unknown backend {other}")),
    }
}

/// `parley analyze`: the planner's statistics of what a bench seeded through the API, as a live
/// server soon has them (PostgreSQL's autovacuum; SQLite's `PRAGMA optimize`, which `parley`
/// runs hourly while serving and after every command).
pub fn analyze(bin: &Path, url: &str) -> Result<(), String> {
    parley(bin, url, &["analyze"]).map(|_| ())
}

/// `parley` against `url`, logging only warnings, as every benchmark runs it.
pub(crate) fn command(bin: &Path, url: &str) -> Command {
    let mut command = Command::new(bin);
    command.env("DATABASE_URL", url).env("PARLEY_LOG", "warn");
    command
}

/// Runs a `parley` command against `url`; returns its standard output and wall time.
pub fn parley(bin: &Path, url: &str, args: &[&str]) -> Result<(String, Duration), String> {
    let started = Instant::now();
    let out = command(bin, url).args(args).output().map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    if !out.status.success() {
        return Err(format!("parley {args:?} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), elapsed))
}

/// The value of `"field":"…"` in a line of JSON printed by the CLI.
pub fn json_field(json: &str, field: &str) -> Result<String, String> {
    let marker = format!("\"{field}\":\"");
    let start = json.find(&marker).ok_or_else(|| format!("no {field} in {json}"))? + marker.len();
    Ok(json[start..start + json[start..].find('"').ok_or("unterminated string")?].to_string())
}

/// Runs a long `parley` command (an import) with extra environment, its progress on standard
/// error shown as it goes; returns its wall time.
pub fn parley_shown(bin: &Path, url: &str, env: &[(&str, &str)], args: &[&str]) -> Result<Duration, String> {
    let started = Instant::now();
    let status = command(bin, url).args(args).envs(env.iter().copied()).status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("parley {args:?} failed (its error is above)"));
    }
    Ok(started.elapsed())
}

/// A running `parley serve`, stopped on drop.
pub struct Server {
    child: Child,
    started: Instant,
    /// From spawning the process until its port accepted a connection.
    pub listening_after: Duration,
}

/// How long start-up may take: loading a million vectors takes minutes. A server that exits
/// early is reported at once, so the long wait only costs time when it hangs.
const START_TIMEOUT: Duration = Duration::from_secs(15 * 60);

impl Server {
    pub fn start(bin: &Path, url: &str, port: u16) -> Result<Self, String> {
        Self::start_with(bin, url, port, &[])
    }

    /// Starts the server with extra environment (the embedder). Rate limits are always off:
    /// a benchmark measures the server, not the limiter.
    pub fn start_with(bin: &Path, url: &str, port: u16, env: &[(&str, &str)]) -> Result<Self, String> {
        Self::spawn(command(bin, url), port, env, &[])
    }

    /// Like [`start_with`](Self::start_with) with `parley` run by another program (`wrapper`,
    /// then its arguments; valgrind), and extra arguments after `serve`.
    pub fn start_wrapped(wrapper: &[&str], bin: &Path, url: &str, port: u16, env: &[(&str, &str)], serve: &[&str]) -> Result<Self, String> {
        let (program, args) = wrapper.split_first().ok_or("no wrapper program")?;
        let mut wrapped = Command::new(program);
        wrapped.args(args).arg(bin).env("DATABASE_URL", url).env("PARLEY_LOG", "warn");
        Self::spawn(wrapped, port, env, serve)
    }

    fn spawn(mut command: Command, port: u16, env: &[(&str, &str)], serve: &[&str]) -> Result<Self, String> {
        let started = Instant::now();
        let child = command
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args(serve)
            .env("PARLEY_RATE_LIMIT_PER_MINUTE", "0")
            .env("PARLEY_SEARCH_RATE_LIMIT_PER_MINUTE", "0")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let mut server = Self { child, started, listening_after: Duration::ZERO };
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            server.check_running()?;
            if started.elapsed() > START_TIMEOUT {
                return Err("the server never listened".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        server.listening_after = started.elapsed();
        Ok(server)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Time since the process was spawned.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// An error if the process has exited.
    pub fn check_running(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(format!("the server exited ({status}); its error is above")),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Resident memory of the server process in KiB (`VmRSS` of `/proc/<pid>/status`; Linux).
    pub fn resident_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> Result<u16, String> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?.local_addr().map_err(|e| e.to_string())?.port())
}

/// Replaces the part of `docs/performance.md` between this benchmark's markers.
pub fn write_report(name: &str, section: &str) -> Result<(), String> {
    let fresh = "# Performance\n\nFigures from `cargo xtask bench …`, each run on the 2-core machine CI uses. Ratios compare against a baseline measured in the same run, so they travel between machines better than raw times.\n";
    write_marked("docs/performance.md", fresh, name, section)
}

/// Replaces the part of the document at `path` (from the workspace root) between the markers
/// `<!-- bench:{name}:start -->` and `…:end -->`, appending them when missing; a missing
/// document starts as `fresh`.
pub fn write_marked(path: &str, fresh: &str, name: &str, section: &str) -> Result<(), String> {
    let file = root().join(path);
    let existing = std::fs::read_to_string(&file).unwrap_or_else(|_| fresh.into());
    let (start, end) = (format!("<!-- bench:{name}:start -->"), format!("<!-- bench:{name}:end -->"));
    let block = format!("{start}\n{section}{end}");
    let updated = match (existing.find(&start), existing.find(&end)) {
        (Some(s), Some(e)) => format!("{}{block}{}", &existing[..s], &existing[e + end.len()..]),
        _ => format!("{}\n{block}\n", existing.trim_end()),
    };
    std::fs::write(&file, updated).map_err(|e| e.to_string())?;
    eprintln!("wrote {path}");
    Ok(())
}
