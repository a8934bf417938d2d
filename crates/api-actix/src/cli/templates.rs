//! `parley templates sync`: every line's templates fetched from the platform again.

use parley_domain::model::AgentId;
use serde_json::json;

use super::Failure;
use crate::runtime::state::AppState;

pub(super) async fn sync_templates(state: &AppState, agent: Option<String>) -> Result<(), Failure> {
    let agent = agent.map(AgentId::new);
    let reports = state.lines.sync(agent.as_ref()).await?;
    let mut failed = 0;
    for r in &reports {
        match &r.result {
            Ok(n) => println!("{}", json!({"channel_id": r.line.as_str(), "templates": n})),
            Err(e) => {
                failed += 1;
                println!("{}", json!({"channel_id": r.line.as_str(), "error": e}));
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} line(s) could not be synced", reports.len()).into()) } else { Ok(()) }
}
