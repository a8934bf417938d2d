//! Who a contact is on a platform beside their address: the business-scoped user id WhatsApp
//! names every user by (and the only id of a user who chose a username and hides their phone),
//! the parent id shared by a business portfolio's ids, and the username the user shows.

use crate::FieldError;
use crate::model::text;

/// Most characters after the country code's dot (after `ENT.` for a parent id).
const MAX_ID_CHARACTERS: usize = 128;

/// A business-scoped user id: two upper-case letters (the user's country), a dot, then 1–128
/// ASCII letters and digits (`US.13491208655302741918`). A parent id has `ENT.` after the dot
/// (`US.ENT.11815799212886844830`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BusinessUserId(String);

/// What a business-scoped user id must look like, for the error that refuses one.
const USER_ID_SHAPE: &str =
    "must be a business-scoped user id: a two-letter country code in capitals, a dot, then 1 to 128 letters and digits";

impl BusinessUserId {
    /// A user's id as it names them (not a parent id); a `FieldError` on `field` otherwise.
    pub fn new(field: &str, raw: &str) -> Result<Self, FieldError> {
        match Self::parse(raw) {
            Some(id) if !id.is_parent() => Ok(id),
            _ => Err(FieldError::new(field, USER_ID_SHAPE)),
        }
    }

    /// A parent id (`CC.ENT.…`); a `FieldError` on `field` otherwise.
    pub fn parent(field: &str, raw: &str) -> Result<Self, FieldError> {
        match Self::parse(raw) {
            Some(id) if id.is_parent() => Ok(id),
            _ => Err(FieldError::new(
                field,
                "must be a parent business-scoped user id: a two-letter country code in capitals, then .ENT., then 1 to 128 letters and digits",
            )),
        }
    }

    /// Whether `raw` has a user id's shape (not a parent id's): how an address that may be a
    /// phone number or a user id is told apart.
    pub fn is_user_id(raw: &str) -> bool {
        Self::parse(raw).is_some_and(|id| !id.is_parent())
    }

    fn parse(raw: &str) -> Option<Self> {
        let (country, rest) = raw.split_once('.')?;
        let country_ok = country.len() == 2 && country.bytes().all(|b| b.is_ascii_uppercase());
        let tail = rest.strip_prefix("ENT.").unwrap_or(rest);
        let tail_ok = (1..=MAX_ID_CHARACTERS).contains(&tail.len()) && tail.bytes().all(|b| b.is_ascii_alphanumeric());
        (country_ok && tail_ok).then(|| Self(raw.to_string()))
    }

    /// Whether it is a parent id (`CC.ENT.…`).
    pub fn is_parent(&self) -> bool {
        self.0[3..].starts_with("ENT.")
    }

    /// The id as the platform writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The username a user shows on the platform: 1–128 characters, trimmed, no control character.
/// Kept as the platform sent it; searches match it in any case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Username(String);

impl Username {
    /// `raw` trimmed; a `FieldError` on `field` when empty, longer than 128 characters or holding
    /// a control character.
    pub fn new(field: &str, raw: &str) -> Result<Self, FieldError> {
        if crate::model::has_control_characters(raw) {
            return Err(FieldError::new(field, "must not contain control characters"));
        }
        text::bounded(field, raw, 1, 128).map(Self)
    }

    /// The username.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a platform tells of a user beside their address: each `None` until the platform says.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct PlatformUser {
    /// Their business-scoped user id.
    pub user_id: Option<BusinessUserId>,
    /// The parent id their user id belongs to, when the business is in a portfolio.
    pub parent_user_id: Option<BusinessUserId>,
    /// The username they show.
    pub username: Option<Username>,
}

impl PlatformUser {
    /// The ids a webhook named, checked: `user_id`, `parent_user_id` and `username` are the
    /// fields a refusal names.
    pub fn from_platform(user_id: Option<&str>, parent_user_id: Option<&str>, username: Option<&str>) -> Result<Self, FieldError> {
        Ok(Self {
            user_id: user_id.map(|id| BusinessUserId::new("user_id", id)).transpose()?,
            parent_user_id: parent_user_id.map(|id| BusinessUserId::parent("parent_user_id", id)).transpose()?,
            username: username.map(|name| Username::new("username", name)).transpose()?,
        })
    }

    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        self.user_id.is_none() && self.parent_user_id.is_none() && self.username.is_none()
    }
}

/// What the platform says changed of who a user is: their new phone, user id or parent id,
/// each `None` when it did not change. WhatsApp says so in a `system` message (a changed number,
/// a changed user id) and when a user shares their own card answering a contact request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdentityChange {
    /// Their new phone number's digits.
    pub phone: Option<String>,
    /// Their new business-scoped user id.
    pub user_id: Option<BusinessUserId>,
    /// Their new parent id.
    pub parent_user_id: Option<BusinessUserId>,
}

impl IdentityChange {
    /// The new ids a notice named, checked: `wa_id`, `user_id` and `parent_user_id` are the
    /// fields a refusal names.
    pub fn from_platform(phone: Option<&str>, user_id: Option<&str>, parent_user_id: Option<&str>) -> Result<Self, FieldError> {
        Ok(Self {
            phone: phone.map(|p| crate::model::phone_digits(p, "wa_id")).transpose()?,
            user_id: user_id.map(|id| BusinessUserId::new("user_id", id)).transpose()?,
            parent_user_id: parent_user_id.map(|id| BusinessUserId::parent("parent_user_id", id)).transpose()?,
        })
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.phone.is_none() && self.user_id.is_none() && self.parent_user_id.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_ids_are_a_country_code_a_dot_and_letters_and_digits() {
        for good in ["US.13491208655302741918", "BR.a1", "DE.X", &format!("US.{}", "9".repeat(128))] {
            assert!(BusinessUserId::new("to", good).is_ok(), "{good}");
        }
        for bad in
            ["US.", "USA.1", "us.1", "U.1", "US 1", "US.1 2", " US.1", "US.1-2", "US.1.2", "", "US", &format!("US.{}", "9".repeat(129))]
        {
            let e = BusinessUserId::new("to", bad).unwrap_err();
            assert_eq!(e.field, "to", "{bad}");
        }
    }

    #[test]
    fn a_parent_id_is_no_user_id_and_the_reverse() {
        let parent = BusinessUserId::parent("parent_user_id", "US.ENT.11815799212886844830").unwrap();
        assert!(parent.is_parent());
        assert!(BusinessUserId::new("user_id", "US.ENT.11815799212886844830").is_err());
        assert!(BusinessUserId::parent("parent_user_id", "US.11815799212886844830").is_err());
        assert!(BusinessUserId::parent("parent_user_id", "US.ENT.").is_err());
        assert!(
            BusinessUserId::is_user_id("US.1") && !BusinessUserId::is_user_id("US.ENT.1") && !BusinessUserId::is_user_id("14155550100")
        );
    }

    #[test]
    fn usernames_are_trimmed_bounded_and_free_of_control_characters() {
        assert_eq!(Username::new("username", " ana.lopez ").unwrap().as_str(), "ana.lopez");
        for bad in ["", "  ", "a\u{0}b", "a\nb", &"x".repeat(129)] {
            assert!(Username::new("username", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_webhooks_ids_are_checked_and_name_their_field() {
        let user = PlatformUser::from_platform(Some("US.1"), Some("US.ENT.2"), Some("ana")).unwrap();
        assert_eq!(user.user_id.unwrap().as_str(), "US.1");
        assert_eq!(PlatformUser::from_platform(Some("us.1"), None, None).unwrap_err().field, "user_id");
        assert_eq!(PlatformUser::from_platform(None, Some("US.2"), None).unwrap_err().field, "parent_user_id");
        assert_eq!(PlatformUser::from_platform(None, None, Some("a\u{7}")).unwrap_err().field, "username");
        assert!(PlatformUser::from_platform(None, None, None).unwrap().is_empty());
    }
}
