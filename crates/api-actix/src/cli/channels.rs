//! `parley channels`: a tenant's lines (WhatsApp numbers, Instagram accounts).

use parley_domain::model::{AgentId, Line, LineAccess, LineAccount};
use serde_json::{Value, json};

use super::Failure;
use super::args::{ChannelsCommand, LineType};
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn channels(state: &AppState, cmd: ChannelsCommand) -> Result<(), Failure> {
    match cmd {
        ChannelsCommand::Add { agent, kind, phone_number_id, waba_id, account_id, access_token_env, sandbox } => {
            let token = match (&access_token_env, sandbox) {
                (Some(var), false) => Some(std::env::var(var).map_err(|_| format!("the environment variable {var} is not set"))?),
                _ => None,
            };
            let agent = AgentId::new(agent);
            state.keys.keys_of(&agent).await?; // fails clearly for an unknown agent
            // clap requires each type's own flags (`required_if_eq`).
            let given = |flag: Option<String>| flag.unwrap_or_default();
            let line = match kind {
                LineType::Whatsapp => state.lines.add(&agent, &given(phone_number_id), &given(waba_id), token.as_deref()).await?,
                LineType::Instagram => state.lines.add_instagram(&agent, &given(account_id), token.as_deref()).await?,
            };
            let mut printed = line_json(&line);
            if line.waba_id().is_some() {
                let synced = match state.lines.sync_line(&line).await {
                    Ok(n) => json!(n),
                    Err(e) => {
                        eprintln!("warning: the line was added but its templates could not be fetched yet: {e}");
                        json!(null)
                    }
                };
                printed["templates"] = synced;
            }
            println!("{printed}");
        }
        ChannelsCommand::List { agent } => {
            let lines = state.lines.list(&AgentId::new(agent)).await?;
            let rows: Vec<_> = lines
                .iter()
                .map(|l| {
                    let mut row = line_json(l);
                    row["created_at"] = json!(timestamp(l.created_at));
                    row
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}

/// A line as the commands print it: its id, type, the platform's ids of it, and whether it is a
/// sandbox line (never its token).
fn line_json(line: &Line) -> Value {
    let mut row = json!({"id": line.id.as_str(), "type": line.channel_type().as_str()});
    match &line.account {
        LineAccount::Whatsapp { phone_number_id, waba_id } => {
            row["phone_number_id"] = json!(phone_number_id.as_str());
            row["waba_id"] = json!(waba_id.as_str());
        }
        LineAccount::Instagram { account_id } => row["account_id"] = json!(account_id.as_str()),
    }
    row["sandbox"] = json!(line.access == LineAccess::Sandbox);
    row
}
