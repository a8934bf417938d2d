//! A template send's body, in the platform's business message format: what a caller copies from
//! Meta's own send examples is what this reads.

use super::{ButtonIndex, ButtonSubTypeName, Coordinate};
use crate::http::extract::{option_button_index, option_coordinate, option_object, option_objects};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A header's file: `link` (https) or the platform's media `id`, one of the two.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMediaBody {
    #[schema(example = "https://cdn.example.com/new-mug.jpg")]
    pub link: Option<String>,
    /// A media id uploaded to the platform.
    pub id: Option<String>,
    /// Documents only: the name the recipient sees.
    pub filename: Option<String>,
}

/// A location header's place: all four are required.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendLocationBody {
    #[serde(default, deserialize_with = "option_coordinate")]
    #[schema(value_type = Coordinate)]
    pub latitude: Option<f64>,
    #[serde(default, deserialize_with = "option_coordinate")]
    #[schema(value_type = Coordinate)]
    pub longitude: Option<f64>,
    pub name: Option<String>,
    pub address: Option<String>,
}

/// An amount; the recipient sees `fallback_value`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendCurrencyBody {
    #[schema(example = "$100.99")]
    pub fallback_value: Option<String>,
    /// ISO 4217.
    #[schema(example = "USD")]
    pub code: Option<String>,
    /// The amount times 1000.
    #[schema(example = 100990)]
    pub amount_1000: Option<i64>,
}

/// A date; the recipient sees `fallback_value`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendDateTimeBody {
    #[schema(example = "February 25, 1977")]
    pub fallback_value: Option<String>,
}

/// A button's action: a catalog button's thumbnail product. A flow's own `flow_token` and
/// `flow_action_data` are read, and refused as 422 TEMPLATE_UNSUPPORTED.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendActionBody {
    pub thumbnail_product_retailer_id: Option<String>,
    pub flow_token: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub flow_action_data: Option<serde_json::Value>,
}

/// One parameter: its `type` and the value under the key that type names. Headers and bodies
/// take `text`, `currency` and `date_time` (a media or location header: `image`, `video`,
/// `document` or `location`); buttons take `payload` (quick reply), `text` (a URL's end, or an
/// authentication template's code), `coupon_code` (copy code) or `action` (catalog).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendParameterBody {
    /// text, currency, date_time, image, video, document, location, payload, coupon_code or action.
    #[serde(rename = "type")]
    #[schema(example = "text")]
    pub kind: Option<String>,
    /// Templates with NAMED placeholders: the placeholder this fills (`first_name` for `{{first_name}}`).
    #[schema(example = "first_name")]
    pub parameter_name: Option<String>,
    pub text: Option<String>,
    pub payload: Option<String>,
    /// Up to 15 characters.
    pub coupon_code: Option<String>,
    #[serde(default, deserialize_with = "option_object")]
    pub currency: Option<SendCurrencyBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub date_time: Option<SendDateTimeBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub image: Option<SendMediaBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub video: Option<SendMediaBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub document: Option<SendMediaBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub location: Option<SendLocationBody>,
    #[serde(default, deserialize_with = "option_object")]
    pub action: Option<SendActionBody>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendComponentBody {
    /// header, body or button.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Buttons: what the template's button at `index` is: quick_reply, url (URL and OTP
    /// buttons), copy_code, catalog or flow.
    #[schema(value_type = Option<ButtonSubTypeName>)]
    pub sub_type: Option<String>,
    /// Buttons: the template button's position, from 0: `0` or `"0"` as the platform writes it
    /// (`1.0` is read as `1`).
    #[serde(default, deserialize_with = "option_button_index")]
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
    /// Recipient: 7–15 digits with country code (`+`, spaces and dashes are ignored), or a
    /// business-scoped user id (`US.13491208655302741918`) for a user who hides their phone; a
    /// user id whose contact has a phone goes to the phone.
    #[schema(value_type = String, required = true, pattern = "^([+ -]*([0-9][+ -]*){7,15}|[A-Z]{2}\\.[A-Za-z0-9]{1,128})$")]
    pub to: Option<String>,
    /// The platform's business message components: a parameter for every placeholder, the
    /// file or place of a media or location header, and what each button takes.
    #[serde(default, deserialize_with = "option_objects")]
    pub components: Option<Vec<SendComponentBody>>,
    #[serde(default, deserialize_with = "option_object")]
    pub campaign: Option<CampaignBody>,
    /// Send it at this time (RFC 3339, in the future, at most 30 days ahead) instead of now: it
    /// is checked now, stored on the contact's timeline as a `scheduled` message (201, the
    /// message) and sent then, unless cancelled.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub send_at: Option<String>,
}

fn media(m: SendMediaBody) -> parley_domain::model::MediaInput {
    parley_domain::model::MediaInput { id: m.id, link: m.link, filename: m.filename }
}

fn parameter(p: SendParameterBody) -> parley_domain::model::ParameterInput {
    use parley_domain::model::{ActionInput, CurrencyInput, DateTimeInput, LocationInput, ParameterInput};
    ParameterInput {
        kind: p.kind,
        parameter_name: p.parameter_name,
        text: p.text,
        payload: p.payload,
        coupon_code: p.coupon_code,
        currency: p.currency.map(|c| CurrencyInput { fallback_value: c.fallback_value, code: c.code, amount_1000: c.amount_1000 }),
        date_time: p.date_time.map(|d| DateTimeInput { fallback_value: d.fallback_value }),
        image: p.image.map(media),
        video: p.video.map(media),
        document: p.document.map(media),
        location: p.location.map(|l| LocationInput { latitude: l.latitude, longitude: l.longitude, name: l.name, address: l.address }),
        action: p.action.map(|a| ActionInput {
            thumbnail_product_retailer_id: a.thumbnail_product_retailer_id,
            flow: a.flow_token.is_some() || a.flow_action_data.is_some(),
        }),
    }
}

fn component(c: SendComponentBody) -> parley_domain::model::ComponentInput {
    parley_domain::model::ComponentInput {
        kind: c.kind,
        sub_type: c.sub_type,
        index: c.index,
        parameters: c.parameters.map(|ps| ps.into_iter().map(parameter).collect()),
    }
}

impl SendTemplate {
    pub fn into_input(self) -> parley_domain::services::SendInput {
        parley_domain::services::SendInput {
            to: self.to,
            components: self.components.map(|cs| cs.into_iter().map(component).collect()),
            campaign: self.campaign.map(|c| parley_domain::services::CampaignInput { key: c.key, name: c.name }),
        }
    }
}

/// A rule's `send_template` components, kept as the API took them, read as a send's
/// `components` reads them; why not, when they do not read.
pub fn components_from_json(value: &serde_json::Value) -> Result<Vec<parley_domain::model::ComponentInput>, String> {
    let read: Vec<SendComponentBody> =
        serde_json::from_value(value.clone()).map_err(|e| format!("the components do not read as a template send's: {e}"))?;
    Ok(read.into_iter().map(component).collect())
}
