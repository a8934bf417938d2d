//! A template send as received, in the platform's business message format, before any check.

/// One parameter as sent: `{"type": "text", "text": …}`, and the other kinds the platform
/// takes, each with its value under the key its `type` names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParameterInput {
    pub kind: Option<String>,
    /// Named templates: the placeholder this parameter fills (`first_name` for `{{first_name}}`).
    pub parameter_name: Option<String>,
    pub text: Option<String>,
    /// Quick-reply buttons.
    pub payload: Option<String>,
    /// Copy-code buttons.
    pub coupon_code: Option<String>,
    pub currency: Option<CurrencyInput>,
    pub date_time: Option<DateTimeInput>,
    pub image: Option<MediaInput>,
    pub video: Option<MediaInput>,
    pub document: Option<MediaInput>,
    pub location: Option<LocationInput>,
    /// Catalog and flow buttons.
    pub action: Option<ActionInput>,
}

/// A media header's file: by `link` (https) or by the platform's media `id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MediaInput {
    pub id: Option<String>,
    pub link: Option<String>,
    /// Documents only: the name the recipient sees.
    pub filename: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocationInput {
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub name: Option<String>,
    pub address: Option<String>,
}

/// An amount: the recipient sees `fallback_value`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CurrencyInput {
    pub fallback_value: Option<String>,
    pub code: Option<String>,
    pub amount_1000: Option<i64>,
}

/// A date: the recipient sees `fallback_value`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DateTimeInput {
    pub fallback_value: Option<String>,
}

/// A button's action: a catalog's thumbnail product, or a flow's own data (`flow`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionInput {
    pub thumbnail_product_retailer_id: Option<String>,
    /// Carries `flow_token` or `flow_action_data`, which Parley cannot check yet.
    pub flow: bool,
}

/// One component as sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComponentInput {
    /// `header`, `body` or `button`.
    pub kind: Option<String>,
    /// Buttons: `quick_reply`, `url`, `copy_code`, `catalog` or `flow`, as the platform names
    /// them (any case).
    pub sub_type: Option<String>,
    /// Buttons: which button of the template, from 0.
    pub index: Option<i64>,
    pub parameters: Option<Vec<ParameterInput>>,
}
