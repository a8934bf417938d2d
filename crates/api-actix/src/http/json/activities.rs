//! An activity as listed: the fields of `ActivityDto`, in its order.

use std::fmt::Write as _;

use parley_domain::model::{ActivityView, Channel};

use super::{JsonText, push_optional_string, push_optional_time, push_string, push_time};
use crate::http::dto::ActivityDto;

impl JsonText for ActivityView {
    type Dto = ActivityDto;

    fn push_json(&self, out: &mut String) {
        let a = &self.activity;
        out.push_str("{\"id\":");
        push_string(out, a.id.as_str());
        out.push_str(",\"status\":");
        push_string(out, a.status.as_str());
        out.push_str(",\"profile_name\":");
        push_string(out, self.profile_name.as_str());
        out.push_str(",\"channel_identifiers\":[");
        for (i, identifier) in self.channels.iter().flat_map(Channel::identifiers).enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_string(out, identifier);
        }
        out.push_str("],\"tags\":[");
        for (i, tag) in self.tags.iter().enumerate() {
            out.push_str(if i > 0 { ",{\"id\":" } else { "{\"id\":" });
            push_string(out, tag.id.as_str());
            out.push_str(",\"name\":");
            push_string(out, tag.name.as_str());
            out.push_str(",\"color\":");
            push_string(out, tag.color.as_str());
            out.push('}');
        }
        out.push_str("],\"assigned_to\":");
        push_optional_string(out, a.assigned_to.as_ref().map(|user| user.as_str()));
        out.push_str(",\"assignee\":");
        match &self.assignee {
            None => out.push_str("null"),
            Some(m) => {
                out.push_str("{\"id\":");
                push_string(out, m.id.as_str());
                out.push_str(",\"name\":");
                push_string(out, m.name.as_str());
                out.push('}');
            }
        }
        out.push_str(",\"created_at\":");
        push_time(out, a.created_at);
        out.push_str(",\"updated_at\":");
        push_time(out, a.updated_at);
        out.push_str(",\"last_message\":");
        match &self.last_message {
            None => out.push_str("null"),
            Some(m) => {
                out.push_str("{\"id\":");
                push_string(out, m.id.as_str());
                out.push_str(",\"direction\":");
                push_string(out, m.direction.as_str());
                out.push_str(",\"type\":");
                push_string(out, m.message_type.as_str());
                out.push_str(",\"text\":");
                push_optional_string(out, m.text.as_deref());
                out.push_str(",\"created_at\":");
                push_time(out, m.created_at);
                out.push('}');
            }
        }
        // Writing to a String cannot fail.
        let _ = write!(out, ",\"unread_count\":{}", self.unread_count);
        out.push_str(",\"first_response_due_at\":");
        push_optional_time(out, a.first_response.due_at);
        out.push_str(",\"first_responded_at\":");
        push_optional_time(out, a.first_response.responded_at);
        out.push('}');
    }

    fn json_len_hint(&self) -> usize {
        if self.last_message.is_some() { 770 } else { 490 }
    }
}
