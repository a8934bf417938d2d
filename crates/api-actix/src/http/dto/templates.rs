//! The templates and campaigns DTOs: request bodies, query parameters and responses as the OpenAPI document describes them.

use super::*;
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
    /// PHONE_NUMBER buttons: the number it calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone_number: Option<String>,
    /// OTP buttons: COPY_CODE, ONE_TAP or ZERO_TAP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otp_type: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateComponentDto {
    /// HEADER, BODY, FOOTER, BUTTONS…
    #[serde(rename = "type")]
    pub kind: String,
    /// Headers: TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION. A media or location header takes its
    /// file or place as the send's header parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "TEXT")]
    pub format: Option<String>,
    /// The text, with placeholders: numbered `{{1}}`, `{{2}}`… or, in a NAMED template, `{{first_name}}`…
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
    /// POSITIONAL (`{{1}}`, filled in order) or NAMED (`{{first_name}}`, each send parameter
    /// names its placeholder with `parameter_name`).
    #[schema(value_type = ParameterFormatName)]
    pub parameter_format: &'static str,
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
            parameter_format: d.parameter_format.as_str(),
            components: d
                .components
                .into_iter()
                .map(|c| TemplateComponentDto {
                    kind: c.kind,
                    format: c.format,
                    text: c.text,
                    buttons: c
                        .buttons
                        .into_iter()
                        .map(|b| TemplateButtonDto {
                            kind: b.kind,
                            text: b.text,
                            url: b.url,
                            phone_number: b.phone_number,
                            otp_type: b.otp_type,
                        })
                        .collect(),
                })
                .collect(),
            created_at: timestamp(t.created_at),
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

/// What a campaign's sends add up to.
#[derive(Debug, Serialize, ToSchema)]
pub struct CampaignSummaryDto {
    #[schema(example = "spring-sale:2026")]
    pub campaign_key: String,
    /// The campaign's billed messages per pricing category, as the platform priced them in its
    /// status reports (free messages, and messages not priced yet, count for nothing); a
    /// category without a billed message is left out.
    #[schema(example = json!({"marketing": 12, "utility": 3}))]
    pub billable: std::collections::BTreeMap<String, u64>,
}

impl From<parley_domain::services::CampaignSummary> for CampaignSummaryDto {
    fn from(s: parley_domain::services::CampaignSummary) -> Self {
        Self { campaign_key: s.key.as_str().to_string(), billable: s.billable }
    }
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
