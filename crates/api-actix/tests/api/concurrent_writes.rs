//! Many writers at once through the real app, on both backends: every write endpoint mixed, with
//! status moves in both directions and tag churn (attach, detach, rename, delete, create). The
//! writers run a fixed number of operations, not for a fixed time, so the test asks the same of
//! a slow machine as of a fast one. No answer may be a 5xx; every acknowledged write reads back;
//! the kept totals (per status, per tag) and the kept views (tag names on activities) agree with
//! the rows once the writers are done.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use crate::common::{Reply, TestApp};
use futures_util::future::join_all;
use parley_domain::model::ActivityStatus;
use serde_json::{Value, json};

/// Concurrent writers: more than PostgreSQL's pool (16), so writers also queue for connections.
const WRITERS: u64 = 24;
const OPS_PER_WRITER: u64 = 30;
const ACTIVITIES: usize = 6;
const STATUSES: [&str; 3] = ["open", "closed", "pending"];

/// A small deterministic generator (xorshift), one per writer: the same mix on every run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// What the writers were told succeeded, to read back afterwards.
#[derive(Default)]
struct Acknowledged {
    tags: BTreeMap<String, String>,
    deleted_tags: BTreeSet<String>,
    contacts: BTreeMap<String, String>,
    carts: BTreeMap<String, Value>,
    sent_to: BTreeSet<String>,
    renamed_contacts: BTreeSet<String>,
    answers: BTreeMap<(&'static str, u16), usize>,
}

struct World {
    app: TestApp,
    /// (contact id, activity id) of the conversations every writer moves.
    conversations: Vec<(String, String)>,
    template: String,
    products: Vec<String>,
    /// The tags writers pick from: created, renamed and deleted as they go.
    tags: RefCell<Vec<String>>,
    acked: RefCell<Acknowledged>,
}

impl World {
    fn tag(&self, dice: &mut Dice) -> Option<String> {
        let tags = self.tags.borrow();
        (!tags.is_empty()).then(|| tags[dice.roll(tags.len())].clone())
    }

    /// Records an answer and checks it is one `op` may give: its success, or a 4xx it documents
    /// for a race the writers cause themselves (a tag deleted under an attach).
    #[track_caller]
    fn answer(&self, op: &'static str, reply: &Reply, allowed: &[u16]) {
        assert!(reply.status < 500, "{op} answered {}: {}", reply.status, reply.body);
        assert!(allowed.contains(&reply.status), "{op} answered {}: {}", reply.status, reply.body);
        *self.acked.borrow_mut().answers.entry((op, reply.status)).or_default() += 1;
    }
}

async fn world(app: TestApp) -> World {
    app.import_demo_catalog(&app.a).await;
    let mut conversations = Vec::new();
    for i in 0..ACTIVITIES {
        let status = if i % 2 == 0 { ActivityStatus::Open } else { ActivityStatus::Closed };
        conversations.push(app.conversation(&app.a, &format!("Buyer {i}"), ("whatsapp", &format!("+1 415 555 01{i:02}")), status).await);
    }
    let mut tags = Vec::new();
    for i in 0..6 {
        tags.push(app.tag(&app.a, &format!("seed {i}")).await);
    }
    let line = app.state.lines.add(&app.a.agent, "200000000000001", "300000000000001", None).await.unwrap();
    app.state.lines.sync_line(&line).await.unwrap();
    let templates = app.get("/v1/templates", &app.a.secret).await;
    let template = templates.data().as_array().unwrap().iter().find(|t| t["name"] == "order_update" && t["status"] == "APPROVED").unwrap()
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    let products = app.get("/v1/products?limit=5", &app.a.publishable).await;
    let products = products.data().as_array().unwrap().iter().map(|p| p["_id"].as_str().unwrap().to_string()).collect();
    World { app, conversations, template, products, tags: RefCell::new(tags), acked: RefCell::default() }
}

fn send_body(to: &str) -> Value {
    json!({
        "to": to,
        "components": [
            {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
            {"type": "body", "parameters": [{"type": "text", "text": "Iris"}, {"type": "text", "text": "A-17"}, {"type": "text", "text": "Friday"}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "A-17"}]}
        ]
    })
}

/// One writer: `OPS_PER_WRITER` operations drawn from every write endpoint.
async fn writer(w: &World, id: u64) {
    let app = &w.app;
    let key = app.a.secret.as_str();
    let mut dice = Dice(0x9E37_79B9_7F4A_7C15 ^ (id + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
    for op in 0..OPS_PER_WRITER {
        let (contact, activity) = &w.conversations[dice.roll(ACTIVITIES)];
        match dice.roll(10) {
            // Status moves in every direction, with an assignee now and then.
            0 | 1 => {
                let status = STATUSES[dice.roll(STATUSES.len())];
                let body =
                    if op % 3 == 0 { json!({"status": status, "assigned_to": format!("user-{id}")}) } else { json!({"status": status}) };
                w.answer("move", &app.patch(&format!("/v1/activities/{activity}"), key, body).await, &[200]);
            }
            2 => {
                let picked: Vec<String> = (0..1 + dice.roll(3)).filter_map(|_| w.tag(&mut dice)).collect();
                // Every tag may be deleted by now: an empty list is the writer's mistake (400), not the server's.
                if picked.is_empty() {
                    continue;
                }
                let r = app.post(&format!("/v1/activities/{activity}/tags"), key, json!({"tag_ids": picked})).await;
                w.answer("attach", &r, &[200, 404]);
            }
            3 => {
                let Some(tag) = w.tag(&mut dice) else { continue };
                w.answer("detach", &app.delete(&format!("/v1/activities/{activity}/tags?tag_id={tag}"), key).await, &[200, 404]);
            }
            4 => {
                let Some(tag) = w.tag(&mut dice) else { continue };
                let body = json!({"name": format!("renamed {id}-{op}"), "color": format!("#{:06x}", dice.roll(0xFFFFFF))});
                w.answer("rename tag", &app.patch(&format!("/v1/tags/{tag}"), key, body).await, &[200, 404]);
            }
            5 => {
                // Churn: one tag goes, another comes.
                if let Some(tag) = w.tag(&mut dice) {
                    let r = app.delete(&format!("/v1/tags/{tag}"), key).await;
                    w.answer("delete tag", &r, &[200, 404]);
                    if r.status == 200 {
                        w.tags.borrow_mut().retain(|t| t != &tag);
                        w.acked.borrow_mut().deleted_tags.insert(tag);
                    }
                }
                let name = format!("tag {id}-{op}");
                let r = app.post("/v1/tags", key, json!({"name": name})).await;
                w.answer("create tag", &r, &[201]);
                let tag = r.data()["id"].as_str().unwrap().to_string();
                w.tags.borrow_mut().push(tag.clone());
                w.acked.borrow_mut().tags.insert(tag, name);
            }
            6 => {
                let name = format!("Walk-in {id}-{op}");
                let body = json!({"channel_type": "whatsapp", "channel_id": format!("+44 20 7946 {id:02}{op:02}"), "profile_name": name});
                let r = app.post("/v1/contacts", key, body).await;
                w.answer("create contact", &r, &[201]);
                w.acked.borrow_mut().contacts.insert(r.data()["id"].as_str().unwrap().to_string(), name);
            }
            7 => {
                // The contact, then its activity's kept name and search terms.
                let body = json!({"profile_name": format!("Buyer renamed {id}-{op}")});
                w.answer("rename contact", &app.patch(&format!("/v1/contacts/{contact}"), key, body).await, &[200]);
                w.acked.borrow_mut().renamed_contacts.insert(contact.clone());
            }
            8 => {
                let items: Vec<Value> =
                    w.products.iter().take(1 + dice.roll(3)).map(|p| json!({"id": p, "qty": 1 + dice.roll(5)})).collect();
                let r = app.post("/v1/carts", &app.a.publishable, json!({"items": items})).await;
                w.answer("cart", &r, &[201]);
                w.acked.borrow_mut().carts.insert(r.data()["code"].as_str().unwrap().to_string(), json!(items));
            }
            _ => {
                // A send opens or reopens the recipient's activity; a few recipients, so sends race.
                let to = format!("+1 650 555 01{:02}", dice.roll(4));
                w.answer("send", &app.post(&format!("/v1/templates/{}/send", w.template), key, send_body(&to)).await, &[200]);
                w.acked.borrow_mut().sent_to.insert(to);
            }
        }
    }
}

async fn every_write_endpoint_at_once_answers_no_5xx_and_keeps_every_acknowledged_write(app: TestApp) {
    let backend = app.db.store.backend();
    let w = world(app).await;
    join_all((0..WRITERS).map(|id| writer(&w, id))).await;
    let app = &w.app;
    let key = app.a.secret.as_str();
    let acked = w.acked.take();
    eprintln!("{backend}: answers {:?}", acked.answers);
    for op in ["move", "attach", "detach", "rename tag", "delete tag", "create tag", "create contact", "rename contact", "cart", "send"] {
        assert!(acked.answers.keys().any(|(o, s)| *o == op && *s < 300), "the mix ran {op} successfully at least once");
    }

    // Every acknowledged write is there.
    let listed = app.get("/v1/tags", key).await;
    listed.assert_status(200);
    let stored: BTreeMap<String, String> = listed
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap().to_string(), t["name"].as_str().unwrap().to_string()))
        .collect();
    for (tag, name) in &acked.tags {
        match stored.get(tag) {
            None => assert!(acked.deleted_tags.contains(tag), "tag {tag} ({name:?}) was created and never deleted, yet is gone"),
            Some(now) => {
                assert!(!acked.deleted_tags.contains(tag), "tag {tag} was deleted, yet is listed");
                assert!(now == name || now.starts_with("renamed "), "tag {tag} is {now:?}, created as {name:?}");
            }
        }
    }
    let remaining: BTreeSet<String> = w.tags.borrow().iter().cloned().collect();
    assert_eq!(stored.keys().cloned().collect::<BTreeSet<_>>(), remaining, "the tags listed are those not deleted");
    for (contact, name) in &acked.contacts {
        let r = app.get(&format!("/v1/contacts/{contact}"), key).await;
        r.assert_status(200);
        assert_eq!(r.data()["profile_name"], json!(name));
    }
    for (code, items) in &acked.carts {
        let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
        r.assert_status(200);
        let got: Vec<(String, u64)> =
            r.data()["items"].as_array().unwrap().iter().map(|i| (i["_id"].as_str().unwrap().into(), i["qty"].as_u64().unwrap())).collect();
        let sent: Vec<(String, u64)> =
            items.as_array().unwrap().iter().map(|i| (i["id"].as_str().unwrap().into(), i["qty"].as_u64().unwrap())).collect();
        assert_eq!(got, sent, "cart {code}");
    }

    // Every activity, once each, and what the kept totals and views say of them.
    let all = app.get("/v1/activities?limit=100", key).await;
    all.assert_status(200);
    let activities = all.data().as_array().unwrap().clone();
    assert_eq!(all.body["pagination"]["total"].as_u64(), Some(activities.len() as u64), "the kept total is the number of activities");
    assert_eq!(activities.len(), ACTIVITIES + acked.sent_to.len(), "one activity per conversation and per recipient of a send");
    for to in &acked.sent_to {
        let digits: String = to.chars().filter(char::is_ascii_digit).collect();
        let found = app.get(&format!("/v1/activities?search={digits}"), key).await;
        assert_eq!(found.body["pagination"]["total"].as_u64(), Some(1), "the activity a send to {to} opened");
    }
    for (contact, activity) in &w.conversations {
        let shown = activities.iter().find(|a| a["id"] == json!(activity)).unwrap();
        let stored = app.get(&format!("/v1/contacts/{contact}"), key).await;
        assert_eq!(shown["profile_name"], stored.data()["profile_name"], "the activity shows its contact's name");
        if acked.renamed_contacts.contains(contact) {
            let name = stored.data()["profile_name"].as_str().unwrap().to_lowercase();
            let found = app.get(&format!("/v1/activities?search={}", name.replace(' ', "%20")), key).await;
            assert!(
                found.data().as_array().unwrap().iter().any(|a| a["id"] == json!(activity)),
                "a renamed contact is found by its new name"
            );
        }
    }
    for status in STATUSES {
        let listed = activities.iter().filter(|a| a["status"] == status).count() as u64;
        let r = app.get(&format!("/v1/activities?status={status}&limit=100"), key).await;
        assert_eq!(r.body["pagination"]["total"].as_u64(), Some(listed), "kept total of {status}");
        assert_eq!(r.data().as_array().unwrap().len() as u64, listed, "page of {status}");
    }
    for (tag, name) in &stored {
        let carrying: Vec<&Value> =
            activities.iter().filter(|a| a["tags"].as_array().unwrap().iter().any(|t| t["id"] == json!(tag))).collect();
        for a in &carrying {
            let shown = a["tags"].as_array().unwrap().iter().find(|t| t["id"] == json!(tag)).unwrap();
            assert_eq!(shown["name"], json!(name), "activity {} shows tag {tag}'s current name", a["id"]);
        }
        let r = app.get(&format!("/v1/activities?tag={tag}&limit=100"), key).await;
        assert_eq!(r.body["pagination"]["total"].as_u64(), Some(carrying.len() as u64), "kept count of tag {tag}");
        assert_eq!(r.data().as_array().unwrap().len(), carrying.len(), "page of tag {tag}");
    }
    for tag in &acked.deleted_tags {
        assert!(
            activities.iter().all(|a| a["tags"].as_array().unwrap().iter().all(|t| t["id"] != json!(tag))),
            "deleted tag {tag} is on no activity"
        );
    }
}

http_tests!(every_write_endpoint_at_once_answers_no_5xx_and_keeps_every_acknowledged_write);
