//! A template send as received, in the platform's business message format, before any check.

/// One parameter as sent: `{"type": "text", "text": …}`, and the other kinds the platform
/// takes, each with its value under the key its `type` names.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParameterInput {
    /// The parameter's `type`: `text`, `currency`, `date_time`, `image`, `video`, `document`,
    /// `location`, `payload`, `coupon_code` or `action`; it must carry that value and no other.
    pub kind: Option<String>,
    /// Named templates: the placeholder this parameter fills (`first_name` for `{{first_name}}`).
    pub parameter_name: Option<String>,
    /// `text`: what fills a placeholder, a URL button's suffix or a one-time code.
    pub text: Option<String>,
    /// Quick-reply buttons.
    pub payload: Option<String>,
    /// Copy-code buttons.
    pub coupon_code: Option<String>,
    /// `currency`: an amount, shown as its fallback text.
    pub currency: Option<CurrencyInput>,
    /// `date_time`: a date, shown as its fallback text.
    pub date_time: Option<DateTimeInput>,
    /// `image`: an image header's file.
    pub image: Option<MediaInput>,
    /// `video`: a video header's file.
    pub video: Option<MediaInput>,
    /// `document`: a document header's file.
    pub document: Option<MediaInput>,
    /// `location`: a location header's place.
    pub location: Option<LocationInput>,
    /// Catalog and flow buttons.
    pub action: Option<ActionInput>,
}

/// A media header's file: by `link` (https) or by the platform's media `id`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MediaInput {
    /// The platform's id of a file uploaded to it: 1–128 characters, no whitespace.
    pub id: Option<String>,
    /// A public https URL of the file, at most 2,048 characters.
    pub link: Option<String>,
    /// Documents only: the name the recipient sees.
    pub filename: Option<String>,
}

/// A place as sent: in a template's location header all four are required; in a reply the
/// name and address are optional.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LocationInput {
    /// Degrees, -90 to 90.
    pub latitude: Option<f64>,
    /// Degrees, -180 to 180.
    pub longitude: Option<f64>,
    /// The place's name, shown under the map.
    pub name: Option<String>,
    /// The place's address, shown under the map.
    pub address: Option<String>,
}

/// An amount: the recipient sees `fallback_value`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CurrencyInput {
    /// What the recipient sees: 1–1024 characters, no control character nor more than 4 spaces in
    /// a row.
    pub fallback_value: Option<String>,
    /// The ISO 4217 currency code, uppercase.
    pub code: Option<String>,
    /// The amount times 1,000 (`10990` for 10.99).
    pub amount_1000: Option<i64>,
}

/// A date: the recipient sees `fallback_value`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DateTimeInput {
    /// What the recipient sees: 1–1024 characters, no control character nor more than 4 spaces in
    /// a row.
    pub fallback_value: Option<String>,
}

/// A button's action: a catalog's thumbnail product, or a flow's own data (`flow`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ActionInput {
    /// The retailer id of the catalog product shown as the button's thumbnail.
    pub thumbnail_product_retailer_id: Option<String>,
    /// Carries `flow_token` or `flow_action_data`, which Parley cannot check yet.
    pub flow: bool,
}

/// One component as sent.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ComponentInput {
    /// `header`, `body` or `button`.
    pub kind: Option<String>,
    /// Buttons: `quick_reply`, `url`, `copy_code`, `catalog` or `flow`, as the platform names
    /// them (any case).
    pub sub_type: Option<String>,
    /// Buttons: which button of the template, from 0.
    pub index: Option<i64>,
    /// Its parameters: for numbered placeholders, in their order.
    pub parameters: Option<Vec<ParameterInput>>,
}
