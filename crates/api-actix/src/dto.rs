//! Wire shapes: what the API reads and writes. Conversions from domain types live here so
//! handlers stay one-liners.

use parley_domain::model::*;
use parley_domain::services::{ActivityPatchInput, ContactPatchInput, NewContactInput, NewTagInput, Patch, TagPatchInput};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use crate::extract::{double_option, option_object, option_objects};

/// RFC 3339, UTC, milliseconds, `Z`: `2026-11-21T10:00:00.000Z`.
pub fn timestamp(t: Timestamp) -> String {
    parley_domain::model::format_timestamp(t)
}

/// `{"data": …}`: every successful response.
#[derive(Debug, Serialize, ToSchema)]
pub struct DataBody<T> {
    pub data: T,
}

/// `{"data": […], "pagination": {…}}`: paginated lists.
#[derive(Debug, Serialize, ToSchema)]
pub struct PageBody<T> {
    pub data: Vec<T>,
    pub pagination: Pagination,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Pagination {
    /// Rows matching the query, across all pages.
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
    /// `offset + len(data) < total`.
    pub has_more: bool,
}

impl<T> PageBody<T> {
    pub fn from_page<D>(page: Page<D>, f: impl FnMut(D) -> T) -> Self {
        Self { pagination: Pagination::of(&page), data: page.items.into_iter().map(f).collect() }
    }
}

impl Pagination {
    pub fn of<D>(page: &Page<D>) -> Self {
        Self { total: page.total, limit: page.request.limit(), offset: page.request.offset(), has_more: page.has_more() }
    }
}

/// Answer of a delete.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub id: String,
    pub deleted: bool,
}

// ---- Tags ----

#[derive(Debug, Serialize, ToSchema)]
pub struct TagDto {
    #[schema(example = "tag_8ZkXq1bQ0mVhT3sYwR2cLd9a")]
    pub id: String,
    pub name: String,
    /// `#rrggbb`, lowercase.
    #[schema(example = "#f59e0b")]
    pub color: String,
    pub description: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<Tag> for TagDto {
    fn from(t: Tag) -> Self {
        Self {
            id: t.id.into_string(),
            name: t.name.as_str().to_string(),
            color: t.color.as_str().to_string(),
            description: t.description.map(|d| d.as_str().to_string()),
            created_at: timestamp(t.created_at),
            updated_at: timestamp(t.updated_at),
        }
    }
}

// Patterns in the OpenAPI document (utoipa takes literals only), so generated clients and
// fuzzers know the rules: trimmed text has a visible character and no control characters but
// newline and tab (`[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f]`), colors are `#rrggbb`, emails printable ASCII
// with one `@` and a dotted domain.

/// An id as a client sends it in a body or a query: any text without control characters
/// (which the API refuses with 400 before looking anything up).
pub struct IdText;

impl utoipa::PartialSchema for IdText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(r"^[^\x00-\x1f\x7f-\x9f]*$"))
            .into()
    }
}

impl ToSchema for IdText {}

/// An activity's status.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ActivityStatusName {
    Open,
    Closed,
    Pending,
}

/// A contact's channel.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ChannelTypeName {
    Whatsapp,
    Instagram,
    Messenger,
    Email,
    Sms,
    Webchat,
}

/// A product's kind.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ProductKindName {
    Product,
    Service,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTag {
    /// Required; trimmed, 1–64 characters, unique per agent ignoring case.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub name: Option<String>,
    /// `#rrggbb`; a default gray when absent.
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub color: Option<String>,
    /// At most 500 characters.
    #[schema(max_length = 500, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub description: Option<String>,
}

impl From<CreateTag> for NewTagInput {
    fn from(b: CreateTag) -> Self {
        Self { name: b.name, color: b.color, description: b.description }
    }
}

/// Only the fields sent change; `description: null` clears it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTag {
    /// Trimmed, 1–64 characters; cannot be cleared.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub name: Option<Option<String>>,
    /// `#rrggbb`; cannot be cleared.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, pattern = "^#[0-9a-fA-F]{6}$")]
    pub color: Option<Option<String>>,
    /// At most 500 characters; null (or blank) clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 500, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub description: Option<Option<String>>,
}

impl From<UpdateTag> for TagPatchInput {
    fn from(b: UpdateTag) -> Self {
        Self {
            name: Patch::from_double_option(b.name),
            color: Patch::from_double_option(b.color),
            description: Patch::from_double_option(b.description),
        }
    }
}

// ---- Contacts ----

#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelDto {
    pub channel_id: String,
    /// whatsapp, instagram, messenger, email, sms or webchat.
    #[schema(example = "whatsapp")]
    pub channel_type: String,
}

impl From<&Channel> for ChannelDto {
    fn from(c: &Channel) -> Self {
        Self { channel_id: c.channel_id().to_string(), channel_type: c.channel_type().as_str().to_string() }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ContactDto {
    #[schema(example = "con_4hYp2WqLx9sK0bNc7TmR1zVe")]
    pub id: String,
    pub profile_name: String,
    pub email: Option<String>,
    pub notes: Option<String>,
    pub channels: Vec<ChannelDto>,
    #[schema(value_type = Object)]
    pub custom_attributes: Map<String, Value>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<Contact> for ContactDto {
    fn from(c: Contact) -> Self {
        Self {
            id: c.id.into_string(),
            profile_name: c.profile_name.as_str().to_string(),
            email: c.email.map(|e| e.as_str().to_string()),
            notes: c.notes.map(|n| n.as_str().to_string()),
            channels: c.channels.iter().map(ChannelDto::from).collect(),
            custom_attributes: c.custom_attributes.as_map().clone(),
            created_at: timestamp(c.created_at),
            updated_at: timestamp(c.updated_at),
        }
    }
}

/// `custom_attributes`: an object of at most 50 keys, each 1–128 characters with a visible one.
fn custom_attributes_schema() -> utoipa::openapi::Object {
    attributes_schema(utoipa::openapi::schema::SchemaType::Type(utoipa::openapi::Type::Object))
}

/// The same, or null (contact create: null means none).
fn nullable_custom_attributes_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::Type;
    attributes_schema(utoipa::openapi::schema::SchemaType::from_iter([Type::Object, Type::Null]))
}

fn attributes_schema(kind: utoipa::openapi::schema::SchemaType) -> utoipa::openapi::Object {
    use utoipa::openapi::{ObjectBuilder, Type};
    let key = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(128))
        .pattern(Some(r"[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"));
    ObjectBuilder::new()
        .schema_type(kind)
        .max_properties(Some(50))
        .property_names(Some(key))
        .description(Some("A JSON object of at most 50 keys (1–128 characters each) and 16 KiB of JSON."))
        .build()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateContact {
    /// Required: whatsapp, instagram, messenger, email, sms or webchat.
    #[schema(value_type = ChannelTypeName, required = true)]
    pub channel_type: Option<String>,
    /// Required. Phone channels: 7–15 digits after removing `+`, spaces and dashes. Email: an address.
    /// Other channels: 1–256 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub channel_id: Option<String>,
    /// Defaults to the channel id; 1–256 characters.
    #[schema(
        max_length = 256,
        pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
    )]
    pub profile_name: Option<String>,
    /// An address of at most 254 characters (stored lowercase).
    #[schema(max_length = 254, pattern = r"^[!-?A-~]{1,64}@([!-\-/-?A-~]{1,63}\.)+[!-\-/-?A-~]{1,63}$")]
    pub email: Option<String>,
    /// At most 5,000 characters.
    #[schema(max_length = 5000, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub notes: Option<String>,
    /// A JSON object of at most 50 keys (1–128 characters each) and 16 KiB.
    #[schema(schema_with = nullable_custom_attributes_schema)]
    pub custom_attributes: Option<Map<String, Value>>,
}

impl From<CreateContact> for NewContactInput {
    fn from(b: CreateContact) -> Self {
        Self {
            channel_type: b.channel_type,
            channel_id: b.channel_id,
            profile_name: b.profile_name,
            email: b.email,
            notes: b.notes,
            custom_attributes: b.custom_attributes,
        }
    }
}

/// Only the fields sent change. `email` and `notes` accept null to clear; `custom_attributes`
/// is merged, and a key set to null is removed.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateContact {
    /// 1–256 characters; cannot be cleared.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub profile_name: Option<Option<String>>,
    /// An address of at most 254 characters, or null to clear.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 254, pattern = r"^[!-?A-~]{1,64}@([!-\-/-?A-~]{1,63}\.)+[!-\-/-?A-~]{1,63}$")]
    pub email: Option<Option<String>>,
    /// At most 5,000 characters, or null to clear.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 5000, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub notes: Option<Option<String>>,
    /// Merged into the contact's attributes (a key set to null is removed); the result must stay
    /// within 50 keys and 16 KiB.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = custom_attributes_schema, required = false)]
    pub custom_attributes: Option<Option<Map<String, Value>>>,
}

impl From<UpdateContact> for ContactPatchInput {
    fn from(b: UpdateContact) -> Self {
        Self {
            profile_name: Patch::from_double_option(b.profile_name),
            email: Patch::from_double_option(b.email),
            notes: Patch::from_double_option(b.notes),
            custom_attributes: Patch::from_double_option(b.custom_attributes),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContactListParams {
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
}

// ---- Activities ----

#[derive(Debug, Serialize, ToSchema)]
pub struct TagRefDto {
    pub id: String,
    pub name: String,
    pub color: String,
}

/// An activity as listed.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActivityDto {
    #[schema(example = "act_1nQv8ZpXr3TyLk5bW0cMd7Hs")]
    pub id: String,
    /// open, closed or pending.
    #[schema(example = "open")]
    pub status: String,
    pub profile_name: String,
    pub channel_identifiers: Vec<String>,
    pub tags: Vec<TagRefDto>,
    pub assigned_to: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// One activity: the list item plus its contact and channels.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActivityDetailDto {
    #[serde(flatten)]
    pub item: ActivityDto,
    pub contact_id: String,
    pub channels: Vec<ChannelDto>,
    /// When the contact last wrote; null if never. The 24-hour messaging window runs from here.
    #[schema(format = DateTime)]
    pub last_inbound_at: Option<String>,
}

impl From<&ActivityView> for ActivityDto {
    fn from(v: &ActivityView) -> Self {
        let a = &v.activity;
        Self {
            id: a.id.as_str().to_string(),
            status: a.status.as_str().to_string(),
            profile_name: v.profile_name.as_str().to_string(),
            channel_identifiers: v.channels.iter().map(|c| c.channel_id().to_string()).collect(),
            tags: v
                .tags
                .iter()
                .map(|t| TagRefDto {
                    id: t.id.as_str().to_string(),
                    name: t.name.as_str().to_string(),
                    color: t.color.as_str().to_string(),
                })
                .collect(),
            assigned_to: a.assigned_to.as_ref().map(|x| x.as_str().to_string()),
            created_at: timestamp(a.created_at),
            updated_at: timestamp(a.updated_at),
        }
    }
}

impl From<ActivityView> for ActivityDto {
    fn from(v: ActivityView) -> Self {
        Self::from(&v)
    }
}

impl From<ActivityView> for ActivityDetailDto {
    fn from(v: ActivityView) -> Self {
        Self {
            item: ActivityDto::from(&v),
            contact_id: v.activity.contact_id.as_str().to_string(),
            channels: v.channels.iter().map(ChannelDto::from).collect(),
            last_inbound_at: v.activity.last_inbound_at.map(timestamp),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActivityListParams {
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
    /// open, closed or pending.
    #[param(value_type = Option<ActivityStatusName>)]
    pub status: Option<String>,
    /// A tag id: only activities with that tag.
    #[param(pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub tag: Option<String>,
    /// A piece of the contact's name (any case) or, with 3+ digits, of a phone number: 1–100 characters, none a control character.
    #[param(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub search: Option<String>,
}

/// Only the fields sent change; `assigned_to: null` unassigns.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateActivity {
    /// open, closed or pending; any move is allowed. Cannot be null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = ActivityStatusName, required = false)]
    pub status: Option<Option<String>>,
    /// A user id, 1–128 characters, or null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 128, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub assigned_to: Option<Option<String>>,
    /// Renames the contact: 1–256 characters, cannot be null.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub profile_name: Option<Option<String>>,
}

impl From<UpdateActivity> for ActivityPatchInput {
    fn from(b: UpdateActivity) -> Self {
        Self {
            status: Patch::from_double_option(b.status),
            assigned_to: Patch::from_double_option(b.assigned_to),
            profile_name: Patch::from_double_option(b.profile_name),
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachTags {
    /// 1–50 tag ids of this agent; already attached ones are left as they are.
    #[schema(value_type = Vec<IdText>, required = true, min_items = 1, max_items = 50)]
    pub tag_ids: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DetachTagParams {
    /// The tag to remove.
    #[param(
        required = true,
        min_length = 1,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub tag_id: Option<String>,
}

// ---- Catalog ----

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
    #[serde(serialize_with = "price_format::serialize")]
    pub price: f64,
    /// Present only when the variant is on sale; greater than `price`.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "price_format::serialize_option")]
    pub compare_at_price: Option<f64>,
    pub selected_options: Vec<SelectedOptionDto>,
}

/// A published product.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductDto {
    #[serde(rename = "_id")]
    #[schema(example = "prd_thermos_500")]
    pub id: String,
    /// product or service.
    pub kind: String,
    pub title: String,
    pub description: String,
    pub media: Vec<MediaDto>,
    pub category_tags: Vec<String>,
    /// ISO 4217.
    #[schema(example = "USD")]
    pub currency: String,
    /// In the catalog currency, no minor units.
    #[serde(serialize_with = "price_format::serialize")]
    pub base_price: f64,
    /// Present only when on sale; always greater than `base_price`.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "price_format::serialize_option")]
    pub compare_at_price: Option<f64>,
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
            variants: p
                .variants
                .iter()
                .map(|v| VariantDto {
                    id: v.id.clone(),
                    title: v.title.clone(),
                    price: v.price,
                    compare_at_price: v.compare_at_price,
                    selected_options: v
                        .selected_options
                        .iter()
                        .map(|o| SelectedOptionDto { name: o.name.clone(), value: o.value.clone() })
                        .collect(),
                })
                .collect(),
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
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "something to keep my coffee hot"
    )]
    pub q: Option<String>,
    /// Results, 1–50, default 10.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 50)]
    pub limit: Option<String>,
}

/// One search result: a published product and how close it is in meaning to the query.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResultDto {
    #[serde(rename = "_id")]
    #[schema(example = "prd_thermos_500")]
    pub id: String,
    /// product or service.
    pub kind: String,
    pub title: String,
    /// ISO 4217.
    #[schema(example = "USD")]
    pub currency: String,
    /// In the catalog currency, no minor units.
    #[serde(serialize_with = "price_format::serialize")]
    pub base_price: f64,
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

// ---- Carts ----

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

// ---- Templates and campaigns ----

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateButtonDto {
    /// URL, QUICK_REPLY, PHONE_NUMBER…
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateComponentDto {
    /// HEADER, BODY, FOOTER, BUTTONS…
    #[serde(rename = "type")]
    pub kind: String,
    /// The text, with numbered placeholders `{{1}}`, `{{2}}`…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub buttons: Vec<TemplateButtonDto>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateDto {
    /// The platform's template id.
    pub id: String,
    pub name: String,
    #[schema(example = "en_US")]
    pub language: String,
    /// As the platform gives it; only APPROVED templates can be sent.
    #[schema(example = "APPROVED")]
    pub status: String,
    #[schema(example = "UTILITY")]
    pub category: String,
    /// The line (`chn_…`) the template is approved on.
    pub channel_id: String,
    pub components: Vec<TemplateComponentDto>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<Template> for TemplateDto {
    fn from(t: Template) -> Self {
        let d = t.definition;
        Self {
            id: d.id.as_str().to_string(),
            name: d.name,
            language: d.language,
            status: d.status,
            category: d.category,
            channel_id: t.line_id.as_str().to_string(),
            components: d
                .components
                .into_iter()
                .map(|c| TemplateComponentDto {
                    kind: c.kind,
                    text: c.text,
                    buttons: c.buttons.into_iter().map(|b| TemplateButtonDto { kind: b.kind, text: b.text, url: b.url }).collect(),
                })
                .collect(),
            created_at: timestamp(t.created_at),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendParameterBody {
    /// `text` (buttons also take `payload`).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<String>,
    pub payload: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendComponentBody {
    /// header, body or button.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Buttons: quick_reply or url.
    pub sub_type: Option<String>,
    /// Buttons: the template button's position, from 0.
    pub index: Option<i64>,
    #[serde(default, deserialize_with = "option_objects")]
    pub parameters: Option<Vec<SendParameterBody>>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignBody {
    /// 1–64 of `[A-Za-z0-9_.:-]`: poll `/v1/campaigns/{key}/executions` with it.
    pub key: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendTemplate {
    /// Recipient: 7–15 digits with country code (`+`, spaces and dashes are ignored).
    #[schema(value_type = String, required = true, pattern = "^[+ -]*([0-9][+ -]*){7,15}$")]
    pub to: Option<String>,
    /// The platform's business message components; one parameter per placeholder.
    #[serde(default, deserialize_with = "option_objects")]
    pub components: Option<Vec<SendComponentBody>>,
    #[serde(default, deserialize_with = "option_object")]
    pub campaign: Option<CampaignBody>,
}

impl SendTemplate {
    pub fn into_input(self) -> parley_domain::services::SendInput {
        use parley_domain::model::{ComponentInput, ParameterInput};
        parley_domain::services::SendInput {
            to: self.to,
            components: self.components.map(|cs| {
                cs.into_iter()
                    .map(|c| ComponentInput {
                        kind: c.kind,
                        sub_type: c.sub_type,
                        index: c.index,
                        parameters: c
                            .parameters
                            .map(|ps| ps.into_iter().map(|p| ParameterInput { kind: p.kind, text: p.text, payload: p.payload }).collect()),
                    })
                    .collect()
            }),
            campaign: self.campaign.map(|c| parley_domain::services::CampaignInput { key: c.key, name: c.name }),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SendResultDto {
    pub message_sent: bool,
    /// The platform's message id (`wamid.…`).
    pub message_id: String,
    /// HEADER, BODY and FOOTER with the placeholders filled, joined by a blank line.
    pub parsed_message: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExecutionDto {
    #[schema(example = "exe_2VnH8sKq0LmT4bXc9RzW1aPe")]
    pub id: String,
    pub to: String,
    pub template_id: String,
    /// Null when the platform refused the send outright.
    pub message_id: Option<String>,
    /// sent, delivered, read or failed.
    pub status: String,
    pub error_message: Option<String>,
    #[schema(format = DateTime)]
    pub sent_at: Option<String>,
    #[schema(format = DateTime)]
    pub delivered_at: Option<String>,
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
    /// When the record last changed: pass the newest one as `since` to poll for changes.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<Execution> for ExecutionDto {
    fn from(e: Execution) -> Self {
        Self {
            id: e.id,
            to: e.to,
            template_id: e.template_id.as_str().to_string(),
            message_id: e.message_id,
            status: e.status.as_str().to_string(),
            error_message: e.error_message,
            sent_at: e.sent_at.map(timestamp),
            delivered_at: e.delivered_at.map(timestamp),
            read_at: e.read_at.map(timestamp),
            updated_at: timestamp(e.updated_at),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExecutionParams {
    /// Only records changed after this RFC 3339 time.
    #[param(format = DateTime)]
    pub since: Option<String>,
    /// 1–1000, default 100.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 1000)]
    pub limit: Option<String>,
}
