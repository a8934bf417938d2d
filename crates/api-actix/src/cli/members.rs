//! `parley members`: an agent's team, who sign in to the inbox.

use parley_domain::model::{AgentId, MemberId};
use parley_domain::services::NewMemberInput;
use serde_json::json;

use super::Failure;
use super::args::MembersCommand;
use crate::http::dto::MemberDto;
use crate::runtime::state::AppState;

pub(super) async fn members(state: &AppState, cmd: MembersCommand) -> Result<(), Failure> {
    match cmd {
        MembersCommand::Add { agent, email, name, role } => {
            let input = NewMemberInput { email: Some(email), name: Some(name), role: Some(role) };
            let added = state.members.add(&AgentId::new(agent), input).await?;
            let m = &added.member;
            println!(
                "{}",
                json!({"id": m.id.as_str(), "email": m.email.as_str(), "name": m.name.as_str(), "role": m.role.as_str(),
                    "password": added.one_time_password})
            );
            eprintln!(
                "Hand this one-time password to {}: it is shown only now, and must be changed at the first sign-in.",
                m.email.as_str()
            );
        }
        MembersCommand::List { agent } => {
            let members = state.members.list(&AgentId::new(agent)).await?;
            let rows: Vec<_> = members.iter().map(MemberDto::from).collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
        MembersCommand::Remove { agent, member_id } => {
            let id = MemberId::new(member_id);
            state.members.remove(&AgentId::new(agent), &id).await?;
            println!("{}", json!({"id": id.as_str(), "deleted": true}));
        }
    }
    Ok(())
}
