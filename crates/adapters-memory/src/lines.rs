//! `LineRepository`: the agents' lines, each platform account one line across agents (webhooks
//! find a line by its account).

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{LineRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

/// Oldest first, then by id.
fn oldest_first(lines: &mut [Line]) {
    lines.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
}

#[async_trait]
impl LineRepository for MemoryStore {
    async fn insert(&self, line: &Line) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&line.agent_id)?;
            let same_account = |l: &Line| l.channel_type() == line.channel_type() && l.account_id() == line.account_id();
            if s.lines.contains_key(&line.id) || s.lines.values().any(same_account) {
                return Err(conflict(format!("{} account {} is already a line", line.channel_type().as_str(), line.account_id())));
            }
            s.lines.insert(line.id.clone(), line.clone());
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &LineId) -> StoreResult<Option<Line>> {
        Ok(self.with(|s| s.lines.get(id).filter(|l| &l.agent_id == agent).cloned()))
    }

    async fn find(&self, id: &LineId) -> StoreResult<Option<Line>> {
        Ok(self.with(|s| s.lines.get(id).cloned()))
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Line>> {
        let mut lines: Vec<Line> = self.with(|s| s.lines.values().filter(|l| &l.agent_id == agent).cloned().collect());
        oldest_first(&mut lines);
        Ok(lines)
    }

    async fn all(&self) -> StoreResult<Vec<Line>> {
        let mut lines: Vec<Line> = self.with(|s| s.lines.values().cloned().collect());
        oldest_first(&mut lines);
        Ok(lines)
    }

    async fn find_by_account(&self, channel_type: ChannelType, account_id: &str) -> StoreResult<Option<Line>> {
        Ok(self.with(|s| s.lines.values().find(|l| l.channel_type() == channel_type && l.account_id() == account_id).cloned()))
    }

    async fn set_pace(&self, agent: &AgentId, id: &LineId, pace: Pace) -> StoreResult<bool> {
        Ok(self.with(|s| match s.lines.get_mut(id).filter(|l| &l.agent_id == agent) {
            Some(line) => {
                line.pace = pace;
                true
            }
            None => false,
        }))
    }
}
