//! A contact's erasure (`ContactRepository::erase`, the right to erasure), as the databases do
//! it in one transaction: the contact and its channels; its activity with its tag links and its
//! messages; the files those messages name; the template sends addressed to it or naming one of
//! its messages; idempotent answers about its activity or recovering one of its messages; the
//! platforms' deliveries already processed (or given up) that hold one of its channel ids; and
//! events about it keep their ids and nothing else. Carts stay: they are the storefront's.

use parley_domain::model::*;

use crate::store::State;

/// The files a message's content names (email attachments, media kept by id).
fn files_of(content: &MessageContent) -> Vec<String> {
    let mut ids: Vec<String> = content.email().map(|e| e.attachments.iter().map(|a| a.id.clone()).collect()).unwrap_or_default();
    ids.extend(content.media().and_then(|m| m.id.clone()));
    ids
}

impl State {
    /// Erases the agent's contact `contact` and all it wrote; the caller checked it is the
    /// agent's.
    pub(crate) fn erase_contact(&mut self, agent: &AgentId, contact: &ContactId) {
        let Some(erased) = self.contacts.remove(contact) else { return };
        // Its addresses and its user ids: a send or a delivery may name it by either.
        let channel_ids: Vec<String> = erased
            .channels
            .iter()
            .flat_map(|c| std::iter::once(c.channel_id()).chain(c.user().user_id.as_ref().map(|u| u.as_str())))
            .map(str::to_string)
            .collect();
        // Events about the contact name it; those about its activity and messages, the activity.
        let mut named = vec![contact.as_str().to_string()];
        let activity = self.activity_of_contact(agent, contact).map(|a| a.activity.id.clone());
        if let Some(activity) = activity {
            let messages: Vec<Message> = self.timeline(agent, &activity).cloned().collect();
            let message_ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
            for file in messages.iter().flat_map(|m| files_of(&m.content)) {
                self.files.remove(&(agent.clone(), file));
            }
            self.executions.retain(|_, e| !(&e.agent_id == agent && e.message_id.as_deref().is_some_and(|id| message_ids.contains(&id))));
            self.idempotency.retain(|(owner, _), record| {
                let about = record.recovery_point.as_deref().is_some_and(|point| message_ids.contains(&point))
                    || record.response.as_ref().is_some_and(|answer| answer.body.contains(activity.as_str()));
                !(owner == agent && about)
            });
            for m in &messages {
                self.messages.remove(&m.id);
            }
            self.activities.remove(&activity);
            named.push(activity.as_str().to_string());
        }
        self.executions.retain(|_, e| !(&e.agent_id == agent && channel_ids.contains(&e.to)));
        // A delivery still to process stays: it may carry other contacts' messages.
        self.webhook_events.retain(|_, w| {
            let done = w.processed_at.is_some() || w.failed_at.is_some();
            !(done && channel_ids.iter().any(|id| w.body.contains(id.as_str())))
        });
        for event in self.events.values_mut().filter(|e| &e.agent_id == agent) {
            let stored = event.to_stored();
            if named.iter().any(|name| stored.contains(&format!("\"{name}\""))) {
                *event = event.erased();
            }
        }
    }
}
