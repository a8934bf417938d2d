//! The carts DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::option_objects;
use parley_domain::model::money::json_number;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CartItemBody {
    /// An active product's `_id`.
    #[schema(value_type = String, required = true, min_length = 1, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub id: Option<String>,
    /// One of the product's variants (its `variants[].id`); without it the line is the product
    /// at its `base_price`. The same product may be in a cart once per variant.
    #[schema(value_type = Option<String>, min_length = 1, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub variant_id: Option<String>,
    /// An integer from 1 to 99.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 99)]
    pub qty: Option<Value>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCart {
    /// 1–50 distinct lines (a product, or a product and one of its variants), in one currency.
    #[serde(default, deserialize_with = "option_objects")]
    #[schema(value_type = Vec<CartItemBody>, required = true, min_items = 1, max_items = 50)]
    pub items: Option<Vec<CartItemBody>>,
}

impl CreateCart {
    pub fn into_items(self) -> Option<Vec<parley_domain::services::NewCartItem>> {
        self.items.map(|items| {
            items.into_iter().map(|i| parley_domain::services::NewCartItem { id: i.id, variant_id: i.variant_id, qty: i.qty }).collect()
        })
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

/// A cart line: the product as it was when the cart was made, the variant chosen, the quantity
/// and what the line costs. Amounts are exact decimals in the cart's currency, rounded to its
/// minor unit (USD 2 places, JPY 0, KWD 3).
#[derive(Debug, Serialize, ToSchema)]
pub struct CartItemDto {
    #[serde(flatten)]
    pub product: ProductDto,
    /// The chosen variant as it was (one of `variants`), or null when the line is the product itself.
    #[schema(required = true)]
    pub variant: Option<VariantDto>,
    pub qty: u8,
    /// The variant's price, else `base_price`, rounded to the currency's minor unit.
    #[serde(with = "json_number")]
    #[schema(value_type = f64, example = 34)]
    pub unit_price: Decimal,
    /// `unit_price` × `qty`, exactly.
    #[serde(with = "json_number")]
    #[schema(value_type = f64, example = 68)]
    pub line_total: Decimal,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CartDto {
    pub code: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    pub items: Vec<CartItemDto>,
    /// ISO 4217, every line's. Null only for a cart made before carts held one currency.
    #[schema(required = true, example = "USD")]
    pub currency: Option<String>,
    /// The exact sum of the lines' `line_total`. Null exactly when `currency` is.
    #[serde(with = "json_number::option")]
    #[schema(value_type = Option<f64>, required = true, example = 68)]
    pub total: Option<Decimal>,
}

impl From<Cart> for CartDto {
    fn from(c: Cart) -> Self {
        let total = c.total();
        Self {
            code: c.code.as_str().to_string(),
            created_at: timestamp(c.created_at),
            expires_at: timestamp(c.expires_at),
            items: c
                .items
                .iter()
                .map(|i| CartItemDto {
                    product: ProductDto::from(&i.product),
                    variant: i.variant.as_ref().map(VariantDto::from),
                    qty: i.qty,
                    unit_price: i.unit_price(),
                    line_total: i.line_total(),
                })
                .collect(),
            currency: total.as_ref().map(|t| t.currency.as_str().to_string()),
            total: total.map(|t| t.total),
        }
    }
}
