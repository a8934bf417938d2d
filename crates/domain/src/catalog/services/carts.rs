use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::*;
use crate::ports::{CartRepository, Clock, IdSource, ProductRepository};
use crate::{DomainError, FieldError, StoreError};

/// One requested cart line, as received.
#[derive(Debug, Clone, Default)]
pub struct NewCartItem {
    /// Required: the id of an active product of the agent's catalog.
    pub id: Option<String>,
    /// One of the product's variants' `id`, when the shopper chose one.
    pub variant_id: Option<String>,
    /// Any JSON value: it must be an integer from 1 to 99.
    pub qty: Option<Value>,
}

/// A well-formed entry, before its product is looked up.
struct Wanted {
    at: usize,
    product: ProductId,
    variant: Option<String>,
    qty: Option<u8>,
}

fn not_a_variant(product: &Product, variant: &str) -> String {
    if product.variants.is_empty() {
        format!("product {} has no variants, so {variant:?} cannot be one", product.id.as_str())
    } else {
        format!("{variant:?} is not one of product {}'s variants", product.id.as_str())
    }
}

/// Carts: snapshots of products and quantities a shopper picked, kept under a short code that
/// a message can carry, and readable until they expire.
pub struct CartService {
    carts: Arc<dyn CartRepository>,
    products: Arc<dyn ProductRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: crate::services::EventMaker,
}

/// Collisions of a fresh code are rare (58^7 codes); a few retries make them harmless.
const CODE_ATTEMPTS: usize = 5;

impl CartService {
    /// A service over these ports; `ids` also draws cart codes, and `objects` builds the
    /// `cart.created` event's payload.
    pub fn new(
        carts: Arc<dyn CartRepository>,
        products: Arc<dyn ProductRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        Self { carts, products, clock, ids, events }
    }

    /// Snapshots 1–50 distinct lines (an active product of the agent and, where it has
    /// variants, optionally one of them) with quantities 1–99, all in one currency.
    /// `Validation` names every bad entry at once, in entry order: a missing or malformed
    /// field, a line asked twice, a product unknown or inactive, a variant it does not have, a
    /// second currency. Records `cart.created` with the cart; `Internal` in the rare case no
    /// free code is found.
    pub async fn create(&self, agent: &AgentId, items: Option<Vec<NewCartItem>>) -> Result<Cart, DomainError> {
        let items = items.ok_or_else(|| FieldError::new("items", "is required"))?;
        if items.is_empty() || items.len() > MAX_CART_ITEMS {
            return Err(FieldError::new("items", format!("must hold 1 to {MAX_CART_ITEMS} entries")).into());
        }
        // Every bad entry is named in one answer: shape errors and unavailable products alike.
        let mut errors: Vec<(usize, FieldError)> = Vec::new();
        let mut wanted: Vec<Wanted> = Vec::with_capacity(items.len());
        let mut seen: HashMap<(String, Option<String>), usize> = HashMap::new();
        for (i, item) in items.into_iter().enumerate() {
            let qty = match item.qty.as_ref().and_then(crate::model::integral::integral_u64) {
                Some(q @ 1..=99) => Some(q as u8),
                _ => {
                    errors.push((i, FieldError::new(format!("items[{i}].qty"), "must be an integer from 1 to 99")));
                    None
                }
            };
            let Some(id) = item.id.filter(|id| !id.is_empty()) else {
                errors.push((i, FieldError::new(format!("items[{i}].id"), "is required")));
                continue;
            };
            let Some(product_id) = ProductId::received(id.clone()) else {
                errors.push((i, FieldError::new(format!("items[{i}].id"), "must not contain control characters")));
                continue;
            };
            let key = (id.clone(), item.variant_id.clone());
            if let Some(first) = seen.get(&key) {
                let what = match &item.variant_id {
                    Some(v) => format!("product {id} with variant {v}"),
                    None => format!("product {id}"),
                };
                let field = if item.variant_id.is_some() { "variant_id" } else { "id" };
                errors.push((i, FieldError::new(format!("items[{i}].{field}"), format!("{what} is already in items[{first}]"))));
                continue;
            }
            seen.insert(key, i);
            wanted.push(Wanted { at: i, product: product_id, variant: item.variant_id, qty });
        }

        let ids: Vec<ProductId> = wanted.iter().map(|w| w.product.clone()).collect();
        let found: HashMap<ProductId, Product> = if ids.is_empty() {
            HashMap::new()
        } else {
            self.products.find_active(agent, &ids).await?.into_iter().map(|p| (p.id.clone(), p)).collect()
        };
        let mut lines = Vec::with_capacity(wanted.len());
        for w in wanted {
            let i = w.at;
            let Some(product) = found.get(&w.product) else {
                let issue = format!("product {} does not exist or is not available", w.product.as_str());
                errors.push((i, FieldError::new(format!("items[{i}].id"), issue)));
                continue;
            };
            let variant = match &w.variant {
                None => None,
                Some(v) => match product.variants.iter().find(|known| &known.id == v) {
                    Some(known) => Some(known.clone()),
                    None => {
                        errors.push((i, FieldError::new(format!("items[{i}].variant_id"), not_a_variant(product, v))));
                        continue;
                    }
                },
            };
            if let Some(qty) = w.qty {
                lines.push((i, CartItem { product: product.clone(), variant, qty }));
            }
        }
        if let Some((_, first)) = lines.first() {
            let currency = first.product.currency.clone();
            if let Some((i, other)) = lines.iter().find(|(_, l)| l.product.currency != currency) {
                let issue = format!(
                    "is priced in {}, and a cart holds one currency: the items before it are in {}",
                    other.product.currency.as_str(),
                    currency.as_str()
                );
                errors.push((*i, FieldError::new(format!("items[{i}].id"), issue)));
            }
        }
        if !errors.is_empty() {
            errors.sort_by_key(|(i, _)| *i);
            return Err(DomainError::Validation(errors.into_iter().map(|(_, e)| e).collect()));
        }
        let lines: Vec<CartItem> = lines.into_iter().map(|(_, l)| l).collect();

        let created_at = self.clock.now();
        for _ in 0..CODE_ATTEMPTS {
            let cart = Cart {
                code: CartCode::parse(&self.ids.code(CartCode::ALPHABET, CartCode::LEN))
                    .ok_or_else(|| DomainError::Internal("bad cart code".into()))?,
                agent_id: agent.clone(),
                items: lines.clone(),
                created_at,
                expires_at: created_at + CART_VALIDITY,
            };
            let created = self.events.make(agent, EventType::CartCreated, created_at, &cart);
            match self.carts.insert(&cart, &[created]).await {
                Ok(()) => return Ok(cart),
                Err(StoreError::Conflict(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(DomainError::Internal("could not find a free cart code".into()))
    }

    /// The agent's cart; `NotFound` for unknown codes and other agents' carts, `CartExpired`
    /// once its 90 days are over.
    pub async fn get(&self, agent: &AgentId, code: &str) -> Result<Cart, DomainError> {
        let code = CartCode::parse(code).ok_or(DomainError::not_found("cart"))?;
        let cart = self.carts.get(agent, &code).await?.ok_or(DomainError::not_found("cart"))?;
        if cart.is_expired(self.clock.now()) {
            return Err(DomainError::CartExpired);
        }
        Ok(cart)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockCartRepository, MockClock, MockIdSource, MockProductRepository};
    use serde_json::json;

    fn product(id: &str) -> Product {
        let r: ProductRecord =
            serde_json::from_value(json!({"_id": id, "kind": "product", "title": "T", "currency": "USD", "base_price": 1})).unwrap();
        Product::from_record(&AgentId::new("a"), r, chrono::Utc::now(), None).unwrap()
    }

    fn service(carts: MockCartRepository, products: MockProductRepository) -> CartService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_code().returning(|_, _| "Ab3kP9z".into());
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        CartService::new(Arc::new(carts), Arc::new(products), Arc::new(clock), Arc::new(ids))
    }

    fn item(id: &str, qty: Value) -> NewCartItem {
        NewCartItem { id: Some(id.into()), variant_id: None, qty: Some(qty) }
    }

    #[tokio::test]
    async fn every_bad_entry_is_named_in_one_answer() {
        let mut products = MockProductRepository::new();
        products
            .expect_find_active()
            .times(1)
            .returning(|_, _| Ok(vec![product("p1"), product("p2"), product("p3"), product("p4"), product("p5")]));
        let mut carts = MockCartRepository::new();
        carts.expect_insert().never();
        let err = service(carts, products)
            .create(
                &AgentId::new("a"),
                Some(vec![
                    item("p1", json!(0)),
                    item("p2", json!(2.5)),
                    item("p3", json!("3")),
                    item("p4", json!(100)),
                    item("p5", json!(1)),
                    item("p5", json!(1)),
                    item("gone", json!(0)),
                ]),
            )
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!() };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["items[0].qty", "items[1].qty", "items[2].qty", "items[3].qty", "items[5].id", "items[6].qty", "items[6].id"]);
    }

    #[tokio::test]
    async fn entries_without_ids_are_refused_without_a_lookup() {
        let mut products = MockProductRepository::new();
        products.expect_find_active().never();
        let err = service(MockCartRepository::new(), products)
            .create(&AgentId::new("a"), Some(vec![NewCartItem { id: None, variant_id: None, qty: Some(json!(1)) }]))
            .await
            .unwrap_err();
        assert!(matches!(err, DomainError::Validation(e) if e[0].field == "items[0].id"));
    }

    #[tokio::test]
    async fn unavailable_products_are_named() {
        let mut products = MockProductRepository::new();
        products.expect_find_active().returning(|_, _| Ok(vec![product("p1")]));
        let err = service(MockCartRepository::new(), products)
            .create(&AgentId::new("a"), Some(vec![item("p1", json!(1)), item("gone", json!(2))]))
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!() };
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "items[1].id");
        assert!(errors[0].issue.contains("gone"));
    }

    #[tokio::test]
    async fn carts_expire_after_90_days() {
        let mut carts = MockCartRepository::new();
        carts.expect_get().returning(|agent, code| {
            let created_at = chrono::Utc::now() - CART_VALIDITY - chrono::TimeDelta::seconds(1);
            Ok(Some(Cart {
                code: code.clone(),
                agent_id: agent.clone(),
                items: vec![],
                created_at,
                expires_at: created_at + CART_VALIDITY,
            }))
        });
        let err = service(carts, MockProductRepository::new()).get(&AgentId::new("a"), "Ab3kP9z").await.unwrap_err();
        assert!(matches!(err, DomainError::CartExpired));
    }

    #[tokio::test]
    async fn malformed_codes_are_not_found_without_a_lookup() {
        let mut carts = MockCartRepository::new();
        carts.expect_get().never();
        let err = service(carts, MockProductRepository::new()).get(&AgentId::new("a"), "0000000").await.unwrap_err();
        assert!(matches!(err, DomainError::NotFound { resource: "cart", .. }));
    }

    fn priced(id: &str, currency: &str, base: &str, variants: serde_json::Value) -> Product {
        let r =
            format!(r#"{{"_id":"{id}","kind":"product","title":"T","currency":"{currency}","base_price":{base},"variants":{variants}}}"#);
        Product::from_record(&AgentId::new("a"), serde_json::from_str(&r).unwrap(), chrono::Utc::now(), None).unwrap()
    }

    fn shirt() -> Product {
        priced(
            "shirt",
            "USD",
            "19.99",
            json!([{"id": "s", "title": "Small", "price": 19.99}, {"id": "l", "title": "Large", "price": 24.5,
                "selected_options": [{"name": "Size", "value": "L"}]}]),
        )
    }

    fn with_variant(id: &str, variant: Option<&str>, qty: u8) -> NewCartItem {
        NewCartItem { id: Some(id.into()), variant_id: variant.map(String::from), qty: Some(json!(qty)) }
    }

    fn inserting(carts: &mut MockCartRepository) {
        carts.expect_insert().times(1).returning(|_, _| Ok(()));
    }

    #[tokio::test]
    async fn variants_set_the_price_and_totals_are_exact() {
        let mut products = MockProductRepository::new();
        products.expect_find_active().returning(|_, _| Ok(vec![shirt()]));
        let mut carts = MockCartRepository::new();
        inserting(&mut carts);
        let cart = service(carts, products)
            .create(
                &AgentId::new("a"),
                Some(vec![with_variant("shirt", Some("l"), 2), with_variant("shirt", None, 3), with_variant("shirt", Some("s"), 1)]),
            )
            .await
            .unwrap();
        let lines: Vec<_> = cart
            .items
            .iter()
            .map(|i| (i.variant.as_ref().map(|v| v.id.as_str()), i.unit_price().to_string(), i.line_total().to_string()))
            .collect();
        assert_eq!(
            lines,
            [(Some("l"), "24.5".into(), "49".into()), (None, "19.99".into(), "59.97".into()), (Some("s"), "19.99".into(), "19.99".into())]
        );
        let total = cart.total().unwrap();
        assert_eq!((total.currency.as_str(), total.total.to_string()), ("USD", "128.96".to_string()));
    }

    #[tokio::test]
    async fn unknown_and_repeated_variants_are_named() {
        let mut products = MockProductRepository::new();
        products.expect_find_active().returning(|_, _| Ok(vec![shirt(), priced("mug", "USD", "5", json!([]))]));
        let err = service(MockCartRepository::new(), products)
            .create(
                &AgentId::new("a"),
                Some(vec![
                    with_variant("shirt", Some("l"), 1),
                    with_variant("shirt", Some("xl"), 1),
                    with_variant("shirt", Some("l"), 2),
                    with_variant("mug", Some("l"), 1),
                ]),
            )
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!() };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["items[1].variant_id", "items[2].variant_id", "items[3].variant_id"]);
        assert!(errors[1].issue.contains("items[0]"), "{}", errors[1].issue);
        assert!(errors[2].issue.contains("no variants"), "{}", errors[2].issue);
    }

    #[tokio::test]
    async fn a_cart_holds_one_currency() {
        let mut products = MockProductRepository::new();
        products.expect_find_active().returning(|_, _| {
            Ok(vec![priced("a", "USD", "1", json!([])), priced("b", "USD", "2", json!([])), priced("c", "EUR", "3", json!([]))])
        });
        let err = service(MockCartRepository::new(), products)
            .create(&AgentId::new("a"), Some(vec![item("a", json!(1)), item("b", json!(1)), item("c", json!(1))]))
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!() };
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "items[2].id");
        assert!(errors[0].issue.contains("EUR") && errors[0].issue.contains("USD"), "{}", errors[0].issue);
    }
}
