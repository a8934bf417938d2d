//! `parley channels` (alias `parley lines`): a tenant's lines (WhatsApp numbers, Instagram
//! accounts, mailboxes). The command keeps the API's word: a line's id is its `channel_id`.

use parley_adapters_email::ServerUrl;
use parley_domain::model::{AgentId, Line, LineAccess, LineAccount, LineId};
use parley_domain::services::MailAccessInput;
use serde_json::{Value, json};

use super::Failure;
use super::args::{AddLine, LineType, LinesCommand};
use crate::http::dto::timestamp;
use crate::runtime::state::AppState;

pub(super) async fn lines(state: &AppState, cmd: LinesCommand) -> Result<(), Failure> {
    match cmd {
        LinesCommand::Add(add) => {
            let AddLine {
                agent,
                kind,
                phone_number_id,
                waba_id,
                account_id,
                address,
                smtp_url,
                imap_url,
                username,
                password_env,
                access_token_env,
                sandbox,
                platform: _,
            } = *add;
            let from_env = |var: &str| std::env::var(var).map_err(|_| format!("the environment variable {var} is not set"));
            let agent = AgentId::new(agent);
            state.keys.keys_of(&agent).await?; // fails clearly for an unknown agent
            // clap requires each type's own flags (`required_if_eq`).
            let given = |flag: Option<String>| flag.unwrap_or_default();
            let mut inbound_token = None;
            let line = match kind {
                LineType::Whatsapp | LineType::Instagram => {
                    if password_env.is_some() || smtp_url.is_some() || imap_url.is_some() || username.is_some() {
                        return Err("--smtp-url, --imap-url, --username and --password-env are for --type email".into());
                    }
                    let token = match (&access_token_env, sandbox) {
                        (Some(var), false) => Some(from_env(var)?),
                        (None, true) => None,
                        _ => return Err("give --access-token-env VAR, or --sandbox".into()),
                    };
                    match kind {
                        LineType::Whatsapp => state.lines.add(&agent, &given(phone_number_id), &given(waba_id), token.as_deref()).await?,
                        _ => state.lines.add_instagram(&agent, &given(account_id), token.as_deref()).await?,
                    }
                }
                LineType::Email => {
                    let address = given(address);
                    let (line, token) = match (smtp_url, password_env, sandbox) {
                        (None, None, true) if imap_url.is_none() => state.lines.add_email(&agent, &address, None).await?,
                        (Some(smtp), Some(var), false) => {
                            let password = from_env(&var)?;
                            ServerUrl::smtp(&smtp).map_err(|e| format!("--smtp-url: {e}"))?;
                            if let Some(imap) = &imap_url {
                                ServerUrl::imap(imap).map_err(|e| format!("--imap-url: {e}"))?;
                            }
                            let username = username.unwrap_or_else(|| address.trim().to_lowercase());
                            let access = MailAccessInput {
                                send_url: &smtp,
                                receive_url: imap_url.as_deref(),
                                username: &username,
                                password: &password,
                            };
                            state.lines.add_email(&agent, &address, Some(access)).await?
                        }
                        _ => return Err("give --smtp-url URL and --password-env VAR (and --imap-url URL to poll), or --sandbox".into()),
                    };
                    inbound_token = Some(token);
                    line
                }
            };
            let mut printed = line_json(&line);
            if let Some(token) = inbound_token {
                printed["inbound_token"] = json!(token);
            }
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
        LinesCommand::Pace { agent, line, messages_per_second } => {
            // The field's issue in words: `validation failed` alone would not say what to fix.
            let paced = state.lines.set_pace(&AgentId::new(agent), &LineId::new(line), messages_per_second).await;
            let line = paced.map_err(|e| e.in_words())?;
            println!("{}", line_json(&line));
        }
        LinesCommand::List { agent } => {
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
        LineAccount::Email { address, .. } => {
            row["address"] = json!(address.as_str());
            if let LineAccess::Mail(mail) = &line.access {
                row["smtp_url"] = json!(mail.send_url.as_str());
                row["imap_url"] = json!(mail.receive_url.as_ref().map(|u| u.as_str()));
                row["username"] = json!(mail.username);
            }
        }
    }
    row["sandbox"] = json!(line.access == LineAccess::Sandbox);
    row["messages_per_second"] = json!(line.pace.per_second());
    row
}
