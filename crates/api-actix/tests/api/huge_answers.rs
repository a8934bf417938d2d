//! A real `parley serve` whose remotes answer with 1 GiB bodies stays small: event receivers
//! (with a length, chunked, and as an error: the answer's status is read, at most 64 KiB of its
//! body, and the connection dropped; once, one such receiver took the process from
//! 93 MB to 2,346 MB, three at once to 5.4 GB) and the Graph API behind a media download (a
//! 1 GiB media record, a 1 GiB error body: 991 MB and 2.4 GB in the probe).

use std::process::Command;
use std::time::{Duration, Instant};

use parley_adapters_diesel::testing::TestDb;
use parley_adapters_http::testing::{Answer, Framing, GIB, HugeServer};
use parley_api::runtime::config::ApiConfig;
use parley_domain::model::KeyKind;
use parley_domain::services::{NewContactInput, NewEndpointInput, WebhookPageQuery};
use serde_json::{Value, json};

use crate::common::server::{ParleyServer, free_port};
use crate::messaging::{APP_SECRET, CLOUD_PHONE, CLOUD_WABA, TOKEN};

backend_tests!(
    receivers_answering_a_gibibyte_do_not_grow_the_process,
    a_gibibyte_from_the_graph_api_behind_a_media_download_does_not_grow_the_process
);

/// The process's peak resident memory so far, in bytes (`VmHWM`).
fn peak_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap().trim().trim_end_matches(" kB").trim().parse().unwrap();
    kib * 1024
}

async fn receivers_answering_a_gibibyte_do_not_grow_the_process(backend: &str) {
    const CHANGES: usize = 3;
    let db = TestDb::of(backend).await;
    let config = ApiConfig { webhook_allow_private: true, ..ApiConfig::default() };
    let state = crate::common::system_state_with(db.store.repositories(), config);
    let agent = state.keys.create_agent("Huge answers").await.unwrap().id;
    let huge = HugeServer::start(|seen| match seen.target.as_str() {
        "/length" => Answer::zeros(200, GIB, Framing::Length),
        "/chunked" => Answer::zeros(200, GIB, Framing::Chunked),
        _ => Answer::zeros(503, GIB, Framing::Chunked),
    })
    .await;
    let mut endpoints = Vec::new();
    for path in ["/length", "/chunked", "/error"] {
        let input = NewEndpointInput { url: Some(format!("{}{path}", huge.url())), events: Some(vec!["*".into()]), description: None };
        endpoints.push(state.webhook_endpoints.create(&agent, input).await.unwrap().endpoint.id);
    }

    let env = [("PARLEY_WEBHOOK_ALLOW_PRIVATE", "true")];
    let parley = ParleyServer::start_on(&db.url, free_port(), &env, |l| l.starts_with("Parley is serving"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = peak_bytes(parley.pid());

    for n in 0..CHANGES {
        let input =
            NewContactInput { channel_type: Some("whatsapp".into()), channel_id: Some(format!("52155{n:06}")), ..Default::default() };
        state.contacts.create(&agent, input).await.unwrap();
    }
    // Every delivery's first attempt recorded: the 200s delivered, the 503s failed.
    let started = Instant::now();
    let mut statuses = Vec::new();
    loop {
        statuses.clear();
        for endpoint in &endpoints {
            let attempts = state.webhook_endpoints.attempts(&agent, endpoint, WebhookPageQuery::default()).await.unwrap();
            statuses.extend(attempts.items.iter().map(|a| (a.response_status, a.error.is_none())));
        }
        if statuses.len() >= CHANGES * endpoints.len() || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    statuses.sort();
    let delivered = (Some(200), true);
    let failed = (Some(503), false);
    assert_eq!(statuses, [vec![delivered; 2 * CHANGES], vec![failed; CHANGES]].concat(), "the status is the answer");

    let growth = peak_bytes(parley.pid()).saturating_sub(before);
    eprintln!(
        "{backend}: {} answers of 1 GiB; peak memory grew {:.1} MiB; {:.1} MiB of bodies written before the connections dropped",
        statuses.len(),
        growth as f64 / (1024.0 * 1024.0),
        huge.body_bytes_written() as f64 / (1024.0 * 1024.0)
    );
    assert!(growth < 50 * 1024 * 1024, "the process grew {growth} bytes");
}

/// `curl` against the served API: the status and the body. On a blocking thread, so this test's
/// runtime goes on serving the fake Graph API meanwhile.
async fn curl(args: &[&str]) -> (u16, String) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || Command::new("curl").args(["-s", "-w", "\n%{http_code}"]).args(&args).output())
        .await
        .unwrap()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, status) = text.rsplit_once('\n').unwrap();
    (status.trim().parse().unwrap_or(0), body.to_string())
}

async fn a_gibibyte_from_the_graph_api_behind_a_media_download_does_not_grow_the_process(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Huge media").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    state.lines.add(&agent, CLOUD_PHONE, CLOUD_WABA, Some(TOKEN)).await.unwrap();
    // 701: a media record of 1 GiB. 702: a record whose file answers 404 with 1 GiB. Anything
    // else (the template sync at start): an empty page.
    let graph = HugeServer::start(|seen| {
        let path = seen.target.split('?').next().unwrap_or_default();
        match path {
            "/v23.0/701" => Answer::zeros(200, GIB, Framing::Length),
            "/v23.0/702" => Answer::json(200, json!({"url": format!("{}/file/702", seen.origin), "mime_type": "image/jpeg"}).to_string()),
            "/file/702" => Answer::zeros(404, GIB, Framing::Chunked),
            _ => Answer::json(200, r#"{"data": []}"#),
        }
    })
    .await;
    let env = [("PARLEY_WHATSAPP_API_BASE", graph.url()), ("PARLEY_WHATSAPP_APP_SECRET", APP_SECRET)];
    let parley = ParleyServer::start_on(&db.url, free_port(), &env, |l| l.starts_with("Parley is serving"));

    let image = |id: &str, media: &str| {
        json!({"from": "14155550100", "id": id, "timestamp": chrono::Utc::now().timestamp().to_string(), "type": "image",
            "image": {"mime_type": "image/jpeg", "sha256": "aGFzaA==", "id": media}})
    };
    let inbound = json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "contacts": [{"profile": {"name": "Ann"}, "wa_id": "14155550100"}],
        "messages": [image("wamid.701", "701"), image("wamid.702", "702")]
    }}]}]})
    .to_string();
    let signature = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, inbound.as_bytes());
    let webhook = format!("{}/webhooks/whatsapp", parley.url());
    let (status, _) = curl(&["-X", "POST", "-H", &format!("X-Hub-Signature-256: {signature}"), "-d", &inbound, &webhook]).await;
    assert_eq!(status, 200);
    let auth = format!("X-API-Key: {key}");
    let started = Instant::now();
    let messages: Vec<Value> = loop {
        let (_, body) = curl(&["-H", &auth, &format!("{}/v1/activities", parley.url())]).await;
        let listed: Value = serde_json::from_str(&body).unwrap_or_default();
        if let Some(activity) = listed["data"][0]["id"].as_str() {
            let (_, body) = curl(&["-H", &auth, &format!("{}/v1/activities/{activity}/messages", parley.url())]).await;
            let page: Value = serde_json::from_str(&body).unwrap();
            let items = page["data"].as_array().cloned().unwrap_or_default();
            if items.len() == 2 {
                break items.into_iter().map(|m| json!({"activity": activity, "id": m["id"], "wamid": m["platform_message_id"]})).collect();
            }
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the inbound images never reached the timeline");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    let before = peak_bytes(parley.pid());
    let mut answers = Vec::new();
    for m in &messages {
        let url =
            format!("{}/v1/activities/{}/messages/{}/media", parley.url(), m["activity"].as_str().unwrap(), m["id"].as_str().unwrap());
        let (status, body) = curl(&["-H", &auth, &url]).await;
        let code: Value = serde_json::from_str(&body).unwrap_or_default();
        answers.push((
            m["wamid"].as_str().unwrap_or_default().to_string(),
            status,
            code["error"]["code"].as_str().unwrap_or_default().to_string(),
        ));
    }
    answers.sort();
    assert_eq!(
        answers,
        [("wamid.701".to_string(), 502, "UPSTREAM_ERROR".to_string()), ("wamid.702".to_string(), 404, "NOT_FOUND".to_string())],
        "a record past its cap is the platform failing; a refusal past 64 KiB is judged by its status"
    );
    let growth = peak_bytes(parley.pid()).saturating_sub(before);
    eprintln!(
        "{backend}: media record and error body of 1 GiB; peak memory grew {:.1} MiB; {:.1} MiB written before the connections dropped",
        growth as f64 / (1024.0 * 1024.0),
        graph.body_bytes_written() as f64 / (1024.0 * 1024.0)
    );
    assert!(growth < 50 * 1024 * 1024, "the process grew {growth} bytes");
}
