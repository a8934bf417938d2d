//! `parley webhooks`: stored platform webhooks that could not be processed, and retrying them.

use serde_json::json;

use super::Failure;
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn failed_webhooks(state: &AppState, limit: u32) -> Result<(), Failure> {
    let failed = state.webhooks.failed(limit).await?;
    let rows: Vec<_> = failed
        .iter()
        .map(|f| {
            let e = &f.event;
            let lines: Vec<_> = f
                .lines
                .iter()
                .map(|l| {
                    json!({"phone_number_id": l.phone_number_id, "channel_id": l.line.as_ref().map(|l| l.id.as_str()),
                    "agent": l.line.as_ref().map(|l| l.agent_id.as_str())})
                })
                .collect();
            json!({"id": e.id, "state": if e.failed_at.is_some() { "failed" } else { "retrying" },
            "received_at": timestamp(e.received_at), "attempts": e.attempts, "last_error": e.last_error,
            "failed_at": e.failed_at.map(timestamp), "next_attempt_at": e.next_attempt_at.map(timestamp), "lines": lines})
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

pub(super) async fn retry_webhooks(state: &AppState, id: Option<String>, all: bool) -> Result<(), Failure> {
    let retried = match id {
        Some(id) if !all => {
            state.webhooks.retry(&id).await.map_err(|e| format!("{e}: {id} (see `parley webhooks failed`)"))?;
            1
        }
        _ => state.webhooks.retry_all().await?,
    };
    println!("{}", json!({"retried": retried}));
    Ok(())
}
