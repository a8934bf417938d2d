//! `parley demo history`: months of past conversations for an agent, written through the
//! storage ports as the live paths write them (each message in its own transaction, moving its
//! activity, its first-response clock and the reports), so the inbox's reports have something
//! to show and a benchmark has a realistic load. No events are emitted: this is history, not
//! news for the agent's webhooks.

use std::sync::Arc;

use chrono::{TimeDelta, Utc};
use futures_util::{StreamExt, stream};
use parley_adapters_system::RandomIds;
use parley_domain::DomainError;
use parley_domain::model::*;
use parley_domain::ports::{IdSource, Repositories};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What to write: how many conversations, spread over how many days before now.
pub struct HistoryPlan {
    pub agent: AgentId,
    pub conversations: u32,
    pub days: u32,
    /// The same seed writes the same shapes (times, channels, who answers).
    pub seed: u64,
}

/// Conversations written at once: PostgreSQL takes them in parallel; SQLite queues them on its
/// one writer either way.
const IN_FLIGHT: usize = 8;

/// Writes the plan's conversations, calling `progress` after each; how many messages it wrote.
pub async fn write_history(repos: &Repositories, plan: &HistoryPlan, progress: impl Fn() + Send + Sync) -> Result<u64, DomainError> {
    if repos.agents.get(&plan.agent).await?.is_none() {
        return Err(DomainError::NotFound { resource: "agent", ids: vec![plan.agent.as_str().to_string()] });
    }
    let members: Vec<Assignee> =
        repos.members.list(&plan.agent).await?.into_iter().filter_map(|m| Assignee::new(m.id.as_str()).ok()).collect();
    let members = Arc::new(members);
    let now = Utc::now();
    let written = stream::iter(0..plan.conversations)
        .map(|n| {
            let (repos, members) = (repos.clone(), members.clone());
            let mut rng = StdRng::seed_from_u64(plan.seed.wrapping_mul(1_000_003).wrapping_add(u64::from(n)));
            let opened = now - TimeDelta::seconds(rng.random_range(3_600..i64::from(plan.days.max(1)) * 86_400));
            let shape = Shape::draw(&mut rng, n, &members, opened).until(now);
            let agent = plan.agent.clone();
            async move { shape.write(&repos, &agent).await }
        })
        .buffer_unordered(IN_FLIGHT)
        .map(|written| {
            progress();
            written
        })
        .collect::<Vec<_>>()
        .await;
    written.into_iter().sum()
}

/// One conversation's story: who writes, when the team answers and closes it.
struct Shape {
    channel: Channel,
    name: String,
    opened: Timestamp,
    /// Seconds after the opening of each further message, and whether it is the contact's.
    messages: Vec<(i64, bool)>,
    assignee: Option<Assignee>,
    /// Seconds after the opening of the close, if it was closed.
    closed_after: Option<i64>,
}

impl Shape {
    fn draw(rng: &mut StdRng, n: u32, members: &[Assignee], opened: Timestamp) -> Self {
        let channel = match rng.random_range(0..10) {
            0..7 => Channel::new(ChannelType::Whatsapp, &format!("5215{n:08}")),
            7..9 => Channel::new(ChannelType::Instagram, &format!("17841{n:010}")),
            _ => Channel::new(ChannelType::Email, &format!("shopper{n}@example.com")),
        }
        .expect("a valid generated address");
        // Most answers come within minutes, some within hours (a night, a weekend).
        let first_answer = if rng.random_bool(0.8) { rng.random_range(30..1_800) } else { rng.random_range(1_800..172_800) };
        let mut messages = vec![(first_answer, false)];
        if rng.random_bool(0.5) {
            messages.insert(0, (rng.random_range(5..first_answer.max(6)), true));
        }
        let mut at = first_answer;
        for _ in 0..rng.random_range(1..=2) {
            at += rng.random_range(60..3_600);
            messages.push((at, true));
            at += rng.random_range(30..1_800);
            messages.push((at, false));
        }
        let assignee = (!members.is_empty() && rng.random_bool(0.85)).then(|| members[rng.random_range(0..members.len())].clone());
        let closed_after = rng.random_bool(0.9).then(|| at + rng.random_range(300..86_400));
        Self { channel, name: format!("Shopper {n}"), opened, messages, assignee, closed_after }
    }

    /// Without what would happen after `now`: history stops at the present.
    fn until(mut self, now: Timestamp) -> Self {
        let seconds_left = (now - self.opened).num_seconds();
        self.messages.retain(|(after, _)| *after <= seconds_left);
        self.closed_after = self.closed_after.filter(|after| *after <= seconds_left);
        self
    }

    /// Writes it; how many messages it holds.
    async fn write(self, repos: &Repositories, agent: &AgentId) -> Result<u64, DomainError> {
        let ids = RandomIds;
        let contact = Contact {
            id: ContactId::new(ids.new_id(IdKind::Contact)),
            agent_id: agent.clone(),
            profile_name: ProfileName::new(&self.name)?,
            email: None,
            notes: None,
            channels: vec![self.channel.clone()],
            custom_attributes: CustomAttributes::default(),
            created_at: self.opened,
            updated_at: self.opened,
        };
        let mut activity = Activity {
            id: ActivityId::new(ids.new_id(IdKind::Activity)),
            agent_id: agent.clone(),
            contact_id: contact.id.clone(),
            status: ActivityStatus::Open,
            assigned_to: None,
            last_inbound_at: None,
            first_response: FirstResponse::default(),
            created_at: self.opened,
            updated_at: self.opened,
        };
        repos.contacts.insert_conversation(&contact, &activity, &[]).await?;
        let message = |after: i64, inbound: bool, text: &str| {
            let at = self.opened + TimeDelta::seconds(after);
            Message {
                id: MessageId::new(ids.new_id(IdKind::Message)),
                agent_id: agent.clone(),
                activity_id: activity.id.clone(),
                direction: if inbound { MessageDirection::Inbound } else { MessageDirection::Outbound },
                content: MessageContent::Text { body: text.into() },
                reply_to: None,
                platform_message_id: None,
                channel: self.channel.clone(),
                line_id: None,
                status: if inbound { MessageStatus::Received } else { MessageStatus::Delivered },
                error_message: None,
                template_id: None,
                campaign_key: None,
                cart_code: None,
                referral: None,
                pricing: None,
                created_at: at,
                sent_at: (!inbound).then_some(at),
                send_at: None,
                delivered_at: (!inbound).then_some(at),
                read_at: None,
                deleted_at: None,
                updated_at: at,
            }
        };
        let first = message(0, true, "Hi! Is this still in stock?");
        repos.messages.insert_marked(&first, None, ResponseMark::Opens { due: None }, &[]).await?;
        // The activity's writes below replace `last_inbound_at` with the one they carry.
        activity.last_inbound_at = Some(first.created_at);
        if let Some(assignee) = &self.assignee {
            activity.assigned_to = Some(assignee.clone());
            activity.updated_at = self.opened + TimeDelta::seconds(1);
            repos.activities.update(ActivityWrite::of(&activity), &[]).await?;
        }
        for &(after, inbound) in &self.messages {
            let (text, mark) =
                if inbound { ("One more question", ResponseMark::Opens { due: None }) } else { ("Happy to help!", ResponseMark::Answers) };
            let m = message(after, inbound, text);
            repos.messages.insert_marked(&m, None, mark, &[]).await?;
            if inbound {
                activity.last_inbound_at = Some(m.created_at);
            }
        }
        if let Some(after) = self.closed_after {
            activity.status = ActivityStatus::Closed;
            activity.updated_at = self.opened + TimeDelta::seconds(after);
            repos.activities.update(ActivityWrite::of(&activity), &[]).await?;
        }
        Ok(1 + self.messages.len() as u64)
    }
}

/// `parley demo history`: the plan written with its progress shown, then what was written.
pub(super) async fn history(repos: &Repositories, plan: &HistoryPlan) -> Result<(), super::Failure> {
    let started = std::time::Instant::now();
    let report = super::catalog::progress_reporter("writing", "conversations", plan.conversations as usize);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let messages = write_history(repos, plan, || report(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)).await?;
    let seconds = started.elapsed().as_secs_f64();
    tracing::info!(agent = %plan.agent, conversations = plan.conversations, messages, seconds, "history written");
    println!(
        "{}",
        serde_json::json!({"agent": plan.agent.as_str(), "conversations": plan.conversations, "messages": messages, "days": plan.days})
    );
    Ok(())
}
