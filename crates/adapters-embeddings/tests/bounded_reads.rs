//! An embeddings service answering 1 GiB: refused after a bounded read (the cap follows the
//! batch), the process grows < 50 MB, the connection is dropped rather than drained. Alone in
//! its test binary, because the figure is the whole process's.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::time::Duration;

use parley_adapters_embeddings::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
use parley_adapters_http::testing::{Answer, Framing, GIB, HugeServer, Seen, measure};
use parley_domain::ports::{EmbedError, Embedder};

const MAX_GROWTH: u64 = 50 * 1000 * 1000;

type Route = fn(&Seen) -> Answer;

fn config(server: &HugeServer, dimensions: Option<usize>) -> OpenAiConfig {
    OpenAiConfig {
        base_url: format!("{}/v1", server.url()),
        model: "text-embedding-3-small".into(),
        api_key: Some("sk-test".into()),
        dimensions,
        batch_size: 64,
        timeout: Duration::from_secs(10),
        max_retries: 1,
        retry_backoff: Duration::from_millis(1),
    }
}

/// Embeds two texts (or connects, learning the dimensions, when `dimensions` is `None`) against
/// a server answering by `route`, measured; returns the error.
fn case(name: &str, route: Route, dimensions: Option<usize>) -> EmbedError {
    let measured = measure(|| async move {
        let server = HugeServer::start(route).await;
        let error = match OpenAiEmbedder::connect(config(&server, dimensions)).await {
            Ok(embedder) => embedder.embed(&["red shoes".into(), "blue hat".into()]).await.unwrap_err(),
            Err(OpenAiConnectError::Probe(error)) => error,
            Err(other) => panic!("{other:?}"),
        };
        (error, server.body_bytes_written())
    });
    let (error, written) = measured.output;
    let mib = measured.growth_bytes as f64 / 1048576.0;
    println!("{name}: grew {mib:.1} MiB in {:?}, {written} body bytes sent; {error:?}", measured.elapsed);
    assert!(measured.growth_bytes < MAX_GROWTH, "{name}: grew {mib:.1} MiB");
    assert!(measured.elapsed < Duration::from_secs(3), "{name}: {:?}", measured.elapsed);
    assert!(written < GIB / 8, "{name}: {written} bytes sent: the body was drained, not dropped");
    error
}

#[test]
fn an_answer_of_1_gib_is_refused_as_too_large() {
    let routes: [(Framing, Route); 2] = [
        (Framing::Length, |_| Answer::zeros(200, GIB, Framing::Length)),
        (Framing::Chunked, |_| Answer::zeros(200, GIB, Framing::Chunked)),
    ];
    for (framing, route) in routes {
        let error = case(&format!("embeddings answer, {framing:?}"), route, Some(3));
        // Two texts of three numbers: 2 × (3 × 64 + 1,024) + 65,536.
        let expected = "the embeddings service answered with a body larger than 67968 bytes; not read";
        assert_eq!(error, EmbedError::Failed(expected.into()), "{framing:?}");
    }
}

#[test]
fn the_dimensions_probe_answered_with_1_gib_is_refused_as_too_large() {
    let error = case("probe answer, Chunked", |_| Answer::zeros(200, GIB, Framing::Chunked), None);
    let expected = "the embeddings service answered with a body larger than 4260864 bytes; not read";
    assert_eq!(error, EmbedError::Failed(expected.into()));
}

#[test]
fn an_error_of_1_gib_is_classified_by_its_status() {
    // Retried once, each attempt's connection dropped after 64 KiB.
    let error = case("503 error body, Chunked", |_| Answer::zeros(503, GIB, Framing::Chunked), Some(3));
    assert_eq!(error, EmbedError::Unavailable("HTTP 503 (after 2 attempts)".into()));
}
