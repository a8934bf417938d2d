//! The WhatsApp webhook's template notices, one `changes[]` item each, named by its `field`:
//! `message_template_status_update` (`event`: the new review status) and
//! `template_category_update` (`new_category`), each naming the template by
//! `message_template_id` (a number or a string). `message_template_quality_update` and any
//! other shape are not read: `None`, never an error.

use parley_domain::model::{TemplateChange, TemplateId, TemplateNotice};
use serde_json::Value;

/// The `field`s that carry template notices.
pub(crate) fn is_template_field(field: &str) -> bool {
    matches!(field, "message_template_status_update" | "template_category_update" | "message_template_quality_update")
}

/// The notice a change of `field` with `value` carries, if Parley reads it.
pub(crate) fn notice_of(field: &str, value: &Value) -> Option<TemplateNotice> {
    let template_id = match value.get("message_template_id")? {
        Value::Number(n) => n.as_u64()?.to_string(),
        Value::String(s) if !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_digit()) => s.clone(),
        _ => return None,
    };
    let change = match field {
        "message_template_status_update" => TemplateChange::status(value.get("event")?.as_str()?)?,
        "template_category_update" => TemplateChange::category(value.get("new_category")?.as_str()?)?,
        _ => return None,
    };
    Some(TemplateNotice { template_id: TemplateId::new(template_id), change })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn notice(id: &str, change: TemplateChange) -> Option<TemplateNotice> {
        Some(TemplateNotice { template_id: TemplateId::new(id), change })
    }

    #[test]
    fn status_and_category_notices_are_read() {
        let status = json!({"event": "PAUSED", "message_template_id": 9001, "message_template_name": "order_update",
            "message_template_language": "en_US", "reason": "LOW_QUALITY"});
        assert_eq!(notice_of("message_template_status_update", &status), notice("9001", TemplateChange::Status("PAUSED".into())));
        let reinstated = json!({"event": "reinstated", "message_template_id": "9001"});
        assert_eq!(notice_of("message_template_status_update", &reinstated), notice("9001", TemplateChange::Status("APPROVED".into())));
        let category = json!({"message_template_id": 9001, "message_template_name": "order_update", "message_template_language": "en_US",
            "previous_category": "UTILITY", "new_category": "MARKETING"});
        assert_eq!(notice_of("template_category_update", &category), notice("9001", TemplateChange::Category("MARKETING".into())));
    }

    #[test]
    fn quality_notices_and_other_shapes_are_not_read() {
        let quality = json!({"previous_quality_score": "GREEN", "new_quality_score": "YELLOW", "message_template_id": 9001});
        assert_eq!(notice_of("message_template_quality_update", &quality), None);
        for (field, value) in [
            ("message_template_status_update", json!({"event": "PAUSED"})),
            ("message_template_status_update", json!({"event": "PAUSED", "message_template_id": -1})),
            ("message_template_status_update", json!({"event": "PAUSED", "message_template_id": "9x"})),
            ("message_template_status_update", json!({"event": 3, "message_template_id": 1})),
            ("message_template_status_update", json!({"event": "not a status", "message_template_id": 1})),
            ("template_category_update", json!({"message_template_id": 1})),
            ("template_category_update", json!([1])),
        ] {
            assert_eq!(notice_of(field, &value), None, "{field} {value}");
        }
        assert!(is_template_field("template_category_update") && !is_template_field("messages"));
    }
}
