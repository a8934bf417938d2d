//! The tags DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::double_option;
use parley_domain::services::{NewTagInput, Patch, TagPatchInput};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTag {
    /// Required; trimmed, 1–64 characters, unique per agent ignoring case.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
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
    #[schema(value_type = String, required = false, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
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
