use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::*;
use crate::ports::{CartRepository, Clock, IdSource, ProductRepository};
use crate::{DomainError, FieldError, StoreError};

/// One requested cart line, as received.
#[derive(Debug, Clone, Default)]
pub struct NewCartItem {
    pub id: Option<String>,
    /// Any JSON value: it must be an integer from 1 to 99.
    pub qty: Option<Value>,
}

pub struct CartService {
    carts: Arc<dyn CartRepository>,
    products: Arc<dyn ProductRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: super::EventMaker,
}

/// Collisions of a fresh code are rare (58^7 codes); a few retries make them harmless.
const CODE_ATTEMPTS: usize = 5;

impl CartService {
    pub fn new(
        carts: Arc<dyn CartRepository>,
        products: Arc<dyn ProductRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
        objects: Arc<dyn crate::ports::ApiObjects>,
    ) -> Self {
        let events = super::EventMaker::new(ids.clone(), objects);
        Self { carts, products, clock, ids, events }
    }

    /// Snapshots 1–50 distinct active products of the agent with quantities 1–99.
    pub async fn create(&self, agent: &AgentId, items: Option<Vec<NewCartItem>>) -> Result<Cart, DomainError> {
        let items = items.ok_or_else(|| FieldError::new("items", "is required"))?;
        if items.is_empty() || items.len() > MAX_CART_ITEMS {
            return Err(FieldError::new("items", format!("must hold 1 to {MAX_CART_ITEMS} entries")).into());
        }
        // Every bad entry is named in one answer: shape errors and unavailable products alike.
        let mut errors: Vec<(usize, FieldError)> = Vec::new();
        let mut wanted: Vec<(usize, ProductId, Option<u8>)> = Vec::with_capacity(items.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
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
            if let Some(first) = seen.get(&id) {
                errors.push((i, FieldError::new(format!("items[{i}].id"), format!("product {id} is already in items[{first}]"))));
                continue;
            }
            seen.insert(id.clone(), i);
            wanted.push((i, product_id, qty));
        }

        let ids: Vec<ProductId> = wanted.iter().map(|(_, id, _)| id.clone()).collect();
        let mut found: HashMap<ProductId, Product> = if ids.is_empty() {
            HashMap::new()
        } else {
            self.products.find_active(agent, &ids).await?.into_iter().map(|p| (p.id.clone(), p)).collect()
        };
        let mut lines = Vec::with_capacity(wanted.len());
        for (i, id, qty) in wanted {
            match (found.remove(&id), qty) {
                (Some(product), Some(qty)) => lines.push(CartItem { product, qty }),
                (Some(_), None) => {}
                (None, _) => errors.push((
                    i,
                    FieldError::new(format!("items[{i}].id"), format!("product {} does not exist or is not available", id.as_str())),
                )),
            }
        }
        if !errors.is_empty() {
            errors.sort_by_key(|(i, _)| *i);
            return Err(DomainError::Validation(errors.into_iter().map(|(_, e)| e).collect()));
        }

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
            let created = self.events.make(agent, EventType::CartCreated, created_at, crate::ports::ApiObject::Cart(&cart));
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
        CartService::new(Arc::new(carts), Arc::new(products), Arc::new(clock), Arc::new(ids), crate::services::event_maker::test_objects())
    }

    fn item(id: &str, qty: Value) -> NewCartItem {
        NewCartItem { id: Some(id.into()), qty: Some(qty) }
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
            .create(&AgentId::new("a"), Some(vec![NewCartItem { id: None, qty: Some(json!(1)) }]))
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
}
