//! The real `parley` binary as a child process, for tests that need the whole program:
//! its banner, its command line, crashes and restarts.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A free port on the loopback interface.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running `parley serve`, killed when dropped.
pub struct ParleyServer {
    child: Child,
    pub port: u16,
    /// What the server printed, up to and including the line `start` waited for.
    pub banner: Vec<String>,
    /// Every line the server logged (stderr) so far; each is also passed on to the test's stderr.
    pub logs: Arc<Mutex<Vec<String>>>,
}

impl ParleyServer {
    /// Serves the SQLite database `db` on `port` with extra environment `env`; returns once the
    /// banner printed a line matching `until` and the port accepts connections.
    pub fn start(db: &Path, port: u16, env: &[(&str, &str)], until: impl Fn(&str) -> bool) -> Self {
        Self::start_on(&format!("sqlite://{}", db.display()), port, env, until)
    }

    /// Like [`start`](Self::start) on any database URL (a PostgreSQL test schema, say).
    pub fn start_on(database_url: &str, port: u16, env: &[(&str, &str)], until: impl Fn(&str) -> bool) -> Self {
        Self::start_with(database_url, port, &[], env, until)
    }

    /// Like [`start_on`](Self::start_on) with more arguments to `serve` (`--demo`, say).
    pub fn start_with(database_url: &str, port: u16, args: &[&str], env: &[(&str, &str)], until: impl Fn(&str) -> bool) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parley"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args(args)
            .env("DATABASE_URL", database_url)
            .env("PARLEY_LOG", "warn")
            // Limits off unless a test turns them on (as `TestApp` does): polling tests would
            // otherwise trip them. tests/rate_limits.rs sets its own.
            .env("PARLEY_RATE_LIMIT_PER_MINUTE", "0")
            .env("PARLEY_SEARCH_RATE_LIMIT_PER_MINUTE", "0")
            .env("PARLEY_BAD_KEY_RATE_LIMIT_PER_MINUTE", "0")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the parley binary starts");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let sink = logs.clone();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                eprintln!("{line}");
                sink.lock().unwrap().push(line);
            }
        });
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut banner = Vec::new();
        for line in lines.by_ref().map_while(Result::ok) {
            let last = until(&line);
            banner.push(line);
            if last {
                break;
            }
        }
        assert!(banner.last().is_some_and(|l| until(l)), "the banner never printed the expected line: {banner:?}");
        std::thread::spawn(move || lines.for_each(drop)); // keep reading what the server prints
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, port, banner, logs }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM, as an orchestrator stopping the service does.
    pub fn terminate(&self) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("kill runs");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits at most `timeout` for the process to exit; `None` if it is still running.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The logged lines containing `needle`.
    pub fn logged(&self, needle: &str) -> Vec<String> {
        self.logs.lock().unwrap().iter().filter(|l| l.contains(needle)).cloned().collect()
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The value after `label` on a banner line, e.g. `"secret key:"`.
    pub fn banner_value(&self, label: &str) -> Option<String> {
        self.banner.iter().find_map(|l| l.trim().strip_prefix(label).map(|v| v.trim().to_string()))
    }

    /// Kills the process at once (SIGKILL): no graceful shutdown, no flush.
    pub fn crash(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for ParleyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
