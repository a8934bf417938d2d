//! A contact: the fields of `ContactDto`, in its order.

use parley_domain::model::Contact;

use super::{JsonText, push_channel, push_optional_string, push_string, push_time};
use crate::http::dto::ContactDto;

impl JsonText for Contact {
    type Dto = ContactDto;

    fn push_json(&self, out: &mut String) {
        out.push_str("{\"id\":");
        push_string(out, self.id.as_str());
        out.push_str(",\"profile_name\":");
        push_string(out, self.profile_name.as_str());
        out.push_str(",\"email\":");
        push_optional_string(out, self.email.as_ref().map(|e| e.as_str()));
        out.push_str(",\"notes\":");
        push_optional_string(out, self.notes.as_ref().map(|n| n.as_str()));
        out.push_str(",\"channels\":[");
        for (i, channel) in self.channels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_channel(out, channel);
        }
        out.push_str("],\"custom_attributes\":");
        let attributes = self.custom_attributes.as_map();
        if attributes.is_empty() {
            out.push_str("{}");
        } else {
            // Arbitrary JSON values: serde_json writes them (rare on a page, and bounded to 16 KiB).
            out.push_str(&serde_json::to_string(attributes).expect("a JSON map always serializes"));
        }
        out.push_str(",\"created_at\":");
        push_time(out, self.created_at);
        out.push_str(",\"updated_at\":");
        push_time(out, self.updated_at);
        out.push('}');
    }

    fn json_len_hint(&self) -> usize {
        300
    }
}
