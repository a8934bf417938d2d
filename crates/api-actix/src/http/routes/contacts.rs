use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, web};
use parley_domain::model::ContactId;
use parley_domain::services::ContactListQuery;
use parley_domain::services::ContactService;

use super::{created, ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{ContactDto, ContactListParams, CreateContact, DataBody, Deleted, PageBody, UpdateContact};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId, Query};
use crate::http::json;
use crate::runtime::page_cache::{PageCache, PageKey};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/contacts").route(web::get().to(list_contacts)).route(web::post().to(create_contact))).service(
        resource("/contacts/{id}")
            .route(web::get().to(get_contact))
            .route(web::patch().to(update_contact))
            .route(web::delete().to(delete_contact)),
    );
}

/// List contacts, newest first, with optional filters.
#[utoipa::path(get, path = "/v1/contacts", tag = "Contacts", security(("secret_key" = [])), params(ContactListParams),
    responses((status = 200, body = PageBody<ContactDto>)))]
pub async fn list_contacts(
    caller: SecretKey,
    contacts: Data<ContactService>,
    pages: Data<PageCache>,
    req: HttpRequest,
    query: Query<ContactListParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let query = ContactListQuery { search: q.search, channel_type: q.channel_type, limit: q.limit, offset: q.offset };
    let key = PageKey::new(caller.agent().as_str(), None, req.path(), req.query_string());
    json::kept_page(&pages, key, || async { Ok(json::page_text(&contacts.list(caller.agent(), query).await?)) }).await
}

/// Fetch one contact.
#[utoipa::path(get, path = "/v1/contacts/{id}", tag = "Contacts", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Contact id")),
    responses((status = 200, body = DataBody<ContactDto>)))]
pub async fn get_contact(caller: SecretKey, contacts: Data<ContactService>, id: PathId<ContactId>) -> ApiResult<HttpResponse> {
    let contact = contacts.get(caller.agent(), &id.into_inner()).await?;
    Ok(ok(ContactDto::from(contact)))
}

/// Create a contact on one channel.
#[utoipa::path(post, path = "/v1/contacts", tag = "Contacts", security(("secret_key" = [])), request_body = CreateContact,
    responses((status = 201, body = DataBody<ContactDto>),
        (status = 409, description = "The channel already belongs to a contact; details name it", body = ErrorBody)))]
pub async fn create_contact(
    caller: SecretKey,
    contacts: Data<ContactService>,
    body: Json<Object<CreateContact>>,
) -> ApiResult<HttpResponse> {
    let contact = contacts.create(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(ContactDto::from(contact)))
}

/// Erase a contact with its conversation (the right to erasure).
///
/// Removes the contact, its channels, its activity and every message of it with their stored
/// files, the template sends addressed to it, and the platforms' processed deliveries that named
/// it, in one transaction. Events already stored about it keep their ids and nothing else, and
/// `contact.deleted` carries the id alone. Carts stay: they are the storefront's.
#[utoipa::path(delete, path = "/v1/contacts/{id}", tag = "Contacts", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Contact id")),
    responses((status = 200, body = DataBody<Deleted>)))]
pub async fn delete_contact(caller: SecretKey, contacts: Data<ContactService>, id: PathId<ContactId>) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    contacts.delete(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.into_string(), deleted: true }))
}

/// Change a contact's name, email, notes or custom attributes.
#[utoipa::path(patch, path = "/v1/contacts/{id}", tag = "Contacts", security(("secret_key" = [])), request_body = UpdateContact,
    params(("id" = String, Path, description = "Contact id")),
    responses((status = 200, body = DataBody<ContactDto>)))]
pub async fn update_contact(
    caller: SecretKey,
    contacts: Data<ContactService>,
    id: PathId<ContactId>,
    body: Json<Object<UpdateContact>>,
) -> ApiResult<HttpResponse> {
    let contact = contacts.update(caller.agent(), &id.into_inner(), body.into_inner().into_inner().into()).await?;
    Ok(ok(ContactDto::from(contact)))
}
