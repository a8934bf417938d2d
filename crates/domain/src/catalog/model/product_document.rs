//! A published product as callers see it, rendered once when it is stored.

use crate::model::AgentId;
use crate::model::product::{Product, ProductRecord};

/// A published product's JSON object: its [`ProductRecord`] without `status` (only active
/// products are published), the product the API shows (docs/api-conventions.md, "Catalog and
/// carts").
///
/// Catalog pages hand stored documents on as they are. Decoding, validating and encoding 50
/// products again on every page cost two thirds of a list request under load, for a catalog that
/// only an import ever changes, and the import validated every product before storing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductDocument(String);

/// A stored document body that cannot be a product's: the store was written by something else.
#[derive(Debug, thiserror::Error)]
#[error("a stored product document is not a JSON object")]
pub struct NotADocument;

impl ProductDocument {
    /// The document of a product.
    pub fn of(p: &Product) -> Self {
        Self(serde_json::to_string(&published_record(p)).expect("a record always serializes"))
    }

    /// The document again from the text a store kept of [`of`](Self::of), timestamps included
    /// (splicing them in on every read was a sixth of a catalog page's instructions). The text is
    /// trusted, not parsed: only its outline is checked.
    pub fn from_stored(body: String) -> Result<Self, NotADocument> {
        // Every document holds `_id`, so the shortest is far longer than `{}`.
        if body.len() < 3 || !body.starts_with('{') || !body.ends_with('}') {
            return Err(NotADocument);
        }
        Ok(Self(body))
    }

    /// The JSON text, to store.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The product this document shows, validated again (for callers that need its fields).
    pub fn to_product(&self, agent: &AgentId) -> Result<Product, String> {
        let record: ProductRecord = serde_json::from_str(&self.0).map_err(|e| e.to_string())?;
        let fallback = chrono::DateTime::UNIX_EPOCH;
        Product::from_record(agent, record, fallback, None).map_err(|errors| format!("{} {}", errors[0].field, errors[0].issue))
    }
}

/// The record as published: without `status`.
fn published_record(p: &Product) -> ProductRecord {
    ProductRecord { status: None, ..p.to_record() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::product::parse_timestamp;

    fn product() -> Product {
        let record: ProductRecord = serde_json::from_str(
            r#"{"_id":"p\"1","kind":"product","title":"Caf\u00e9 \u2615 mug","description":"line\nbreak","currency":"EUR",
                "base_price":12.5,"compare_at_price":20,"category_tags":["Home","Gifts"],
                "media":[{"url":"https://x.test/a.jpg","type":"image","alt":"A mug","position":2}],
                "variants":[{"id":"v1","title":"Big","price":14,"selected_options":[{"name":"Size","value":"L"}]}],
                "created_at":"2026-01-02T03:04:05.678Z","updated_at":"2026-02-03T04:05:06.789Z"}"#,
        )
        .unwrap();
        let now = parse_timestamp("now", "2026-11-01T00:00:00Z").unwrap();
        Product::from_record(&AgentId::new("agt_a"), record, now, None).unwrap()
    }

    #[test]
    fn a_stored_document_is_read_back_as_it_was() {
        let p = product();
        let doc = ProductDocument::of(&p);
        assert_eq!(ProductDocument::from_stored(doc.clone().into_string()).unwrap(), doc);
        assert!(!doc.as_str().contains("status"), "only active products are published: no status");
        assert!(doc.as_str().ends_with(r#","created_at":"2026-01-02T03:04:05.678Z","updated_at":"2026-02-03T04:05:06.789Z"}"#));
    }

    #[test]
    fn the_document_shows_the_product_it_was_made_from() {
        let p = product();
        assert_eq!(ProductDocument::of(&p).to_product(&p.agent_id).unwrap(), p);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        for body in ["", "{}", "[1,2]", "\"text\"", "{\"_id\":\"x\""] {
            assert!(ProductDocument::from_stored(body.to_string()).is_err(), "{body:?}");
        }
    }
}
