//! A minimal keep-alive HTTP/1.1 client (for seeding and sequential latency), and latency statistics.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    key: String,
}

impl Client {
    pub fn connect(port: u16, key: &str) -> Result<Self, String> {
        let stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let writer = stream.try_clone().map_err(|e| e.to_string())?;
        Ok(Self { reader: BufReader::new(stream), writer, key: key.to_string() })
    }

    /// Sends a GET and reads the whole response; returns the status and the body.
    pub fn get(&mut self, path: &str) -> Result<(u16, Vec<u8>), String> {
        self.send("GET", path, None)
    }

    /// Sends a request with an optional JSON body and reads the whole response.
    pub fn send(&mut self, method: &str, path: &str, json: Option<&str>) -> Result<(u16, Vec<u8>), String> {
        self.send_with(method, path, "", json)
    }

    /// [`send`](Self::send) with extra header lines (`Name: value\r\n` each).
    pub fn send_with(&mut self, method: &str, path: &str, headers: &str, json: Option<&str>) -> Result<(u16, Vec<u8>), String> {
        let key = &self.key;
        let request = match json {
            Some(body) => format!(
                "{method} {path} HTTP/1.1\r\nHost: bench\r\nX-API-Key: {key}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
            None => format!("{method} {path} HTTP/1.1\r\nHost: bench\r\nX-API-Key: {key}\r\n{headers}\r\n"),
        };
        self.writer.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
        let mut line = String::new();
        self.reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| format!("bad status line {line:?}"))?;
        let mut length = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).map_err(|e| e.to_string())?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().map_err(|_| "bad content-length".to_string())?;
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).map_err(|e| e.to_string())?;
        Ok((status, body))
    }
}

/// Latency of one endpoint over sequential requests.
pub struct Stats {
    pub p50: Duration,
    pub p99: Duration,
}

/// Times `count` GETs of `path` after `warmup` untimed ones; every answer must be 200.
pub fn measure(client: &mut Client, path: &str, warmup: usize, count: usize) -> Result<Stats, String> {
    measure_rotating(client, &[path.to_string()], warmup, count)
}

/// Like [`measure`], cycling through `paths` (e.g. different search queries) so no single
/// request's cost dominates.
pub fn measure_rotating(client: &mut Client, paths: &[String], warmup: usize, count: usize) -> Result<Stats, String> {
    let mut rotation = paths.iter().cycle();
    for path in rotation.by_ref().take(warmup) {
        check(client.get(path)?, path)?;
    }
    let mut times = Vec::with_capacity(count);
    for path in rotation.take(count) {
        let started = Instant::now();
        check(client.get(path)?, path)?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(Stats { p50: times[count / 2], p99: times[(count * 99 / 100).min(count - 1)] })
}

/// Percent-encodes `text` for a query string: everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn check((status, body): (u16, Vec<u8>), path: &str) -> Result<(), String> {
    if status == 200 { Ok(()) } else { Err(format!("GET {path} answered {status}: {}", String::from_utf8_lossy(&body))) }
}

/// One seeding request; anything but 2xx stops the bench.
pub fn call(client: &mut Client, method: &str, path: &str, body: Option<&str>) -> Result<super::json::Json, String> {
    let (status, answer) = client.send(method, path, body)?;
    let text = String::from_utf8_lossy(&answer);
    if !(200..300).contains(&status) {
        return Err(format!("{method} {path} answered {status}: {text}"));
    }
    super::json::parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_everything_but_unreserved_characters() {
        assert_eq!(encode("coffee hot"), "coffee%20hot");
        assert_eq!(encode("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(encode("I'm 100% sure & so?=/#+"), "I%27m%20100%25%20sure%20%26%20so%3F%3D%2F%23%2B");
        assert_eq!(encode("café"), "caf%C3%A9");
    }
}
