use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::{ProductId, SearchRequest};
use parley_domain::services::ProductListQuery;
use parley_domain::services::{CatalogService, SearchService};

use super::{browser_resource, ok};
use crate::http::auth::PublishableKey;
use crate::http::dto::{CategoriesDto, DataBody, PageBody, ProductDto, ProductListParams, SearchParams, SearchResultDto};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{PathId, Query};
use crate::http::json;
use crate::runtime::config::CorsOrigins;

pub fn routes(cfg: &mut ServiceConfig, origins: &CorsOrigins) {
    cfg.service(browser_resource("/products", origins.clone()).route(web::get().to(list_products)))
        // Before `/products/{id}`, which would otherwise take "search" for an id.
        .service(browser_resource("/products/search", origins.clone()).route(web::get().to(search_products)))
        .service(browser_resource("/products/{id}", origins.clone()).route(web::get().to(get_product)))
        .service(browser_resource("/categories", origins.clone()).route(web::get().to(list_categories)));
}

/// List published products, newest first.
#[utoipa::path(get, path = "/v1/products", tag = "Catalog", security(("secret_key" = []), ("publishable_key" = [])), params(ProductListParams),
    responses((status = 200, body = PageBody<ProductDto>)))]
pub async fn list_products(
    caller: PublishableKey,
    catalog: Data<CatalogService>,
    query: Query<ProductListParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let page = catalog.list(caller.agent(), ProductListQuery { limit: q.limit, offset: q.offset, tag: q.tag, kind: q.kind }).await?;
    Ok(json::page(&page))
}

/// Search published products by meaning.
///
/// The query is embedded and compared with every product's vector (cosine similarity), so
/// "something to keep my coffee hot" finds a vacuum bottle whose text never says coffee. Best
/// match first. `tag` and `kind` narrow the search as they narrow the product list: the answer
/// is the best `limit` among the products that match them.
#[utoipa::path(get, path = "/v1/products/search", tag = "Catalog", security(("secret_key" = []), ("publishable_key" = [])), params(SearchParams),
    responses((status = 200, body = DataBody<Vec<SearchResultDto>>),
        (status = 502, body = ErrorBody, description = "A remote embedding service failed")))]
pub async fn search_products(caller: PublishableKey, search: Data<SearchService>, query: Query<SearchParams>) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let request = SearchRequest { q: q.q.as_deref(), limit: q.limit.as_deref(), tag: q.tag.as_deref(), kind: q.kind.as_deref() };
    let hits = search.search(caller.agent(), request).await?;
    Ok(ok(hits.into_iter().map(SearchResultDto::from).collect::<Vec<_>>()))
}

/// Fetch one published product.
///
/// Drafts, unknown ids and other agents' products are 404.
#[utoipa::path(get, path = "/v1/products/{id}", tag = "Catalog", security(("secret_key" = []), ("publishable_key" = [])),
    params(("id" = String, Path, description = "The product's `_id`")),
    responses((status = 200, body = DataBody<ProductDto>)))]
pub async fn get_product(caller: PublishableKey, catalog: Data<CatalogService>, id: PathId<ProductId>) -> ApiResult<HttpResponse> {
    let product = catalog.get(caller.agent(), &id.into_inner()).await?;
    Ok(json::one(&product))
}

/// Category facets of the published catalog.
#[utoipa::path(get, path = "/v1/categories", tag = "Catalog", security(("secret_key" = []), ("publishable_key" = [])),
    responses((status = 200, body = DataBody<CategoriesDto>)))]
pub async fn list_categories(caller: PublishableKey, catalog: Data<CatalogService>) -> ApiResult<HttpResponse> {
    let facets = catalog.categories(caller.agent()).await?;
    Ok(ok(CategoriesDto::from(facets)))
}
