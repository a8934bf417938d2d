//! `cargo xtask bench mail`: an email line's first IMAP sync through the release binary. Per
//! backend: a mailbox of 10,000 messages (each from its own sender, about 1.5 KiB, a few with an
//! attachment) in the test dovecot `.ci/mail-servers` starts, then `parley serve` with the line:
//! the time from the server listening until every message is a stored conversation (the API's
//! activity total), messages per second, and the server's resident memory before and at its
//! peak during the sync (bounded by the reader's batches, not by the mailbox).

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::http::Client;
use super::{Server, fresh_database, json_field, parley, release_binary, write_report};

pub struct MailOptions {
    pub backends: Vec<String>,
    pub messages: usize,
    pub binary: Option<PathBuf>,
}

impl MailOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options = Self { backends: vec!["sqlite".into(), "postgres".into()], messages: 10_000, binary: None };
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

const IMAP_PORT: u16 = 10143;
/// The sync must end within this, or the bench reports it did not.
const GIVE_UP: Duration = Duration::from_secs(600);

struct Figures {
    backend: String,
    seconds: f64,
    rss_start_kib: u64,
    rss_peak_kib: u64,
}

pub fn run(options: &MailOptions) -> Result<(), String> {
    if std::net::TcpStream::connect(("127.0.0.1", IMAP_PORT)).is_err() {
        return Err(format!("no IMAP server on 127.0.0.1:{IMAP_PORT}: start the test mail servers with .ci/mail-servers"));
    }
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let mut figures = Vec::new();
    for backend in &options.backends {
        figures.push(sync_once(&bin, backend, options.messages)?);
    }
    let mut section = format!(
        "### Email: the first IMAP sync of a {} message mailbox\n\n`cargo xtask bench mail`: each message from its own sender (about 1.5 KiB, one in fifty with a 20 KiB attachment), read from the test dovecot by `parley serve` (release) through the one inbound path. Time from the server listening until every message is a stored conversation; resident memory when it started and at its peak during the sync.\n\n| backend | seconds | messages/s | RSS at start | peak RSS |\n|---|---:|---:|---:|---:|\n",
        options.messages
    );
    for f in &figures {
        let _ = writeln!(
            section,
            "| {} | {:.1} | {:.0} | {} MiB | {} MiB |",
            f.backend,
            f.seconds,
            options.messages as f64 / f.seconds,
            f.rss_start_kib / 1024,
            f.rss_peak_kib / 1024
        );
    }
    section.push_str("\nTarget: under 60 s on this machine, memory bounded.\n\n");
    print!("{section}");
    write_report("mail", &section)
}

/// A maildir of its own in the test dovecot, filled with `count` messages; returns the user.
fn fill_mailbox(count: usize) -> Result<String, String> {
    let user = format!("bench-{}-{}", std::process::id(), Instant::now().elapsed().as_nanos() ^ u128::from(rand_seed()));
    let root: PathBuf = std::env::var("PARLEY_TEST_MAILDIR").unwrap_or_else(|_| "/tmp/parley-mail/mail".into()).into();
    let home = root.join(&user);
    let dir = home.join("Maildir");
    for d in [home.clone(), dir.clone(), dir.join("cur"), dir.join("new"), dir.join("tmp")] {
        std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).map_err(|e| e.to_string())?;
    }
    let paragraph = "Hello! I saw the catalog and I would like to know whether the blue ceramic mug is back in stock, and how long delivery takes to Lisbon. ".repeat(8);
    let attachment = "QUJDRA==".repeat(20 * 1024 / 8);
    for n in 0..count {
        let head = format!(
            "From: Customer {n} <customer{n}@example.com>\r\nTo: bench@parley.test\r\nSubject: Question {n}\r\nMessage-ID: <q{n}.bench@example.com>\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        );
        let raw = if n % 50 == 0 {
            format!(
                "{head}Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{paragraph}\r\n--b\r\nContent-Type: image/png\r\nContent-Disposition: attachment; filename=photo{n}.png\r\nContent-Transfer-Encoding: base64\r\n\r\n{attachment}\r\n--b--\r\n"
            )
        } else {
            format!("{head}Content-Type: text/plain; charset=utf-8\r\n\r\n{paragraph}\r\n")
        };
        let name = format!("{n}.M{n}P{}.bench", std::process::id());
        std::fs::write(dir.join("tmp").join(&name), raw).map_err(|e| e.to_string())?;
        std::fs::rename(dir.join("tmp").join(&name), dir.join("new").join(&name)).map_err(|e| e.to_string())?;
    }
    Ok(user)
}

fn rand_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

fn sync_once(bin: &std::path::Path, backend: &str, count: usize) -> Result<Figures, String> {
    eprintln!("{backend}: filling a mailbox with {count} messages…");
    let user = fill_mailbox(count)?;
    let url = fresh_database(backend)?;
    parley(bin, &url, &["migrate"])?;
    let agent = json_field(&parley(bin, &url, &["agents", "create", "--name", "Mail bench"])?.0, "id")?;
    let key = json_field(&parley(bin, &url, &["keys", "create", "--agent", &agent])?.0, "key")?;
    let add = super::command(bin, &url)
        .args(["channels", "add", "--agent", &agent, "--type", "email", "--address", "bench@parley.test"])
        .args(["--smtp-url", "smtp://127.0.0.1:10025", "--imap-url", &format!("imap://127.0.0.1:{IMAP_PORT}"), "--username", &user])
        .args(["--password-env", "BENCH_MAIL_PASSWORD"])
        .env("BENCH_MAIL_PASSWORD", "secret")
        .output()
        .map_err(|e| e.to_string())?;
    if !add.status.success() {
        return Err(format!("channels add: {}", String::from_utf8_lossy(&add.stderr)));
    }
    let port = super::free_port()?;
    let server = Server::start_with(bin, &url, port, &[("PARLEY_MAIL_POLL_SECS", "1"), ("PARLEY_EMBEDDER", "static")])?;
    let started = Instant::now();
    let rss_start_kib = server.resident_kib().unwrap_or(0);
    let mut rss_peak_kib = rss_start_kib;
    let mut client = Client::connect(port, &key)?;
    loop {
        rss_peak_kib = rss_peak_kib.max(server.resident_kib().unwrap_or(0));
        let (status, body) = client.get("/v1/activities?limit=1")?;
        let body = String::from_utf8_lossy(&body);
        let total = body.split("\"total\":").nth(1).and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok());
        if status == 200 && total == Some(count) {
            break;
        }
        if started.elapsed() > GIVE_UP {
            return Err(format!("{backend}: the sync did not finish in {} s ({total:?} of {count})", GIVE_UP.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("{backend}: {count} messages in {seconds:.1} s, peak RSS {} MiB", rss_peak_kib / 1024);
    drop(server);
    Ok(Figures { backend: backend.to_string(), seconds, rss_start_kib, rss_peak_kib })
}
