//! The carts DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::option_objects;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CartItemBody {
    /// An active product's `_id`.
    #[schema(value_type = String, required = true, min_length = 1, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub id: Option<String>,
    /// An integer from 1 to 99.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 99)]
    pub qty: Option<Value>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCart {
    /// 1–50 distinct products.
    #[serde(default, deserialize_with = "option_objects")]
    #[schema(value_type = Vec<CartItemBody>, required = true, min_items = 1, max_items = 50)]
    pub items: Option<Vec<CartItemBody>>,
}

impl CreateCart {
    pub fn into_items(self) -> Option<Vec<parley_domain::services::NewCartItem>> {
        self.items.map(|items| items.into_iter().map(|i| parley_domain::services::NewCartItem { id: i.id, qty: i.qty }).collect())
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CartCreatedDto {
    /// 7 characters, no look-alikes (0 O I l).
    #[schema(example = "Ab3kP9z")]
    pub code: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// `{storefront_url}/c/<code>`, when the server has a storefront URL configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A cart line: the product as it was when the cart was made, plus the quantity.
#[derive(Debug, Serialize, ToSchema)]
pub struct CartItemDto {
    #[serde(flatten)]
    pub product: ProductDto,
    pub qty: u8,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CartDto {
    pub code: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    pub items: Vec<CartItemDto>,
}

impl From<Cart> for CartDto {
    fn from(c: Cart) -> Self {
        Self {
            code: c.code.as_str().to_string(),
            created_at: timestamp(c.created_at),
            expires_at: timestamp(c.expires_at),
            items: c.items.iter().map(|i| CartItemDto { product: ProductDto::from(&i.product), qty: i.qty }).collect(),
        }
    }
}
