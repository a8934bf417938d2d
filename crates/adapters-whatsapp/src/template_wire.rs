//! A template send as the Graph API takes it (`POST /{phone_number_id}/messages`, `type:
//! template`): the checked [`TemplateMessage`] written in the platform's own shapes.

use parley_domain::model::{HeaderMedia, MediaSource, MessageComponent, Parameter, ParameterValue, TemplateMessage};
use serde::Serialize;

use crate::wire::{Addressee, LocationPayload};

#[derive(Debug, Serialize)]
pub(crate) struct SendRequest<'a> {
    messaging_product: &'static str,
    recipient_type: &'static str,
    #[serde(flatten)]
    addressee: Addressee<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
    template: TemplatePayload<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    biz_opaque_callback_data: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct TemplatePayload<'a> {
    name: &'a str,
    language: Language<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    components: Vec<ComponentPayload<'a>>,
}

#[derive(Debug, Serialize)]
struct Language<'a> {
    code: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ComponentPayload<'a> {
    Header {
        parameters: Vec<ParameterPayload<'a>>,
    },
    Body {
        parameters: Vec<ParameterPayload<'a>>,
    },
    /// `index` is a string on the wire, as the platform's reference writes it (`"0"`).
    Button {
        sub_type: &'static str,
        index: String,
        parameters: Vec<ParameterPayload<'a>>,
    },
}

/// One parameter: its `type`, the value under the key that type names, and in named templates
/// the `parameter_name` it fills.
#[derive(Debug, Serialize)]
struct ParameterPayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    parameter_name: Option<&'a str>,
    #[serde(flatten)]
    value: ValuePayload<'a>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ValuePayload<'a> {
    Text { text: &'a str },
    Currency { currency: CurrencyPayload<'a> },
    DateTime { date_time: DateTimePayload<'a> },
    Payload { payload: &'a str },
    CouponCode { coupon_code: &'a str },
    Image { image: MediaPayload<'a> },
    Video { video: MediaPayload<'a> },
    Document { document: MediaPayload<'a> },
    Location { location: LocationPayload<'a> },
    Action { action: ActionPayload<'a> },
}

#[derive(Debug, Serialize)]
struct CurrencyPayload<'a> {
    fallback_value: &'a str,
    code: &'static str,
    amount_1000: i64,
}

#[derive(Debug, Serialize)]
struct DateTimePayload<'a> {
    fallback_value: &'a str,
}

#[derive(Debug, Serialize)]
struct MediaPayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct ActionPayload<'a> {
    thumbnail_product_retailer_id: &'a str,
}

fn media(m: &HeaderMedia) -> MediaPayload<'_> {
    let (id, link) = match &m.source {
        MediaSource::Id(id) => (Some(id.as_str()), None),
        MediaSource::Link(link) => (None, Some(link.as_str())),
    };
    MediaPayload { id, link, filename: m.filename.as_deref() }
}

fn value(v: &ParameterValue) -> ValuePayload<'_> {
    use parley_domain::model::HeaderMediaKind as K;
    match v {
        ParameterValue::Text(text) => ValuePayload::Text { text },
        ParameterValue::Currency { fallback_value, code, amount_1000 } => {
            ValuePayload::Currency { currency: CurrencyPayload { fallback_value, code: code.as_str(), amount_1000: *amount_1000 } }
        }
        ParameterValue::DateTime { fallback_value } => ValuePayload::DateTime { date_time: DateTimePayload { fallback_value } },
        ParameterValue::Payload(payload) => ValuePayload::Payload { payload },
        ParameterValue::CouponCode(coupon_code) => ValuePayload::CouponCode { coupon_code },
        ParameterValue::Media(m) => match m.kind {
            K::Image => ValuePayload::Image { image: media(m) },
            K::Video => ValuePayload::Video { video: media(m) },
            K::Document => ValuePayload::Document { document: media(m) },
        },
        ParameterValue::Location(l) => ValuePayload::Location { location: LocationPayload::from(l) },
        ParameterValue::CatalogThumbnail(id) => ValuePayload::Action { action: ActionPayload { thumbnail_product_retailer_id: id } },
    }
}

fn parameters(values: &[Parameter]) -> Vec<ParameterPayload<'_>> {
    values.iter().map(|p| ParameterPayload { parameter_name: p.name.as_deref(), value: value(&p.value) }).collect()
}

impl<'a> SendRequest<'a> {
    /// The request body of a template send. A component without parameters carries nothing to
    /// fill and is left out (the platform refuses an empty `parameters` list): a quick reply
    /// without a payload, a flow button opened with its defaults.
    pub(crate) fn new(message: &'a TemplateMessage, callback_data: Option<&'a str>) -> Self {
        let components = message
            .components
            .iter()
            .filter_map(|c| match c {
                MessageComponent::Header(p) if !p.is_empty() => Some(ComponentPayload::Header { parameters: parameters(p) }),
                MessageComponent::Body(p) if !p.is_empty() => Some(ComponentPayload::Body { parameters: parameters(p) }),
                MessageComponent::Button { sub_type, index, parameters: p } if !p.is_empty() => {
                    Some(ComponentPayload::Button { sub_type: sub_type.as_str(), index: index.to_string(), parameters: parameters(p) })
                }
                _ => None,
            })
            .collect();
        Self {
            messaging_product: "whatsapp",
            recipient_type: "individual",
            addressee: Addressee::of(&message.to),
            kind: "template",
            template: TemplatePayload { name: &message.template_name, language: Language { code: &message.language }, components },
            biz_opaque_callback_data: callback_data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::ButtonSubType;
    use serde_json::json;

    fn message(components: Vec<MessageComponent>) -> TemplateMessage {
        TemplateMessage {
            to: "14155550100".into(),
            template_name: "order_update".into(),
            language: "en_US".into(),
            components,
            parsed_message: String::new(),
            marketing: false,
        }
    }

    fn p(value: ParameterValue) -> Parameter {
        Parameter { name: None, value }
    }

    #[test]
    fn a_send_body_has_the_platform_shape() {
        let m = message(vec![
            MessageComponent::Body(vec![Parameter { name: Some("first_name".into()), value: ParameterValue::Text("Ana".into()) }]),
            MessageComponent::Button {
                sub_type: ButtonSubType::QuickReply,
                index: 1,
                parameters: vec![p(ParameterValue::Payload("yes".into()))],
            },
        ]);
        let body = serde_json::to_value(SendRequest::new(&m, Some("cmp_1"))).unwrap();
        assert_eq!(
            body,
            json!({
                "messaging_product": "whatsapp",
                "recipient_type": "individual",
                "to": "14155550100",
                "type": "template",
                "template": {
                    "name": "order_update",
                    "language": {"code": "en_US"},
                    "components": [
                        {"type": "body", "parameters": [{"type": "text", "parameter_name": "first_name", "text": "Ana"}]},
                        {"type": "button", "sub_type": "quick_reply", "index": "1", "parameters": [{"type": "payload", "payload": "yes"}]}
                    ]
                },
                "biz_opaque_callback_data": "cmp_1"
            })
        );
    }

    #[test]
    fn components_without_parameters_are_left_out() {
        let m = message(vec![
            MessageComponent::Header(vec![]),
            MessageComponent::Body(vec![]),
            MessageComponent::Button { sub_type: ButtonSubType::Flow, index: 0, parameters: vec![] },
        ]);
        let body = serde_json::to_value(SendRequest::new(&m, None)).unwrap();
        assert_eq!(body["template"], json!({"name": "order_update", "language": {"code": "en_US"}}));
        assert!(body.get("biz_opaque_callback_data").is_none());
    }
}
