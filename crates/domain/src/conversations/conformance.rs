//! The storage contract of contacts, activities, tags, canned responses and the inbox's filters
//! and search (`ContactRepository`, `ActivityRepository`, `TagRepository`,
//! `CannedResponseRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use serde_json::json;

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

pub(crate) mod canned_responses;

pub(crate) mod identity;

pub(crate) mod inbox;
pub use canned_responses::*;
pub use identity::*;
pub use inbox::*;

/// Tag names are unique per agent ignoring case, on insert and update (`Conflict`); another
/// agent may use the same name.
pub async fn tag_names_are_unique_per_agent_ignoring_case(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    r.tags.insert(&tag(&a, "VIP", t(0)), MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let dup = r.tags.insert(&tag(&a, "vip", t(1)), MAX_TAGS_PER_AGENT, &[]).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    r.tags.insert(&tag(&b, "vip", t(1)), MAX_TAGS_PER_AGENT, &[]).await.expect("another agent may use the same name");

    let mut other = tag(&a, "Other", t(2));
    r.tags.insert(&other, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    other.name = TagName::new("Vip").unwrap();
    assert!(matches!(r.tags.update(&other, &[]).await, Err(StoreError::Conflict(_))));
}

/// Tags list by name ignoring case; another agent's tag is invisible to `get` and `find_many`
/// and untouched by `update` and `delete`.
pub async fn tags_are_ordered_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for name in ["beta", "Alpha", "gamma"] {
        r.tags.insert(&tag(&a, name, t(0)), MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    }
    let foreign = tag(&b, "zeta", t(0));
    r.tags.insert(&foreign, MAX_TAGS_PER_AGENT, &[]).await.unwrap();

    let names: Vec<_> = r.tags.list(&a).await.unwrap().into_iter().map(|t| t.name.as_str().to_string()).collect();
    assert_eq!(names, ["Alpha", "beta", "gamma"], "name order ignores case");
    assert!(r.tags.get(&a, &foreign.id).await.unwrap().is_none(), "another agent's tag is invisible");
    assert!(r.tags.find_many(&a, std::slice::from_ref(&foreign.id)).await.unwrap().is_empty());

    let mut changed = foreign.clone();
    changed.agent_id = a.clone();
    changed.name = TagName::new("stolen").unwrap();
    assert!(!r.tags.update(&changed, &[]).await.unwrap(), "update is scoped by agent");
    assert!(!r.tags.delete(&a, &foreign.id, &[]).await.unwrap(), "delete is scoped by agent");
    assert_eq!(r.tags.get(&b, &foreign.id).await.unwrap().unwrap().name.as_str(), "zeta");
}

/// Deleting a tag detaches it from every activity: views no longer show it and a filter by it
/// finds nothing.
pub async fn tag_delete_detaches_it_everywhere(r: Repositories) {
    let a = agent(&r, "A").await;
    let keep = tag(&a, "keep", t(0));
    let gone = tag(&a, "gone", t(0));
    r.tags.insert(&keep, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&gone, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    r.activities.attach_tags(&a, &act.id, &[keep.id.clone(), gone.id.clone()], t(1), &[]).await.unwrap();

    assert!(r.tags.delete(&a, &gone.id, &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), [keep.id]);
    assert!(list_ids(&r, &a, ActivityFilter { tag: Some(gone.id), ..Default::default() }).await.is_empty());
}

/// A channel belongs to one contact per agent (`Conflict`, nothing written); another agent or
/// another channel type may hold the same value; `get` and `find_by_channel` stay the agent's.
pub async fn contacts_are_unique_per_channel_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = contact(&a, "Ana", phone("5215550001"), t(0));
    r.contacts.insert(&ana, &[]).await.unwrap();
    let dup = r.contacts.insert(&contact(&a, "Other", phone("5215550001"), t(1)), &[]).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    assert!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total == 1, "a refused insert writes nothing");
    let same_number_b = contact(&b, "Ana B", phone("5215550001"), t(1));
    r.contacts.insert(&same_number_b, &[]).await.expect("another agent may hold the same number");
    let email = contact(&a, "Ana", Channel::new(ChannelType::Email, "ana@example.com").unwrap(), t(2));
    r.contacts.insert(&email, &[]).await.expect("same person on another channel type is another row");

    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), ana);
    assert!(r.contacts.get(&a, &same_number_b.id).await.unwrap().is_none());
    assert_eq!(r.contacts.find_by_channel(&a, &phone("5215550001")).await.unwrap().unwrap().id, ana.id);
    assert_eq!(r.contacts.find_by_channel(&b, &phone("5215550001")).await.unwrap().unwrap().id, same_number_b.id);
    assert!(r.contacts.find_by_channel(&a, &phone("5215559999")).await.unwrap().is_none());
}

/// Contacts page newest first (`created_at`, then id, descending) without repeats or gaps, with
/// the agent's total on every page.
pub async fn contacts_page_newest_first_with_totals(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut made = Vec::new();
    for i in 0..7 {
        // Pairs share a creation time, so the id tie-break decides their order.
        let c = contact(&a, &format!("C{i}"), phone(&format!("52155500{i:02}")), t(i / 2));
        r.contacts.insert(&c, &[]).await.unwrap();
        made.push(c);
    }
    r.contacts.insert(&contact(&b, "B", phone("5215550099"), t(100)), &[]).await.unwrap();
    made.sort_by(|x, y| (y.created_at, y.id.as_str()).cmp(&(x.created_at, x.id.as_str())));
    let expected: Vec<_> = made.iter().map(|c| c.id.clone()).collect();

    let mut seen = Vec::new();
    for offset in [0, 3, 6] {
        let p = r.contacts.list(&a, &ContactFilter::default(), page(3, offset)).await.unwrap();
        assert_eq!(p.total, 7);
        assert_eq!(p.has_more(), offset + 3 < 7);
        seen.extend(p.items.into_iter().map(|c| c.id));
    }
    assert_eq!(seen, expected, "pages neither repeat nor skip");
    assert!(r.contacts.list(&a, &ContactFilter::default(), page(3, 50)).await.unwrap().items.is_empty());
}

/// An update replaces profile name, email, notes, custom attributes and `updated_at`, and is
/// scoped by agent.
pub async fn contact_updates_replace_fields(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut c = contact(&a, "Ana", phone("5215550001"), t(0));
    r.contacts.insert(&c, &[]).await.unwrap();
    c.profile_name = ProfileName::new("Ana María").unwrap();
    c.email = Some(Email::new("ana@example.com").unwrap());
    c.notes = Some(Notes::new("prefers mornings").unwrap());
    c.custom_attributes = CustomAttributes::new(json!({"tier": "gold", "n": 3}).as_object().unwrap().clone()).unwrap();
    c.updated_at = t(5);
    assert!(r.contacts.update(&c, &[]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &c.id).await.unwrap().unwrap(), c);

    let mut foreign = c.clone();
    foreign.agent_id = b;
    assert!(!r.contacts.update(&foreign, &[]).await.unwrap(), "update is scoped by agent");
}

/// `find_conversation`: the contact on a channel with its activity, or without one, and never
/// another agent's.
pub async fn conversations_are_found_by_channel_with_their_activity(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let (found, activity) = r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap().unwrap();
    assert_eq!(found, r.contacts.get(&a, &act.contact_id).await.unwrap().unwrap());
    assert_eq!(activity, Some(act.clone()));
    let alone = contact(&a, "Bea", phone("5215550002"), t(1));
    r.contacts.insert(&alone, &[]).await.unwrap();
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550002")).await.unwrap(), Some((alone, None)), "no activity yet");
    // Agent B has a contact on the same number, with its own activity.
    let theirs = conversation(&r, &b, "Ana B", "5215550001", ActivityStatus::Pending, t(2)).await;
    let (found, activity) = r.contacts.find_conversation(&b, &phone("5215550001")).await.unwrap().unwrap();
    assert_eq!((found.id, activity), (theirs.contact_id.clone(), Some(theirs)));
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap().unwrap().1, Some(act), "each agent's own");
    assert!(r.contacts.find_conversation(&b, &phone("5215550002")).await.unwrap().is_none());
    assert!(r.contacts.find_conversation(&a, &phone("5215559999")).await.unwrap().is_none());
}

/// `insert_conversation`: the contact and its activity as the two inserts make them (kept
/// counts, the activity's kept copies, its search terms), or, when the channel is taken,
/// neither.
pub async fn conversations_are_inserted_whole_or_not_at_all(r: Repositories) {
    let a = agent(&r, "A").await;
    let ana = contact(&a, "Ana Lima", phone("5215550001"), t(0));
    let opened = Activity { last_inbound_at: Some(t(0)), ..activity(&a, &ana.id, ActivityStatus::Open, t(0)) };
    r.contacts.insert_conversation(&ana, &opened, &[]).await.unwrap();
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap(), Some((ana.clone(), Some(opened.clone()))));
    let view = r.activities.get(&a, &opened.id).await.unwrap().unwrap();
    assert_eq!((view.profile_name.as_str(), view.channels.clone()), ("Ana Lima", vec![phone("5215550001")]));
    let search = |s: &str| ActivityFilter { search: Some(ActivitySearch::new(s).unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, search("lima")).await, vec![opened.id.clone()]);
    assert_eq!(list_ids(&r, &a, search("550001")).await, vec![opened.id.clone()]);
    assert_eq!((total(&r, &a, None, None).await, total(&r, &a, Some(ActivityStatus::Open), None).await), (1, 1));
    assert_eq!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total, 1);

    // Someone else on the same channel: refused, and neither row written nor counted.
    let other = contact(&a, "Other", phone("5215550001"), t(1));
    let theirs = activity(&a, &other.id, ActivityStatus::Pending, t(1));
    assert!(matches!(r.contacts.insert_conversation(&other, &theirs, &[]).await, Err(StoreError::Conflict(_))));
    assert!(r.contacts.get(&a, &other.id).await.unwrap().is_none());
    assert!(r.activities.get(&a, &theirs.id).await.unwrap().is_none());
    assert_eq!((total(&r, &a, None, None).await, total(&r, &a, Some(ActivityStatus::Pending), None).await), (1, 0));
    assert_eq!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total, 1);
    assert!(list_ids(&r, &a, search("other")).await.is_empty());
}

/// A contact has at most one activity (`Conflict`); its view carries the contact's name and
/// channels; another agent can neither read, list, tag nor update it, nor attach its own tags.
pub async fn activities_are_one_per_contact_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Pending, t(0)).await;
    let second = activity(&a, &act.contact_id, ActivityStatus::Open, t(1));
    assert!(matches!(r.activities.insert(&second, &[]).await, Err(StoreError::Conflict(_))));
    assert_eq!(r.activities.find_by_contact(&a, &act.contact_id).await.unwrap().unwrap(), act);

    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.activity, act);
    assert_eq!(view.profile_name.as_str(), "Ana");
    assert_eq!(view.channels, [phone("5215550001")]);

    assert!(r.activities.get(&b, &act.id).await.unwrap().is_none());
    assert!(r.activities.find_by_contact(&b, &act.contact_id).await.unwrap().is_none());
    assert!(r.activities.list(&b, &ActivityFilter::default(), page(10, 0)).await.unwrap().items.is_empty());
    assert!(!r.activities.attach_tags(&b, &act.id, &[], t(2), &[]).await.unwrap());
    let foreign_tag = tag(&b, "theirs", t(0));
    r.tags.insert(&foreign_tag, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&foreign_tag.id), t(3), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert!(view.tags.is_empty(), "another agent's tag is never attached");
    assert_eq!(view.activity.updated_at, act.updated_at, "and nothing changed");
    let mut foreign = act.clone();
    foreign.agent_id = b;
    assert!(!r.activities.update(ActivityWrite::of(&foreign), &[]).await.unwrap());
}

/// Activity filters match status, tag, name (ignoring case) and phone digits, with LIKE
/// wildcards taken literally, combine, and count every match in the total.
pub async fn activity_filters_match_status_tag_name_and_digits(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana López", "5215550001", ActivityStatus::Open, t(0)).await;
    let bob = conversation(&r, &a, "Bob 100%", "4470009999", ActivityStatus::Closed, t(1)).await;
    let cy = conversation(&r, &a, "Cy", "5215550777", ActivityStatus::Pending, t(2)).await;
    conversation(&r, &b, "Ana López", "5215550001", ActivityStatus::Open, t(3)).await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.activities.attach_tags(&a, &bob.id, std::slice::from_ref(&vip.id), t(0), &[]).await.unwrap();

    let search = |s: &str| ActivityFilter { search: Some(ActivitySearch::new(s).unwrap()), ..Default::default() };
    assert_eq!(
        list_ids(&r, &a, ActivityFilter { status: ActivityStatus::Pending.into(), ..Default::default() }).await,
        vec![cy.id.clone()]
    );
    assert_eq!(list_ids(&r, &a, ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() }).await, vec![bob.id.clone()]);
    assert_eq!(list_ids(&r, &a, search("ANA LÓ")).await, vec![ana.id.clone()], "name match ignores case");
    assert_eq!(list_ids(&r, &a, search("555-0")).await, [cy.id.clone(), ana.id.clone()], "digits match phone numbers");
    assert_eq!(list_ids(&r, &a, search("100%")).await, vec![bob.id.clone()], "LIKE wildcards are literal");
    assert!(list_ids(&r, &a, search("zzz")).await.is_empty());
    let combined = ActivityFilter { status: ActivityStatus::Open.into(), ..search("555") };
    assert_eq!(list_ids(&r, &a, combined).await, [ana.id]);
    let page = r.activities.list(&a, &search("5215550"), PageRequest::new(1, 0)).await.unwrap();
    assert_eq!((page.total, page.items.len()), (2, 1), "the total counts every match, not the page");
}

/// One searchable conversation as a test knows it: the activity, its contact's name and the
/// digits of each of its channels.
struct Searchable {
    activity: Activity,
    name: String,
    digits: Vec<String>,
}

/// What a search should find, by its definition: a piece of the name folded as searches fold it
/// (case and accents, [`text::search_key`](crate::model::text::search_key)), or (3+ digits)
/// of a channel's digits; in list order.
fn expected_search(all: &[Searchable], fragment: &str, status: Option<ActivityStatus>) -> Vec<ActivityId> {
    let search = ActivitySearch::new(fragment).unwrap();
    let mut found: Vec<&Activity> = all
        .iter()
        .filter(|s| status.is_none_or(|st| s.activity.status == st))
        .filter(|s| {
            crate::model::text::search_key(&s.name).contains(search.name_fragment())
                || search.digit_fragment().is_some_and(|d| s.digits.iter().any(|own| own.contains(d)))
        })
        .map(|s| &s.activity)
        .collect();
    found.sort_by(|x, y| (y.updated_at, y.id.as_str()).cmp(&(x.updated_at, x.id.as_str())));
    found.into_iter().map(|a| a.id.clone()).collect()
}

/// Searches `fragment` as one page and in pages of two, and holds both to [`expected_search`].
async fn assert_search(r: &Repositories, agent: &AgentId, all: &[Searchable], fragment: &str, status: Option<ActivityStatus>) {
    let expected = expected_search(all, fragment, status);
    let filter = ActivityFilter {
        status: status.map_or_else(StatusSet::default, StatusSet::from),
        search: Some(ActivitySearch::new(fragment).unwrap()),
        ..Default::default()
    };
    let first = &expected[..expected.len().min(100)];
    assert_eq!(list_ids(r, agent, filter.clone()).await, first, "search {fragment:?} ({status:?}), its first page of 100");
    let mut paged = Vec::new();
    for offset in (0..=expected.len() as u64).step_by(2) {
        let p = r.activities.list(agent, &filter, page(2, offset)).await.unwrap();
        assert_eq!(p.total, expected.len() as u64, "total of {fragment:?} at offset {offset}");
        paged.extend(p.items.into_iter().map(|v| v.activity.id));
    }
    assert_eq!(paged, expected, "pages of {fragment:?}");
}

/// Search by its definition over names that a kept index could get wrong (repeated letters,
/// accents and emoji, a name longer than an index term, `%` and `_`, a contact with two
/// channels), fragments longer than a term, and after every write that changes what it matches
/// or the order: a status change, a tag attached, a rename through either port.
pub async fn activity_search_matches_its_definition_after_writes(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let long = "Maximiliano Alejandro de la Santísima Trinidad Pérez";
    let people = [
        ("Anna Bell", "5215550001"),
        ("ÉMILE Zola", "4470009999"),
        ("😀 Smile", "5215550777"),
        (long, "15550004000"),
        ("Bob 100%_", "15550004001"),
        // Named by their numbers, as a template send to someone new names them.
        ("15550004002", "15550004002"),
        ("+52 1555 0002", "5215550002"),
    ];
    let mut all = Vec::new();
    for (i, (name, digits)) in people.iter().enumerate() {
        let activity = conversation(&r, &a, name, digits, if i % 2 == 0 { Open } else { Pending }, t(i as i64)).await;
        all.push(Searchable { activity, name: name.to_string(), digits: vec![digits.to_string()] });
    }
    let mut two = contact(&a, "Two Ways", phone("4470001234"), t(10));
    two.channels.push(Channel::new(ChannelType::Email, "anna.99887@x.test").unwrap());
    r.contacts.insert(&two, &[]).await.unwrap();
    let activity = activity(&a, &two.id, Closed, t(10));
    r.activities.insert(&activity, &[]).await.unwrap();
    all.push(Searchable { activity, name: "Two Ways".into(), digits: vec!["4470001234".into(), "99887".into()] });
    for (name, digits) in people {
        conversation(&r, &b, name, digits, Open, t(20)).await;
    }

    let fragments = [
        "a",
        "N",
        "nn",
        "ANNA",
        "émile",
        "😀",
        "smile",
        "100%_",
        "%",
        "_",
        "1",
        "555",
        "+44 700",
        "55500040",
        "0004000",
        "99887",
        "5",
        "55",
        "02",
        "+5",
        "4002",
        "0004002",
        "155500040",
        "1555 0",
        "alejandro de la santísima trinidad pérez",
        long,
        "Alejandro de la Santísima Trinidad PérezX",
        "zzz",
    ];
    for fragment in fragments {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending, Closed] {
        assert_search(&r, &a, &all, "a", Some(status)).await;
    }

    // A status change; a tag attached (moves the activity to the top); renames through both ports.
    all[1].activity.status = Closed;
    all[1].activity.updated_at = t(30);
    assert!(r.activities.update(ActivityWrite::of(&all[1].activity), &[]).await.unwrap());
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.activities.attach_tags(&a, &all[0].activity.id, std::slice::from_ref(&vip.id), t(40), &[]).await.unwrap();
    all[0].activity.updated_at = t(40);
    let mut renamed = r.contacts.get(&a, &all[2].activity.contact_id).await.unwrap().unwrap();
    renamed.profile_name = ProfileName::new("Zed Renamed").unwrap();
    renamed.updated_at = t(50);
    assert!(r.contacts.update(&renamed, &[]).await.unwrap());
    all[2].name = "Zed Renamed".into();
    all[3].activity.updated_at = t(60);
    assert!(
        r.activities.update(ActivityWrite::of(&all[3].activity).renaming(Some(&ProfileName::new("Ana Long").unwrap())), &[]).await.unwrap()
    );
    all[3].name = "Ana Long".into();
    // A contact named by its number renamed, and one renamed to its number.
    all[5].activity.updated_at = t(70);
    assert!(
        r.activities
            .update(ActivityWrite::of(&all[5].activity).renaming(Some(&ProfileName::new("Numbered Nine").unwrap())), &[])
            .await
            .unwrap()
    );
    all[5].name = "Numbered Nine".into();
    let mut to_number = r.contacts.get(&a, &all[1].activity.contact_id).await.unwrap().unwrap();
    to_number.profile_name = ProfileName::new("4470009999").unwrap();
    to_number.updated_at = t(80);
    assert!(r.contacts.update(&to_number, &[]).await.unwrap());
    all[1].name = "4470009999".into();
    // An update that keeps the name keeps every term.
    let mut noted = r.contacts.get(&a, &all[0].activity.contact_id).await.unwrap().unwrap();
    noted.notes = Some(Notes::new("called back").unwrap());
    noted.updated_at = t(90);
    assert!(r.contacts.update(&noted, &[]).await.unwrap());
    let after = [
        "a",
        "smile",
        "zed",
        "renamed",
        "alejandro de la santísima trinidad pérez",
        "ana",
        "long",
        "555",
        "1",
        "4002",
        "44",
        "9",
        "447000",
        "zola",
        "nine",
    ];
    for fragment in after {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending, Closed] {
        assert_search(&r, &a, &all, "a", Some(status)).await;
    }
    let tagged = ActivityFilter { tag: Some(vip.id.clone()), search: Some(ActivitySearch::new("a").unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, tagged).await, [all[0].activity.id.clone()], "a search within a tag");
}

/// Searches with many matches, which a backend may order by walking the agent's activities
/// rather than looking each match up: matches spread among other activities, times shared by
/// several (across any read boundary), a status filter, another agent's matches interleaved,
/// and matches that all come after hundreds of other activities.
pub async fn activity_search_orders_many_matches_by_update_time(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut all = Vec::new();
    let add = async |agent: &AgentId, i: i64, digits: String, status: ActivityStatus, at: Timestamp| {
        let activity = conversation(&r, agent, &format!("Person {i}"), &digits, status, at).await;
        Searchable { activity, name: format!("Person {i}"), digits: vec![digits] }
    };
    // The oldest: 65 matches of "666", behind every other activity of the agent.
    for i in 0..65 {
        all.push(add(&a, i, format!("666{i:04}"), Open, t(i / 3)).await);
    }
    // 300 alternating "777" (matches) and "888", five to a time, statuses alternating by three.
    for i in 100..400 {
        let digits = if i % 2 == 0 { format!("777{i:04}") } else { format!("888{i:04}") };
        all.push(add(&a, i, digits, if i % 3 == 0 { Pending } else { Open }, t(100 + i / 5)).await);
    }
    // 150 more, newer, that match neither.
    for i in 400..550 {
        all.push(add(&a, i, format!("999{i:04}"), Open, t(200 + i)).await);
    }
    for i in 0..40 {
        add(&b, 1_000 + i, format!("777{:04}", 2 * i), Open, t(150 + i)).await;
    }
    for fragment in ["777", "666", "7770", "person 1"] {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending] {
        assert_search(&r, &a, &all, "777", Some(status)).await;
        assert_search(&r, &a, &all, "666", Some(status)).await;
    }
    // A status change moves one match to the top.
    all[70].activity.status = Closed;
    all[70].activity.updated_at = t(5_000);
    assert!(r.activities.update(ActivityWrite::of(&all[70].activity), &[]).await.unwrap());
    assert_search(&r, &a, &all, "777", None).await;
    assert_search(&r, &a, &all, "777", Some(Closed)).await;
}

/// Activities page by `updated_at` descending, ties by id descending, with the total on every
/// page.
pub async fn activities_page_by_update_time_with_tie_break(r: Repositories) {
    let a = agent(&r, "A").await;
    let mut made = Vec::new();
    for i in 0..6 {
        made.push(conversation(&r, &a, &format!("P{i}"), &format!("52155501{i:02}"), ActivityStatus::Open, t(i / 3)).await);
    }
    made.sort_by(|x, y| (y.updated_at, y.id.as_str()).cmp(&(x.updated_at, x.id.as_str())));
    let mut seen = Vec::new();
    for offset in [0, 4] {
        let p = r.activities.list(&a, &ActivityFilter::default(), page(4, offset)).await.unwrap();
        assert_eq!(p.total, 6);
        seen.extend(p.items.into_iter().map(|v| v.activity.id));
    }
    assert_eq!(seen, made.into_iter().map(|a| a.id).collect::<Vec<_>>());
}

/// An activity update writes status, assignee, `last_inbound_at` and `updated_at` and renames
/// its contact in the same write, which the search then finds by the new name.
pub async fn activity_update_renames_contact_atomically(r: Repositories) {
    let a = agent(&r, "A").await;
    let mut act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    act.status = ActivityStatus::Closed;
    act.assigned_to = Some(Assignee::new("user_7").unwrap());
    act.last_inbound_at = Some(t(3));
    act.updated_at = t(4);
    let new_name = ProfileName::new("Ana María").unwrap();
    assert!(r.activities.update(ActivityWrite::of(&act).renaming(Some(&new_name)), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.activity, act);
    assert_eq!(view.profile_name, new_name);
    assert_eq!(r.contacts.get(&a, &act.contact_id).await.unwrap().unwrap().profile_name, new_name);
    let search = ActivityFilter { search: Some(ActivitySearch::new("maría").unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, search).await, [act.id]);
}

/// `(profile name, channels, [(tag name, color)])` as an activity's detail and its list entry
/// show them, which must agree.
async fn shown(r: &Repositories, agent: &AgentId, id: &ActivityId) -> (String, Vec<Channel>, Vec<(String, String)>) {
    let of = |v: ActivityView| {
        let tags = v.tags.iter().map(|t| (t.name.as_str().to_string(), t.color.as_str().to_string())).collect();
        (v.profile_name.as_str().to_string(), v.channels, tags)
    };
    let detail = of(r.activities.get(agent, id).await.unwrap().unwrap());
    let listed = r.activities.list(agent, &ActivityFilter::default(), page(100, 0)).await.unwrap().items;
    let entry = of(listed.into_iter().find(|v| &v.activity.id == id).unwrap());
    assert_eq!(detail, entry, "detail and list entry agree");
    detail
}

/// What an activity shows of its contact and tags follows every write that changes them: a
/// contact rename through the contacts port, a tag's rename and recolor (re-sorting the tags),
/// detaching, and deleting a tag.
pub async fn activity_views_follow_their_contact_and_tags(r: Repositories) {
    let a = agent(&r, "A").await;
    let zeta = tag(&a, "zeta", t(0));
    let alpha = tag(&a, "Alpha", t(0));
    r.tags.insert(&zeta, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&alpha, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let mut c = contact(&a, "Ana", phone("5215550001"), t(0));
    c.channels.push(Channel::new(ChannelType::Email, "ana@example.com").unwrap());
    r.contacts.insert(&c, &[]).await.unwrap();
    let act = activity(&a, &c.id, ActivityStatus::Open, t(0));
    r.activities.insert(&act, &[]).await.unwrap();
    let grey = TagColor::default_color().as_str().to_string();
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana".to_string(), c.channels.clone(), vec![]));

    r.activities.attach_tags(&a, &act.id, &[zeta.id.clone(), alpha.id.clone()], t(1), &[]).await.unwrap();
    let tags = vec![("Alpha".to_string(), grey.clone()), ("zeta".to_string(), grey.clone())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana".to_string(), c.channels.clone(), tags));

    c.profile_name = ProfileName::new("Ana María").unwrap();
    c.updated_at = t(2);
    assert!(r.contacts.update(&c, &[]).await.unwrap());
    let mut renamed = alpha.clone();
    renamed.name = TagName::new("Zulu").unwrap();
    renamed.color = TagColor::new("#ff0000").unwrap();
    renamed.updated_at = t(3);
    assert!(r.tags.update(&renamed, &[]).await.unwrap());
    let tags = vec![("zeta".to_string(), grey.clone()), ("Zulu".to_string(), "#ff0000".to_string())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), tags));

    assert!(r.activities.detach_tag(&a, &act.id, &zeta.id, t(4), &[]).await.unwrap());
    let tags = vec![("Zulu".to_string(), "#ff0000".to_string())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), tags));
    assert!(r.tags.delete(&a, &renamed.id, &[]).await.unwrap());
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), vec![]));
}

/// A page filtered by tag is in update order, newest first, like the unfiltered list: attaching
/// and every later update move an activity, with or without a status filter too, and it pages.
pub async fn tag_pages_follow_update_order(r: Repositories) {
    let a = agent(&r, "A").await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let mut first = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let second = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let untagged = conversation(&r, &a, "Cy", "5215550003", ActivityStatus::Open, t(9)).await;
    r.activities.attach_tags(&a, &first.id, std::slice::from_ref(&vip.id), t(1), &[]).await.unwrap();
    r.activities.attach_tags(&a, &second.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap();
    let by_tag = |status: Option<ActivityStatus>| ActivityFilter {
        tag: Some(vip.id.clone()),
        status: status.map_or_else(StatusSet::default, StatusSet::from),
        ..Default::default()
    };
    assert_eq!(list_ids(&r, &a, by_tag(None)).await, [second.id.clone(), first.id.clone()]);

    first.status = ActivityStatus::Closed;
    first.updated_at = t(3);
    assert!(r.activities.update(ActivityWrite::of(&first), &[]).await.unwrap());
    assert_eq!(list_ids(&r, &a, by_tag(None)).await, [first.id.clone(), second.id.clone()]);
    assert_eq!(list_ids(&r, &a, by_tag(Some(ActivityStatus::Open))).await, std::slice::from_ref(&second.id));
    assert_eq!(list_ids(&r, &a, by_tag(Some(ActivityStatus::Closed))).await, [first.id.clone()]);
    let second_page = r.activities.list(&a, &by_tag(None), page(1, 1)).await.unwrap();
    assert_eq!(second_page.items.iter().map(|v| v.activity.id.clone()).collect::<Vec<_>>(), std::slice::from_ref(&second.id));
    assert_eq!(second_page.total, 2);
    assert!(!list_ids(&r, &a, by_tag(None)).await.contains(&untagged.id));

    let other = agent(&r, "B").await;
    assert!(list_ids(&r, &other, by_tag(None)).await.is_empty(), "another agent sees none of it");
}

/// Attaching a tag twice or detaching it twice is a no-op that leaves `updated_at` alone;
/// views list tags by name; an unknown activity is `false`.
pub async fn tag_attach_is_idempotent_and_bumps_only_on_change(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let (x, y) = (tag(&a, "b-tag", t(0)), tag(&a, "A-tag", t(0)));
    r.tags.insert(&x, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&y, MAX_TAGS_PER_AGENT, &[]).await.unwrap();

    assert!(r.activities.attach_tags(&a, &act.id, &[x.id.clone(), y.id.clone()], t(5), &[]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&x.id), t(9), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), [y.id.clone(), x.id.clone()], "tags by name");
    assert_eq!(view.activity.updated_at, t(5), "a no-op attach does not bump updated_at");

    assert!(r.activities.detach_tag(&a, &act.id, &x.id, t(12), &[]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &act.id, &x.id, t(15), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.len(), 1);
    assert_eq!(view.activity.updated_at, t(12));
    assert!(!r.activities.detach_tag(&a, &ActivityId::new("act_nope"), &x.id, t(1), &[]).await.unwrap());
}

/// An agent's tags stop at the limit the insert is given, counted in its transaction.
pub async fn tags_stop_at_the_agents_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for n in 0..3 {
        assert!(r.tags.insert(&tag(&a, &format!("t{n}"), t(n)), 3, &[]).await.unwrap());
    }
    let fourth = tag(&a, "t3", t(5));
    assert!(!r.tags.insert(&fourth, 3, &[]).await.unwrap(), "over the limit");
    assert_eq!(r.tags.list(&a).await.unwrap().len(), 3, "nothing written");
    assert!(r.tags.insert(&tag(&b, "t0", t(0)), 3, &[]).await.unwrap(), "another agent's own count");
    assert!(matches!(r.tags.insert(&tag(&a, "T0", t(6)), 4, &[]).await, Err(StoreError::Conflict(_))), "names stay unique");

    // Concurrent inserts never pass the limit together.
    let c = agent(&r, "C").await;
    let tries = (0..6).map(|n| {
        let (r, tag) = (r.clone(), tag(&c, &format!("c{n}"), t(n)));
        async move { r.tags.insert(&tag, 4, &[]).await.unwrap() }
    });
    let made = futures_util::future::join_all(tries).await.into_iter().filter(|&made| made).count();
    assert_eq!((made, r.tags.list(&c).await.unwrap().len()), (4, 4));
}

/// An activity holds at most `MAX_TAGS_PER_ACTIVITY` tags: an attach that would pass it is a
/// `Conflict` and attaches nothing; attaching what it holds stays a no-op.
pub async fn activity_tags_stop_at_the_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let mut ids = Vec::new();
    for n in 0..=MAX_TAGS_PER_ACTIVITY {
        let made = tag(&a, &format!("t{n:02}"), t(0));
        assert!(r.tags.insert(&made, MAX_TAGS_PER_AGENT, &[]).await.unwrap());
        ids.push(made.id);
    }
    let (first, last) = ids.split_at(MAX_TAGS_PER_ACTIVITY as usize);
    assert!(r.activities.attach_tags(&a, &act.id, first, t(1), &[]).await.unwrap(), "exactly the limit");
    let over = r.activities.attach_tags(&a, &act.id, &[first[0].clone(), last[0].clone()], t(2), &[]).await;
    assert!(matches!(over, Err(StoreError::Conflict(_))), "{over:?}");
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!((view.tags.len(), view.activity.updated_at), (MAX_TAGS_PER_ACTIVITY as usize, t(1)), "nothing of it written");
    assert!(r.activities.attach_tags(&a, &act.id, &first[..2], t(3), &[]).await.unwrap(), "what it holds: a no-op");
    assert!(r.activities.detach_tag(&a, &act.id, &first[0], t(4), &[]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &act.id, last, t(5), &[]).await.unwrap(), "room again");
}

/// Concurrent tag inserts all land, concurrent inserts of one name let exactly one through
/// (the rest `Conflict`), and concurrent attaches to one activity lose none.
pub async fn concurrent_writers_neither_lose_nor_duplicate(r: Repositories) {
    let a = agent(&r, "A").await;
    let distinct = (0..16).map(|i| {
        let r = r.clone();
        let tag = tag(&a, &format!("t{i}"), t(i));
        async move { r.tags.insert(&tag, MAX_TAGS_PER_AGENT, &[]).await }
    });
    let results = futures_util::future::join_all(distinct).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(r.tags.list(&a).await.unwrap().len(), 16);

    let same = (0..8).map(|i| {
        let r = r.clone();
        let tag = tag(&a, "SAME", t(i));
        async move { r.tags.insert(&tag, MAX_TAGS_PER_AGENT, &[]).await }
    });
    let results = futures_util::future::join_all(same).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "{results:?}");
    assert!(results.iter().all(|r| matches!(r, Ok(true) | Err(StoreError::Conflict(_)))), "{results:?}");

    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let ids: Vec<TagId> = r.tags.list(&a).await.unwrap().into_iter().map(|t| t.id).collect();
    let attaches = ids.chunks(4).map(|chunk| {
        let r = r.clone();
        let (a, act, chunk) = (a.clone(), act.id.clone(), chunk.to_vec());
        async move { r.activities.attach_tags(&a, &act, &chunk, t(30), &[]).await }
    });
    let results = futures_util::future::join_all(attaches).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    assert_eq!(r.activities.get(&a, &act.id).await.unwrap().unwrap().tags.len(), ids.len());
}

async fn total(r: &Repositories, agent: &AgentId, status: Option<ActivityStatus>, tag: Option<&TagId>) -> u64 {
    let filter =
        ActivityFilter { status: status.map_or_else(StatusSet::default, StatusSet::from), tag: tag.cloned(), ..Default::default() };
    r.activities.list(agent, &filter, page(1, 0)).await.unwrap().total
}

/// List totals are kept, not counted (a backend may store them): they must follow every insert
/// and status change exactly once, under concurrency too, and per agent.
pub async fn activity_totals_follow_inserts_and_status_changes(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut made = Vec::new();
    for (i, status) in [Open, Open, Open, Pending, Pending].into_iter().enumerate() {
        made.push(conversation(&r, &a, &format!("P{i}"), &format!("52155502{i:02}"), status, t(i as i64)).await);
    }
    conversation(&r, &b, "Other", "5215550299", Open, t(0)).await;
    let totals = async |r: &Repositories| {
        (
            total(r, &a, None, None).await,
            total(r, &a, Some(Open), None).await,
            total(r, &a, Some(Pending), None).await,
            total(r, &a, Some(Closed), None).await,
        )
    };
    assert_eq!(totals(&r).await, (5, 3, 2, 0));
    assert_eq!(total(&r, &b, None, None).await, 1);

    // A refused insert (second activity of a contact) changes nothing.
    let again = activity(&a, &made[0].contact_id, Open, t(9));
    assert!(r.activities.insert(&again, &[]).await.is_err());
    // Updates that keep the status, and another agent's update, change nothing.
    let mut same = made[0].clone();
    same.updated_at = t(10);
    assert!(r.activities.update(ActivityWrite::of(&same), &[]).await.unwrap());
    let mut foreign = made[1].clone();
    foreign.agent_id = b.clone();
    foreign.status = Closed;
    assert!(!r.activities.update(ActivityWrite::of(&foreign), &[]).await.unwrap());
    assert_eq!(totals(&r).await, (5, 3, 2, 0));

    // Eight writers close the same open activity at once: it moves once.
    let closing = (0..8).map(|i| {
        let r = r.clone();
        let mut act = made[1].clone();
        act.status = Closed;
        act.updated_at = t(20 + i);
        async move { r.activities.update(ActivityWrite::of(&act), &[]).await }
    });
    let results = futures_util::future::join_all(closing).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    let mut reopened = made[3].clone();
    reopened.status = Open;
    assert!(r.activities.update(ActivityWrite::of(&reopened), &[]).await.unwrap());
    assert_eq!(totals(&r).await, (5, 3, 1, 1));
    assert_eq!(total(&r, &b, Some(Closed), None).await, 0);

    // By tag, with and without a status.
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    for act in [&made[1], &made[2]] {
        r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&vip.id), t(30), &[]).await.unwrap();
    }
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 2);
    assert_eq!(total(&r, &a, Some(Closed), Some(&vip.id)).await, 1);
    assert_eq!(total(&r, &b, None, Some(&vip.id)).await, 0);

    // Tag totals move only when a link is made or removed: attaching again or detaching twice
    // changes nothing, and eight writers attaching the same tag at once count once.
    r.activities.attach_tags(&a, &made[1].id, std::slice::from_ref(&vip.id), t(31), &[]).await.unwrap();
    assert!(r.activities.detach_tag(&a, &made[2].id, &vip.id, t(32), &[]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &made[2].id, &vip.id, t(33), &[]).await.unwrap());
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 1);
    let attaching = (0..8).map(|i| {
        let (r, a, act, tag) = (r.clone(), a.clone(), made[3].id.clone(), vip.id.clone());
        async move { r.activities.attach_tags(&a, &act, &[tag], t(40 + i), &[]).await }
    });
    let results = futures_util::future::join_all(attaching).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 2);
    assert_eq!(list_ids(&r, &a, ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() }).await.len(), 2);
}
