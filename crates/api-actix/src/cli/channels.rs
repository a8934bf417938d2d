//! `parley channels`: a tenant's WhatsApp lines.

use parley_domain::model::{AgentId, LineAccess};
use serde_json::json;

use super::Failure;
use super::args::ChannelsCommand;
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn channels(state: &AppState, cmd: ChannelsCommand) -> Result<(), Failure> {
    match cmd {
        ChannelsCommand::Add { agent, phone_number_id, waba_id, access_token_env, sandbox } => {
            let token = match (&access_token_env, sandbox) {
                (Some(var), false) => Some(std::env::var(var).map_err(|_| format!("the environment variable {var} is not set"))?),
                _ => None,
            };
            let agent = AgentId::new(agent);
            state.keys.keys_of(&agent).await?; // fails clearly for an unknown agent
            let line = state.lines.add(&agent, &phone_number_id, &waba_id, token.as_deref()).await?;
            let synced = match state.lines.sync_line(&line).await {
                Ok(n) => json!(n),
                Err(e) => {
                    eprintln!("warning: the line was added but its templates could not be fetched yet: {e}");
                    json!(null)
                }
            };
            println!(
                "{}",
                json!({"id": line.id.as_str(), "phone_number_id": line.phone_number_id.as_str(), "waba_id": line.waba_id.as_str(),
                "sandbox": line.access == LineAccess::Sandbox, "templates": synced})
            );
        }
        ChannelsCommand::List { agent } => {
            let lines = state.lines.list(&AgentId::new(agent)).await?;
            let rows: Vec<_> = lines
                .iter()
                .map(|l| {
                    json!({"id": l.id.as_str(), "phone_number_id": l.phone_number_id.as_str(), "waba_id": l.waba_id.as_str(),
                    "sandbox": l.access == LineAccess::Sandbox, "created_at": timestamp(l.created_at)})
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}
