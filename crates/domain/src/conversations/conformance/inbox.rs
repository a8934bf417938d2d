//! The team inbox's list filters, held to their definition: for random conversations moved by
//! random writes (assignments, inbound messages, reads, tags, renames), every random
//! combination of filters lists exactly what [`ActivityFilter::matches`] (and
//! [`ContactFilter::matches`]) keeps of the full list, in the list's order, with the same total,
//! whole and in pages.

use super::{agent, contact, id, page, t, tag};
use crate::messaging::conformance::messages::message;
use crate::model::*;
use crate::ports::{Repositories, StoredFile};

/// A small deterministic generator (xorshift64*): the checks are random but repeatable, and a
/// failure names its seed.
pub(crate) struct Dice(pub(crate) u64);

impl Dice {
    pub(crate) fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % sides
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.roll(100) < percent
    }

    pub(crate) fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.roll(from.len() as u64) as usize]
    }
}

const NAMES: [&str; 8] = ["Ana María", "Bo", "Cy Duarte", "ana", "Zoë Shop", "Luis 555", "Mar", "Maximiliana Fernández de la Concepción"];
const FRAGMENTS: [&str; 9] = ["ana", "a", "55500", "shop", "o", "zoë", "ximiliana fernández de la concepción", "0102", "duarte"];

fn channel_of(dice: &mut Dice, n: usize) -> Channel {
    match dice.roll(4) {
        0 => Channel::new(ChannelType::Instagram, &format!("ig_{n}")).unwrap(),
        1 => Channel::new(ChannelType::Email, &format!("user{n}@shop.mx")).unwrap(),
        _ => Channel::new(ChannelType::Whatsapp, &format!("5215550{n:03}")).unwrap(),
    }
}

/// Conversations (and a few contacts without one) of agent `a`, moved by random writes; the
/// other agent `b` gets some of its own, which no list of `a` may show.
async fn random_inbox(r: &Repositories, a: &AgentId, b: &AgentId, dice: &mut Dice) -> Vec<Tag> {
    let tags = [tag(a, "vip", t(0)), tag(a, "late", t(0))];
    for tag in &tags {
        r.tags.insert(tag, 100, &[]).await.unwrap();
    }
    for n in 0..32 {
        let owner = if n % 8 == 7 { b } else { a };
        let mut c = contact(owner, dice.pick(&NAMES), channel_of(dice, n), t(n as i64));
        if dice.chance(20) {
            c.email = Some(Email::new(&format!("Buyer{n}@Mail.com")).unwrap());
        }
        r.contacts.insert(&c, &[]).await.unwrap();
        if dice.chance(10) {
            continue; // a contact nobody has written to yet
        }
        let status = dice.pick(&ActivityStatus::ALL);
        let mut act = super::activity(owner, &c.id, status, t(n as i64));
        if dice.chance(30) {
            act.assigned_to = Some(Assignee::new(dice.pick(&["ana", "bo"])).unwrap());
        }
        r.activities.insert(&act, &[]).await.unwrap();
        let mut at = 100 + n as i64 * 10;
        if dice.chance(40) {
            act.assigned_to = match dice.roll(3) {
                0 => None,
                1 => Some(Assignee::new("ana").unwrap()),
                _ => Some(Assignee::new("bo").unwrap()),
            };
            act.status = dice.pick(&ActivityStatus::ALL);
            act.updated_at = t(at);
            let rename = dice.chance(25).then(|| ProfileName::new(dice.pick(&NAMES)).unwrap());
            assert!(r.activities.update(ActivityWrite::of(&act).renaming(rename.as_ref()), &[]).await.unwrap());
            at += 1;
        }
        if dice.chance(50) {
            for _ in 0..=dice.roll(3) {
                assert!(r.messages.insert(&message(owner, &act.id, "hello", t(at)), &[]).await.unwrap());
                at += 1;
            }
            if dice.chance(30) {
                assert!(r.activities.mark_read(owner, &act.id).await.unwrap());
            }
        }
        if owner == a && dice.chance(40) {
            let tag = &tags[dice.roll(2) as usize];
            assert!(r.activities.attach_tags(a, &act.id, std::slice::from_ref(&tag.id), t(at), &[]).await.unwrap());
            at += 1;
        }
        if dice.chance(15) {
            let mut moved = r.activities.get(owner, &act.id).await.unwrap().unwrap().activity;
            moved.status = ActivityStatus::Closed;
            moved.updated_at = t(at);
            assert!(r.activities.update(ActivityWrite::of(&moved), &[]).await.unwrap());
        }
    }
    tags.into_iter().collect()
}

fn random_filter(dice: &mut Dice, tags: &[Tag]) -> ActivityFilter {
    let statuses = ["", "open", "closed", "pending", "open,pending", "closed,open"];
    let status = match dice.pick(&statuses) {
        "" => StatusSet::ANY,
        some => StatusSet::parse(some).unwrap(),
    };
    ActivityFilter {
        status,
        tag: dice.chance(20).then(|| tags[dice.roll(tags.len() as u64) as usize].id.clone()),
        search: dice.chance(25).then(|| ActivitySearch::new(dice.pick(&FRAGMENTS)).unwrap()),
        assigned_to: match dice.roll(5) {
            0 => Some(AssigneeFilter::Unassigned),
            1 => Some(AssigneeFilter::parse("ana").unwrap()),
            2 => Some(AssigneeFilter::parse("zed").unwrap()),
            _ => None,
        },
        channel_type: dice.chance(30).then(|| dice.pick(&[ChannelType::Whatsapp, ChannelType::Instagram, ChannelType::Email])),
        unread: dice.chance(30).then(|| dice.chance(50)),
        since: dice.chance(25).then(|| t(dice.pick(&[50, 150, 250]))),
    }
}

/// Every page of `filter` at `limit` a page, and each page's total.
async fn paged(r: &Repositories, a: &AgentId, filter: &ActivityFilter, limit: u32) -> (Vec<ActivityId>, Vec<u64>) {
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    let mut offset = 0;
    loop {
        let p = r.activities.list(a, filter, page(limit, offset)).await.unwrap();
        totals.push(p.total);
        if p.items.is_empty() {
            return (ids, totals);
        }
        offset += p.items.len() as u64;
        ids.extend(p.items.into_iter().map(|v| v.activity.id));
    }
}

/// Random combinations of activity filters list exactly what [`ActivityFilter::matches`]
/// keeps, in update order, whole and in pages, with exact totals.
pub async fn activity_filters_equal_their_definition_for_random_combinations(r: Repositories) {
    for seed in [0x9e37_79b9_7f4a_7c15_u64, 42, 7_777_777] {
        let a = agent(&r, "A").await;
        let b = agent(&r, "B").await;
        let mut dice = Dice(seed);
        let tags = random_inbox(&r, &a, &b, &mut dice).await;
        let all = r.activities.list(&a, &ActivityFilter::default(), page(100, 0)).await.unwrap().items;
        let mut ordered = all.clone();
        ordered.sort_by(|x, y| (y.activity.updated_at, y.activity.id.as_str()).cmp(&(x.activity.updated_at, x.activity.id.as_str())));
        assert_eq!(all, ordered, "seed {seed}: the full list is in update order");
        for round in 0..60 {
            let filter = random_filter(&mut dice, &tags);
            let expected: Vec<ActivityId> = all.iter().filter(|v| filter.matches(v)).map(|v| v.activity.id.clone()).collect();
            let whole = r.activities.list(&a, &filter, page(100, 0)).await.unwrap();
            let listed: Vec<ActivityId> = whole.items.iter().map(|v| v.activity.id.clone()).collect();
            assert_eq!(listed, expected, "seed {seed}, round {round}: {filter:?}");
            assert_eq!(whole.total, expected.len() as u64, "seed {seed}, round {round}: total of {filter:?}");
            let (pages, totals) = paged(&r, &a, &filter, 3).await;
            assert_eq!(pages, expected, "seed {seed}, round {round}: pages of {filter:?}");
            assert!(totals.iter().all(|t| *t == expected.len() as u64), "seed {seed}, round {round}: {totals:?} for {filter:?}");
        }
    }
}

/// Random contact filters list exactly what [`ContactFilter::matches`] keeps, whole and in
/// pages, with exact totals, also after names and emails change.
pub async fn contact_filters_equal_their_definition_for_random_combinations(r: Repositories) {
    for seed in [3_u64, 0xdead_beef, 123_456_789] {
        let a = agent(&r, "A").await;
        let b = agent(&r, "B").await;
        let mut dice = Dice(seed);
        random_inbox(&r, &a, &b, &mut dice).await;
        // Changed emails and names move the terms too.
        let listed = r.contacts.list(&a, &ContactFilter::default(), page(100, 0)).await.unwrap().items;
        for c in listed.iter().take(6) {
            let mut changed = c.clone();
            changed.email = dice.chance(50).then(|| Email::new(&format!("{}@Changed.io", id("x"))).unwrap());
            changed.profile_name = ProfileName::new(dice.pick(&NAMES)).unwrap();
            changed.updated_at = t(900);
            assert!(r.contacts.update(&changed, &[]).await.unwrap());
        }
        let all = r.contacts.list(&a, &ContactFilter::default(), page(100, 0)).await.unwrap().items;
        let fragments: Vec<&str> = FRAGMENTS.iter().copied().chain(["changed.io", "mail.com", "buyer1", "@"]).collect();
        for round in 0..40 {
            let filter = ContactFilter {
                search: dice.chance(80).then(|| ActivitySearch::new(dice.pick(&fragments)).unwrap()),
                channel_type: dice.chance(40).then(|| dice.pick(&[ChannelType::Whatsapp, ChannelType::Instagram, ChannelType::Email])),
            };
            let expected: Vec<ContactId> = all.iter().filter(|c| filter.matches(c)).map(|c| c.id.clone()).collect();
            let whole = r.contacts.list(&a, &filter, page(100, 0)).await.unwrap();
            let ids: Vec<ContactId> = whole.items.iter().map(|c| c.id.clone()).collect();
            assert_eq!(ids, expected, "seed {seed}, round {round}: {filter:?}");
            assert_eq!(whole.total, expected.len() as u64, "seed {seed}, round {round}: total of {filter:?}");
            let (paged, totals) = paged_contacts(&r, &a, &filter, 4).await;
            assert!(totals.iter().all(|t| *t == expected.len() as u64), "seed {seed}, round {round}: page totals {totals:?} of {filter:?}");
            assert_eq!(paged, expected, "seed {seed}, round {round}: pages of {filter:?}");
        }
    }
}

/// `assigned_to=none`'s total is kept, not counted: it must follow inserts, assignments,
/// status moves and reopening messages exactly.
pub async fn unassigned_totals_follow_assignments_and_status_moves(r: Repositories) {
    let a = agent(&r, "A").await;
    let unassigned = |status: StatusSet| ActivityFilter { status, assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
    let total = |f: ActivityFilter| {
        let r = r.clone();
        let a = a.clone();
        async move { r.activities.list(&a, &f, page(1, 0)).await.unwrap().total }
    };
    let mut ana = super::conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = super::conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Pending, t(1)).await;
    assert_eq!(total(unassigned(StatusSet::ANY)).await, 2);
    ana.assigned_to = Some(Assignee::new("ana").unwrap());
    ana.updated_at = t(2);
    assert!(r.activities.update(ActivityWrite::of(&ana), &[]).await.unwrap());
    assert_eq!(total(unassigned(StatusSet::ANY)).await, 1);
    assert_eq!(total(unassigned(ActivityStatus::Open.into())).await, 0);
    assert_eq!(total(unassigned(ActivityStatus::Pending.into())).await, 1);
    // An inbound message reopens Bo's pending activity: still unassigned, now open.
    assert!(r.messages.insert(&message(&a, &bo.id, "hi", t(3)), &[]).await.unwrap());
    assert_eq!(total(unassigned(ActivityStatus::Open.into())).await, 1);
    assert_eq!(total(unassigned(ActivityStatus::Pending.into())).await, 0);
    ana.assigned_to = None;
    ana.status = ActivityStatus::Closed;
    ana.updated_at = t(4);
    assert!(r.activities.update(ActivityWrite::of(&ana), &[]).await.unwrap());
    assert_eq!(total(unassigned(StatusSet::parse("closed,open").unwrap())).await, 2);
    assert_eq!(total(ActivityFilter { assigned_to: Some(AssigneeFilter::parse("ana").unwrap()), ..Default::default() }).await, 0);
}

/// A private note joins the timeline and moves the activity's update time, and nothing the
/// contact's messages move: not its status, its window, its unread count.
pub async fn notes_join_the_timeline_without_reopening_or_raising_unread(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = super::conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Closed, t(0)).await;
    let note = Message {
        direction: MessageDirection::Internal,
        status: MessageStatus::Recorded,
        content: MessageContent::Note(Note::new("call her back", Some("sam")).unwrap()),
        ..message(&a, &act.id, "", t(10))
    };
    assert!(r.messages.insert(&note, &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!((view.activity.status, view.activity.last_inbound_at, view.unread_count), (ActivityStatus::Closed, None, 0));
    assert_eq!(view.activity.updated_at, t(10));
    let stored = r.messages.get(&a, &act.id, &note.id).await.unwrap().unwrap();
    assert_eq!(stored, note, "read back whole");
    let listed = r.messages.list(&a, &act.id, MessageFilter::default(), page(10, 0)).await.unwrap();
    assert_eq!(listed.items, vec![note]);
}

/// Erasing a contact removes it, its activity, its messages and their files, moves every kept
/// count back, leaves events about it with their ids alone, and touches no one else.
pub async fn erasing_a_contact_removes_all_it_wrote_and_moves_the_counts_back(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, 100, &[]).await.unwrap();
    let ana = super::conversation(&r, &a, "Ana Erased", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = super::conversation(&r, &a, "Bo Kept", "5215550002", ActivityStatus::Open, t(1)).await;
    let theirs = super::conversation(&r, &b, "Ana Erased", "5215550001", ActivityStatus::Open, t(1)).await;
    assert!(r.activities.attach_tags(&a, &ana.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &bo.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap());
    let file = StoredFile {
        id: format!("att_{}", id("f")),
        agent_id: a.clone(),
        filename: Some("invoice.pdf".into()),
        mime_type: "application/pdf".into(),
        bytes: b"secret bytes".to_vec(),
        created_at: t(3),
    };
    r.files.put(&file).await.unwrap();
    let email = EmailContent {
        from: "ana@mail.com".into(),
        to: vec!["shop@shop.mx".into()],
        message_id: "m1@mail.com".into(),
        text: "my address is 1 Main St".into(),
        attachments: vec![EmailAttachment { id: file.id.clone(), filename: None, mime_type: "application/pdf".into(), size: 12 }],
        ..Default::default()
    };
    let with_file = Message { content: MessageContent::Email(email), ..message(&a, &ana.id, "", t(4)) };
    assert!(r.messages.insert(&with_file, &[]).await.unwrap());
    let said = message(&a, &ana.id, "my card is 4111", t(5));
    assert!(r.messages.insert(&said, &[]).await.unwrap());
    // An event about Ana, stored before: it keeps its id and Ana's id, nothing else.
    let ana_contact = r.activities.get(&a, &ana.id).await.unwrap().unwrap().activity.contact_id;
    let told = Event {
        id: EventId::new(id("evt")),
        agent_id: a.clone(),
        event_type: EventType::ContactUpdated,
        created_at: t(6),
        object: EventObject::from(&r.contacts.get(&a, &ana_contact).await.unwrap().unwrap()),
        origin: EventOrigin::Outside,
    };
    r.events.emit(&told, None).await.unwrap();
    let unrelated = Event { id: EventId::new(id("evt")), object: EventObject::Deleted { id: "con_other".into() }, ..told.clone() };
    r.events.emit(&unrelated, None).await.unwrap();

    let totals = |r: Repositories, a: AgentId| async move {
        let all = r.activities.list(&a, &ActivityFilter::default(), page(1, 0)).await.unwrap().total;
        let unassigned = ActivityFilter { assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
        let unassigned = r.activities.list(&a, &unassigned, page(1, 0)).await.unwrap().total;
        let contacts = r.contacts.list(&a, &ContactFilter::default(), page(1, 0)).await.unwrap().total;
        let tagged = r.tags.list(&a).await.unwrap()[0].clone();
        (all, unassigned, contacts, tagged)
    };
    assert_eq!(totals(r.clone(), a.clone()).await.0, 2);
    assert!(!r.contacts.erase(&b, &ana_contact, &[]).await.unwrap(), "another agent's contact");
    assert!(r.contacts.erase(&a, &ana_contact, &[]).await.unwrap());
    assert!(!r.contacts.erase(&a, &ana_contact, &[]).await.unwrap(), "once");

    assert!(r.contacts.get(&a, &ana_contact).await.unwrap().is_none());
    assert!(r.activities.get(&a, &ana.id).await.unwrap().is_none());
    assert!(r.messages.get(&a, &ana.id, &said.id).await.unwrap().is_none());
    assert!(r.files.get(&a, &file.id).await.unwrap().is_none(), "its files");
    assert!(r.contacts.find_by_channel(&a, &super::phone("5215550001")).await.unwrap().is_none(), "its channel is free again");
    let (all, unassigned, contacts, tagged) = totals(r.clone(), a.clone()).await;
    assert_eq!((all, unassigned, contacts), (1, 1, 1), "kept counts moved back");
    let listed: Vec<ActivityId> = r
        .activities
        .list(&a, &ActivityFilter { tag: Some(tagged.id.clone()), ..Default::default() }, page(10, 0))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|v| v.activity.id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&bo.id));
    let search = |s: &str| ActivityFilter { search: Some(ActivitySearch::new(s).unwrap()), ..Default::default() };
    assert!(r.activities.list(&a, &search("erased"), page(10, 0)).await.unwrap().items.is_empty());
    let contact_search = ContactFilter { search: Some(ActivitySearch::new("erased").unwrap()), ..Default::default() };
    assert_eq!(r.contacts.list(&a, &contact_search, page(10, 0)).await.unwrap().total, 0);

    let kept = r.events.get(&a, &told.id).await.unwrap().unwrap();
    assert_eq!(kept.object, EventObject::Erased { id: ana_contact.as_str().to_string() }, "only its id left");
    assert_eq!(r.events.get(&a, &unrelated.id).await.unwrap().unwrap(), unrelated, "other events untouched");
    // The other agent's Ana, with the same number, is theirs and stays.
    assert!(r.activities.get(&b, &theirs.id).await.unwrap().is_some());
    // The number can start a new conversation.
    super::conversation(&r, &a, "Ana Again", "5215550001", ActivityStatus::Open, t(9)).await;
}

/// Every page of the contact list `filter` keeps, `limit` at a time, and each page's total.
async fn paged_contacts(r: &Repositories, a: &AgentId, filter: &ContactFilter, limit: u32) -> (Vec<ContactId>, Vec<u64>) {
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    loop {
        let p = r.contacts.list(a, filter, page(limit, ids.len() as u64)).await.unwrap();
        totals.push(p.total);
        if p.items.is_empty() {
            return (ids, totals);
        }
        ids.extend(p.items.into_iter().map(|c| c.id));
    }
}

/// Filters that keep hundreds of conversations (more than a backend may choose to read in a
/// bounded first pass before counting them all) and filters that keep a few list exactly the
/// same way: the same totals, order and pages as the filter applied to the full list.
pub async fn filters_keeping_hundreds_list_as_exactly_as_filters_keeping_a_few(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for n in 0..300_i64 {
        let owner = if n % 23 == 0 { &b } else { &a };
        let c = contact(owner, &format!("Buyer {n}"), Channel::new(ChannelType::Whatsapp, &format!("52155{n:05}")).unwrap(), t(n));
        r.contacts.insert(&c, &[]).await.unwrap();
        let status = if n % 3 == 0 { ActivityStatus::Closed } else { ActivityStatus::Open };
        let mut act = super::activity(owner, &c.id, status, t(n));
        act.assigned_to = (n % 2 == 0).then(|| Assignee::new("ana").unwrap());
        r.activities.insert(&act, &[]).await.unwrap();
        if n % 10 != 0 {
            assert!(r.messages.insert(&message(owner, &act.id, "hello", t(1_000 + n)), &[]).await.unwrap());
        }
    }
    let mut all = Vec::new();
    for offset in [0, 100, 200] {
        all.extend(r.activities.list(&a, &ActivityFilter::default(), page(100, offset)).await.unwrap().items);
    }
    assert_eq!(all.len(), 286, "the agent's own conversations");
    assert!(all.iter().filter(|v| v.unread_count > 0).count() > 250, "enough unread to be many");
    let filters = [
        ActivityFilter { unread: Some(true), ..Default::default() },
        ActivityFilter { unread: Some(false), ..Default::default() },
        ActivityFilter { assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() },
        ActivityFilter { assigned_to: Some(AssigneeFilter::parse("ana").unwrap()), ..Default::default() },
        ActivityFilter { status: StatusSet::parse("open,pending").unwrap(), ..Default::default() },
        ActivityFilter { status: StatusSet::parse("closed,pending").unwrap(), ..Default::default() },
        ActivityFilter { since: Some(t(1_010)), ..Default::default() },
        ActivityFilter { since: Some(t(1_200)), ..Default::default() },
        ActivityFilter { unread: Some(true), assigned_to: Some(AssigneeFilter::parse("ana").unwrap()), ..Default::default() },
    ];
    for filter in &filters {
        let expected: Vec<ActivityId> = all.iter().filter(|v| filter.matches(v)).map(|v| v.activity.id.clone()).collect();
        for limit in [100, 7] {
            let (pages, totals) = paged(&r, &a, filter, limit).await;
            assert_eq!(pages, expected, "pages of {limit} of {filter:?}");
            assert!(totals.iter().all(|t| *t == expected.len() as u64), "{totals:?} for {filter:?}");
        }
    }

    let mut contacts = Vec::new();
    for offset in [0, 100, 200] {
        contacts.extend(r.contacts.list(&a, &ContactFilter::default(), page(100, offset)).await.unwrap().items);
    }
    assert_eq!(contacts.len(), 286, "the agent's own contacts");
    for fragment in ["52155", "5215500", "buyer", "buyer 1", "5215500017", "00017", "buyer 229", "buyer 2"] {
        let filter = ContactFilter { search: Some(ActivitySearch::new(fragment).unwrap()), channel_type: None };
        let expected: Vec<ContactId> = contacts.iter().filter(|c| filter.matches(c)).map(|c| c.id.clone()).collect();
        for limit in [100, 7] {
            let (pages, totals) = paged_contacts(&r, &a, &filter, limit).await;
            assert_eq!(pages, expected, "{fragment} by {limit}");
            assert!(totals.iter().all(|t| *t == expected.len() as u64), "{totals:?} for {fragment} by {limit}");
        }
    }
}
