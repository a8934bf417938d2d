//! The catalog DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use parley_domain::model::money::json_number;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
pub struct MediaDto {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    /// image or video.
    #[serde(rename = "type")]
    pub media_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SelectedOptionDto {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct VariantDto {
    pub id: String,
    pub title: String,
    /// An exact decimal in the product's currency, as the catalog wrote it.
    #[serde(with = "json_number")]
    #[schema(value_type = f64)]
    pub price: Decimal,
    /// Present only when the variant is on sale; greater than `price`.
    #[serde(skip_serializing_if = "Option::is_none", with = "json_number::option")]
    #[schema(value_type = Option<f64>)]
    pub compare_at_price: Option<Decimal>,
    pub selected_options: Vec<SelectedOptionDto>,
}

impl From<&VariantRecord> for VariantDto {
    fn from(v: &VariantRecord) -> Self {
        Self {
            id: v.id.clone(),
            title: v.title.clone(),
            price: v.price,
            compare_at_price: v.compare_at_price,
            selected_options: v
                .selected_options
                .iter()
                .map(|o| SelectedOptionDto { name: o.name.clone(), value: o.value.clone() })
                .collect(),
        }
    }
}

/// A published product.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductDto {
    #[serde(rename = "_id")]
    #[schema(example = "prd_thermos_500")]
    pub id: String,
    /// product or service.
    #[schema(value_type = ProductKindName)]
    pub kind: String,
    pub title: String,
    pub description: String,
    pub media: Vec<MediaDto>,
    pub category_tags: Vec<String>,
    /// ISO 4217.
    #[schema(example = "USD")]
    pub currency: String,
    /// An exact decimal in the catalog currency, as the catalog wrote it.
    #[serde(with = "json_number")]
    #[schema(value_type = f64)]
    pub base_price: Decimal,
    /// Present only when on sale; always greater than `base_price`.
    #[serde(skip_serializing_if = "Option::is_none", with = "json_number::option")]
    #[schema(value_type = Option<f64>)]
    pub compare_at_price: Option<Decimal>,
    pub variants: Vec<VariantDto>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Product> for ProductDto {
    fn from(p: &Product) -> Self {
        Self {
            id: p.id.as_str().to_string(),
            kind: p.kind.as_str().to_string(),
            title: p.title.clone(),
            description: p.description.clone(),
            media: p
                .media
                .iter()
                .map(|m| MediaDto { url: m.url.clone(), alt: m.alt.clone(), media_type: m.media_type.clone(), position: m.position })
                .collect(),
            category_tags: p.category_tags.clone(),
            currency: p.currency.as_str().to_string(),
            base_price: p.base_price.value(),
            compare_at_price: p.compare_at_price.map(Price::value),
            variants: p.variants.iter().map(VariantDto::from).collect(),
            created_at: timestamp(p.created_at),
            updated_at: timestamp(p.updated_at),
        }
    }
}

impl From<Product> for ProductDto {
    fn from(p: Product) -> Self {
        Self::from(&p)
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductListParams {
    /// Page size, 1–100, default 50.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
    /// A category tag, matched exactly (as listed by /v1/categories).
    #[param(pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub tag: Option<String>,
    /// product or service.
    #[param(value_type = Option<ProductKindName>)]
    pub kind: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// What the shopper is after, in their own words (matched by meaning, not by keywords): 1–500 characters.
    #[param(
        required = true,
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "something to keep my coffee hot"
    )]
    pub q: Option<String>,
    /// Results, 1–50, default 10.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 50)]
    pub limit: Option<String>,
    /// Only products with this category tag, matched exactly (as listed by /v1/categories).
    #[param(pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub tag: Option<String>,
    /// Only products of this kind: product or service.
    #[param(value_type = Option<ProductKindName>)]
    pub kind: Option<String>,
}

/// One search result: a published product and how close it is in meaning to the query.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResultDto {
    #[serde(rename = "_id")]
    #[schema(example = "prd_thermos_500")]
    pub id: String,
    /// product or service.
    #[schema(value_type = ProductKindName)]
    pub kind: String,
    pub title: String,
    /// ISO 4217.
    #[schema(example = "USD")]
    pub currency: String,
    /// An exact decimal in the catalog currency, as the catalog wrote it.
    #[serde(with = "json_number")]
    #[schema(value_type = f64)]
    pub base_price: Decimal,
    /// Cosine similarity of the query and the product, from -1 to 1; results are ordered by it, highest first.
    #[schema(example = 0.62)]
    pub score: f32,
}

impl From<SearchHit> for SearchResultDto {
    fn from(hit: SearchHit) -> Self {
        let p = hit.product;
        Self {
            id: p.id.as_str().to_string(),
            kind: p.kind.as_str().to_string(),
            title: p.title,
            currency: p.currency.as_str().to_string(),
            base_price: p.base_price.value(),
            score: hit.score,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CategoryDto {
    pub name: String,
    /// Active products tagged with it.
    pub count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CategoriesDto {
    /// By count, largest first, then by name.
    pub categories: Vec<CategoryDto>,
    /// Active products in the catalog.
    pub total_items: u64,
}

impl From<CatalogFacets> for CategoriesDto {
    fn from(f: CatalogFacets) -> Self {
        Self {
            categories: f.categories.into_iter().map(|c| CategoryDto { name: c.name, count: c.count }).collect(),
            total_items: f.total_items,
        }
    }
}
