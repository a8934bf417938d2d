use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{CartRepository, StoreResult};
use serde::{Deserialize, Serialize};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn};
use crate::repos::events::emit_all;
use crate::rows::{from_millis, millis};
use crate::schema::carts;

/// One stored cart line: the full product record (status and times included) as it was, and
/// the chosen variant's id (one of the record's variants; absent in carts made before variants).
#[derive(Serialize, Deserialize)]
struct StoredItem {
    product: ProductRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variant_id: Option<String>,
    qty: u8,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = carts)]
struct CartRow {
    code: String,
    agent_id: String,
    items: String,
    created_at: i64,
    expires_at: i64,
}

impl CartRow {
    fn into_domain(self) -> Result<Cart, DbError> {
        let agent = AgentId::new(self.agent_id);
        let stored: Vec<StoredItem> = serde_json::from_str(&self.items).map_err(|e| DbError::Corrupt(format!("cart items: {e}")))?;
        let created_at = from_millis(self.created_at)?;
        let items = stored
            .into_iter()
            .map(|i| {
                let product = Product::from_record(&agent, i.product, created_at, None)
                    .map_err(|e| DbError::Corrupt(format!("cart product: {}", e[0].field)))?;
                let variant = match i.variant_id {
                    None => None,
                    Some(id) => Some(
                        product
                            .variants
                            .iter()
                            .find(|v| v.id == id)
                            .cloned()
                            .ok_or_else(|| DbError::Corrupt(format!("cart variant {id:?} is not one of its product's")))?,
                    ),
                };
                Ok(CartItem { product, variant, qty: i.qty })
            })
            .collect::<Result<_, DbError>>()?;
        let code = CartCode::parse(&self.code).ok_or_else(|| DbError::Corrupt(format!("cart code {:?}", self.code)))?;
        Ok(Cart { code, agent_id: agent, items, created_at, expires_at: from_millis(self.expires_at)? })
    }
}

#[async_trait]
impl CartRepository for Store {
    async fn insert(&self, cart: &Cart, events: &[Event]) -> StoreResult<()> {
        let items: Vec<StoredItem> = cart
            .items
            .iter()
            .map(|i| StoredItem { product: i.product.to_record(), variant_id: i.variant.as_ref().map(|v| v.id.clone()), qty: i.qty })
            .collect();
        let items = serde_json::to_string(&items).map_err(|e| DbError::Corrupt(e.to_string()))?;
        let values = (
            carts::code.eq(cart.code.as_str()),
            carts::agent_id.eq(cart.agent_id.as_str()),
            carts::items.eq(items),
            carts::created_at.eq(millis(cart.created_at)),
            carts::expires_at.eq(millis(cart.expires_at)),
        );
        in_transaction!(self, |conn| {
            diesel::insert_into(carts::table).values(values.clone()).execute(conn).await?;
            emit_all!(conn, events);
            Ok(())
        })?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, code: &CartCode) -> StoreResult<Option<Cart>> {
        let row = read_conn!(self, |conn| carts::table
            .filter(carts::agent_id.eq(agent.as_str()))
            .filter(carts::code.eq(code.as_str()))
            .select(CartRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(CartRow::into_domain).transpose()?)
    }
}
