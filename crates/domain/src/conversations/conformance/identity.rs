//! Who a WhatsApp contact is beside their address (`ContactRepository` with business-scoped user
//! ids): found by user id before address, one contact per user id of an agent, and a channel
//! that learns a phone, a user id or a username with everything that shows or searches it.

use super::{activity, agent, contact, list_ids, page, phone, t};
use crate::StoreError;
use crate::events::conformance::{event, listed_types};
use crate::messaging::conformance::messages::message;
use crate::model::*;
use crate::ports::Repositories;

/// A WhatsApp channel on `address` (a phone or a user id) knowing `user_id` and `username`.
fn whatsapp(address: &str, user_id: Option<&str>, username: Option<&str>) -> Channel {
    Channel::new(ChannelType::Whatsapp, address).unwrap().with_user(PlatformUser::from_platform(user_id, None, username).unwrap())
}

fn search(fragment: &str) -> ActivityFilter {
    ActivityFilter { search: Some(ActivitySearch::new(fragment).unwrap()), ..Default::default() }
}

async fn contacts_found(r: &Repositories, agent: &AgentId, fragment: &str) -> Vec<ContactId> {
    let filter = ContactFilter { search: Some(ActivitySearch::new(fragment).unwrap()), ..Default::default() };
    r.contacts.list(agent, &filter, page(10, 0)).await.unwrap().items.into_iter().map(|c| c.id).collect()
}

/// `find_conversation` with a channel that knows its user id finds the contact holding that id
/// first (whatever its address), then the one on the address; never another agent's.
pub async fn contacts_are_found_by_user_id_first_then_address(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = contact(&a, "Ana", whatsapp("5215550001", Some("MX.1"), Some("ana")), t(0));
    r.contacts.insert(&ana, &[]).await.unwrap();
    let bea = contact(&a, "Bea", phone("5215550002"), t(1));
    r.contacts.insert(&bea, &[]).await.unwrap();
    let hidden = contact(&a, "Hidden", whatsapp("MX.3", None, Some("hid")), t(2));
    r.contacts.insert(&hidden, &[]).await.unwrap();

    let found = |channel: Channel| {
        let r = r.clone();
        let a = a.clone();
        async move { r.contacts.find_conversation(&a, &channel).await.unwrap().map(|(c, _)| c.id) }
    };
    assert_eq!(found(whatsapp("MX.1", None, None)).await, Some(ana.id.clone()), "by user id alone");
    assert_eq!(found(whatsapp("5215550002", Some("MX.1"), None)).await, Some(ana.id.clone()), "the user id before the address");
    assert_eq!(found(whatsapp("5215550002", Some("MX.9"), None)).await, Some(bea.id.clone()), "an unknown user id: the address");
    assert_eq!(found(whatsapp("5215550009", Some("MX.3"), None)).await, Some(hidden.id.clone()));
    assert_eq!(found(whatsapp("MX.9", None, None)).await, None);
    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), ana, "read back with what it knows of its user");
    assert!(r.contacts.find_conversation(&b, &whatsapp("MX.1", None, None)).await.unwrap().is_none(), "a user id is its agent's");
}

/// A user id belongs to one contact of an agent: a second contact with it is a `Conflict`
/// (which is what makes two first messages of one new user racing make one contact); another
/// agent may have a contact with the same id.
pub async fn a_user_id_belongs_to_one_contact_of_the_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let first = contact(&a, "Ana", whatsapp("MX.1", None, None), t(0));
    let opened = activity(&a, &first.id, ActivityStatus::Open, t(0));
    let twin = contact(&a, "Ana", whatsapp("5215550001", Some("MX.1"), None), t(0));
    let twins = activity(&a, &twin.id, ActivityStatus::Open, t(0));
    // Both at once, as two deliveries of one new user's first messages would.
    let (one, other) = futures_util::future::join(
        r.contacts.insert_conversation(&first, &opened, &[]),
        r.contacts.insert_conversation(&twin, &twins, &[]),
    )
    .await;
    assert!(one.is_ok() != other.is_ok(), "exactly one is stored: {one:?} {other:?}");
    assert!(matches!(one.err().or(other.err()), Some(StoreError::Conflict(_))));
    assert_eq!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total, 1);
    let stored = r.contacts.find_conversation(&a, &whatsapp("MX.1", None, None)).await.unwrap().unwrap();
    assert!(stored.1.is_some(), "with its activity");
    r.contacts.insert(&contact(&b, "Ana", whatsapp("MX.1", None, None), t(1)), &[]).await.expect("another agent's contact may have it");
}

/// `update_channel`: a user known by their user id gains a phone (now their `channel_id`), a
/// username, then a newer username; the contact, its activity's view, both searches and the
/// look-ups follow, with the events, in one write. A stale `before` writes nothing (`false`), a
/// phone another contact has is a `Conflict` writing nothing, another agent's contact `false`.
pub async fn a_channel_learns_a_phone_and_a_username_with_everything_that_shows_it(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let before = whatsapp("MX.1", None, None);
    let mut ana = contact(&a, "Ana López", before.clone(), t(0));
    let opened = activity(&a, &ana.id, ActivityStatus::Open, t(0));
    r.contacts.insert_conversation(&ana, &opened, &[]).await.unwrap();
    assert!(list_ids(&r, &a, search("5550001")).await.is_empty());

    let after = whatsapp("5215550001", Some("MX.1"), Some("Ana.Shop"));
    ana.channels = vec![after.clone()];
    ana.updated_at = t(5);
    assert!(r.contacts.update_channel(&ana, &before, &after, &[event(&a, EventType::ContactUpdated, t(5))]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), ana);
    assert_eq!(r.contacts.find_by_channel(&a, &phone("5215550001")).await.unwrap().map(|c| c.id), Some(ana.id.clone()));
    assert_eq!(r.contacts.find_by_channel(&a, &whatsapp("MX.1", None, None)).await.unwrap().map(|c| c.id), Some(ana.id.clone()));
    let view = r.activities.get(&a, &opened.id).await.unwrap().unwrap();
    assert_eq!(view.channels, vec![after.clone()], "the activity shows the channel as it now is");
    for fragment in ["5550001", "ana.sh", "SHOP"] {
        assert_eq!(list_ids(&r, &a, search(fragment)).await, vec![opened.id.clone()], "activity search {fragment}");
        assert_eq!(contacts_found(&r, &a, fragment).await, vec![ana.id.clone()], "contact search {fragment}");
    }
    assert_eq!(listed_types(&r, &a).await, ["contact.updated"]);

    // The username follows the newest message: the old one no longer finds them.
    let renamed = whatsapp("5215550001", Some("MX.1"), Some("ana.store"));
    ana.channels = vec![renamed.clone()];
    assert!(r.contacts.update_channel(&ana, &after, &renamed, &[]).await.unwrap());
    assert!(list_ids(&r, &a, search("ana.sh")).await.is_empty() && contacts_found(&r, &a, "ana.sh").await.is_empty());
    assert_eq!(list_ids(&r, &a, search("store")).await, vec![opened.id.clone()]);

    // A stale `before` (the address it no longer has): nothing written, no event.
    let stale = whatsapp("5215550001", Some("MX.1"), Some("other"));
    let mut stale_contact = ana.clone();
    stale_contact.channels = vec![stale.clone()];
    assert!(!r.contacts.update_channel(&stale_contact, &before, &stale, &[event(&a, EventType::ContactUpdated, t(6))]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), ana);

    // A phone another contact has: a conflict, nothing written.
    let bea_before = whatsapp("MX.2", None, None);
    let mut bea = contact(&a, "Bea", bea_before.clone(), t(1));
    r.contacts.insert(&bea, &[]).await.unwrap();
    let taken = whatsapp("5215550001", Some("MX.2"), None);
    let kept = bea.clone();
    bea.channels = vec![taken.clone()];
    let refused = r.contacts.update_channel(&bea, &bea_before, &taken, &[event(&a, EventType::ContactUpdated, t(7))]).await;
    assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
    assert_eq!(r.contacts.get(&a, &bea.id).await.unwrap().unwrap(), kept);
    assert_eq!(listed_types(&r, &a).await, ["contact.updated"], "no event for what was not written");

    // Another agent's contact is not this agent's to change.
    let mut foreign = kept.clone();
    foreign.agent_id = b;
    let free = whatsapp("5215550002", Some("MX.2"), None);
    foreign.channels = vec![free.clone()];
    assert!(!r.contacts.update_channel(&foreign, &bea_before, &free, &[]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &bea.id).await.unwrap().unwrap(), kept);
}

/// `insert_learning`: the message and what it taught of its contact (a phone gained) are one
/// write, each with its events. When the channel changed since it was read, or the phone is
/// another contact's, the contact stays and the message is stored all the same; when the message
/// cannot be stored (another agent's activity), the contact is not changed either.
pub async fn a_message_and_what_it_taught_of_its_contact_are_one_write(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let before = whatsapp("MX.1", None, None);
    let ana = contact(&a, "Ana", before.clone(), t(0));
    let opened = activity(&a, &ana.id, ActivityStatus::Open, t(0));
    r.contacts.insert_conversation(&ana, &opened, &[]).await.unwrap();
    let after = whatsapp("5215550001", Some("MX.1"), Some("ana"));
    let update = |contact: &Contact, before: &Channel, after: &Channel, at: i64| ChannelUpdate {
        contact: Contact { channels: vec![after.clone()], updated_at: t(at), ..contact.clone() },
        before: before.clone(),
        after: after.clone(),
        events: vec![event(&a, EventType::ContactUpdated, t(at))],
    };
    let learned = update(&ana, &before, &after, 5);
    let first = Message { channel: before.clone(), ..message(&a, &opened.id, "soy yo", t(5)) };
    assert!(r.messages.insert_learning(&first, &learned, &[event(&a, EventType::MessageReceived, t(5))]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), learned.contact);
    assert_eq!(r.activities.get(&a, &opened.id).await.unwrap().unwrap().unread_count, 1);
    assert_eq!(list_ids(&r, &a, search("5550001")).await, vec![opened.id.clone()]);
    let mut types = listed_types(&r, &a).await;
    types.sort();
    assert_eq!(types, ["contact.updated", "message.received"], "each write with its events");

    // Learnt already (a stale `before`): the message is stored, the contact left as it is.
    let stale = update(&ana, &before, &whatsapp("5215550009", Some("MX.1"), None), 6);
    assert!(r.messages.insert_learning(&message(&a, &opened.id, "again", t(6)), &stale, &[]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), learned.contact);

    // A phone another contact has: the message is stored, neither contact changes.
    let bea_before = whatsapp("MX.2", None, None);
    let bea = contact(&a, "Bea", bea_before.clone(), t(1));
    let beas = activity(&a, &bea.id, ActivityStatus::Open, t(1));
    r.contacts.insert_conversation(&bea, &beas, &[]).await.unwrap();
    let taken = update(&bea, &bea_before, &whatsapp("5215550001", Some("MX.2"), None), 7);
    assert!(r.messages.insert_learning(&message(&a, &beas.id, "hi", t(7)), &taken, &[]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &bea.id).await.unwrap().unwrap(), bea);
    assert_eq!(r.messages.list(&a, &beas.id, MessageFilter::default(), page(10, 0)).await.unwrap().total, 1);
    assert_eq!(listed_types(&r, &a).await.len(), 2, "no event for what was not written");

    // A message that cannot be stored takes what it taught with it.
    let free = update(&bea, &bea_before, &whatsapp("5215550002", Some("MX.2"), None), 8);
    let elsewhere = message(&b, &beas.id, "not b's", t(8));
    let refused = r.messages.insert_learning(&elsewhere, &free, &[]).await;
    assert!(matches!(refused, Err(StoreError::NotFound(_))), "{refused:?}");
    assert_eq!(r.contacts.get(&a, &bea.id).await.unwrap().unwrap(), bea, "nothing half-written");
}
