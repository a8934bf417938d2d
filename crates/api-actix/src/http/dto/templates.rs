//! The templates and campaigns DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
use crate::http::extract::{option_object, option_objects};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

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
    /// Buttons: the template button's position, from 0: `0` or `"0"` as the platform writes it
    /// (`1.0` is read as `1`).
    #[serde(default, deserialize_with = "crate::http::extract::option_button_index")]
    #[schema(value_type = Option<ButtonIndex>)]
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
    #[schema(value_type = ExecutionStatusName)]
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
