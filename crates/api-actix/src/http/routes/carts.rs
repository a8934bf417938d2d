use actix_web::web::{Data, Path, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::services::CartService;

use super::{browser_resource, created, ok};
use crate::http::auth::PublishableKey;
use crate::http::dto::{CartCreatedDto, CartDto, CreateCart, DataBody, timestamp};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object};
use crate::runtime::config::{ApiConfig, CorsOrigins};

pub fn routes(cfg: &mut ServiceConfig, origins: &CorsOrigins) {
    cfg.service(browser_resource("/carts", origins.clone()).route(web::post().to(create_cart)))
        .service(browser_resource("/carts/{code}", origins.clone()).route(web::get().to(get_cart)));
}

/// Snapshot products and quantities behind a 7-character code, valid for 90 days.
#[utoipa::path(post, path = "/v1/carts", tag = "Carts", security(("secret_key" = []), ("publishable_key" = [])), request_body = CreateCart,
    responses((status = 201, body = DataBody<CartCreatedDto>),
        (status = 400, description = "Bad items: each is named in details (unknown, draft or foreign products, duplicates, bad quantities)", body = ErrorBody)))]
pub async fn create_cart(
    caller: PublishableKey,
    carts: Data<CartService>,
    config: Data<ApiConfig>,
    body: Json<Object<CreateCart>>,
) -> ApiResult<HttpResponse> {
    let cart = carts.create(caller.agent(), body.into_inner().into_inner().into_items()).await?;
    let url = config.storefront_url.as_ref().map(|base| format!("{base}/c/{}", cart.code.as_str()));
    Ok(created(CartCreatedDto { code: cart.code.as_str().to_string(), expires_at: timestamp(cart.expires_at), url }))
}

/// Read a cart: its products exactly as they were when it was made.
#[utoipa::path(get, path = "/v1/carts/{code}", tag = "Carts", security(("secret_key" = []), ("publishable_key" = [])),
    params(("code" = String, Path, description = "The cart's 7-character code")),
    responses((status = 200, body = DataBody<CartDto>),
        (status = 404, description = "Unknown code, or another agent's cart", body = ErrorBody),
        (status = 410, description = "The cart is older than 90 days", body = ErrorBody)))]
pub async fn get_cart(caller: PublishableKey, carts: Data<CartService>, code: Path<String>) -> ApiResult<HttpResponse> {
    let cart = carts.get(caller.agent(), &code.into_inner()).await?;
    Ok(ok(CartDto::from(cart)))
}
