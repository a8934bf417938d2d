use crate::error::CHECKED;
use std::sync::Arc;

use crate::error::Violations;
use crate::model::*;
use crate::ports::{Clock, IdSource, LineRepository, MessagingPlatform, TemplateRepository};
use crate::{DomainError, FieldError, StoreError};

/// The agent's lines (phone-number, business-account and mailbox lines), and the templates of
/// phone-number lines, kept in step with the platform.
pub struct LineService {
    lines: Arc<dyn LineRepository>,
    templates: Arc<dyn TemplateRepository>,
    platform: Arc<dyn MessagingPlatform>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: crate::services::EventMaker,
}

/// A mailbox's servers and login, as given, for [`LineService::add_email`].
#[derive(Debug, Clone, Copy)]
pub struct MailAccessInput<'a> {
    /// The outgoing mail server's URL (`scheme://host[:port]`, at most 2,048 bytes), where
    /// replies are sent; errors name it `smtp_url`.
    pub send_url: &'a str,
    /// The incoming mail server's URL, under the same rule, when the mailbox is polled; errors
    /// name it `imap_url`. `None`: mail arrives only through forwarders.
    pub receive_url: Option<&'a str>,
    /// The login for both servers: 1–320 characters once trimmed, no control character.
    pub username: &'a str,
    /// The login's password, as given (not trimmed): 1–1,024 bytes, no control character.
    pub password: &'a str,
}

/// How one line's template sync went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReport {
    /// The line synced.
    pub line: LineId,
    /// How many templates the platform listed for it, or why the sync failed (the error's
    /// message); a failed line keeps the templates it had.
    pub result: Result<usize, String>,
}

impl LineService {
    /// A service over these ports; `platform` lists templates, and events get their ids from
    /// `ids` and their payloads from `objects`.
    pub fn new(
        lines: Arc<dyn LineRepository>,
        templates: Arc<dyn TemplateRepository>,
        platform: Arc<dyn MessagingPlatform>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        Self { lines, templates, platform, clock, ids, events }
    }

    /// Adds a WhatsApp line. `access_token` `None` makes a sandbox line (no network).
    /// `Validation` names every bad id or token; `Conflict` (on `phone_number_id`) when the
    /// phone number is already a line, of this agent or another.
    pub async fn add(
        &self,
        agent: &AgentId,
        phone_number_id: &str,
        waba_id: &str,
        access_token: Option<&str>,
    ) -> Result<Line, DomainError> {
        let mut v = Violations::default();
        let phone = v.check(PhoneNumberId::new(phone_number_id));
        let waba = v.check(WabaId::new(waba_id));
        let access = match access_token {
            Some(t) => v.check(AccessToken::new(t)).map(LineAccess::Cloud),
            None => Some(LineAccess::Sandbox),
        };
        v.finish()?;
        let account = LineAccount::Whatsapp { phone_number_id: phone.expect(CHECKED), waba_id: waba.expect(CHECKED) };
        self.insert(agent, account, access.expect(CHECKED), "phone_number_id").await
    }

    /// Adds an Instagram line: the professional account `account_id`. `access_token` `None`
    /// makes a sandbox line (no network). `Validation` on a bad id or token; `Conflict` (on
    /// `account_id`) when the account is already a line, of this agent or another.
    pub async fn add_instagram(&self, agent: &AgentId, account_id: &str, access_token: Option<&str>) -> Result<Line, DomainError> {
        let mut v = Violations::default();
        let account = v.check(InstagramAccountId::new(account_id));
        let access = match access_token {
            Some(t) => v.check(AccessToken::new(t)).map(LineAccess::Cloud),
            None => Some(LineAccess::Sandbox),
        };
        v.finish()?;
        let account = LineAccount::Instagram { account_id: account.expect(CHECKED) };
        self.insert(agent, account, access.expect(CHECKED), "account_id").await
    }

    /// Adds an email line for the mailbox `address`; `access` `None` makes a sandbox line (no
    /// network). Returns the line and its inbound token, which is shown this once: only its
    /// digest is kept. `Validation` names every bad field; `Conflict` (on `address`) when the
    /// mailbox is already a line, of this agent or another.
    pub async fn add_email(
        &self,
        agent: &AgentId,
        address: &str,
        access: Option<MailAccessInput<'_>>,
    ) -> Result<(Line, String), DomainError> {
        let mut v = Violations::default();
        let address = v.check(Email::new(address).map_err(|e| FieldError::new("address", e.issue)));
        let access = access.map(|a| {
            let send_url = v.check(ServerAddress::new("smtp_url", a.send_url));
            let receive_url = a.receive_url.map(|url| v.check(ServerAddress::new("imap_url", url)));
            let password = v.check(Password::new(a.password));
            let username = a.username.trim();
            if username.is_empty() || username.len() > 320 || username.chars().any(char::is_control) {
                v.push(FieldError::new("username", "must be the mailbox's login (1-320 characters)"));
            }
            (send_url, receive_url, username.to_string(), password)
        });
        v.finish()?;
        let access = match access {
            Some((send_url, receive_url, username, password)) => LineAccess::Mail(MailAccess {
                send_url: send_url.expect(CHECKED),
                receive_url: receive_url.map(|u| u.expect(CHECKED)),
                username,
                password: password.expect(CHECKED),
            }),
            None => LineAccess::Sandbox,
        };
        let token = format!("{}{}", InboundTokenDigest::PREFIX, self.ids.secret(40));
        let account = LineAccount::Email { address: address.expect(CHECKED), inbound_token: InboundTokenDigest::of(&token) };
        let line = self.insert(agent, account, access, "address").await?;
        Ok((line, token))
    }

    /// The email line `id` when `token` is its inbound token; `None` for any other line or
    /// token (a caller learns nothing about which was wrong).
    pub async fn mailbox_for_token(&self, id: &LineId, token: &str) -> Result<Option<Line>, DomainError> {
        let line = self.lines.find(id).await?;
        Ok(line.filter(|line| matches!(&line.account, LineAccount::Email { inbound_token, .. } if inbound_token.matches(token))))
    }

    /// Stores a new line; `field` names the account id in a conflict.
    async fn insert(&self, agent: &AgentId, account: LineAccount, access: LineAccess, field: &str) -> Result<Line, DomainError> {
        let line = Line {
            id: LineId::new(self.ids.new_id(IdKind::Line)),
            agent_id: agent.clone(),
            account,
            access,
            created_at: self.clock.now(),
            pace: Pace::DEFAULT,
        };
        match self.lines.insert(&line).await {
            Ok(()) => Ok(line),
            Err(StoreError::Conflict(_)) => Err(DomainError::Conflict {
                message: format!("a {} line with this {field} already exists", line.channel_type().as_str()),
                details: vec![FieldError::new(field, "already registered")],
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// The agent's lines, oldest first.
    pub async fn list(&self, agent: &AgentId) -> Result<Vec<Line>, DomainError> {
        Ok(self.lines.list(agent).await?)
    }

    /// Sets the agent's line `id`'s pace to `messages_per_second` (1–1,000) and returns the
    /// line: `Validation` on `messages_per_second` otherwise, `NotFound` (`channel`) for a line
    /// the agent does not have.
    pub async fn set_pace(&self, agent: &AgentId, id: &LineId, messages_per_second: i64) -> Result<Line, DomainError> {
        let pace = Pace::new("messages_per_second", messages_per_second)?;
        if !self.lines.set_pace(agent, id, pace).await? {
            return Err(DomainError::not_found("channel"));
        }
        self.lines.get(agent, id).await?.ok_or(DomainError::not_found("channel"))
    }

    /// Replaces a line's templates with the platform's current list; each known template whose
    /// status the platform changed (approved, paused, rejected…) emits `template.updated`.
    pub async fn sync_line(&self, line: &Line) -> Result<usize, DomainError> {
        let definitions = self.platform.templates(line).await.map_err(|e| DomainError::Upstream(crate::Cause::new(e)))?;
        let known = self.templates.list_for_line(&line.agent_id, &line.id).await?;
        let now = self.clock.now();
        let events: Vec<Event> = definitions
            .iter()
            .filter_map(|d| {
                let before = known.iter().find(|t| t.definition.id == d.id && t.definition.status != d.status)?;
                let after = Template { definition: d.clone(), ..before.clone() };
                Some(self.events.make(&line.agent_id, EventType::TemplateUpdated, now, &after))
            })
            .collect();
        self.templates.replace_for_line(line, &definitions, now, &events).await?;
        Ok(definitions.len())
    }

    /// Syncs every WhatsApp line (the platform with templates) of one agent, or of every
    /// agent; one line's failure does not stop the rest.
    pub async fn sync(&self, agent: Option<&AgentId>) -> Result<Vec<SyncReport>, DomainError> {
        let mut lines = match agent {
            Some(a) => self.lines.list(a).await?,
            None => self.lines.all().await?,
        };
        lines.retain(|line| line.waba_id().is_some());
        let mut reports = Vec::with_capacity(lines.len());
        for line in lines {
            let result = self.sync_line(&line).await.map_err(|e| e.to_string());
            reports.push(SyncReport { line: line.id, result });
        }
        Ok(reports)
    }

    /// Every template of the agent's lines, whatever its status: by name, then language, then
    /// the line's age.
    pub async fn templates(&self, agent: &AgentId) -> Result<Vec<Template>, DomainError> {
        Ok(self.templates.list(agent).await?)
    }

    /// A template by the platform's id (when lines share a business account, the copy on the
    /// agent's oldest line); `NotFound` (`template`) when the agent has none with it.
    pub async fn template(&self, agent: &AgentId, id: &TemplateId) -> Result<Template, DomainError> {
        self.templates.get(agent, id).await?.ok_or(DomainError::not_found("template"))
    }

    /// The approved templates of one of the agent's lines; another agent's line is not found.
    pub async fn approved_templates(&self, agent: &AgentId, line: &LineId) -> Result<Vec<Template>, DomainError> {
        self.lines.get(agent, line).await?.ok_or(DomainError::not_found("channel"))?;
        Ok(self.templates.list_for_line(agent, line).await?.into_iter().filter(Template::is_approved).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockIdSource, MockLineRepository, MockMessagingPlatform, MockTemplateRepository, PlatformError};

    fn service(lines: MockLineRepository, templates: MockTemplateRepository, platform: MockMessagingPlatform) -> LineService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        LineService::new(Arc::new(lines), Arc::new(templates), Arc::new(platform), Arc::new(clock), Arc::new(ids))
    }

    fn line(id: &str) -> Line {
        Line {
            id: LineId::new(id),
            agent_id: AgentId::new("agt"),
            account: LineAccount::Whatsapp { phone_number_id: PhoneNumberId::new("1").unwrap(), waba_id: WabaId::new("2").unwrap() },
            access: LineAccess::Sandbox,
            created_at: chrono::Utc::now(),
            pace: Default::default(),
        }
    }

    #[tokio::test]
    async fn one_failing_line_does_not_stop_the_sync() {
        let mut lines = MockLineRepository::new();
        lines.expect_all().returning(|| Ok(vec![line("chn_a"), line("chn_b")]));
        let mut platform = MockMessagingPlatform::new();
        platform
            .expect_templates()
            .returning(|l| if l.id.as_str() == "chn_a" { Err(PlatformError::Unavailable { message: "down".into() }) } else { Ok(vec![]) });
        let mut templates = MockTemplateRepository::new();
        templates.expect_list_for_line().returning(|_, _| Ok(vec![]));
        templates.expect_replace_for_line().times(1).returning(|_, _, _, _| Ok(()));
        let reports = service(lines, templates, platform).sync(None).await.unwrap();
        assert!(reports[0].result.is_err());
        assert_eq!(reports[1].result, Ok(0));
    }

    #[tokio::test]
    async fn bad_line_settings_are_all_reported() {
        let err = service(MockLineRepository::new(), MockTemplateRepository::new(), MockMessagingPlatform::new())
            .add(&AgentId::new("agt"), "abc", "", Some("x"))
            .await
            .unwrap_err();
        assert!(matches!(err, DomainError::Validation(v) if v.len() == 3));
    }
}
