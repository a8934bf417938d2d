//! The platform's notices about a business account's templates (a review status, a category),
//! applied at once to the stored copy on every line of that account, each change a
//! `template.updated` event: no wait for the next template sync.

use std::sync::Arc;

use crate::DomainError;
use crate::model::*;
use crate::ports::*;

/// Applies template notices to the stored templates.
pub(crate) struct TemplateNotices {
    lines: Arc<dyn LineRepository>,
    templates: Arc<dyn TemplateRepository>,
    clock: Arc<dyn Clock>,
    maker: crate::services::EventMaker,
}

impl TemplateNotices {
    pub(crate) fn new(
        lines: Arc<dyn LineRepository>,
        templates: Arc<dyn TemplateRepository>,
        clock: Arc<dyn Clock>,
        maker: crate::services::EventMaker,
    ) -> Self {
        Self { lines, templates, clock, maker }
    }

    /// Applies `notices` about the templates of business account `account` to each line of
    /// that account (of any agent). A template no line has yet is left to the next sync; a
    /// notice that changes nothing writes nothing.
    pub(crate) async fn apply(&self, account: &str, notices: &[TemplateNotice]) -> Result<(), DomainError> {
        // Notices are rare and lines few: every line is read, those of the account kept.
        let lines: Vec<Line> = self.lines.all().await?.into_iter().filter(|l| l.waba_id().is_some_and(|w| w.as_str() == account)).collect();
        for line in lines {
            let stored = self.templates.list_for_line(&line.agent_id, &line.id).await?;
            let mut definitions: Vec<TemplateDefinition> = stored.iter().map(|t| t.definition.clone()).collect();
            let now = self.clock.now();
            let mut events = Vec::new();
            for notice in notices {
                let Some(at) = definitions.iter().position(|d| d.id == notice.template_id) else { continue };
                let Some(changed) = notice.change.applied_to(&definitions[at]) else { continue };
                let before = stored.iter().find(|t| t.definition.id == notice.template_id).expect("listed");
                let after = Template { definition: changed.clone(), ..before.clone() };
                events.push(self.maker.make(&line.agent_id, EventType::TemplateUpdated, now, &after));
                definitions[at] = changed;
            }
            if !events.is_empty() {
                self.templates.replace_for_line(&line, &definitions, now, &events).await?;
            }
        }
        Ok(())
    }
}
