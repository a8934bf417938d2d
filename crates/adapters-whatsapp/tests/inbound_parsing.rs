//! Property tests of the WhatsApp webhook reader: whatever a body holds it never panics, every
//! message of a delivery is read (none lost to another's content) with its text made storable,
//! and statuses read back as sent.

use parley_adapters_whatsapp::parse_webhook;
use parley_domain::model::ExecutionStatus;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any string, biased towards what breaks validators: edges of whitespace, control
/// characters, digits and punctuation the rules care about, multi-byte characters.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ \t\n\r\u{0}\u{7f}\u{85}\u{a0}\u{2028}#@.+_:%/?-]{0,6}[a-zA-Z0-9éİß\u{1F600}]{0,12}[ \t\n\u{0}]{0,3}",
        "[0-9 +-]{0,24}",
        "[ -~]{0,80}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        hostile().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(hostile(), inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn webhook_like() -> impl Strategy<Value = Value> {
    let status = (json_value(), prop_oneof![Just(json!("read")), Just(json!("failed")), json_value()], prop_oneof![json_value(), any::<i64>().prop_map(|n| json!(n.to_string()))])
        .prop_map(|(id, status, timestamp)| json!({"id": id, "status": status, "timestamp": timestamp, "errors": [{"code": 1, "error_data": {"details": "x"}}]}));
    let message = (json_value(), json_value()).prop_map(|(from, timestamp)| json!({"from": from, "timestamp": timestamp}));
    (json_value(), proptest::collection::vec(status, 0..3), proptest::collection::vec(message, 0..3), json_value()).prop_map(
        |(line, statuses, messages, contacts)| {
            json!({"entry": [{"changes": [{"value": {"metadata": {"phone_number_id": line}, "statuses": statuses, "messages": messages, "contacts": contacts}}]}]})
        },
    )
}

proptest! {
    #[test]
    fn webhook_bodies_never_panic_the_parser(body in prop_oneof![hostile(), json_value().prop_map(|v| v.to_string()), webhook_like().prop_map(|v| v.to_string())]) {
        if let Ok(news) = parse_webhook(&body) {
            for n in news {
                for s in &n.statuses {
                    assert!(ExecutionStatus::parse(s.status.as_str()).is_some());
                }
            }
        }
    }

    /// Hostile input: whatever the contact's texts hold, every one of a delivery's messages is read
    /// (none lost to another's content), with each NUL as U+FFFD and every other character as
    /// sent: the same text for every backend. An id with a NUL is set aside, never read.
    #[test]
    fn inbound_text_is_made_storable_and_costs_no_other_message(
        bodies in proptest::collection::vec(hostile(), 1..5),
        nul_id in proptest::option::of(0usize..5),
    ) {
        let messages: Vec<Value> = bodies.iter().enumerate().map(|(i, body)| {
            let id = if nul_id == Some(i) { format!("wamid.{i}\u{0}") } else { format!("wamid.{i}") };
            json!({"from": "14155550100", "id": id, "timestamp": "1767225600", "type": "text", "text": {"body": body},
                   "image": {"caption": body}})
        }).collect();
        let delivery = json!({"entry": [{"changes": [{"value": {"metadata": {"phone_number_id": "1"},
            "contacts": [{"profile": {"name": bodies[0]}, "wa_id": "14155550100"}], "messages": messages}}]}]});
        let news = parse_webhook(&delivery.to_string()).unwrap();
        let set_aside = usize::from(nul_id.is_some_and(|i| i < bodies.len()));
        assert_eq!(news[0].inbound.len() + news[0].set_aside.len(), bodies.len());
        assert_eq!(news[0].set_aside.len(), set_aside);
        for m in &news[0].inbound {
            let i: usize = m.platform_message_id["wamid.".len()..].parse().unwrap();
            let want = bodies[i].replace('\0', "\u{FFFD}");
            assert_eq!(m.content.text(), Some(want.as_str()));
            assert_eq!(m.profile_name.as_deref(), Some(bodies[0].replace('\0', "\u{FFFD}").as_str()));
            assert_eq!(m.position as usize, i + 1);
        }
        let storable = parley_domain::model::storable_text(&bodies[0]);
        assert!(!storable.contains('\0'));
        assert_eq!(storable.chars().count(), bodies[0].chars().count(), "one character for one");
        assert_eq!(parley_domain::model::storable_text(&storable), storable, "storable text stays as it is");
    }

    #[test]
    fn webhook_statuses_round_trip(statuses in proptest::collection::vec(("wamid\\.[a-zA-Z0-9]{1,10}", 0usize..4, 0i64..4_102_444_800), 0..6), line in "[0-9]{1,20}") {
        let kinds = ["sent", "delivered", "read", "failed"];
        let raw: Vec<Value> = statuses.iter().map(|(id, k, at)| json!({"id": id, "status": kinds[*k], "timestamp": at.to_string()})).collect();
        let body = json!({"object": "whatsapp_business_account", "entry": [{"changes": [{"value": {"metadata": {"phone_number_id": line}, "statuses": raw}}]}]});
        let news = parse_webhook(&body.to_string()).unwrap();
        assert_eq!(news.len(), 1);
        assert_eq!(&news[0].account_id, &line);
        let got: Vec<(String, &str, i64)> = news[0].statuses.iter().map(|s| (s.message_id.clone(), s.status.as_str(), s.at.timestamp())).collect();
        let want: Vec<(String, &str, i64)> = statuses.iter().map(|(id, k, at)| (id.clone(), kinds[*k], *at)).collect();
        assert_eq!(got, want);
    }
}
