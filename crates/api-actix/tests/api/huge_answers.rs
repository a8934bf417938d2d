//! A real `parley serve` whose event receivers answer with 1 GiB bodies (with a length, chunked,
//! and as an error) stays small: the answer's status is read, at most 64 KiB of its body, and
//! the connection dropped (issue 39's probe: one such receiver took the process from 93 MB to
//! 2,346 MB, three at once to 5.4 GB).

use std::time::{Duration, Instant};

use parley_adapters_diesel::testing::TestDb;
use parley_adapters_http::testing::{Answer, Framing, GIB, HugeServer};
use parley_api::runtime::config::ApiConfig;
use parley_api::runtime::state::AppState;
use parley_domain::services::{NewContactInput, NewEndpointInput, WebhookPageQuery};

use crate::common::server::{ParleyServer, free_port};

backend_tests!(receivers_answering_a_gibibyte_do_not_grow_the_process);

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
    let state = AppState::with_system(db.store.repositories()).with_config(config);
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
