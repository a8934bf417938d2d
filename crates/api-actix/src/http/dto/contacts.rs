//! The contacts DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::double_option;
use parley_domain::services::{ContactPatchInput, NewContactInput, Patch};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

/// A contact's address on one channel. WhatsApp channels also say who the user is on the
/// platform: each of the three is null until the platform names it; other channels have none.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelDto {
    /// The phone number's digits, an email address, or the platform's id; on WhatsApp the
    /// phone while one is known, else the user id.
    pub channel_id: String,
    /// whatsapp, instagram, messenger, email, sms or webchat.
    #[schema(value_type = ChannelTypeName, example = "whatsapp")]
    pub channel_type: String,
    /// WhatsApp only: the business-scoped user id.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "US.13491208655302741918")]
    pub user_id: Option<Option<String>>,
    /// WhatsApp only: the parent user id of a business portfolio (`CC.ENT.…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub parent_user_id: Option<Option<String>>,
    /// WhatsApp only: the username the user shows, as of their newest message.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub username: Option<Option<String>>,
}

impl From<&Channel> for ChannelDto {
    fn from(c: &Channel) -> Self {
        let whatsapp = c.channel_type() == ChannelType::Whatsapp;
        let shown = |value: Option<&str>| whatsapp.then(|| value.map(str::to_string));
        let user = c.user();
        Self {
            channel_id: c.channel_id().to_string(),
            channel_type: c.channel_type().as_str().to_string(),
            user_id: shown(user.user_id.as_ref().map(|id| id.as_str())),
            parent_user_id: shown(user.parent_user_id.as_ref().map(|id| id.as_str())),
            username: shown(user.username.as_ref().map(|name| name.as_str())),
        }
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
    let key = ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)).max_length(Some(128)).pattern(Some(r"\S"));
    ObjectBuilder::new()
        .schema_type(kind)
        .max_properties(Some(50))
        .property_names(Some(key))
        // Values are any JSON; said outright, since generators read an object that names no
        // property and allows none as one that can hold nothing.
        .additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(true)))
        .description(Some("A JSON object of at most 50 keys (1–128 characters each) and 16 KiB of JSON."))
        .build()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateContact {
    /// Required: whatsapp, instagram, messenger, email, sms or webchat.
    #[schema(value_type = ChannelTypeName, required = true)]
    pub channel_type: Option<String>,
    /// Required. Phone channels: 7–15 digits after removing `+`, spaces and dashes; WhatsApp
    /// also takes a business-scoped user id (`US.13491208655302741918`). Email: an address.
    /// Other channels: 1–256 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub channel_id: Option<String>,
    /// Defaults to the channel id; 1–256 characters.
    #[schema(max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
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
    #[schema(value_type = String, required = false, min_length = 1, max_length = 256, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
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
    /// A piece of the name or email address (any case) or, with 3+ digits, of a phone number: 1–100 characters, none a control character.
    #[param(min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    pub search: Option<String>,
    /// Only contacts with a channel of this type.
    #[param(value_type = Option<ChannelTypeName>)]
    pub channel_type: Option<String>,
}
