//! How validated text values are written in stored snapshots (events' objects): as their text,
//! read back through the same rule that made them, so a snapshot cannot build a value the
//! domain would refuse.

use crate::model::{
    Assignee, BusinessUserId, CampaignKey, CartCode, Currency, Email, EndpointUrl, EventSelection, EventType, LineId, MemberName, Notes,
    Price, PricingCategory, ProductId, ProfileName, TagColor, TagDescription, TagName, TemplateId, Username,
};

/// `Serialize` as the value's text and `Deserialize` through `$read` (`fn(&str) -> Result<T, E>`
/// with a displayable `E`).
macro_rules! text_serde {
    ($($name:ty => $read:expr),* $(,)?) => {$(
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                let read = $read;
                read(raw.as_str()).map_err(|e| serde::de::Error::custom(Refused::words(e)))
            }
        }
    )*};
}

/// Why a stored text was refused, in words.
trait Refused {
    fn words(self) -> String;
}

impl Refused for String {
    fn words(self) -> String {
        self
    }
}

impl Refused for crate::FieldError {
    fn words(self) -> String {
        format!("{}: {}", self.field, self.issue)
    }
}

/// A value that [`text_serde`] reads through an `Option`-returning parser.
fn parsed<T>(what: &'static str, value: Option<T>) -> Result<T, String> {
    value.ok_or_else(|| format!("not a valid {what}"))
}

text_serde!(
    ProfileName => ProfileName::new,
    Email => Email::new,
    Notes => Notes::new,
    Assignee => Assignee::new,
    MemberName => MemberName::new,
    TagName => TagName::new,
    TagColor => TagColor::new,
    TagDescription => TagDescription::new,
    CampaignKey => CampaignKey::new,
    Currency => Currency::new,
    ProductId => ProductId::new,
    EndpointUrl => EndpointUrl::stored,
    CartCode => |raw: &str| parsed("cart code", CartCode::parse(raw)),
    PricingCategory => |raw: &str| parsed("pricing category", PricingCategory::parse(raw)),
    TemplateId => |raw: &str| Ok::<_, String>(TemplateId::new(raw)),
    LineId => |raw: &str| Ok::<_, String>(LineId::new(raw)),
    EventType => |raw: &str| parsed("event type", EventType::parse(raw)),
    Username => |raw: &str| Username::new("username", raw),
    BusinessUserId => |raw: &str| BusinessUserId::new("user_id", raw).or_else(|_| BusinessUserId::parent("user_id", raw)),
);

/// A price as its decimal text (`"12.50"`), exactly as kept: no float in between.
impl serde::Serialize for Price {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.value().to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Price {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        let value: rust_decimal::Decimal = raw.parse().map_err(serde::de::Error::custom)?;
        Price::new("price", value).map_err(|e| serde::de::Error::custom(e.words()))
    }
}

impl serde::Serialize for EventSelection {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.names().serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for EventSelection {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(deserializer)?;
        EventSelection::new(&names).map_err(|e| serde::de::Error::custom(e.words()))
    }
}
