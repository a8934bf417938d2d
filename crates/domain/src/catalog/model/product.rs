//! The catalog: products as imported (a [`ProductRecord`] per line) and as validated ([`Product`]).

use crate::error::CHECKED;
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};

use crate::FieldError;
use crate::error::Violations;
use crate::model::currency::Currency;
use crate::model::money::{Decimal, canonical, json_number};
use crate::model::time_format::format_timestamp;
use crate::model::{AgentId, Timestamp, text};

/// One catalog line, as imported and exported: the API's product (docs/api-conventions.md,
/// "Catalog and carts") plus `status`. Checked only by [`Product::from_record`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductRecord {
    /// `_id`: 1–128 visible characters without `/ ? # %`, unique within the agent.
    #[serde(rename = "_id")]
    pub id: String,
    /// `product` or `service`.
    pub kind: String,
    /// 1–300 characters once trimmed.
    pub title: String,
    /// At most 20,000 characters once trimmed; empty when absent.
    #[serde(default)]
    pub description: String,
    /// At most 20 pictures and videos.
    #[serde(default)]
    pub media: Vec<MediaRecord>,
    /// At most 50 tags of 1–100 characters once trimmed; duplicates are dropped.
    #[serde(default)]
    pub category_tags: Vec<String>,
    /// An ISO 4217 code in circulation.
    pub currency: String,
    /// The price, from 0 to 10^12, exact.
    #[serde(with = "json_number")]
    pub base_price: Decimal,
    /// The price before a sale, greater than `base_price`; absent when not on sale.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "json_number::option")]
    pub compare_at_price: Option<Decimal>,
    /// At most 100, with ids unique within the product.
    #[serde(default)]
    pub variants: Vec<VariantRecord>,
    /// `active` (published) or `draft` (never exposed). Defaults to `active`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// RFC 3339; absent: the product's first import time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// RFC 3339; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

/// A product's picture or video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MediaRecord {
    /// An http(s) URL of at most 2,048 characters, without whitespace.
    pub url: String,
    /// Its alternative text, at most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    /// `image` or `video`.
    #[serde(rename = "type")]
    pub media_type: String,
    /// Its place among the product's media, lowest first; a product card shows the image placed
    /// lowest (unplaced ones last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
}

/// One variant of a product (a size, a color), with its own price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantRecord {
    /// 1–128 characters once trimmed, unique within the product.
    pub id: String,
    /// 1–300 characters once trimmed.
    pub title: String,
    /// Its price, from 0 to 10^12, exact.
    #[serde(with = "json_number")]
    pub price: Decimal,
    /// Its price before a sale, greater than `price`; absent when not on sale.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "json_number::option")]
    pub compare_at_price: Option<Decimal>,
    /// The options that make it (`Size`: `M`).
    #[serde(default)]
    pub selected_options: Vec<SelectedOption>,
}

/// One option of a variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectedOption {
    /// The option, 1–100 characters once trimmed (`Size`).
    pub name: String,
    /// Its value, 1–100 characters once trimmed (`M`).
    pub value: String,
}

/// A product's `_id`: chosen by the catalog's owner, unique within one agent. 1–128 visible
/// characters, none of `/ ? # %` so it can stand in a URL path unescaped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProductId(String);

impl ProductId {
    /// `raw` exactly; a `FieldError` on `_id` unless it is 1–128 characters with no whitespace,
    /// control character, `/`, `?`, `#` or `%`.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let ok = !raw.is_empty()
            && raw.chars().count() <= 128
            && !raw.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '/' | '?' | '#' | '%'));
        if ok { Ok(Self(raw.to_string())) } else { Err(FieldError::new("_id", "must be 1 to 128 visible characters without / ? # %")) }
    }

    /// Wraps an id as received in a request: an id of the wrong shape simply matches nothing.
    pub fn lookup(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    /// The id, as the catalog gave it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl crate::model::ReceivedId for ProductId {
    const RESOURCE: &'static str = "product";

    fn wrap(raw: String) -> Self {
        Self(raw)
    }
}

/// What a catalog line sells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProductKind {
    /// Goods (`product`).
    Product,
    /// A service (`service`).
    Service,
}

impl ProductKind {
    /// Both kinds.
    pub const ALL: [ProductKind; 2] = [ProductKind::Product, ProductKind::Service];

    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            ProductKind::Product => "product",
            ProductKind::Service => "service",
        }
    }

    /// The kind named exactly `raw`; a `FieldError` on `kind` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        match raw {
            "product" => Ok(ProductKind::Product),
            "service" => Ok(ProductKind::Service),
            _ => Err(FieldError::new("kind", "must be product or service")),
        }
    }
}

/// Whether a product is published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProductStatus {
    /// Shown to callers (`active`).
    Active,
    /// Stored and exported, never shown (`draft`).
    Draft,
}

impl ProductStatus {
    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            ProductStatus::Active => "active",
            ProductStatus::Draft => "draft",
        }
    }

    /// The status named exactly `raw`; a `FieldError` on `status` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        match raw {
            "active" => Ok(ProductStatus::Active),
            "draft" => Ok(ProductStatus::Draft),
            _ => Err(FieldError::new("status", "must be active or draft")),
        }
    }
}

/// A price in the catalog currency: an exact decimal from 0 to 10^12, as the catalog wrote it
/// (carts round to the currency's minor unit; the catalog keeps its own digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Price(Decimal);

impl Price {
    /// The highest price: 10^12.
    pub const MAX: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0); // 10^12

    /// `value` without trailing zeros; a `FieldError` on `field` unless it is from 0 to
    /// [`MAX`](Self::MAX).
    pub fn new(field: &str, value: Decimal) -> Result<Self, FieldError> {
        if value >= Decimal::ZERO && value <= Self::MAX {
            Ok(Self(canonical(value)))
        } else {
            Err(FieldError::new(field, "must be a number from 0 to 1000000000000"))
        }
    }

    /// The amount, exact, in the currency's major units.
    pub fn value(self) -> Decimal {
        self.0
    }
}

/// A validated, stored product. Drafts exist but are never shown to API callers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Product {
    /// Its `_id`, unique within the agent.
    pub id: ProductId,
    /// The agent whose catalog it is in.
    pub agent_id: AgentId,
    /// What it sells.
    pub kind: ProductKind,
    /// Drafts are stored and exported, never shown.
    pub status: ProductStatus,
    /// 1–300 characters, trimmed.
    pub title: String,
    /// At most 20,000 characters, trimmed; possibly empty.
    pub description: String,
    /// At most 20 pictures and videos, as imported.
    pub media: Vec<MediaRecord>,
    /// Trimmed, 1–100 characters each, no duplicates, at most 50.
    pub category_tags: Vec<String>,
    /// What its prices are in.
    pub currency: Currency,
    /// Its price.
    pub base_price: Price,
    /// Present only when on sale; always greater than `base_price`.
    pub compare_at_price: Option<Price>,
    /// At most 100, with ids unique within the product.
    pub variants: Vec<VariantRecord>,
    /// As the record said, else its first import time.
    pub created_at: Timestamp,
    /// As the record said, else the time of the import that wrote it.
    pub updated_at: Timestamp,
}

/// Parses an RFC 3339 time, truncated to milliseconds.
pub fn parse_timestamp(field: &str, raw: &str) -> Result<Timestamp, FieldError> {
    // Truncated through milliseconds, which (unlike nanoseconds) cover every year RFC 3339 can write.
    // An offset can move a time just past year 0000 or 9999 in UTC, where the API's form of a
    // time (RFC 3339 in UTC) has no way to write it: refused rather than shown some other way.
    DateTime::parse_from_rfc3339(raw)
        .ok()
        .and_then(|t| DateTime::<Utc>::from_timestamp_millis(t.timestamp_millis()))
        .filter(|t| (0..=9999).contains(&t.year()))
        .ok_or_else(|| {
            FieldError::new(field, "must be an RFC 3339 timestamp such as 2026-11-21T10:00:00.000Z, within years 0000-9999 in UTC")
        })
}

fn sale_price(field: &str, price: Option<Decimal>, base: Option<Price>, v: &mut Violations) -> Option<Price> {
    let p = v.check(price.map(|p| Price::new(field, p)).transpose())?;
    match (p, base) {
        (Some(p), Some(b)) if p.value() <= b.value() => {
            v.push(FieldError::new(field, "must be greater than the price it discounts"));
            None
        }
        (p, _) => p,
    }
}

impl Product {
    /// Validates one record. `now` fills timestamps the record does not carry; `stored_created_at`
    /// keeps the first import time of a product imported again without `created_at`.
    pub fn from_record(
        agent: &AgentId,
        r: ProductRecord,
        now: Timestamp,
        stored_created_at: Option<Timestamp>,
    ) -> Result<Self, Vec<FieldError>> {
        let mut v = Violations::default();
        let id = v.check(ProductId::new(&r.id));
        let kind = v.check(ProductKind::parse(&r.kind));
        let status = v.check(r.status.as_deref().map_or(Ok(ProductStatus::Active), ProductStatus::parse));
        let title = v.check(text::bounded("title", &r.title, 1, 300));
        let description = v.check(text::bounded("description", &r.description, 0, 20_000));
        let currency = v.check(Currency::new(&r.currency));
        let base_price = v.check(Price::new("base_price", r.base_price));
        let compare_at_price = sale_price("compare_at_price", r.compare_at_price, base_price, &mut v);

        if r.media.len() > 20 {
            v.push(FieldError::new("media", "must have at most 20 items"));
        }
        for (i, m) in r.media.iter().enumerate() {
            let url_ok = (m.url.starts_with("https://") || m.url.starts_with("http://"))
                && m.url.len() <= 2048
                && !m.url.contains(char::is_whitespace);
            if !url_ok {
                v.push(FieldError::new(format!("media[{i}].url"), "must be an http(s) URL of at most 2048 characters"));
            }
            if !matches!(m.media_type.as_str(), "image" | "video") {
                v.push(FieldError::new(format!("media[{i}].type"), "must be image or video"));
            }
            if let Some(alt) = &m.alt {
                v.check(text::bounded(&format!("media[{i}].alt"), alt, 0, 500));
            }
        }

        let mut tags: Vec<String> = Vec::new();
        for (i, t) in r.category_tags.iter().enumerate() {
            if let Some(t) = v.check(text::bounded(&format!("category_tags[{i}]"), t, 1, 100))
                && !tags.contains(&t)
            {
                tags.push(t);
            }
        }
        if tags.len() > 50 {
            v.push(FieldError::new("category_tags", "must have at most 50 tags"));
        }

        if r.variants.len() > 100 {
            v.push(FieldError::new("variants", "must have at most 100 variants"));
        }
        let mut variant_ids = std::collections::HashSet::new();
        for (i, var) in r.variants.iter().enumerate() {
            let at = |f: &str| format!("variants[{i}].{f}");
            if v.check(text::bounded(&at("id"), &var.id, 1, 128)).is_some() && !variant_ids.insert(var.id.as_str()) {
                v.push(FieldError::new(at("id"), "is used by another variant of this product"));
            }
            v.check(text::bounded(&at("title"), &var.title, 1, 300));
            let price = v.check(Price::new(&at("price"), var.price));
            sale_price(&at("compare_at_price"), var.compare_at_price, price, &mut v);
            for (j, o) in var.selected_options.iter().enumerate() {
                v.check(text::bounded(&format!("variants[{i}].selected_options[{j}].name"), &o.name, 1, 100));
                v.check(text::bounded(&format!("variants[{i}].selected_options[{j}].value"), &o.value, 1, 100));
            }
        }

        let created_at =
            r.created_at.as_deref().map(|t| v.check(parse_timestamp("created_at", t))).unwrap_or(Some(stored_created_at.unwrap_or(now)));
        let updated_at = r.updated_at.as_deref().map(|t| v.check(parse_timestamp("updated_at", t))).unwrap_or(Some(now));
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(errors);
        }
        Ok(Product {
            id: id.expect(CHECKED),
            agent_id: agent.clone(),
            kind: kind.expect(CHECKED),
            status: status.expect(CHECKED),
            title: title.expect(CHECKED),
            description: description.expect(CHECKED),
            media: r.media,
            category_tags: tags,
            currency: currency.expect(CHECKED),
            base_price: base_price.expect(CHECKED),
            compare_at_price,
            variants: r.variants,
            created_at: created_at.expect(CHECKED),
            updated_at: updated_at.expect(CHECKED),
        })
    }

    /// The record this product exports as (and imports back from, unchanged).
    pub fn to_record(&self) -> ProductRecord {
        let ts = format_timestamp;
        ProductRecord {
            id: self.id.as_str().to_string(),
            kind: self.kind.as_str().to_string(),
            title: self.title.clone(),
            description: self.description.clone(),
            media: self.media.clone(),
            category_tags: self.category_tags.clone(),
            currency: self.currency.as_str().to_string(),
            base_price: self.base_price.value(),
            compare_at_price: self.compare_at_price.map(Price::value),
            variants: self.variants.clone(),
            status: Some(self.status.as_str().to_string()),
            created_at: Some(ts(self.created_at)),
            updated_at: Some(ts(self.updated_at)),
        }
    }

    /// Whether it is published: shown to callers.
    pub fn is_active(&self) -> bool {
        self.status == ProductStatus::Active
    }
}

/// Filters of the product list; both must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductFilter {
    /// A category tag, matched exactly.
    pub tag: Option<String>,
    /// Only products of this kind.
    pub kind: Option<ProductKind>,
}

/// One category, with how many active products carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryFacet {
    /// The category tag.
    pub name: String,
    /// Active products that carry it.
    pub count: u64,
}

/// Category counts over active products (by count desc, then name) and the active total.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CatalogFacets {
    /// Each category of active products, by count descending, then name.
    pub categories: Vec<CategoryFacet>,
    /// How many active products the agent has.
    pub total_items: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DurationRound, TimeDelta};
    use serde_json::json;

    fn record(v: serde_json::Value) -> ProductRecord {
        serde_json::from_value(v).unwrap()
    }

    fn base() -> serde_json::Value {
        json!({"_id": "p1", "kind": "product", "title": "Flask", "currency": "USD", "base_price": 20})
    }

    #[test]
    fn timestamps_are_those_rfc_3339_can_write_in_utc() {
        assert_eq!(format_timestamp(parse_timestamp("t", "0000-01-01T00:00:00Z").unwrap()), "0000-01-01T00:00:00.000Z");
        assert_eq!(format_timestamp(parse_timestamp("t", "9999-12-31T23:59:59.999Z").unwrap()), "9999-12-31T23:59:59.999Z");
        assert_eq!(format_timestamp(parse_timestamp("t", "9999-12-31T20:00:00-03:00").unwrap()), "9999-12-31T23:00:00.000Z");
        // In UTC these are in year 10000 and year -1.
        for raw in ["9999-12-31T22:00:00-03:00", "0000-01-01T00:00:00+00:01"] {
            let e = parse_timestamp("created_at", raw).unwrap_err();
            assert_eq!(e.field, "created_at");
            assert!(e.issue.contains("0000-9999"), "{}", e.issue);
        }
    }

    fn now() -> Timestamp {
        chrono::Utc::now().duration_trunc(TimeDelta::milliseconds(1)).unwrap()
    }

    #[test]
    fn a_minimal_record_is_an_active_product() {
        let p = Product::from_record(&AgentId::new("a"), record(base()), now(), None).unwrap();
        assert!(p.is_active());
        assert_eq!(p.compare_at_price, None);
    }

    #[test]
    fn sale_prices_must_exceed_the_price() {
        let mut r = base();
        r["compare_at_price"] = json!(20);
        let errs = Product::from_record(&AgentId::new("a"), record(r), now(), None).unwrap_err();
        assert_eq!(errs[0].field, "compare_at_price");
        let mut r = base();
        r["variants"] = json!([{"id": "v", "title": "V", "price": 10, "compare_at_price": 9}]);
        let errs = Product::from_record(&AgentId::new("a"), record(r), now(), None).unwrap_err();
        assert_eq!(errs[0].field, "variants[0].compare_at_price");
    }

    #[test]
    fn every_broken_field_is_reported_with_its_path() {
        let r = json!({"_id": "a/b", "kind": "thing", "title": "", "currency": "usd", "base_price": -1,
            "media": [{"url": "ftp://x", "type": "gif"}], "status": "hidden", "created_at": "yesterday"});
        let errs = Product::from_record(&AgentId::new("a"), record(r), now(), None).unwrap_err();
        let fields: Vec<_> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["_id", "kind", "status", "title", "currency", "base_price", "media[0].url", "media[0].type", "created_at"]);
    }

    #[test]
    fn records_round_trip_through_products() {
        let mut r = base();
        r["status"] = json!("draft");
        r["category_tags"] = json!(["Home", "Home", " Gifts "]);
        r["created_at"] = json!("2026-01-02T03:04:05.678Z");
        r["updated_at"] = json!("2026-01-03T00:00:00.000Z");
        let p = Product::from_record(&AgentId::new("a"), record(r), now(), None).unwrap();
        assert_eq!(p.category_tags, ["Home", "Gifts"], "trimmed and deduplicated");
        let again = Product::from_record(&AgentId::new("a"), p.to_record(), now(), None).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn timestamps_of_any_year_parse_to_milliseconds() {
        let far = parse_timestamp("since", "2999-01-01T00:00:00.123456Z").unwrap();
        assert_eq!(far.to_rfc3339_opts(chrono::SecondsFormat::Millis, true), "2999-01-01T00:00:00.123Z");
        assert_eq!(parse_timestamp("t", "2026-05-01T12:00:00+02:00").unwrap().to_rfc3339(), "2026-05-01T10:00:00+00:00");
        assert!(parse_timestamp("t", "2026-05-01").is_err());
    }

    #[test]
    fn whole_prices_print_as_integers_and_others_exactly() {
        let mut r = base();
        r["base_price"] = json!(79.0);
        r["compare_at_price"] = json!(99.99);
        let out = serde_json::to_string(&record(r)).unwrap();
        assert!(out.contains(r#""base_price":79,"#) && out.contains(r#""compare_at_price":99.99"#), "{out}");
    }

    #[test]
    fn prices_are_bounded_exact_decimals() {
        assert_eq!(Price::MAX, Decimal::from(1_000_000_000_000_i64));
        let mut r = base();
        r["base_price"] = json!(1_000_000_000_001_i64);
        let errs = Product::from_record(&AgentId::new("a"), record(r), now(), None).unwrap_err();
        assert_eq!(errs[0].field, "base_price");
        let r: ProductRecord =
            serde_json::from_str(r#"{"_id":"p","kind":"product","title":"T","currency":"USD","base_price":19.99}"#).unwrap();
        assert_eq!(r.base_price, Decimal::new(1999, 2));
    }

    #[test]
    fn reimports_keep_the_first_creation_time() {
        let first = chrono::Utc::now() - TimeDelta::days(3);
        let p = Product::from_record(&AgentId::new("a"), record(base()), now(), Some(first)).unwrap();
        assert_eq!(p.created_at, first);
    }
}
