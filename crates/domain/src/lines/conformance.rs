//! The storage contract of lines, templates and executions (`LineRepository`,
//! `TemplateRepository`, `ExecutionRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

async fn template_keys(r: &Repositories, agent: &AgentId) -> Vec<(String, String, LineId)> {
    r.templates.list(agent).await.unwrap().into_iter().map(|t| (t.definition.name, t.definition.language, t.line_id)).collect()
}

/// A platform account is one line across agents (`Conflict`); lines and their tokens read back
/// exactly, stay their agent's, list oldest first, and are found by channel type and account.
pub async fn lines_are_unique_by_phone_number_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let second = line(&a, "106540352242922", LineAccess::Sandbox, t(5));
    let first = line(&a, "106540352242921", cloud("EAAGsecret-token-1"), t(1));
    let theirs = line(&b, "106540352242923", cloud("EAAGsecret-token-2"), t(3));
    for l in [&second, &first, &theirs] {
        r.lines.insert(l).await.unwrap();
    }
    let clash = line(&b, "106540352242921", LineAccess::Sandbox, t(9));
    assert!(matches!(r.lines.insert(&clash).await, Err(StoreError::Conflict(_))), "phone number ids are unique across agents");

    assert_eq!(r.lines.get(&a, &first.id).await.unwrap().unwrap(), first, "the token round-trips");
    assert_eq!(r.lines.get(&a, &second.id).await.unwrap().unwrap().access, LineAccess::Sandbox);
    assert!(r.lines.get(&a, &theirs.id).await.unwrap().is_none(), "another agent's line is invisible");
    assert!(r.lines.get(&a, &LineId::new("chn_nope")).await.unwrap().is_none());
    let listed: Vec<_> = r.lines.list(&a).await.unwrap().into_iter().map(|l| l.id).collect();
    assert_eq!(listed, [first.id.clone(), second.id.clone()], "oldest first");
    let all: Vec<_> = r.lines.all().await.unwrap().into_iter().map(|l| l.id).collect();
    assert_eq!(all, [first.id.clone(), theirs.id.clone(), second.id.clone()], "every agent's lines, oldest first");
    assert_eq!(r.lines.find_by_account(ChannelType::Whatsapp, "106540352242923").await.unwrap().unwrap(), theirs);
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "999").await.unwrap().is_none());
    assert!(r.lines.find_by_account(ChannelType::Instagram, "106540352242923").await.unwrap().is_none(), "found by its platform too");

    let instagram = Line {
        account: LineAccount::Instagram { account_id: InstagramAccountId::new("17841400000000001").unwrap() },
        ..line(&a, "1", cloud("IGQsecret-token-3"), t(4))
    };
    r.lines.insert(&instagram).await.unwrap();
    assert_eq!(r.lines.get(&a, &instagram.id).await.unwrap().unwrap(), instagram, "an Instagram line round-trips");
    assert_eq!(r.lines.find_by_account(ChannelType::Instagram, "17841400000000001").await.unwrap().unwrap(), instagram);
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "17841400000000001").await.unwrap().is_none());
    let twice = Line { id: LineId::new(id("chn")), ..instagram.clone() };
    assert!(matches!(r.lines.insert(&twice).await, Err(StoreError::Conflict(_))), "an account is one line");
}

/// A mailbox line keeps its address, servers, login, password and token digest; a sandbox one
/// has none of the servers. Webhooks find it by its address.
pub async fn email_lines_round_trip_their_mailbox(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let email = |agent: &AgentId, address: &str, access: LineAccess| Line {
        account: LineAccount::Email { address: Email::new(address).unwrap(), inbound_token: InboundTokenDigest::of(address) },
        ..line(agent, "1", access, t(1))
    };
    let access = MailAccess {
        send_url: ServerAddress::new("smtp_url", "smtps://mail.example.com:465").unwrap(),
        receive_url: Some(ServerAddress::new("imap_url", "imaps://mail.example.com").unwrap()),
        username: "shop@example.com".into(),
        password: Password::new("pass word ñ").unwrap(),
    };
    let full = email(&a, "shop@example.com", LineAccess::Mail(access.clone()));
    let send_only = email(&a, "sales@example.com", LineAccess::Mail(MailAccess { receive_url: None, ..access }));
    let sandbox = email(&b, "hello@example.com", LineAccess::Sandbox);
    for l in [&full, &send_only, &sandbox] {
        r.lines.insert(l).await.unwrap();
        assert_eq!(r.lines.get(&l.agent_id, &l.id).await.unwrap().as_ref(), Some(l), "an email line round-trips");
    }
    assert_eq!(r.lines.find_by_account(ChannelType::Email, "hello@example.com").await.unwrap().as_ref(), Some(&sandbox));
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "hello@example.com").await.unwrap().is_none());
    assert_eq!(r.lines.find(&sandbox.id).await.unwrap().as_ref(), Some(&sandbox), "found by id alone, whoever's it is");
    assert!(r.lines.find(&LineId::new("chn_nope")).await.unwrap().is_none());
    let clash = email(&a, "hello@example.com", LineAccess::Sandbox);
    assert!(matches!(r.lines.insert(&clash).await, Err(StoreError::Conflict(_))), "a mailbox is one line");
}

/// Replacing a line's templates adds new ones, updates known ones (keeping `created_at`) and
/// removes missing ones, leaving other lines' templates alone.
pub async fn template_replace_for_line_upserts_and_removes_missing(r: Repositories) {
    let a = agent(&r, "A").await;
    let one = line(&a, "106540352242931", LineAccess::Sandbox, t(0));
    let two = line(&a, "106540352242932", LineAccess::Sandbox, t(1));
    r.lines.insert(&one).await.unwrap();
    r.lines.insert(&two).await.unwrap();

    let welcome = definition("111", "welcome", "en_US", "Hi {{1}}");
    let promo = TemplateDefinition { parameter_format: ParameterFormat::Named, ..definition("222", "promo", "es_MX", "Oferta {{oferta}}") };
    let gone = definition("333", "gone", "en_US", "Bye");
    r.templates.replace_for_line(&one, &[welcome.clone(), promo.clone(), gone.clone()], t(10), &[]).await.unwrap();
    r.templates.replace_for_line(&two, std::slice::from_ref(&gone), t(10), &[]).await.unwrap();
    let stored = r.templates.get(&a, &TemplateId::new("111")).await.unwrap().unwrap();
    assert_eq!(stored, Template { definition: welcome.clone(), agent_id: a.clone(), line_id: one.id.clone(), created_at: t(10) });
    let named = r.templates.get(&a, &TemplateId::new("222")).await.unwrap().unwrap();
    assert_eq!(named.definition, promo, "the parameter format and every button field round-trip");

    let mut renewed = welcome.clone();
    renewed.status = "PAUSED".into();
    renewed.components.truncate(1);
    let added = definition("444", "added", "en_US", "New");
    r.templates.replace_for_line(&one, &[renewed.clone(), added.clone(), promo.clone()], t(20), &[]).await.unwrap();

    let on_one = r.templates.list_for_line(&a, &one.id).await.unwrap();
    let summary: Vec<_> = on_one.iter().map(|t| (t.definition.id.as_str(), t.created_at)).collect();
    assert_eq!(summary, [("444", t(20)), ("222", t(10)), ("111", t(10))], "by name; known ones keep created_at; missing ones go");
    assert_eq!(on_one[2].definition, renewed, "known ones take the platform's current definition");
    let on_two: Vec<_> = r.templates.list_for_line(&a, &two.id).await.unwrap().into_iter().map(|t| t.definition.id).collect();
    assert_eq!(on_two, [TemplateId::new("333")], "other lines are untouched");

    r.templates.replace_for_line(&one, &[], t(30), &[]).await.unwrap();
    assert!(r.templates.list_for_line(&a, &one.id).await.unwrap().is_empty(), "an empty list clears the line");
    assert_eq!(r.templates.list(&a).await.unwrap().len(), 1);
}

/// Templates list by name, language, then the line's age; a template shared by lines is got
/// from the agent's oldest line; another agent's templates are invisible.
pub async fn templates_are_ordered_scoped_and_got_from_the_oldest_line(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    // Created out of order: `old` is the agent's oldest line though inserted last.
    let young = line(&a, "106540352242941", LineAccess::Sandbox, t(5));
    let old = line(&a, "106540352242942", LineAccess::Sandbox, t(1));
    let theirs = line(&b, "106540352242943", LineAccess::Sandbox, t(0));
    for l in [&young, &old, &theirs] {
        r.lines.insert(l).await.unwrap();
    }
    let shared =
        [definition("500", "order", "es_MX", "x"), definition("501", "order", "en_US", "x"), definition("502", "alert", "en_US", "x")];
    r.templates.replace_for_line(&young, &shared, t(2), &[]).await.unwrap();
    r.templates.replace_for_line(&old, &shared[..2], t(3), &[]).await.unwrap();
    r.templates
        .replace_for_line(&theirs, &[definition("999", "aaa", "en_US", "x"), definition("500", "order", "es_MX", "x")], t(4), &[])
        .await
        .unwrap();

    let keys = template_keys(&r, &a).await;
    let expected = [
        ("alert", "en_US", &young.id),
        ("order", "en_US", &old.id),
        ("order", "en_US", &young.id),
        ("order", "es_MX", &old.id),
        ("order", "es_MX", &young.id),
    ];
    assert_eq!(keys, expected.map(|(n, l, id)| (n.to_string(), l.to_string(), id.clone())), "name, language, then the line's age");
    let names: Vec<_> = r.templates.list_for_line(&a, &young.id).await.unwrap().into_iter().map(|t| t.definition.id).collect();
    assert_eq!(names, ["502", "501", "500"].map(TemplateId::new), "one line's: by name, then language");

    assert_eq!(r.templates.get(&a, &TemplateId::new("500")).await.unwrap().unwrap().line_id, old.id, "the copy on the oldest line");
    assert_eq!(r.templates.get(&a, &TemplateId::new("502")).await.unwrap().unwrap().line_id, young.id);
    assert_eq!(r.templates.get(&b, &TemplateId::new("500")).await.unwrap().unwrap().line_id, theirs.id);
    assert!(r.templates.get(&a, &TemplateId::new("999")).await.unwrap().is_none(), "another agent's template is invisible");
    assert!(r.templates.list_for_line(&a, &theirs.id).await.unwrap().is_empty(), "and so are its lines' templates");
    assert_eq!(template_keys(&r, &b).await.len(), 2);
}

/// Execution platform message ids are unique per agent (absent ones never clash), and updates
/// are a compare-and-set on the stored status, scoped by agent.
pub async fn execution_updates_are_compare_and_set(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let sent = execution(&a, "spring:2026", Some("pm.A1"), t(1));
    r.executions.insert(&sent).await.unwrap();
    let dup = execution(&a, "other", Some("pm.A1"), t(1));
    assert!(matches!(r.executions.insert(&dup).await, Err(StoreError::Conflict(_))), "message ids are unique per agent");
    r.executions.insert(&execution(&b, "spring:2026", Some("pm.A1"), t(1))).await.expect("another agent may report the same id");
    let refused =
        Execution { status: ExecutionStatus::Failed, error_message: Some("131026".into()), ..execution(&a, "spring:2026", None, t(1)) };
    let refused_too = execution(&a, "spring:2026", None, t(1));
    r.executions.insert(&refused).await.unwrap();
    r.executions.insert(&refused_too).await.expect("refused sends have no message id, and never clash");

    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), sent);
    assert!(r.executions.find_by_message(&a, "pm.nope").await.unwrap().is_none());

    let mut delivered = sent.clone();
    delivered.status = ExecutionStatus::Delivered;
    delivered.delivered_at = Some(t(2));
    delivered.updated_at = t(3);
    assert!(r.executions.update(&delivered, ExecutionStatus::Sent, &[]).await.unwrap());
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered);

    let mut stale = sent.clone();
    stale.status = ExecutionStatus::Failed;
    stale.error_message = Some("late".into());
    stale.updated_at = t(9);
    assert!(!r.executions.update(&stale, ExecutionStatus::Sent, &[]).await.unwrap(), "the stored status is no longer the expected one");
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered, "and nothing changed");

    let foreign = Execution { agent_id: b.clone(), ..delivered.clone() };
    let mut read = foreign.clone();
    read.status = ExecutionStatus::Read;
    assert!(!r.executions.update(&read, ExecutionStatus::Delivered, &[]).await.unwrap(), "update is scoped by agent");
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered);
    assert_eq!(r.executions.find_by_message(&b, "pm.A1").await.unwrap().unwrap().status, ExecutionStatus::Sent);
}

/// A campaign key's executions list by `updated_at` then id, strictly after `since`, at most
/// `limit`, per agent; `key_exists` is scoped by agent too.
pub async fn executions_list_changes_since_in_order(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let key = CampaignKey::new("spring:2026").unwrap();
    let mut made = Vec::new();
    for i in 0..6 {
        // Pairs share an update time, so the id tie-break decides their order.
        let e = execution(&a, key.as_str(), Some(&format!("pm.L{i}")), t(i / 2));
        r.executions.insert(&e).await.unwrap();
        made.push(e);
    }
    r.executions.insert(&execution(&a, "other-key", Some("pm.O"), t(1))).await.unwrap();
    r.executions.insert(&execution(&b, key.as_str(), Some("pm.B"), t(1))).await.unwrap();
    made.sort_by(|x, y| (x.updated_at, x.id.as_str()).cmp(&(y.updated_at, y.id.as_str())));
    let ids = |v: Vec<Execution>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let expected: Vec<_> = made.iter().map(|e| e.id.clone()).collect();

    assert_eq!(ids(r.executions.list(&a, &key, None, 100).await.unwrap()), expected, "by updated_at, then id; one key, one agent");
    assert_eq!(ids(r.executions.list(&a, &key, None, 3).await.unwrap()), expected[..3]);
    assert_eq!(ids(r.executions.list(&a, &key, Some(t(1)), 100).await.unwrap()), expected[4..], "since is strict");
    assert!(r.executions.list(&a, &key, Some(t(2)), 100).await.unwrap().is_empty());

    let mut moved = made[0].clone();
    moved.status = ExecutionStatus::Read;
    moved.read_at = Some(t(7));
    moved.updated_at = t(7);
    assert!(r.executions.update(&moved, ExecutionStatus::Sent, &[]).await.unwrap());
    assert_eq!(ids(r.executions.list(&a, &key, Some(t(2)), 100).await.unwrap()), [moved.id.clone()], "an update makes it new again");

    assert!(r.executions.key_exists(&a, &key).await.unwrap());
    assert!(r.executions.key_exists(&a, &CampaignKey::new("other-key").unwrap()).await.unwrap());
    assert!(!r.executions.key_exists(&b, &CampaignKey::new("other-key").unwrap()).await.unwrap(), "keys are scoped by agent");
    assert!(!r.executions.key_exists(&a, &CampaignKey::new("never").unwrap()).await.unwrap());
}
