//! The OpenAI-compatible embedder against a fake `/embeddings` server (wiremock): exact requests,
//! batching and placement by index, normalization, the dimensions probe, every error class and
//! the retries, and that the API key never leaks.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::net::TcpListener;
use std::time::{Duration, Instant};

use parley_adapters_embeddings::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
use parley_domain::ports::{EmbedError, Embedder};
use serde_json::{Value, json};
use wiremock::matchers::{body_json, header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const KEY: &str = "sk-test-0123456789abcdef";
const MODEL: &str = "text-embedding-3-small";
const PATH: &str = "/v1/embeddings";

fn config(server: &MockServer) -> OpenAiConfig {
    OpenAiConfig {
        base_url: format!("{}/v1", server.uri()),
        model: MODEL.into(),
        api_key: Some(KEY.into()),
        dimensions: Some(3),
        batch_size: 64,
        timeout: Duration::from_secs(5),
        max_retries: 2,
        retry_backoff: Duration::from_millis(1),
    }
}

async fn embedder(config: OpenAiConfig) -> OpenAiEmbedder {
    OpenAiEmbedder::connect(config).await.unwrap()
}

fn texts(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

/// The fake model: a text embeds to `[1, its length in bytes, 2]` (not normalized), so every
/// test text of another length has another direction.
fn raw_vector(text: &str) -> Vec<f32> {
    vec![1.0, text.len() as f32, 2.0]
}

fn unit(v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

fn assert_close(actual: &[Vec<f32>], expected: &[Vec<f32>]) {
    assert_eq!(actual.len(), expected.len());
    for (a, e) in actual.iter().zip(expected) {
        assert_eq!(a.len(), e.len());
        assert!(a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-6), "{a:?} != {e:?}");
    }
}

/// OpenAI's success body; `items` are `(index, embedding)` in the order they are sent.
fn answer(items: &[(usize, Vec<f32>)]) -> ResponseTemplate {
    let data: Vec<Value> = items.iter().map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v})).collect();
    ResponseTemplate::new(200).set_body_json(json!({
        "object": "list",
        "data": data,
        "model": MODEL,
        "usage": {"prompt_tokens": 8, "total_tokens": 8}
    }))
}

/// Embeds whatever it is sent with [`raw_vector`], answering the items in reverse order.
struct ReversedFake;

impl Respond for ReversedFake {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap();
        let input: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
        let items: Vec<(usize, Vec<f32>)> = input.iter().enumerate().rev().map(|(i, t)| (i, raw_vector(t))).collect();
        answer(&items)
    }
}

fn openai_error(message: &str, kind: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}

/// Neither the display nor the debug form of an error may carry the key.
fn assert_no_key(e: &EmbedError) {
    assert!(!format!("{e} {e:?}").contains(KEY), "the key leaked into {e:?}");
}

async fn requests(server: &MockServer) -> Vec<Value> {
    server.received_requests().await.unwrap().iter().map(|r| r.body_json().unwrap()).collect()
}

#[tokio::test]
async fn a_request_carries_exactly_the_model_the_input_the_dimensions_and_the_bearer_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .and(header("authorization", "Bearer sk-test-0123456789abcdef"))
        .and(header("content-type", "application/json"))
        .and(body_json(json!({"model": MODEL, "input": ["red shoes", "a blue hat"], "dimensions": 3})))
        .respond_with(answer(&[(0, vec![0.0, 0.0, 1.0]), (1, vec![0.0, 1.0, 0.0])]))
        .expect(1)
        .mount(&server)
        .await;

    // Dimensions are configured: connect makes no request.
    let e = embedder(config(&server)).await;
    assert!(server.received_requests().await.unwrap().is_empty());
    let vectors = e.embed(&texts(&["red shoes", "a blue hat"])).await.unwrap();
    assert_eq!(vectors, vec![vec![0.0, 0.0, 1.0], vec![0.0, 1.0, 0.0]]);
    assert_eq!((e.dimensions(), e.identity()), (3, "openai:text-embedding-3-small:3".to_string()));
}

#[tokio::test]
async fn without_configured_dimensions_connect_probes_once_and_no_dimensions_field_is_sent() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ReversedFake).expect(2).mount(&server).await;

    let e = embedder(OpenAiConfig { dimensions: None, api_key: None, model: "nomic-embed-text".into(), ..config(&server) }).await;
    assert_eq!(e.dimensions(), 3);
    assert_eq!(e.identity(), "openai:nomic-embed-text:3");
    assert_eq!(requests(&server).await.len(), 1, "one probe at connect");

    let vectors = e.embed(&texts(&["tea"])).await.unwrap();
    assert_close(&vectors, &[unit(raw_vector("tea"))]);

    let received = server.received_requests().await.unwrap();
    for request in &received {
        assert!(request.headers.get("authorization").is_none(), "no key, no authorization header");
        let body: Value = request.body_json().unwrap();
        assert!(body.get("dimensions").is_none(), "no dimensions field unless configured: {body}");
        assert_eq!(body["model"], "nomic-embed-text");
    }
    assert_eq!(received[0].body_json::<Value>().unwrap()["input"].as_array().unwrap().len(), 1);
    assert_eq!(received[1].body_json::<Value>().unwrap()["input"], json!(["tea"]));
}

#[tokio::test]
async fn a_failing_probe_fails_connect() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(404).set_body_json(openai_error("The model `nope` does not exist", "invalid_request_error")))
        .expect(1)
        .mount(&server)
        .await;

    let e = OpenAiEmbedder::connect(OpenAiConfig { dimensions: None, model: "nope".into(), ..config(&server) }).await.unwrap_err();
    assert_eq!(e, OpenAiConnectError::Probe(EmbedError::Failed("HTTP 404: The model `nope` does not exist".into())));
}

#[tokio::test]
async fn texts_are_sent_in_batches_and_placed_by_index_in_input_order() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ReversedFake).expect(3).mount(&server).await;

    let input = texts(&["a", "bb", "ccc", "dddd", "eeeee"]);
    let e = embedder(OpenAiConfig { batch_size: 2, ..config(&server) }).await;
    let vectors = e.embed(&input).await.unwrap();

    let expected: Vec<Vec<f32>> = input.iter().map(|t| unit(raw_vector(t))).collect();
    assert_close(&vectors, &expected);
    let inputs: Vec<Value> = requests(&server).await.into_iter().map(|b| b["input"].clone()).collect();
    assert_eq!(inputs, vec![json!(["a", "bb"]), json!(["ccc", "dddd"]), json!(["eeeee"])]);
}

#[tokio::test]
async fn every_vector_is_normalized_and_a_zero_vector_stays_zero() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(answer(&[(0, vec![3.0, 0.0, 4.0]), (1, vec![0.0, 0.0, 0.0]), (2, vec![0.0, -2.0, 0.0])]))
        .mount(&server)
        .await;

    let vectors = embedder(config(&server)).await.embed(&texts(&["x", "y", "z"])).await.unwrap();
    assert_close(&vectors, &[vec![0.6, 0.0, 0.8], vec![0.0, 0.0, 0.0], vec![0.0, -1.0, 0.0]]);
}

#[tokio::test]
async fn a_vector_of_other_than_the_configured_dimensions_fails() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(answer(&[(0, vec![1.0, 0.0, 0.0]), (1, vec![1.0, 0.0, 0.0, 0.0])]))
        .expect(1)
        .mount(&server)
        .await;

    let e = embedder(config(&server)).await.embed(&texts(&["x", "y"])).await.unwrap_err();
    assert_eq!(e, EmbedError::Failed("the embeddings service returned a vector of 4 dimensions at index 1; expected 3".into()));
}

#[tokio::test]
async fn a_wrong_number_of_vectors_fails_without_retrying() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(answer(&[(0, vec![1.0, 0.0, 0.0])])).expect(1).mount(&server).await;

    let e = embedder(config(&server)).await.embed(&texts(&["x", "y"])).await.unwrap_err();
    assert_eq!(e, EmbedError::Failed("the embeddings service returned 1 vectors for 2 texts".into()));
}

#[tokio::test]
async fn a_malformed_body_fails_without_retrying() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>hello</html>"))
        .expect(1)
        .mount(&server)
        .await;

    let e = embedder(config(&server)).await.embed(&texts(&["x"])).await.unwrap_err();
    assert!(matches!(&e, EmbedError::Failed(m) if m.contains("could not be read")), "{e:?}");
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_that_delay_and_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(openai_error("Rate limit reached for requests", "requests")),
        )
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ReversedFake).expect(1).mount(&server).await;

    // The backoff alone would wait at least 5 s: finishing sooner shows Retry-After was used.
    let e = embedder(OpenAiConfig { retry_backoff: Duration::from_secs(10), ..config(&server) }).await;
    let started = Instant::now();
    let vectors = e.embed(&texts(&["tea"])).await.unwrap();
    let elapsed = started.elapsed();
    assert_close(&vectors, &[unit(raw_vector("tea"))]);
    assert!(elapsed >= Duration::from_secs(1) && elapsed < Duration::from_secs(4), "waited {elapsed:?}");
}

#[tokio::test]
async fn a_server_error_on_every_attempt_is_unavailable_after_max_retries_plus_one_requests() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(500).set_body_json(openai_error("The server had an error", "server_error")))
        .expect(4)
        .mount(&server)
        .await;

    let e = embedder(OpenAiConfig { max_retries: 3, ..config(&server) }).await.embed(&texts(&["x"])).await.unwrap_err();
    assert_eq!(e, EmbedError::Unavailable("HTTP 500: The server had an error (after 4 attempts)".into()));
}

#[tokio::test]
async fn a_server_error_then_success_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ResponseTemplate::new(503)).up_to_n_times(2).expect(2).mount(&server).await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ReversedFake).expect(1).mount(&server).await;

    let vectors = embedder(config(&server)).await.embed(&texts(&["x", "yy"])).await.unwrap();
    assert_close(&vectors, &[unit(raw_vector("x")), unit(raw_vector("yy"))]);
}

#[tokio::test]
async fn a_client_error_fails_after_one_request_with_the_server_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(400).set_body_json(openai_error(
            "This model's maximum context length is 8192 tokens, however you requested 9000 tokens.",
            "invalid_request_error",
        )))
        .expect(1)
        .mount(&server)
        .await;

    let e = embedder(config(&server)).await.embed(&texts(&["x"])).await.unwrap_err();
    assert_eq!(
        e,
        EmbedError::Failed("HTTP 400: This model's maximum context length is 8192 tokens, however you requested 9000 tokens.".into())
    );
}

#[tokio::test]
async fn a_slow_server_is_unavailable_after_every_attempt_timed_out() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(answer(&[(0, vec![1.0, 0.0, 0.0])]).set_delay(Duration::from_secs(2)))
        .expect(2)
        .mount(&server)
        .await;

    let e = embedder(OpenAiConfig { timeout: Duration::from_millis(150), max_retries: 1, ..config(&server) }).await;
    let err = e.embed(&texts(&["x"])).await.unwrap_err();
    assert!(
        matches!(&err, EmbedError::Unavailable(m) if m.contains("did not answer within 150ms") && m.contains("after 2 attempts")),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable() {
    // A port that was just free: nothing listens on it.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        api_key: Some(KEY.into()),
        dimensions: Some(3),
        max_retries: 1,
        retry_backoff: Duration::from_millis(1),
        ..Default::default()
    };
    let err = embedder(config.clone()).await.embed(&texts(&["x"])).await.unwrap_err();
    assert!(matches!(&err, EmbedError::Unavailable(m) if m.contains("could not connect")), "{err:?}");
    assert_no_key(&err);

    let err = OpenAiEmbedder::connect(OpenAiConfig { dimensions: None, ..config }).await.unwrap_err();
    assert!(matches!(err, OpenAiConnectError::Probe(EmbedError::Unavailable(_))), "{err:?}");
}

#[tokio::test]
async fn the_key_never_shows_in_debug_output_nor_in_errors() {
    let server = MockServer::start().await;
    // A careless server that echoes the whole key back.
    Mock::given(method("POST"))
        .and(path(PATH))
        .respond_with(
            ResponseTemplate::new(401).set_body_json(openai_error(&format!("Incorrect API key provided: {KEY}."), "invalid_request_error")),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v2/embeddings"))
        .respond_with(ResponseTemplate::new(500).set_body_json(openai_error(KEY, "x")))
        .mount(&server)
        .await;

    let config = config(&server);
    let e = embedder(config.clone()).await;
    for shown in [format!("{config:?}"), format!("{e:?}"), format!("{config:#?}"), format!("{e:#?}")] {
        assert!(!shown.contains(KEY), "the key leaked into {shown}");
        assert!(shown.contains("***"), "{shown}");
    }

    let err = e.embed(&texts(&["x"])).await.unwrap_err();
    assert_eq!(err, EmbedError::Failed("HTTP 401: Incorrect API key provided: ***.".into()));
    let err = embedder(OpenAiConfig { base_url: format!("{}/v2", server.uri()), ..config }).await.embed(&texts(&["x"])).await.unwrap_err();
    assert_no_key(&err);
}

#[tokio::test]
async fn embedding_nothing_makes_no_request() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path(PATH)).respond_with(ReversedFake).expect(0).mount(&server).await;

    let vectors = embedder(config(&server)).await.embed(&[]).await.unwrap();
    assert!(vectors.is_empty());
}
