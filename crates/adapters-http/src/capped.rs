//! [`read_capped`]: a response's body, at most `cap` bytes of it.

/// Why a capped read returned no body.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The body is (or says it is) longer than the cap. Nothing past the cap was read: the
    /// response was dropped, which closes its connection instead of returning it to the pool.
    #[error("the answer was larger than {cap} bytes")]
    TooLarge { cap: usize },
    /// The connection failed, or the time limit passed, before the body's end.
    #[error("the answer could not be read: {0}")]
    Transport(#[source] reqwest::Error),
}

impl ReadError {
    /// Over the cap, as opposed to a transport failure.
    pub fn is_too_large(&self) -> bool {
        matches!(self, Self::TooLarge { .. })
    }
}

/// The whole body of `response` when it is at most `cap` bytes; otherwise
/// [`ReadError::TooLarge`], having read at most `cap` bytes plus one chunk (one network read,
/// tens of KiB) and never the rest.
///
/// A `Content-Length` over the cap is refused before any of the body is read. Without one
/// (chunked, or until close), the body is read a chunk at a time and refused at the chunk that
/// crosses the cap. Either way the response is dropped, and with it the connection: draining
/// the rest could take the whole time limit, and a connection is cheap to open again. The
/// client's time limit covers the read, as it does the rest of the request.
pub async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Vec<u8>, ReadError> {
    let declared = response.content_length();
    if declared.is_some_and(|length| length > cap as u64) {
        return Err(ReadError::TooLarge { cap });
    }
    // A declared length is at most the cap here, so reserving it is bounded.
    let reserve = declared.and_then(|length| usize::try_from(length).ok()).unwrap_or(0);
    let mut body = Vec::with_capacity(reserve);
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Transport)? {
        if chunk.len() > cap - body.len() {
            return Err(ReadError::TooLarge { cap });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A server that answers each connection with `raw` (status line, headers and body) after
    /// reading the request's head, then closes.
    async fn server(raw: Vec<u8>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let raw = raw.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        let Ok(n @ 1..) = socket.read(&mut buf).await else { return };
                        head.extend_from_slice(&buf[..n]);
                    }
                    let _ = socket.write_all(&raw).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        format!("http://{addr}/")
    }

    fn fixed(body: &[u8]) -> Vec<u8> {
        let mut raw = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len()).into_bytes();
        raw.extend_from_slice(body);
        raw
    }

    /// `body` in chunks of `size` bytes, with no length declared.
    fn chunked(body: &[u8], size: usize) -> Vec<u8> {
        let mut raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".to_vec();
        for piece in body.chunks(size) {
            raw.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            raw.extend_from_slice(piece);
            raw.extend_from_slice(b"\r\n");
        }
        raw.extend_from_slice(b"0\r\n\r\n");
        raw
    }

    async fn read(raw: Vec<u8>, cap: usize) -> Result<Vec<u8>, ReadError> {
        let url = server(raw).await;
        let response = reqwest::Client::new().get(url).send().await.unwrap();
        read_capped(response, cap).await
    }

    #[tokio::test]
    async fn a_body_under_or_exactly_at_the_cap_is_read_whole() {
        let body: Vec<u8> = (0..100u8).collect();
        for raw in [fixed(&body), chunked(&body, 7), chunked(&body, 100)] {
            assert_eq!(read(raw.clone(), 101).await.unwrap(), body);
            assert_eq!(read(raw, 100).await.unwrap(), body);
        }
        assert_eq!(read(fixed(b""), 0).await.unwrap(), b"");
        assert_eq!(read(chunked(b"", 1), 0).await.unwrap(), b"");
    }

    #[tokio::test]
    async fn a_body_one_byte_over_the_cap_is_too_large() {
        let body = vec![b'x'; 101];
        for raw in [fixed(&body), chunked(&body, 7), chunked(&body, 101), chunked(&body, 100)] {
            let error = read(raw, 100).await.unwrap_err();
            assert!(error.is_too_large(), "{error:?}");
            assert_eq!(error.to_string(), "the answer was larger than 100 bytes");
        }
    }

    #[tokio::test]
    async fn a_declared_length_over_the_cap_is_refused_before_the_body_arrives() {
        // The head promises a megabyte and nothing follows: only the header can have refused it.
        let raw = b"HTTP/1.1 200 OK\r\ncontent-length: 1048576\r\n\r\n".to_vec();
        let error = tokio::time::timeout(Duration::from_secs(5), read(raw, 1024)).await.unwrap().unwrap_err();
        assert!(matches!(error, ReadError::TooLarge { cap: 1024 }), "{error:?}");
    }

    #[tokio::test]
    async fn a_connection_closed_mid_body_is_a_transport_error() {
        let mut raw = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\nconnection: close\r\n\r\n".to_vec();
        raw.extend_from_slice(&[b'x'; 10]);
        let error = read(raw, 1000).await.unwrap_err();
        assert!(matches!(error, ReadError::Transport(_)), "{error:?}");
        assert!(!error.is_too_large());
        // Cut inside a chunk.
        let mut raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n64\r\n".to_vec();
        raw.extend_from_slice(&[b'x'; 10]);
        assert!(matches!(read(raw, 1000).await, Err(ReadError::Transport(_))));
    }

    #[tokio::test]
    async fn a_body_slower_than_the_time_limit_is_a_transport_error() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc").await.unwrap();
            tokio::time::sleep(Duration::from_secs(10)).await;
        });
        let client = reqwest::Client::builder().timeout(Duration::from_millis(300)).build().unwrap();
        let response = client.get(format!("http://{addr}/")).send().await.unwrap();
        let Err(ReadError::Transport(e)) = read_capped(response, 100).await else { panic!("read") };
        assert!(e.is_timeout(), "{e:?}");
    }
}
