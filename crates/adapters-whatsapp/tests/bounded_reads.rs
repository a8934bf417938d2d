//! The Graph API answering 1 GiB (a hostile-input review saw a media error body take the process to 2.4 GB and
//! a 400 MB media record to 991 MB): each answer is refused or classified after a bounded read,
//! the process grows < 50 MB, and the connection is dropped rather than drained. Alone in its
//! test binary, because the figure is the whole process's.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::time::Duration;

use parley_adapters_http::testing::{Answer, Framing, GIB, HugeServer, Seen, measure};
use parley_adapters_whatsapp::{CloudApi, CloudApiConfig};
use parley_domain::model::{AccessToken, AgentId, Line, LineAccess, LineAccount, LineId, PhoneNumberId, WabaId};
use parley_domain::ports::{MessagingPlatform, PlatformError};

const MAX_GROWTH: u64 = 50 * 1000 * 1000;

/// How the fake Graph API answers a request.
type Route = fn(&Seen) -> Answer;
const PHONE: &str = "106540352242922";
const WABA: &str = "102290129340398";

fn line() -> Line {
    Line {
        id: LineId::new("chn_1"),
        agent_id: AgentId::new("agt_1"),
        account: LineAccount::Whatsapp { phone_number_id: PhoneNumberId::new(PHONE).unwrap(), waba_id: WabaId::new(WABA).unwrap() },
        access: LineAccess::Cloud(AccessToken::new("EAAG-test-token").unwrap()),
        created_at: chrono::Utc::now(),
        pace: Default::default(),
    }
}

/// Runs `call` against a server answering by `route`, measured; returns the platform's error.
fn case<F, Fut>(name: &str, route: Route, call: F) -> PlatformError
where
    F: FnOnce(CloudApi) -> Fut,
    Fut: Future<Output = PlatformError>,
{
    let measured = measure(|| async move {
        let server = HugeServer::start(route).await;
        let api = CloudApi::new(CloudApiConfig {
            base_url: server.url().to_string(),
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(1),
            retry_backoff: Duration::from_millis(10),
            ..Default::default()
        })
        .unwrap();
        let error = call(api).await;
        (error, server.body_bytes_written())
    });
    let (error, written) = measured.output;
    println!(
        "{name}: grew {:.1} MiB in {:?}, {written} body bytes sent; {error:?}",
        measured.growth_bytes as f64 / 1048576.0,
        measured.elapsed
    );
    assert!(measured.growth_bytes < MAX_GROWTH, "{name}: grew {:.1} MiB", measured.growth_bytes as f64 / 1048576.0);
    assert!(measured.elapsed < Duration::from_secs(3), "{name}: {:?}", measured.elapsed);
    assert!(written < GIB / 8, "{name}: {written} bytes sent: the body was drained, not dropped");
    error
}

async fn media(api: CloudApi) -> PlatformError {
    api.media(&line(), "1013").await.unwrap_err()
}

fn media_record_then_huge_error(framing: Framing) -> Route {
    match framing {
        Framing::Length => |seen| match seen.target.starts_with("/file/") {
            true => Answer::zeros(404, GIB, Framing::Length),
            false => Answer::json(200, format!(r#"{{"url":"{}/file/1013","mime_type":"image/jpeg"}}"#, seen.origin)),
        },
        Framing::Chunked => |seen| match seen.target.starts_with("/file/") {
            true => Answer::zeros(404, GIB, Framing::Chunked),
            false => Answer::json(200, format!(r#"{{"url":"{}/file/1013","mime_type":"image/jpeg"}}"#, seen.origin)),
        },
    }
}

#[test]
fn a_media_download_answering_404_with_1_gib_is_rejected_by_its_status() {
    for framing in [Framing::Length, Framing::Chunked] {
        let error = case(&format!("media error body, {framing:?}"), media_record_then_huge_error(framing), media);
        assert_eq!(error, PlatformError::Rejected { code: None, message: "HTTP 404".into(), details: None });
    }
}

#[test]
fn a_media_record_of_1_gib_is_refused_as_too_large() {
    let routes: [(Framing, Route); 2] = [
        (Framing::Length, |_| Answer::zeros(200, GIB, Framing::Length)),
        (Framing::Chunked, |_| Answer::zeros(200, GIB, Framing::Chunked)),
    ];
    for (framing, route) in routes {
        let error = case(&format!("media record, {framing:?}"), route, media);
        assert_eq!(error, PlatformError::Unavailable { message: "the platform's answer was larger than 1048576 bytes; not read".into() });
    }
}

#[test]
fn a_template_page_of_1_gib_is_refused_as_too_large() {
    let error = case(
        "template page, Chunked",
        |_| Answer::zeros(200, GIB, Framing::Chunked),
        |api| async move { api.templates(&line()).await.unwrap_err() },
    );
    assert_eq!(error, PlatformError::Unavailable { message: "the platform's answer was larger than 8388608 bytes; not read".into() });
}

#[test]
fn a_graph_error_of_1_gib_is_classified_by_its_status() {
    // A read: retried twice, each attempt's connection dropped after 64 KiB.
    let error = case(
        "template list 503 error body, Chunked",
        |_| Answer::zeros(503, GIB, Framing::Chunked),
        |api| async move { api.templates(&line()).await.unwrap_err() },
    );
    assert_eq!(error, PlatformError::Unavailable { message: "HTTP 503".into() });
}
