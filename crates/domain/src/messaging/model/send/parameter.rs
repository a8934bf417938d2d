//! One checked parameter of a template send, and the rules of each place that takes one.

use super::input::{MediaInput, ParameterInput};
use crate::FieldError;
use crate::error::Violations;
use crate::model::field_rules::{coordinate, filename, https_link};
use crate::model::{Currency, Location, has_control_characters, text};

/// The three media a template header can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderMediaKind {
    /// An image (`image`).
    Image,
    /// A video (`video`).
    Video,
    /// A document, which may carry a file name (`document`).
    Document,
}

impl HeaderMediaKind {
    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Video => "video",
            Self::Document => "document",
        }
    }
}

/// Where a header's file is: a public https link, or a media id uploaded to the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource {
    /// A public https URL the platform fetches the file from.
    Link(String),
    /// The platform's id of a file uploaded to it.
    Id(String),
}

/// A media header's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMedia {
    /// What the header shows.
    pub kind: HeaderMediaKind,
    /// Where the file is.
    pub source: MediaSource,
    /// Documents only.
    pub filename: Option<String>,
}

/// A parameter's checked value.
#[derive(Debug, Clone, PartialEq)]
pub enum ParameterValue {
    /// Text in place of a placeholder, a URL button's suffix, or a one-time code.
    Text(String),
    /// The recipient sees `fallback_value`.
    Currency {
        /// What the recipient sees.
        fallback_value: String,
        /// The amount's currency.
        code: Currency,
        /// The amount times 1,000, as given.
        amount_1000: i64,
    },
    /// The recipient sees `fallback_value`.
    DateTime {
        /// What the recipient sees.
        fallback_value: String,
    },
    /// A quick-reply button's payload, returned in the contact's `button` message.
    Payload(String),
    /// A copy-code button's code.
    CouponCode(String),
    /// A media header's file.
    Media(HeaderMedia),
    /// A location header's place, with its name and address.
    Location(Location),
    /// A catalog button's thumbnail product.
    CatalogThumbnail(String),
}

impl ParameterValue {
    /// What the recipient reads in place of a placeholder, for kinds that fill one.
    pub fn fill_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) | Self::Currency { fallback_value: t, .. } | Self::DateTime { fallback_value: t } => Some(t),
            _ => None,
        }
    }
}

/// A checked parameter: its value and, in a named template, the placeholder it fills.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// In a named template's header or body, the placeholder it fills; `None` elsewhere.
    pub name: Option<String>,
    /// Its checked value.
    pub value: ParameterValue,
}

/// A place in a template that takes parameters, and so which kinds it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A TEXT header's placeholders.
    HeaderText,
    BodyText,
    HeaderMedia(HeaderMediaKind),
    HeaderLocation,
    /// A URL button's `{{1}}`.
    UrlSuffix,
    /// An authentication template's code, on its OTP button.
    OtpCode,
    Payload,
    CouponCode,
    CatalogAction,
}

/// The platform's limit on one text parameter of a TEXT header (its whole header is 60).
const HEADER_TEXT_CHARS: usize = 60;
const TEXT_CHARS: usize = 1024;
/// Copy-code and one-time-password codes: the platform takes up to 15 characters.
const CODE_CHARS: usize = 15;

impl Slot {
    /// The parameter types this place takes, as the platform names them.
    pub(super) fn kinds(self) -> &'static [&'static str] {
        match self {
            Self::HeaderText | Self::BodyText => &["text", "currency", "date_time"],
            Self::HeaderMedia(HeaderMediaKind::Image) => &["image"],
            Self::HeaderMedia(HeaderMediaKind::Video) => &["video"],
            Self::HeaderMedia(HeaderMediaKind::Document) => &["document"],
            Self::HeaderLocation => &["location"],
            Self::UrlSuffix | Self::OtpCode => &["text"],
            Self::Payload => &["payload"],
            Self::CouponCode => &["coupon_code"],
            Self::CatalogAction => &["action"],
        }
    }

    fn text_limit(self) -> usize {
        match self {
            Self::HeaderText => HEADER_TEXT_CHARS,
            Self::OtpCode => CODE_CHARS,
            _ => TEXT_CHARS,
        }
    }
}

/// The value keys a parameter carries, for the rule that it carries exactly the one its type names.
fn value_keys(p: &ParameterInput) -> Vec<&'static str> {
    let set = [
        ("text", p.text.is_some()),
        ("payload", p.payload.is_some()),
        ("coupon_code", p.coupon_code.is_some()),
        ("currency", p.currency.is_some()),
        ("date_time", p.date_time.is_some()),
        ("image", p.image.is_some()),
        ("video", p.video.is_some()),
        ("document", p.document.is_some()),
        ("location", p.location.is_some()),
        ("action", p.action.is_some()),
    ];
    set.into_iter().filter(|(_, on)| *on).map(|(k, _)| k).collect()
}

/// Text a template shows in place of a placeholder. Beyond length and control characters, the
/// platform refuses newlines, tabs and more than four spaces in a row in these.
fn placeholder_text(at: &str, raw: &str, max: usize) -> Result<String, FieldError> {
    let chars = raw.chars().count();
    if chars == 0 || chars > max {
        return Err(FieldError::new(at, format!("must be 1 to {max} characters")));
    }
    if has_control_characters(raw) || raw.contains("     ") {
        return Err(FieldError::new(at, "must not contain newlines, tabs, control characters or more than 4 spaces in a row"));
    }
    Ok(raw.to_string())
}

fn required<T>(at: String, value: Option<T>) -> Result<T, FieldError> {
    value.ok_or_else(|| FieldError::new(at, "is required"))
}

fn media(at: &str, kind: HeaderMediaKind, input: MediaInput, v: &mut Violations) -> Option<ParameterValue> {
    let source = match (input.link, input.id) {
        (Some(link), None) => v.check(https_link(&format!("{at}.link"), &link).map(MediaSource::Link)),
        (None, Some(id)) => v.check(text::bounded(&format!("{at}.id"), &id, 1, 128).and_then(|id| {
            if has_control_characters(&id) || id.contains(char::is_whitespace) {
                Err(FieldError::new(format!("{at}.id"), "must be the platform's media id"))
            } else {
                Ok(MediaSource::Id(id))
            }
        })),
        _ => {
            v.push(FieldError::new(at, "needs exactly one of link (https) or id (a media id uploaded to the platform)"));
            None
        }
    };
    let filename = match (input.filename, kind) {
        (None, _) => None,
        (Some(name), HeaderMediaKind::Document) => v.check(filename(&format!("{at}.filename"), &name)),
        (Some(_), _) => {
            v.push(FieldError::new(format!("{at}.filename"), "is for documents only"));
            None
        }
    };
    Some(ParameterValue::Media(HeaderMedia { kind, source: source?, filename }))
}

fn value(at: &str, kind: &str, slot: Slot, p: ParameterInput, v: &mut Violations) -> Option<ParameterValue> {
    let bounded_text = |field: String, raw: String| text::bounded(&field, &raw, 1, TEXT_CHARS);
    match kind {
        "text" => {
            let raw = v.check(required(format!("{at}.text"), p.text))?;
            v.check(placeholder_text(&format!("{at}.text"), &raw, slot.text_limit()).map(ParameterValue::Text))
        }
        "payload" => {
            let raw = v.check(required(format!("{at}.payload"), p.payload))?;
            v.check(bounded_text(format!("{at}.payload"), raw).map(ParameterValue::Payload))
        }
        "coupon_code" => {
            let raw = v.check(required(format!("{at}.coupon_code"), p.coupon_code))?;
            v.check(placeholder_text(&format!("{at}.coupon_code"), &raw, CODE_CHARS).map(ParameterValue::CouponCode))
        }
        "currency" => {
            let c = p.currency.unwrap_or_default();
            let fallback = v.check(
                required(format!("{at}.currency.fallback_value"), c.fallback_value)
                    .and_then(|f| placeholder_text(&format!("{at}.currency.fallback_value"), &f, TEXT_CHARS)),
            );
            let code = v.check(
                required(format!("{at}.currency.code"), c.code)
                    .and_then(|code| Currency::new(&code).map_err(|e| FieldError::new(format!("{at}.currency.code"), e.issue))),
            );
            let amount = v.check(required(format!("{at}.currency.amount_1000"), c.amount_1000));
            Some(ParameterValue::Currency { fallback_value: fallback?, code: code?, amount_1000: amount? })
        }
        "date_time" => {
            let d = p.date_time.unwrap_or_default();
            let fallback = v.check(
                required(format!("{at}.date_time.fallback_value"), d.fallback_value)
                    .and_then(|f| placeholder_text(&format!("{at}.date_time.fallback_value"), &f, TEXT_CHARS)),
            );
            Some(ParameterValue::DateTime { fallback_value: fallback? })
        }
        "image" => media(&format!("{at}.image"), HeaderMediaKind::Image, p.image.unwrap_or_default(), v),
        "video" => media(&format!("{at}.video"), HeaderMediaKind::Video, p.video.unwrap_or_default(), v),
        "document" => media(&format!("{at}.document"), HeaderMediaKind::Document, p.document.unwrap_or_default(), v),
        "location" => {
            let l = p.location.unwrap_or_default();
            let latitude = v.check(coordinate(format!("{at}.location.latitude"), l.latitude, 90.0));
            let longitude = v.check(coordinate(format!("{at}.location.longitude"), l.longitude, 180.0));
            // The platform shows both under the map and refuses a location header without them.
            let name =
                v.check(required(format!("{at}.location.name"), l.name).and_then(|n| bounded_text(format!("{at}.location.name"), n)));
            let address = v.check(
                required(format!("{at}.location.address"), l.address).and_then(|a| bounded_text(format!("{at}.location.address"), a)),
            );
            Some(ParameterValue::Location(Location {
                latitude: latitude?,
                longitude: longitude?,
                name: Some(name?),
                address: Some(address?),
            }))
        }
        "action" => {
            let a = p.action.unwrap_or_default();
            let field = format!("{at}.action.thumbnail_product_retailer_id");
            if a.flow {
                v.push(FieldError::new(format!("{at}.action"), "takes only thumbnail_product_retailer_id on a catalog button"));
                return None;
            }
            let id = v.check(required(field.clone(), a.thumbnail_product_retailer_id).and_then(|id| bounded_text(field, id)))?;
            Some(ParameterValue::CatalogThumbnail(id))
        }
        _ => unreachable!("only kinds of a slot reach here"),
    }
}

/// Checks one parameter for `slot`. A parameter's `type` must be one the place takes, and it
/// must carry that type's value and nothing else.
pub(super) fn parse(at: &str, p: ParameterInput, slot: Slot, v: &mut Violations) -> Option<Parameter> {
    let kinds = slot.kinds();
    let Some(kind) = p.kind.as_deref().and_then(|k| kinds.iter().find(|want| **want == k)).copied() else {
        v.push(FieldError::new(format!("{at}.type"), format!("must be {} here", one_of(kinds))));
        return None;
    };
    let stray: Vec<_> = value_keys(&p).into_iter().filter(|k| *k != kind).collect();
    if !stray.is_empty() {
        v.push(FieldError::new(at, format!("a {kind} parameter carries only its {kind}, not {}", stray.join(", "))));
        return None;
    }
    let name = p.parameter_name.clone();
    let value = value(at, kind, slot, p, v)?;
    Some(Parameter { name, value })
}

/// `a`, `a or b`, `a, b or c`.
pub(super) fn one_of(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
