//! `parley agents` and `parley keys`: tenants and their API keys (the API has no admin endpoints).

use parley_domain::model::{AgentId, ApiKeyId, KeyKind};
use serde_json::json;

use super::Failure;
use super::args::{AgentsCommand, KeysCommand};
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn agents(state: &AppState, cmd: AgentsCommand) -> Result<(), Failure> {
    match cmd {
        AgentsCommand::Create { name } => {
            let agent = state.keys.create_agent(&name).await?;
            println!("{}", json!({"id": agent.id.as_str(), "name": agent.name.as_str()}));
        }
        AgentsCommand::List => {
            let agents = state.keys.agents().await?;
            let rows: Vec<_> = agents
                .iter()
                .map(|a| json!({"id": a.id.as_str(), "name": a.name.as_str(), "created_at": timestamp(a.created_at)}))
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}

pub(super) async fn keys(state: &AppState, cmd: KeysCommand) -> Result<(), Failure> {
    match cmd {
        KeysCommand::Create { agent, publishable } => {
            let kind = if publishable { KeyKind::Publishable } else { KeyKind::Secret };
            let issued = state.keys.issue_key(&AgentId::new(agent), kind).await?;
            println!("{}", json!({"id": issued.key.id.as_str(), "key": issued.plaintext}));
        }
        KeysCommand::Revoke { key_id } => {
            let key = state.keys.revoke(&ApiKeyId::new(key_id)).await?;
            println!("{}", json!({"id": key.id.as_str(), "revoked_at": key.revoked_at.map(timestamp)}));
        }
        KeysCommand::List { agent } => {
            let keys = state.keys.keys_of(&AgentId::new(agent)).await?;
            let rows: Vec<_> = keys
                .iter()
                .map(|k| {
                    json!({"id": k.id.as_str(), "kind": k.kind.as_str(), "ends_with": k.hint, "created_at": timestamp(k.created_at),
                        "revoked_at": k.revoked_at.map(timestamp)})
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}
