//! `TemplateRepository`: the message templates synced from each line's business account.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{StoreResult, TemplateRepository};

use crate::store::{MemoryStore, State, conflict};

impl State {
    /// The agent's templates with the line each is on (a template whose line is not the agent's
    /// is not shown, as the databases' join with `lines` drops it).
    fn templates_of<'s>(&'s self, agent: &'s AgentId) -> impl Iterator<Item = (&'s Template, &'s Line)> + 's {
        self.templates
            .values()
            .filter(move |t| &t.agent_id == agent)
            .filter_map(move |t| self.lines.get(&t.line_id).filter(|l| &l.agent_id == agent).map(|l| (t, l)))
    }
}

/// A template's place among the agent's: name, language, then its line's age and id.
fn by_name_and_line<'t>((t, l): &(&'t Template, &'t Line)) -> (&'t str, &'t str, Timestamp, &'t LineId, &'t TemplateId) {
    (&t.definition.name, &t.definition.language, l.created_at, &l.id, &t.definition.id)
}

#[async_trait]
impl TemplateRepository for MemoryStore {
    async fn replace_for_line(&self, line: &Line, templates: &[TemplateDefinition], at: Timestamp, events: &[Event]) -> StoreResult<()> {
        self.with(|s| {
            // The line's row is the templates' parent.
            if !templates.is_empty() && !s.lines.contains_key(&line.id) {
                return Err(conflict(format!("no line {}", line.id.as_str())));
            }
            s.check_events(events)?;
            let key = |id: &TemplateId| (line.agent_id.clone(), line.id.clone(), id.clone());
            s.templates.retain(|(agent, line_id, id), _| {
                !(agent == &line.agent_id && line_id == &line.id && !templates.iter().any(|d| &d.id == id))
            });
            for definition in templates {
                // Known ones keep when Parley first saw them; the rest is the platform's, replaced.
                let created_at = s.templates.get(&key(&definition.id)).map_or(at, |known| known.created_at);
                let template =
                    Template { definition: definition.clone(), agent_id: line.agent_id.clone(), line_id: line.id.clone(), created_at };
                s.templates.insert(key(&definition.id), template);
            }
            s.emit_all(events);
            Ok(())
        })
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Template>> {
        Ok(self.with(|s| {
            let mut listed: Vec<(&Template, &Line)> = s.templates_of(agent).collect();
            listed.sort_by(|x, y| by_name_and_line(x).cmp(&by_name_and_line(y)));
            listed.into_iter().map(|(t, _)| t.clone()).collect()
        }))
    }

    async fn list_for_line(&self, agent: &AgentId, line: &LineId) -> StoreResult<Vec<Template>> {
        let mut listed: Vec<Template> =
            self.with(|s| s.templates.values().filter(|t| &t.agent_id == agent && &t.line_id == line).cloned().collect());
        listed.sort_by(|x, y| {
            let order = |t: &Template| (t.definition.name.clone(), t.definition.language.clone(), t.definition.id.clone());
            order(x).cmp(&order(y))
        });
        Ok(listed)
    }

    async fn get(&self, agent: &AgentId, id: &TemplateId) -> StoreResult<Option<Template>> {
        // When lines share a business account, the copy on the agent's oldest line.
        Ok(self.with(|s| {
            s.templates_of(agent)
                .filter(|(t, _)| &t.definition.id == id)
                .min_by(|(_, x), (_, y)| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)))
                .map(|(t, _)| t.clone())
        }))
    }
}
