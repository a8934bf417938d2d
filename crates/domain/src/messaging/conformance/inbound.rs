//! The contract of what a webhook delivery's processing sets aside
//! ([`InboundDeliveryRepository::mark_set_aside`](crate::ports::InboundDeliveryRepository::mark_set_aside),
//! `failed`, `retry`), and of a value a backend cannot hold: refused, never a failure that may pass.

use super::{agent, conversation, id, page, phone, t, webhook_event};
use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

fn part(kind: SetAsideKind, position: u32, platform_id: &str, reason: &str) -> SetAside {
    SetAside {
        kind,
        position,
        platform_id: Some(platform_id.into()),
        from: (kind == SetAsideKind::Message).then(|| "14155550100".into()),
        reason: reason.into(),
    }
}

/// A delivery processed with parts set aside keeps them, in order, is listed for the operator
/// until a processing sets nothing aside, and is the one kind of processed delivery a retry
/// puts back (the given-up ones aside).
pub async fn set_aside_parts_are_kept_listed_and_retried(r: Repositories) {
    let ids = |v: Vec<InboundDelivery>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let parts = vec![
        part(SetAsideKind::Message, 2, "pm.\u{FFFD}2", "the message id holds a NUL"),
        part(SetAsideKind::Status, 1, "pm.s1", "value: cannot be stored: \"quoted\" \\ reason"),
    ];
    // Processed on receipt with a part set aside, stored that way at once.
    let on_receipt = InboundDelivery {
        processed_at: Some(t(2)),
        next_attempt_at: None,
        set_aside: parts[..1].to_vec(),
        ..webhook_event(r#"{"n":1}"#, t(1))
    };
    let claimed = webhook_event(r#"{"n":2}"#, t(3));
    let whole = webhook_event(r#"{"n":3}"#, t(4));
    for e in [&on_receipt, &claimed, &whole] {
        r.inbound.insert(e).await.unwrap();
    }
    r.inbound.mark_set_aside(&claimed.id, &parts, t(5)).await.unwrap();
    r.inbound.mark_processed(std::slice::from_ref(&whole.id), t(6)).await.unwrap();

    let failed = r.inbound.failed(10).await.unwrap();
    assert_eq!(ids(failed.clone()), [on_receipt.id.clone(), claimed.id.clone()], "those with parts set aside, oldest first");
    assert_eq!(failed[0].set_aside, parts[..1], "kept whole");
    assert_eq!(failed[1].set_aside, parts, "kept whole and in order");
    assert_eq!((failed[1].processed_at, failed[1].next_attempt_at, failed[1].failed_at), (Some(t(5)), None, None), "processed");
    assert_eq!(r.inbound.backlog().await.unwrap(), 0, "processed: no backlog");
    assert_eq!(r.inbound.given_up().await.unwrap(), 0, "not given up");
    assert!(r.inbound.due(t(1000), 10).await.unwrap().is_empty(), "never due on its own");

    assert!(!r.inbound.retry(&whole.id, t(10)).await.unwrap(), "a delivery processed whole is not retried");
    assert!(r.inbound.retry(&claimed.id, t(10)).await.unwrap(), "one with parts set aside is");
    let due = r.inbound.due(t(10), 10).await.unwrap();
    assert_eq!(ids(due.clone()), std::slice::from_ref(&claimed.id));
    assert_eq!((due[0].processed_at, due[0].attempts, &due[0].set_aside), (None, 0, &parts), "due, its parts kept until processed again");
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), [on_receipt.id.clone(), claimed.id.clone()], "still listed meanwhile");
    assert!(!r.inbound.retry(&claimed.id, t(11)).await.unwrap(), "already back");

    // Processed again with nothing set aside: no longer listed, no longer retried.
    r.inbound.mark_processed(std::slice::from_ref(&claimed.id), t(12)).await.unwrap();
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), std::slice::from_ref(&on_receipt.id));
    assert!(!r.inbound.retry(&claimed.id, t(13)).await.unwrap());
    // Nothing set aside is no list at all.
    r.inbound.mark_set_aside(&on_receipt.id, &[], t(14)).await.unwrap();
    assert!(r.inbound.failed(10).await.unwrap().is_empty());
    assert_eq!(r.inbound.retry_all(t(15)).await.unwrap(), 0, "--all retries the given-up ones only");
}

/// A value a backend cannot hold (PostgreSQL's text holds no NUL; SQLite's does) is either
/// stored exactly or refused with [`StoreError::Refused`]: never a failure that may pass
/// (`Unavailable`, which would retry it for an hour) nor a bug (`Internal`), and never half
/// stored. The domain makes inbound text storable before it gets here (`storable`); this is
/// the classification its webhook processing relies on for anything that still gets through.
pub async fn values_a_backend_cannot_hold_are_refused_never_a_failure_that_may_pass(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let message = |body: &str, platform_id: &str, at: i64| Message {
        id: MessageId::new(id("msg")),
        agent_id: a.clone(),
        activity_id: act.id.clone(),
        direction: MessageDirection::Inbound,
        content: MessageContent::Text { body: body.into() },
        reply_to: None,
        platform_message_id: Some(platform_id.into()),
        channel: phone("5215550001"),
        line_id: None,
        status: MessageStatus::Received,
        error_message: None,
        template_id: None,
        campaign_key: None,
        cart_code: None,
        referral: None,
        pricing: None,
        created_at: t(at),
        sent_at: None,
        send_at: None,
        delivered_at: None,
        read_at: None,
        deleted_at: None,
        updated_at: t(at),
    };
    let bad = message("a\0b", "pm.nul", 10);
    let stored = match r.messages.insert(&bad, &[]).await {
        Ok(stored) => {
            assert!(stored);
            assert_eq!(r.messages.get(&a, &act.id, &bad.id).await.unwrap().as_ref(), Some(&bad), "stored exactly");
            true
        }
        Err(StoreError::Refused(_)) => {
            assert!(r.messages.get(&a, &act.id, &bad.id).await.unwrap().is_none(), "nothing half stored");
            false
        }
        Err(other) => panic!("a value the backend cannot hold must be Refused, not {other:?}"),
    };
    let good = message("fine", "pm.fine", 11);
    assert!(r.messages.insert(&good, &[]).await.unwrap(), "the next write goes through");
    let page = r.messages.list(&a, &act.id, MessageFilter::default(), page(10, 0)).await.unwrap();
    assert_eq!(page.total, 1 + u64::from(stored), "the kept count agrees with what was stored");
}
