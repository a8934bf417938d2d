//! The canned responses DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::double_option;
use parley_domain::services::{CannedResponsePatchInput, NewCannedResponseInput, Patch};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
pub struct CannedResponseDto {
    #[schema(example = "cnr_3fQk8ZpW1xYc0LmN5tRv2BsD")]
    pub id: String,
    /// What the response is picked by: `a-z`, `0-9`, `_`, `-`, unique per agent.
    #[schema(example = "opening-hours")]
    pub short_code: String,
    #[schema(example = "We are open 9am to 6pm, Monday to Saturday.")]
    pub text: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<CannedResponse> for CannedResponseDto {
    fn from(c: CannedResponse) -> Self {
        Self {
            id: c.id.into_string(),
            short_code: c.short_code.as_str().to_string(),
            text: c.text.as_str().to_string(),
            created_at: timestamp(c.created_at),
            updated_at: timestamp(c.updated_at),
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCannedResponse {
    /// Required; 1–32 of `a-z`, `0-9`, `_` and `-`, unique per agent.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 32, pattern = "^[a-z0-9_-]{1,32}$")]
    pub short_code: Option<String>,
    /// Required; trimmed, 1–4096 characters; newlines and tabs are kept.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 4096, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub text: Option<String>,
}

impl From<CreateCannedResponse> for NewCannedResponseInput {
    fn from(b: CreateCannedResponse) -> Self {
        Self { short_code: b.short_code, text: b.text }
    }
}

/// Only the fields sent change; neither can be cleared.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCannedResponse {
    /// 1–32 of `a-z`, `0-9`, `_` and `-`, unique per agent.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 32, pattern = "^[a-z0-9_-]{1,32}$")]
    pub short_code: Option<Option<String>>,
    /// Trimmed, 1–4096 characters.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 4096, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub text: Option<Option<String>>,
}

impl From<UpdateCannedResponse> for CannedResponsePatchInput {
    fn from(b: UpdateCannedResponse) -> Self {
        Self { short_code: Patch::from_double_option(b.short_code), text: Patch::from_double_option(b.text) }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CannedResponseListParams {
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
    /// A piece of the short code or the text, any case: 1–100 characters, none a control character.
    #[param(min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    pub search: Option<String>,
}
