//! What the platform charges for an outbound message, as its status reports tell it (WhatsApp's
//! per-message pricing): the message's pricing category and whether it is billed. Kept on the
//! message ([`Message::pricing`](crate::model::Message::pricing)); a campaign's billed messages are
//! summed per category from it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// A pricing category as the platform names it (`marketing`, `utility`, `authentication`,
/// `service`, …): 1–64 characters of `a-z 0-9 _`. The platform adds categories over time, so
/// any name of that form is kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PricingCategory(String);

impl PricingCategory {
    /// `raw`, lowercased; `None` unless that is 1–64 characters of `a-z 0-9 _`.
    pub fn parse(raw: &str) -> Option<Self> {
        let name = raw.to_ascii_lowercase();
        let ok = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        ok.then_some(Self(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A message's pricing, as the platform last reported it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Pricing {
    /// A report Parley read: the category, and whether the message is billed.
    Reported {
        /// The pricing category.
        category: PricingCategory,
        /// `false` for the platform's free kinds (a service conversation, a free entry point).
        billable: bool,
    },
    /// A report of a shape Parley does not read, kept as the platform sent it.
    Unread {
        /// The platform's `pricing` object (or whatever stood in its place), whole.
        raw: Value,
    },
}

impl Pricing {
    /// The category of a billed message; `None` when it is free or its report was not read.
    pub fn billed_category(&self) -> Option<&PricingCategory> {
        match self {
            Pricing::Reported { category, billable: true } => Some(category),
            _ => None,
        }
    }

    /// Whether `reported` should replace `current`: a read report replaces anything it differs
    /// from; one not read only fills an empty place, never hiding a report that was read.
    pub fn replaces(reported: &Pricing, current: Option<&Pricing>) -> bool {
        match (reported, current) {
            (_, None) => true,
            (Pricing::Reported { .. }, Some(current)) => current != reported,
            (Pricing::Unread { .. }, Some(_)) => false,
        }
    }

    /// Its stored document: `{"category", "billable"}` when read, `{"raw": …}` otherwise.
    /// [`from_json`](Self::from_json) reads it back to an equal value.
    pub fn to_json(&self) -> Value {
        match self {
            Pricing::Reported { category, billable } => json!({"category": category.as_str(), "billable": billable}),
            Pricing::Unread { raw } => json!({"raw": raw}),
        }
    }

    /// Reads what [`to_json`](Self::to_json) wrote; `None` for anything else.
    pub fn from_json(value: &Value) -> Option<Pricing> {
        let object: &Map<String, Value> = value.as_object()?;
        match (object.get("category"), object.get("billable"), object.get("raw")) {
            (Some(Value::String(category)), Some(Value::Bool(billable)), None) if object.len() == 2 => {
                Some(Pricing::Reported { category: PricingCategory::parse(category)?, billable: *billable })
            }
            (None, None, Some(raw)) if object.len() == 1 => Some(Pricing::Unread { raw: raw.clone() }),
            _ => None,
        }
    }
}

/// Billed messages per pricing category, from counts of messages per pricing (each pricing
/// with how many messages carry it): free and unread reports count for nothing, and a
/// category with no billed message is left out.
pub fn billed_per_category<'a>(counts: impl IntoIterator<Item = (&'a Pricing, u64)>) -> BTreeMap<String, u64> {
    let mut billed = BTreeMap::new();
    for (pricing, count) in counts {
        if let Some(category) = pricing.billed_category()
            && count > 0
        {
            *billed.entry(category.as_str().to_string()).or_insert(0) += count;
        }
    }
    billed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(category: &str, billable: bool) -> Pricing {
        Pricing::Reported { category: PricingCategory::parse(category).unwrap(), billable }
    }

    #[test]
    fn categories_are_platform_names_lowercased() {
        assert_eq!(PricingCategory::parse("marketing").unwrap().as_str(), "marketing");
        assert_eq!(PricingCategory::parse("AUTHENTICATION_INTERNATIONAL").unwrap().as_str(), "authentication_international");
        for bad in ["", "marketing lite", "x".repeat(65).as_str(), "ümlaut", "a-b"] {
            assert_eq!(PricingCategory::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_document_reads_back_equal_and_nothing_else_reads() {
        for p in [reported("marketing", true), reported("service", false), Pricing::Unread { raw: json!({"type": "new", "x": [1]}) }] {
            assert_eq!(Pricing::from_json(&p.to_json()), Some(p.clone()));
        }
        for other in
            [json!(null), json!([]), json!({"category": "x"}), json!({"category": "x", "billable": "yes"}), json!({"raw": 1, "x": 2})]
        {
            assert_eq!(Pricing::from_json(&other), None, "{other}");
        }
    }

    #[test]
    fn a_read_report_replaces_and_an_unread_one_only_fills() {
        let (marketing, free) = (reported("marketing", true), reported("marketing", false));
        let unread = Pricing::Unread { raw: json!(7) };
        assert!(Pricing::replaces(&marketing, None));
        assert!(Pricing::replaces(&unread, None));
        assert!(Pricing::replaces(&free, Some(&marketing)));
        assert!(Pricing::replaces(&marketing, Some(&unread)));
        assert!(!Pricing::replaces(&marketing, Some(&marketing)), "the same report again is no change");
        assert!(!Pricing::replaces(&unread, Some(&marketing)));
        assert!(!Pricing::replaces(&unread, Some(&Pricing::Unread { raw: json!(8) })));
    }

    #[test]
    fn billed_messages_are_summed_per_category() {
        let (m, u, free) = (reported("marketing", true), reported("utility", true), reported("service", false));
        let unread = Pricing::Unread { raw: json!({"category": "marketing"}) };
        let billed = billed_per_category([(&m, 10), (&u, 3), (&free, 40), (&unread, 5), (&m, 2), (&reported("utility", true), 0)]);
        assert_eq!(billed, BTreeMap::from([("marketing".to_string(), 12), ("utility".to_string(), 3)]));
    }
}
