//! What each kind of template button takes in a send.

use super::parameter::Slot;
use crate::model::{TemplateButton, placeholder::parameter_count};

/// A button component's `sub_type`, as the platform names it on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ButtonSubType {
    /// `quick_reply`: its payload comes back when the contact taps the button.
    QuickReply,
    /// `url`: a URL button's suffix, or an authentication template's one-time code.
    Url,
    /// `copy_code`: the code the button copies.
    CopyCode,
    /// `catalog`: a catalog button, with its thumbnail product.
    Catalog,
    /// `flow`: a flow button, opened with its defaults.
    Flow,
}

impl ButtonSubType {
    /// Every sub-type.
    pub const ALL: [ButtonSubType; 5] = [Self::QuickReply, Self::Url, Self::CopyCode, Self::Catalog, Self::Flow];

    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::QuickReply => "quick_reply",
            Self::Url => "url",
            Self::CopyCode => "copy_code",
            Self::Catalog => "catalog",
            Self::Flow => "flow",
        }
    }

    /// Any case: the platform's own examples write both `url` and `COPY_CODE`.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(raw))
    }
}

/// What a send may (or must) give the template's button at some index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ButtonRule {
    /// One parameter of `slot` under `sub_type`; a send must give it when `required`.
    Takes { sub_type: ButtonSubType, slot: Option<Slot>, required: bool },
    /// Nothing to fill (a phone number, a URL without a placeholder): a send leaves it out.
    Fixed,
}

/// The rule of `button`, or `None` for a kind Parley cannot check yet (multi-product, and
/// whatever the platform adds next).
pub(super) fn rule(button: &TemplateButton) -> Option<ButtonRule> {
    let takes = |sub_type, slot, required| Some(ButtonRule::Takes { sub_type, slot, required });
    match button.kind.as_str() {
        "QUICK_REPLY" => takes(ButtonSubType::QuickReply, Some(Slot::Payload), false),
        "URL" if button.url.as_deref().is_some_and(|u| parameter_count(u) > 0) => takes(ButtonSubType::Url, Some(Slot::UrlSuffix), true),
        "URL" | "PHONE_NUMBER" | "VOICE_CALL" => Some(ButtonRule::Fixed),
        // Authentication templates: the code goes on the button too, under `url`.
        "OTP" => takes(ButtonSubType::Url, Some(Slot::OtpCode), true),
        "COPY_CODE" => takes(ButtonSubType::CopyCode, Some(Slot::CouponCode), true),
        "CATALOG" => takes(ButtonSubType::Catalog, Some(Slot::CatalogAction), false),
        // A flow opens with its defaults; its own token and data are not checked yet.
        "FLOW" => takes(ButtonSubType::Flow, None, false),
        _ => None,
    }
}

/// How the parameter a button takes is written, for messages that name what is missing.
pub(super) fn describe(slot: Slot) -> &'static str {
    match slot {
        Slot::UrlSuffix => "a text parameter: the end of its URL",
        Slot::OtpCode => "a text parameter: the one-time code",
        Slot::CouponCode => "a coupon_code parameter",
        Slot::Payload => "a payload parameter",
        Slot::CatalogAction => "an action parameter",
        _ => "a parameter",
    }
}
