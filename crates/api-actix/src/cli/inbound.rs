//! `parley inbound` (older name `parley webhooks`): stored inbound deliveries (platform webhooks,
//! mail) that could not be processed, or were processed with parts set aside, and retrying them.

use serde_json::json;

use super::Failure;
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn failed(state: &AppState, limit: u32) -> Result<(), Failure> {
    let failed = state.inbound.failed(limit).await?;
    let rows: Vec<_> = failed
        .iter()
        .map(|f| {
            let e = &f.event;
            let lines: Vec<_> = f
                .lines
                .iter()
                .map(|l| {
                    json!({"platform": e.platform.as_str(), "account_id": l.account_id, "channel_id": l.line.as_ref().map(|l| l.id.as_str()),
                    "agent": l.line.as_ref().map(|l| l.agent_id.as_str())})
                })
                .collect();
            let set_aside: Vec<_> = e
                .set_aside
                .iter()
                .map(|a| {
                    json!({"kind": a.kind.as_str(), "position": a.position, "platform_id": a.platform_id, "from": a.from,
                    "reason": a.reason})
                })
                .collect();
            let state = match (e.failed_at, e.processed_at) {
                (Some(_), _) => "failed",
                (None, Some(_)) => "processed",
                (None, None) => "retrying",
            };
            json!({"id": e.id, "state": state,
            "received_at": timestamp(e.received_at), "attempts": e.attempts, "last_error": e.last_error,
            "failed_at": e.failed_at.map(timestamp), "next_attempt_at": e.next_attempt_at.map(timestamp),
            "processed_at": e.processed_at.map(timestamp), "lines": lines, "set_aside": set_aside})
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

pub(super) async fn retry(state: &AppState, id: Option<String>, all: bool) -> Result<(), Failure> {
    let retried = match id {
        Some(id) if !all => {
            state.inbound.retry(&id).await.map_err(|e| format!("{e}: {id} (see `parley inbound failed`)"))?;
            1
        }
        _ => state.inbound.retry_all().await?,
    };
    println!("{}", json!({"retried": retried}));
    Ok(())
}
