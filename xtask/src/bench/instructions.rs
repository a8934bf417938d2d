//! `cargo xtask bench instructions`: what each endpoint of `bench api` costs the server, in
//! instructions a request, counted by valgrind's callgrind over a fixed number of sequential
//! requests on the seeded database of `bench api`.
//!
//! Unlike time, the count is the same run after run for one binary and one database, whatever
//! else the machine does, so two builds compare exactly on a machine whose speed drifts by more
//! than most changes are worth. It counts user space only: the kernel's share (sending a large
//! response, waking a thread) is not in it, which is why `bench api` measures throughput.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::api::{ApiOptions, SERVER_ENV, catalog_file, loads, prepare};
use super::http::Client;
use super::wrk::Load;
use super::{Server, free_port, scratch, write_report};

/// Requests sent before counting starts: caches and the statement cache warm.
const WARMUP: usize = 30;
/// How long a dump may take to appear.
const DUMP_TIMEOUT: Duration = Duration::from_secs(120);

pub fn run(options: &ApiOptions) -> Result<(), String> {
    for tool in ["valgrind", "callgrind_control"] {
        Command::new(tool).arg("--version").output().map_err(|_| format!("{tool} is not installed: `apt-get install valgrind`"))?;
    }
    let bin = options.binary()?;
    let catalog = catalog_file(options)?;
    let mut table = String::from("| backend | endpoint | instructions a request | ÷ `/healthz` |\n|---|---|---:|---:|\n");
    for backend in &options.backends {
        let (url, key, seeded) = prepare(&bin, backend, &catalog, options.contacts)?;
        let out = scratch()?.join("callgrind.out");
        remove_dumps(&out)?;
        let wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", &format!("--callgrind-out-file={}", out.display())];
        let port = free_port()?;
        eprintln!("{backend}: starting the server under callgrind (slow)…");
        // One worker: every request on one thread, as in a profile.
        let server = Server::start_wrapped(&wrapper, &bin, &url, port, &SERVER_ENV, &["--workers", "1"])?;
        let pid = server.pid().to_string();
        let mut client = Client::connect(port, &key)?;
        let mut ceiling = None;
        let measured = loads(&seeded).into_iter().enumerate().filter(|(i, (name, _))| *i == 0 || options.wanted(name)).map(|(_, l)| l);
        for (dump, (name, load)) in measured.enumerate() {
            drive(&mut client, &load, WARMUP)?;
            control(&["-i", "on", &pid])?;
            drive(&mut client, &load, options.requests)?;
            control(&["-i", "off", &pid])?;
            control(&["-d", &pid])?;
            let total = dumped_total(&out, dump + 1)?;
            let per_request = total as f64 / options.requests as f64;
            let ceiling = *ceiling.get_or_insert(per_request);
            eprintln!("{backend}: {name}: {per_request:.0} instructions a request");
            table.push_str(&format!("| {backend} | {name} | {per_request:.0} | {:.1} |\n", per_request / ceiling));
        }
        drop(server);
    }
    let section = format!(
        "## Instructions a request: `cargo xtask bench instructions`\n\n\
         The seeded database of `bench api` ({} products, {} contacts and activities), release build, one worker thread run by valgrind's callgrind: \
         {WARMUP} requests to warm up, then {} sequential requests counted per endpoint (user space only; the kernel's work is not counted). \
         The count repeats exactly for one binary and database, so it compares builds on a noisy machine; the last column is in `GET /healthz` requests.\n\n{table}\n",
        options.products, options.contacts, options.requests
    );
    println!("{section}");
    if !options.reported() {
        return Ok(());
    }
    write_report("instructions", &section)
}

/// Sends `count` requests of the load, its paths and bodies in turn; anything but 2xx fails.
fn drive(client: &mut Client, load: &Load, count: usize) -> Result<(), String> {
    for i in 0..count {
        let (method, path, body) = load.request(i);
        let (status, answer) = client.send(method, path, body)?;
        if !(200..300).contains(&status) {
            return Err(format!("{method} {path} answered {status}: {}", String::from_utf8_lossy(&answer)));
        }
    }
    Ok(())
}

/// Runs `callgrind_control` with `args`.
fn control(args: &[&str]) -> Result<(), String> {
    let out = Command::new("callgrind_control").args(args).output().map_err(|e| format!("callgrind_control: {e}"))?;
    if !out.status.success() {
        return Err(format!("callgrind_control {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

/// The instruction total of dump number `n` (callgrind writes it to `<out>.<n>`), once written.
fn dumped_total(out: &Path, n: usize) -> Result<u64, String> {
    let file = format!("{}.{n}", out.display());
    let started = Instant::now();
    loop {
        // A dump heads its events with `summary:` (zero when counting was toggled on later) and
        // ends with `totals:`, the count since the last dump; it is complete once that is there.
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Some(total) = text.lines().find_map(|l| l.strip_prefix("totals:"))
        {
            return total.trim().parse().map_err(|_| format!("{file}: bad total {total:?}"));
        }
        if started.elapsed() > DUMP_TIMEOUT {
            return Err(format!("callgrind wrote no dump to {file}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Removes the dumps of an earlier run.
fn remove_dumps(out: &Path) -> Result<(), String> {
    let (dir, name) = (out.parent().ok_or("no scratch folder")?, out.file_name().ok_or("no file name")?.to_string_lossy().into_owned());
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&name) {
            std::fs::remove_file(entry.path()).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
