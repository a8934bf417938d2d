//! The storage contract of agents, API keys, team members and their sessions (`AgentRepository`,
//! `ApiKeyRepository`, `MemberRepository`, `SessionRepository`, `SignInAttemptRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

/// Agents read back as inserted; an unknown id is `None`; `list` is oldest first, then by id.
pub async fn agents_round_trip(r: Repositories) {
    let a = agent(&r, "Shop A").await;
    let b = agent(&r, "Shop B").await;
    assert_eq!(r.agents.get(&a).await.unwrap().unwrap().name.as_str(), "Shop A");
    assert!(r.agents.get(&AgentId::new("agt_nope")).await.unwrap().is_none());
    let all: Vec<_> = r.agents.list().await.unwrap().into_iter().map(|x| x.id).collect();
    assert_eq!(all, [a, b], "agents list oldest first, then by id");
}

/// Key hashes are unique across agents (`Conflict`); keys are found by hash, revoked ones too;
/// an agent's keys list oldest first; revoking twice keeps the first `revoked_at`.
pub async fn keys_are_found_by_hash_and_revoked_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let key = |agent: &AgentId, secret: &str, at| ApiKey {
        id: ApiKeyId::new(id("key")),
        agent_id: agent.clone(),
        kind: KeyKind::Secret,
        hash: KeyHash::of(secret),
        hint: "abcd".into(),
        created_at: at,
        revoked_at: None,
    };
    let k1 = key(&a, "sk_one", t(1));
    let k2 = key(&a, "sk_two", t(2));
    r.keys.insert(&k1).await.unwrap();
    r.keys.insert(&k2).await.unwrap();
    r.keys.insert(&key(&b, "sk_three", t(3))).await.unwrap();
    assert_eq!(r.keys.insert(&key(&b, "sk_one", t(4))).await.map_err(|e| matches!(e, StoreError::Conflict(_))), Err(true));

    assert_eq!(r.keys.find_by_hash(&KeyHash::of("sk_one")).await.unwrap().unwrap(), k1);
    assert!(r.keys.find_by_hash(&KeyHash::of("sk_unknown")).await.unwrap().is_none());
    let listed: Vec<_> = r.keys.list_for_agent(&a).await.unwrap().into_iter().map(|k| k.id).collect();
    assert_eq!(listed, [k1.id.clone(), k2.id.clone()]);

    let revoked = r.keys.revoke(&k1.id, t(10)).await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(t(10)));
    let again = r.keys.revoke(&k1.id, t(20)).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(t(10)), "revoking twice keeps the first time");
    assert!(r.keys.revoke(&ApiKeyId::new("key_nope"), t(1)).await.unwrap().is_none());
}

pub(crate) fn member(agent: &AgentId, email: &str, name: &str, at: Timestamp) -> Member {
    Member {
        id: MemberId::new(id("usr")),
        agent_id: agent.clone(),
        email: Email::new(email).unwrap(),
        name: MemberName::new(name).unwrap(),
        role: MemberRole::Member,
        password: PasswordDigest::from_stored(format!("$argon2id$digest-of-{name}")),
        must_change_password: true,
        max_open: None,
        created_at: at,
        updated_at: at,
    }
}

fn session(m: &Member, token: &str, at: Timestamp) -> Session {
    Session {
        id: SessionId::new(id("ses")),
        agent_id: m.agent_id.clone(),
        member_id: m.id.clone(),
        token_hash: KeyHash::of(token),
        created_at: at,
        last_seen_at: at,
    }
}

/// Emails are unique per agent, not across agents (`Conflict` within one); members are got and
/// listed within their agent only, oldest first; found by email across agents; deleting one
/// ends its sessions and touches no other agent's member.
pub async fn members_are_unique_by_email_per_agent_and_stay_their_agents(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = member(&a, "ana@shop.example", "Ana", t(1));
    let bea = member(&a, "bea@shop.example", "Bea", t(2));
    let ana_at_b = member(&b, "ana@shop.example", "Ana B", t(3));
    for m in [&ana, &bea, &ana_at_b] {
        r.members.insert(m).await.unwrap();
    }
    let twin = member(&a, "ana@shop.example", "Other Ana", t(4));
    assert!(matches!(r.members.insert(&twin).await, Err(StoreError::Conflict(_))), "one email per agent");

    assert_eq!(r.members.get(&a, &ana.id).await.unwrap().unwrap(), ana, "read back whole");
    assert!(r.members.get(&b, &ana.id).await.unwrap().is_none(), "another agent's member is not found");
    let listed: Vec<_> = r.members.list(&a).await.unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(listed, [ana.id.clone(), bea.id.clone()]);
    let found: Vec<_> =
        r.members.find_by_email(&Email::new("ana@shop.example").unwrap()).await.unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(found, [ana.id.clone(), ana_at_b.id.clone()], "by email across agents, oldest first");

    r.sessions.insert(&session(&ana, "token-ana", t(5))).await.unwrap();
    assert!(!r.members.delete(&b, &ana.id).await.unwrap(), "another agent cannot delete it");
    assert!(r.members.delete(&a, &ana.id).await.unwrap());
    assert!(!r.members.delete(&a, &ana.id).await.unwrap(), "deleted once");
    assert!(r.sessions.find_by_hash(&KeyHash::of("token-ana")).await.unwrap().is_none(), "its sessions ended with it");
    assert!(r.members.get(&b, &ana_at_b.id).await.unwrap().is_some());
    r.members.insert(&member(&a, "ana@shop.example", "Ana again", t(6))).await.unwrap();
}

/// A session is found by its token's hash with its member as it now is; touched, it moves
/// `last_seen_at`; idle ones go together; a password change ends the member's other sessions.
pub async fn sessions_are_found_by_hash_and_end_with_a_password_change(r: Repositories) {
    let a = agent(&r, "A").await;
    let ana = member(&a, "ana@shop.example", "Ana", t(1));
    let bea = member(&a, "bea@shop.example", "Bea", t(1));
    r.members.insert(&ana).await.unwrap();
    r.members.insert(&bea).await.unwrap();
    let first = session(&ana, "first", t(10));
    let second = session(&ana, "second", t(20));
    let beas = session(&bea, "bea", t(10));
    for s in [&first, &second, &beas] {
        r.sessions.insert(s).await.unwrap();
    }
    let duplicate = Session { id: SessionId::new(id("ses")), ..first.clone() };
    assert!(matches!(r.sessions.insert(&duplicate).await, Err(StoreError::Conflict(_))), "token hashes are unique");

    let (found, who) = r.sessions.find_by_hash(&KeyHash::of("first")).await.unwrap().unwrap();
    assert_eq!((found, who), (first.clone(), ana.clone()));
    r.sessions.touch(&first.id, t(30)).await.unwrap();
    assert_eq!(r.sessions.find_by_hash(&KeyHash::of("first")).await.unwrap().unwrap().0.last_seen_at, t(30));

    let changed = Member {
        password: PasswordDigest::from_stored("$argon2id$new".into()),
        must_change_password: false,
        updated_at: t(40),
        ..ana.clone()
    };
    assert!(r.members.set_password(&changed, Some(&first.id)).await.unwrap());
    let (_, who) = r.sessions.find_by_hash(&KeyHash::of("first")).await.unwrap().unwrap();
    assert_eq!(who, changed, "the kept session sees the member as it now is");
    assert!(r.sessions.find_by_hash(&KeyHash::of("second")).await.unwrap().is_none(), "the member's other sessions ended");
    assert!(r.sessions.find_by_hash(&KeyHash::of("bea")).await.unwrap().is_some(), "another member's stay");
    let stranger = Member { agent_id: agent(&r, "B").await, ..changed.clone() };
    assert!(!r.members.set_password(&stranger, None).await.unwrap(), "another agent's member is unknown");

    assert_eq!(r.sessions.delete_idle(t(25)).await.unwrap(), 1, "only Bea's, last seen at 10");
    assert!(r.sessions.delete(&first.id).await.unwrap());
    assert!(!r.sessions.delete(&first.id).await.unwrap());
}

/// Marks are counted per email within the window asked; clearing forgets failures and keeps
/// locks; pruning forgets what is older.
pub async fn sign_in_attempts_count_per_email_within_the_window(r: Repositories) {
    let ana = Email::new("ana@shop.example").unwrap();
    let bea = Email::new("bea@shop.example").unwrap();
    for at in [1, 2, 3] {
        r.sign_in_attempts.record(&ana, SignInMark::Failed, t(at)).await.unwrap();
    }
    r.sign_in_attempts.record(&ana, SignInMark::Locked, t(4)).await.unwrap();
    r.sign_in_attempts.record(&bea, SignInMark::Failed, t(4)).await.unwrap();
    assert_eq!(r.sign_in_attempts.since(&ana, t(0)).await.unwrap(), SignInHistory { failures: 3, locked_at: Some(t(4)) });
    assert_eq!(r.sign_in_attempts.since(&ana, t(3)).await.unwrap(), SignInHistory { failures: 1, locked_at: Some(t(4)) });
    assert_eq!(r.sign_in_attempts.since(&ana, t(5)).await.unwrap(), SignInHistory::default());
    r.sign_in_attempts.clear_failures(&ana).await.unwrap();
    assert_eq!(r.sign_in_attempts.since(&ana, t(0)).await.unwrap(), SignInHistory { failures: 0, locked_at: Some(t(4)) });
    assert_eq!(r.sign_in_attempts.since(&bea, t(0)).await.unwrap().failures, 1, "another email's stay");
    assert_eq!(r.sign_in_attempts.prune(t(5)).await.unwrap(), 2);
    assert_eq!(r.sign_in_attempts.since(&ana, t(0)).await.unwrap(), SignInHistory::default());
}

/// An activity assigned to one of its agent's members shows it (`assignee`) in get and list; a
/// free-string assignee or another agent's member id shows none; `if_unassigned` refuses a
/// taken activity (`Conflict`, nothing written); a removed member's activities keep
/// `assigned_to` and show no assignee.
pub async fn assignees_show_their_member_and_are_taken_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = member(&a, "ana@shop.example", "Ana", t(1));
    let stranger = member(&b, "bob@shop.example", "Bob", t(1));
    r.members.insert(&ana).await.unwrap();
    r.members.insert(&stranger).await.unwrap();
    let act = conversation(&r, &a, "Lu", "5215550101", ActivityStatus::Open, t(2)).await;

    let mine = Activity { assigned_to: Some(Assignee::new(ana.id.as_str()).unwrap()), updated_at: t(3), ..act.clone() };
    assert!(r.activities.update(ActivityWrite { if_unassigned: true, ..ActivityWrite::of(&mine) }, &[]).await.unwrap());
    let shown = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(shown.assignee, Some(ana.to_ref()));
    let listed = r.activities.list(&a, &ActivityFilter::default(), page(10, 0)).await.unwrap();
    assert_eq!(listed.items[0].assignee, Some(ana.to_ref()), "lists show it too");

    let theirs = Activity { assigned_to: Some(Assignee::new("usr_someone_else").unwrap()), updated_at: t(4), ..act.clone() };
    let taken = r.activities.update(ActivityWrite { if_unassigned: true, ..ActivityWrite::of(&theirs) }, &[]).await;
    assert!(matches!(taken, Err(StoreError::Conflict(_))), "{taken:?}");
    assert_eq!(r.activities.get(&a, &act.id).await.unwrap().unwrap().activity.assigned_to, mine.assigned_to, "nothing written");

    let foreign = Activity { assigned_to: Some(Assignee::new(stranger.id.as_str()).unwrap()), updated_at: t(5), ..act.clone() };
    assert!(r.activities.update(ActivityWrite::of(&foreign), &[]).await.unwrap());
    assert_eq!(r.activities.get(&a, &act.id).await.unwrap().unwrap().assignee, None, "another agent's member is nobody here");
    let free = Activity { assigned_to: Some(Assignee::new("crm-user-7").unwrap()), updated_at: t(6), ..act.clone() };
    assert!(r.activities.update(ActivityWrite::of(&free), &[]).await.unwrap());
    assert_eq!(r.activities.get(&a, &act.id).await.unwrap().unwrap().assignee, None);

    let again = Activity { updated_at: t(7), ..mine.clone() };
    assert!(r.activities.update(ActivityWrite::of(&again), &[]).await.unwrap());
    assert!(r.members.delete(&a, &ana.id).await.unwrap());
    let after = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!((after.activity.assigned_to, after.assignee), (mine.assigned_to.clone(), None), "a removed member shows no more");
}
