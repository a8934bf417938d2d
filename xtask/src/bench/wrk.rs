//! Drives a server with wrk (Debian's `wrk` package), a load generator in its own process, and
//! reads its figures back.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::json::quote;

/// One endpoint's load: the requests wrk cycles through.
#[derive(Clone)]
pub struct Load {
    pub method: &'static str,
    /// Paths, each sent in turn (several ids or queries, so no single row stays hot).
    pub paths: Vec<String>,
    /// JSON bodies (`None`: a request without one), cycled alongside the paths; empty for GETs.
    pub bodies: Vec<Option<String>>,
    /// Per request, cycled alongside the paths, when requests differ in method (a mix of
    /// writes); empty: every request is `method`.
    pub methods: Vec<&'static str>,
}

impl Load {
    pub fn get(path: impl Into<String>) -> Self {
        Self { method: "GET", paths: vec![path.into()], bodies: Vec::new(), methods: Vec::new() }
    }

    pub fn get_each(paths: Vec<String>) -> Self {
        Self { method: "GET", paths, bodies: Vec::new(), methods: Vec::new() }
    }

    pub fn post(path: impl Into<String>, bodies: Vec<String>) -> Self {
        Self { method: "POST", paths: vec![path.into()], bodies: bodies.into_iter().map(Some).collect(), methods: Vec::new() }
    }

    /// How many distinct requests the load cycles through.
    pub fn len(&self) -> usize {
        self.paths.len().max(self.bodies.len())
    }

    /// The `i`-th request (cycling): method, path and body, if any.
    pub fn request(&self, i: usize) -> (&str, &str, Option<&str>) {
        let method = self.methods.get(i % self.methods.len().max(1)).copied().unwrap_or(self.method);
        let body = self.bodies.get(i % self.bodies.len().max(1)).and_then(Option::as_deref);
        (method, &self.paths[i % self.paths.len()], body)
    }

    /// Requests of any method, each `(method, path, body)`, sent in turn.
    pub fn each(requests: Vec<(&'static str, String, Option<String>)>) -> Self {
        let methods = requests.iter().map(|(m, _, _)| *m).collect();
        let paths = requests.iter().map(|(_, p, _)| p.clone()).collect();
        let bodies = requests.into_iter().map(|(_, _, b)| b).collect();
        Self { method: "", paths, bodies, methods }
    }
}

/// What wrk measured for one endpoint.
#[derive(Debug)]
pub struct Figures {
    pub requests_per_second: f64,
    pub p50: Duration,
    pub p99: Duration,
    /// Answers other than 2xx or 3xx: always 0 from [`Wrk::run`], which fails on any.
    pub errors: u64,
}

pub struct Wrk {
    pub connections: usize,
    pub duration: Duration,
}

impl Wrk {
    /// An error naming how to install wrk when it is missing.
    pub fn check_installed() -> Result<(), String> {
        match Command::new("wrk").arg("--version").output() {
            Ok(_) => Ok(()),
            Err(_) => Err("wrk is not installed: `apt-get install wrk` (Debian's package) and run again".into()),
        }
    }

    /// Runs wrk against `http://127.0.0.1:{port}` for the configured time; any answer other
    /// than 2xx, or a socket error, fails the run (a benchmark of errors measures nothing).
    pub fn run(&self, port: u16, key: &str, load: &Load, scratch: &Path) -> Result<Figures, String> {
        let figures = self.run_counting(port, key, load, scratch)?;
        if figures.errors > 0 {
            return Err(format!("wrk reported {} answers other than 2xx or 3xx", figures.errors));
        }
        Ok(figures)
    }

    /// Like [`run`](Self::run), but answers other than 2xx or 3xx are counted, not fatal: for
    /// a build under test that may fail some requests (the writes bench's baseline).
    pub fn run_counting(&self, port: u16, key: &str, load: &Load, scratch: &Path) -> Result<Figures, String> {
        let script = scratch.join("wrk-load.lua");
        std::fs::write(&script, lua(key, load)).map_err(|e| e.to_string())?;
        let out = Command::new("wrk")
            .args(["--threads", "1", "--latency", "--timeout", "10s"])
            .arg(format!("--connections={}", self.connections))
            .arg(format!("--duration={}s", self.duration.as_secs()))
            .arg("--script")
            .arg(&script)
            .arg(format!("http://127.0.0.1:{port}"))
            .output()
            .map_err(|e| format!("wrk: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() {
            return Err(format!("wrk failed: {text}{}", String::from_utf8_lossy(&out.stderr)));
        }
        parse(&text)
    }
}

/// A wrk script that sends the load's requests in turn, formatted once per thread in `init`
/// (at the top level wrk has not set the Host header yet).
fn lua(key: &str, load: &Load) -> String {
    let mut script = format!(
        "wrk.headers[\"X-API-Key\"] = {}\nwrk.headers[\"Content-Type\"] = \"application/json\"\nlocal requests = {{}}\ninit = function(args)\n",
        quote(key)
    );
    for i in 0..load.len() {
        let (method, path, body) = load.request(i);
        let body = body.map_or_else(|| "nil".to_string(), quote);
        let _ = writeln!(script, "  requests[{}] = wrk.format({}, {}, nil, {body})", i + 1, quote(method), quote(path));
    }
    script.push_str("end\nlocal next = 0\nrequest = function()\n  next = next % #requests + 1\n  return requests[next]\nend\n");
    script
}

fn parse(text: &str) -> Result<Figures, String> {
    if let Some(line) = text.lines().find(|l| l.trim_start().starts_with("Socket errors")) {
        return Err(format!("wrk reported {}:\n{text}", line.trim()));
    }
    let errors = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("Non-2xx or 3xx responses:"))
        .map_or(Ok(0), |n| n.trim().parse::<u64>().map_err(|_| format!("unreadable error count in wrk's output:\n{text}")))?;
    let requests_per_second = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("no Requests/sec in wrk's output:\n{text}"))?;
    let percentile = |label: &str| {
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix(label))
            .and_then(|v| duration(v.trim()))
            .ok_or_else(|| format!("no {label} latency in wrk's output:\n{text}"))
    };
    Ok(Figures { requests_per_second, p50: percentile("50%")?, p99: percentile("99%")?, errors })
}

/// wrk's durations: `812.00us`, `1.23ms`, `2.00s`, `1.50m`.
fn duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit {
        "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        "m" => number * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "Running 5s test @ http://127.0.0.1:1234
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.34us  200.00us   5.00ms   90.00%
  Latency Distribution
     50%  750.00us
     75%  900.00us
     90%    1.10ms
     99%    2.50ms
  100000 requests in 5.00s, 10.00MB read
Requests/sec:  20000.50
Transfer/sec:      2.00MB
";

    #[test]
    fn reads_throughput_and_percentiles() {
        let figures = parse(OUTPUT).unwrap();
        assert_eq!(figures.requests_per_second, 20000.5);
        assert_eq!(figures.p50, Duration::from_micros(750));
        assert_eq!(figures.p99, Duration::from_micros(2500));
    }

    #[test]
    fn errors_are_counted() {
        let failed = OUTPUT.replace("Requests/sec", "  Non-2xx or 3xx responses: 12\nRequests/sec");
        assert_eq!(parse(&failed).unwrap().errors, 12);
        assert_eq!(parse(OUTPUT).unwrap().errors, 0);
        let broken = OUTPUT.replace("Requests/sec", "  Socket errors: connect 0, read 3, write 0, timeout 0\nRequests/sec");
        assert!(parse(&broken).unwrap_err().contains("Socket errors"));
    }

    #[test]
    fn script_mixes_methods_and_requests_without_bodies() {
        let load = Load::each(vec![("PATCH", "/v1/a".into(), Some("{}".into())), ("DELETE", "/v1/b".into(), None)]);
        let script = lua("sk_x", &load);
        assert!(script.contains("requests[1] = wrk.format(\"PATCH\", \"/v1/a\", nil, \"{}\")"), "{script}");
        assert!(script.contains("requests[2] = wrk.format(\"DELETE\", \"/v1/b\", nil, nil)"), "{script}");
    }

    #[test]
    fn script_cycles_requests_with_bodies() {
        let script = lua("sk_x", &Load::post("/v1/carts", vec!["{\"a\":1}".into(), "{\"a\":2}".into()]));
        assert!(script.contains("  requests[2] = wrk.format(\"POST\", \"/v1/carts\", nil, \"{\\\"a\\\":2}\")"), "{script}");
        assert!(script.contains("X-API-Key\"] = \"sk_x\""));
    }
}
