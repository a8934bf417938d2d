//! A status report's `pricing` object read into the domain's [`Pricing`]:
//! `{"billable", "pricing_model", "category", "type"}`. `type` says whether the message is billed
//! (`regular`, or free as `free_customer_service` / `free_entry_point`); older reports carry no
//! `type` and say it with `billable`, which newer ones may leave out. A `pricing` of any other
//! shape (no category, an unknown `type`, neither `type` nor `billable`) is kept whole as
//! [`Pricing::Unread`]: never an error, and the status it came with is applied all the same.

use parley_domain::model::{Pricing, PricingCategory};
use serde_json::Value;

/// The pricing a status report carries, if any (`None` when it has no `pricing`).
pub(crate) fn pricing_of(raw: Option<&Value>) -> Option<Pricing> {
    let raw = raw.filter(|v| !v.is_null())?;
    Some(read(raw).unwrap_or_else(|| Pricing::Unread { raw: raw.clone() }))
}

fn read(raw: &Value) -> Option<Pricing> {
    let category = PricingCategory::parse(raw.get("category")?.as_str()?)?;
    let billable = match raw.get("type") {
        Some(Value::String(kind)) => match kind.as_str() {
            "regular" => true,
            "free_customer_service" | "free_entry_point" => false,
            _ => return None,
        },
        None | Some(Value::Null) => raw.get("billable")?.as_bool()?,
        Some(_) => return None,
    };
    Some(Pricing::Reported { category, billable })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reported(category: &str, billable: bool) -> Option<Pricing> {
        Some(Pricing::Reported { category: PricingCategory::parse(category).unwrap(), billable })
    }

    #[test]
    fn the_type_says_whether_it_is_billed_and_billable_stands_in_without_one() {
        let cases = [
            (json!({"billable": true, "pricing_model": "PMP", "category": "marketing", "type": "regular"}), reported("marketing", true)),
            (json!({"pricing_model": "PMP", "category": "utility", "type": "regular"}), reported("utility", true)),
            (json!({"pricing_model": "PMP", "category": "service", "type": "free_customer_service"}), reported("service", false)),
            (
                json!({"billable": false, "pricing_model": "PMP", "category": "utility", "type": "free_customer_service"}),
                reported("utility", false),
            ),
            (json!({"pricing_model": "PMP", "category": "marketing", "type": "free_entry_point"}), reported("marketing", false)),
            // The type wins over a billable that says otherwise.
            (json!({"billable": true, "category": "marketing", "type": "free_entry_point"}), reported("marketing", false)),
            // Older reports: no type, billable says it.
            (json!({"billable": true, "pricing_model": "CBP", "category": "utility"}), reported("utility", true)),
            (json!({"billable": false, "pricing_model": "CBP", "category": "service"}), reported("service", false)),
            (
                json!({"billable": true, "category": "AUTHENTICATION_INTERNATIONAL", "type": null}),
                reported("authentication_international", true),
            ),
        ];
        for (raw, expected) in cases {
            assert_eq!(pricing_of(Some(&raw)), expected, "{raw}");
        }
    }

    #[test]
    fn any_other_shape_is_kept_whole_and_no_pricing_is_none() {
        for raw in [
            json!({"pricing_model": "PMP", "category": "marketing"}),
            json!({"pricing_model": "PMP", "category": "marketing", "type": "free_someday"}),
            json!({"category": "marketing", "type": 3}),
            json!({"billable": "yes", "category": "marketing"}),
            json!({"billable": true, "type": "regular"}),
            json!({"billable": true, "category": "not a category!", "type": "regular"}),
            json!({"billable": true, "category": 7}),
            json!("marketing"),
            json!([]),
        ] {
            assert_eq!(pricing_of(Some(&raw)), Some(Pricing::Unread { raw: raw.clone() }), "{raw}");
        }
        assert_eq!(pricing_of(None), None);
        assert_eq!(pricing_of(Some(&Value::Null)), None);
    }
}
