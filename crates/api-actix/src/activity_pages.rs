//! Pages of activities written straight from the views, as the JSON `ActivityDto` describes
//! (a test holds the two to the same bytes): serialized through the DTOs, a page spent a
//! quarter of its instructions converting and serializing.

use actix_web::HttpResponse;
use parley_domain::model::{ActivityView, Page, Timestamp, push_timestamp};

use crate::json_text::{page_response, push_string};

/// 200 with `{"data": [<activity>, …], "pagination": {…}}`.
pub fn page(page: &Page<ActivityView>) -> HttpResponse {
    page_response(page, |_| 400, push_item)
}

/// One activity as listed: the fields of `ActivityDto`, in its order.
fn push_item(out: &mut String, v: &ActivityView) {
    let a = &v.activity;
    out.push_str("{\"id\":");
    push_string(out, a.id.as_str());
    out.push_str(",\"status\":");
    push_string(out, a.status.as_str());
    out.push_str(",\"profile_name\":");
    push_string(out, v.profile_name.as_str());
    out.push_str(",\"channel_identifiers\":[");
    for (i, channel) in v.channels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, channel.channel_id());
    }
    out.push_str("],\"tags\":[");
    for (i, tag) in v.tags.iter().enumerate() {
        out.push_str(if i > 0 { ",{\"id\":" } else { "{\"id\":" });
        push_string(out, tag.id.as_str());
        out.push_str(",\"name\":");
        push_string(out, tag.name.as_str());
        out.push_str(",\"color\":");
        push_string(out, tag.color.as_str());
        out.push('}');
    }
    out.push_str("],\"assigned_to\":");
    match &a.assigned_to {
        Some(user) => push_string(out, user.as_str()),
        None => out.push_str("null"),
    }
    out.push_str(",\"created_at\":");
    push_time(out, a.created_at);
    out.push_str(",\"updated_at\":");
    push_time(out, a.updated_at);
    out.push('}');
}

/// A time as a JSON string: RFC 3339 needs no escaping.
fn push_time(out: &mut String, t: Timestamp) {
    out.push('"');
    push_timestamp(out, t);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use parley_domain::model::*;
    use proptest::prelude::*;

    use super::*;
    use crate::dto::{ActivityDto, PageBody};

    fn body(response: HttpResponse) -> Vec<u8> {
        let bytes = futures_util::FutureExt::now_or_never(actix_web::body::to_bytes(response.into_body())).unwrap().unwrap();
        bytes.to_vec()
    }

    fn text(pattern: &'static str, valid: fn(&str) -> bool) -> impl Strategy<Value = String> {
        prop_oneof![any::<String>(), pattern.prop_map(String::from)].prop_filter("valid", move |s| valid(s))
    }

    prop_compose! {
        fn view()(
            id in "[A-Za-z0-9_]{1,30}",
            status in prop_oneof![Just(ActivityStatus::Open), Just(ActivityStatus::Closed), Just(ActivityStatus::Pending)],
            name in text("[ -~\\x00-\\x1f\"\\\\é☕]{1,40}", |s| ProfileName::new(s).is_ok()),
            channels in prop::collection::vec((any::<bool>(), "[0-9]{7,15}|[a-z\"\\\\]{1,10}@x\\.test"), 0..3),
            tags in prop::collection::vec((text("[ -~\"\\\\\\x01é]{1,20}", |s| TagName::new(s).is_ok()), "#[0-9a-f]{6}"), 0..3),
            assigned in prop::option::of(text("[ -~\"\\x02]{1,20}", |s| Assignee::new(s).is_ok())),
            created in 0i64..253_402_300_799_999,
            updated in 0i64..253_402_300_799_999,
        ) -> ActivityView {
            let at = |ms| DateTime::from_timestamp_millis(ms).unwrap();
            let activity = Activity {
                id: ActivityId::new(id),
                agent_id: AgentId::new("agt_a"),
                contact_id: ContactId::new("con_a"),
                status,
                assigned_to: assigned.map(|a| Assignee::new(&a).unwrap()),
                last_inbound_at: None,
                created_at: at(created),
                updated_at: at(updated),
            };
            ActivityView {
                activity,
                profile_name: ProfileName::new(&name).unwrap(),
                channels: channels
                    .into_iter()
                    .map(|(phone, id)| Channel::from_stored(if phone { ChannelType::Whatsapp } else { ChannelType::Email }, id))
                    .collect(),
                tags: tags
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, color))| TagRef {
                        id: TagId::new(format!("tag_{i}")),
                        name: TagName::new(&name).unwrap(),
                        color: TagColor::new(&color).unwrap(),
                    })
                    .collect(),
            }
        }
    }

    proptest! {
        #[test]
        fn pages_are_the_bytes_the_schema_describes(items in prop::collection::vec(view(), 0..4), total in 0u64..10, offset in 0u64..5) {
            let page = Page { items, total, request: PageRequest::new(20, offset) };
            let written = body(super::page(&page));
            let page = Page { items: page.items.clone(), total, request: page.request };
            let expected = serde_json::to_vec(&PageBody::from_page(page, ActivityDto::from)).unwrap();
            prop_assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(expected).unwrap());
        }
    }
}
