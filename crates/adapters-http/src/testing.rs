//! Test support (feature `testing`) for each adapter's `tests/bounded_reads.rs`: [`HugeServer`],
//! a local HTTP server whose answers can be 1 GiB of zeros produced lazily (wiremock builds
//! every body in memory), and [`measure`], which runs one case and reports how much the
//! process's peak resident memory grew.
//!
//! Keep these tests in a test binary of their own: the figure is the whole process's, so
//! anything else allocating at the same time would be counted. [`measure`] runs one case at a
//! time.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// 1 GiB.
pub const GIB: u64 = 1 << 30;

/// How a body of zeros is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` declared up front.
    Length,
    /// `Transfer-Encoding: chunked`, 64 KiB chunks: the size is known only by reading.
    Chunked,
}

/// One answer of a [`HugeServer`].
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// A small JSON body, sent whole with its length.
    Json(String),
    /// `len` zero bytes, written 64 KiB at a time while the client reads.
    Zeros { len: u64, framing: Framing },
}

impl Answer {
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Self { status, body: Body::Json(body.into()) }
    }

    pub fn zeros(status: u16, len: u64, framing: Framing) -> Self {
        Self { status, body: Body::Zeros { len, framing } }
    }
}

/// A request as the route sees it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// The server's own `http://127.0.0.1:{port}`, for answers that link back to it.
    pub origin: String,
}

const CHUNK: usize = 64 * 1024;
static ZEROS: [u8; CHUNK] = [0; CHUNK];

/// The server: every connection served on its own task, several requests per connection.
pub struct HugeServer {
    url: String,
    written: Arc<AtomicU64>,
}

impl HugeServer {
    /// Listens on a free local port; `route` picks each request's answer.
    pub async fn start(route: impl Fn(&Seen) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free local port");
        let url = format!("http://{}", listener.local_addr().expect("a bound address"));
        let written = Arc::new(AtomicU64::new(0));
        let route = Arc::new(route);
        let counter = written.clone();
        let origin = url.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (route, counter, origin) = (route.clone(), counter.clone(), origin.clone());
                tokio::spawn(async move {
                    let _ = serve(socket, &*route, &counter, &origin).await;
                });
            }
        });
        Self { url, written }
    }

    /// `http://127.0.0.1:{port}`, no trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Body bytes written to sockets so far (the kernel's buffers included): far less than
    /// 1 GiB when the client dropped the connection early.
    pub fn body_bytes_written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

async fn serve(
    mut socket: TcpStream,
    route: &(dyn Fn(&Seen) -> Answer + Send + Sync),
    written: &AtomicU64,
    origin: &str,
) -> std::io::Result<()> {
    let mut pending = Vec::new();
    loop {
        let Some(seen) = read_request(&mut socket, &mut pending, origin).await? else { return Ok(()) };
        let answer = route(&seen);
        let reason = if answer.status < 400 { "OK" } else { "Error" };
        match answer.body {
            Body::Json(text) => {
                let head = format!(
                    "HTTP/1.1 {} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    answer.status,
                    text.len()
                );
                socket.write_all(head.as_bytes()).await?;
                socket.write_all(text.as_bytes()).await?;
            }
            Body::Zeros { len, framing } => {
                let framing_header = match framing {
                    Framing::Length => format!("content-length: {len}"),
                    Framing::Chunked => "transfer-encoding: chunked".to_string(),
                };
                let head = format!("HTTP/1.1 {} {reason}\r\ncontent-type: application/json\r\n{framing_header}\r\n\r\n", answer.status);
                socket.write_all(head.as_bytes()).await?;
                let mut left = len;
                while left > 0 {
                    let n = usize::try_from(left.min(CHUNK as u64)).expect("at most a chunk");
                    if framing == Framing::Chunked {
                        socket.write_all(format!("{n:x}\r\n").as_bytes()).await?;
                    }
                    socket.write_all(&ZEROS[..n]).await?;
                    if framing == Framing::Chunked {
                        socket.write_all(b"\r\n").await?;
                    }
                    written.fetch_add(n as u64, Ordering::Relaxed);
                    left -= n as u64;
                }
                if framing == Framing::Chunked {
                    socket.write_all(b"0\r\n\r\n").await?;
                }
            }
        }
    }
}

/// The next request's line and head (its body, by `Content-Length`, read and dropped); `None`
/// when the client closed the connection.
async fn read_request(socket: &mut TcpStream, pending: &mut Vec<u8>, origin: &str) -> std::io::Result<Option<Seen>> {
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(at) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        pending.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&pending[..end]).into_owned();
    pending.drain(..end);
    let mut lines = head.split("\r\n");
    let mut words = lines.next().unwrap_or_default().split(' ');
    let seen = Seen {
        method: words.next().unwrap_or_default().to_string(),
        target: words.next().unwrap_or_default().to_string(),
        origin: origin.to_string(),
    };
    let length: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    while pending.len() < length {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        pending.extend_from_slice(&buf[..n]);
    }
    pending.drain(..length);
    Ok(Some(seen))
}

/// What [`measure`] saw of one case.
#[derive(Debug)]
pub struct Measured<T> {
    pub output: T,
    /// How far the process's peak resident memory rose above its resident memory at the start.
    pub growth_bytes: u64,
    pub elapsed: Duration,
}

impl<T> Measured<T> {
    pub fn growth_mib(&self) -> f64 {
        self.growth_bytes as f64 / (1024.0 * 1024.0)
    }
}

/// One case at a time in the process, so no other case's memory is counted.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `case` on a fresh runtime, alone, and measures the growth of the process's peak
/// resident memory (`VmHWM`, reset first through `/proc/self/clear_refs` when the kernel
/// allows; otherwise the rise of the peak so far) and the time it took.
pub fn measure<F: Future>(case: impl FnOnce() -> F) -> Measured<F::Output> {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = if reset { status_kib("VmRSS") } else { status_kib("VmHWM") };
    let start = Instant::now();
    let output = runtime.block_on(case());
    let elapsed = start.elapsed();
    let after = status_kib("VmHWM");
    Measured { output, growth_bytes: after.saturating_sub(before) * 1024, elapsed }
}

/// A `kB` line of `/proc/self/status`.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a kB figure")
}
