//! Shareable carts: an immutable snapshot of products and quantities behind a short code.

use chrono::TimeDelta;

use super::{AgentId, Product, Timestamp};

/// How long a cart can be read after it was created.
pub const CART_VALIDITY: TimeDelta = TimeDelta::days(90);

/// Items in one cart, at most.
pub const MAX_CART_ITEMS: usize = 50;

/// A cart's code: 7 characters from an alphabet without the look-alikes 0, O, I and l.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CartCode(String);

impl CartCode {
    pub const ALPHABET: &'static [u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    pub const LEN: usize = 7;

    /// A code as received; `None` when it cannot be one we issued.
    pub fn parse(raw: &str) -> Option<Self> {
        (raw.len() == Self::LEN && raw.bytes().all(|b| Self::ALPHABET.contains(&b))).then(|| Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The first cart code in a link of the shape `…/c/<code>` in `text`: a candidate only (whose
/// cart it is, the caller checks). The code must end where the link does (end of text,
/// whitespace, `?`, `#`, `/` or punctuation), so a longer word is not cut into a code.
pub fn cart_code_in(text: &str) -> Option<CartCode> {
    text.match_indices("/c/").find_map(|(at, marker)| {
        let rest = &text[at + marker.len()..];
        let code = rest.get(..CartCode::LEN)?;
        let ends = rest[CartCode::LEN..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '-');
        if ends { CartCode::parse(code) } else { None }
    })
}

/// One line of a cart: the product as it was when the cart was made, and how many.
#[derive(Debug, Clone, PartialEq)]
pub struct CartItem {
    pub product: Product,
    pub qty: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cart {
    pub code: CartCode,
    pub agent_id: AgentId,
    pub items: Vec<CartItem>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

impl Cart {
    pub fn is_expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alphabet_has_no_look_alikes() {
        for c in [b'0', b'O', b'I', b'l'] {
            assert!(!CartCode::ALPHABET.contains(&c));
        }
        assert_eq!(CartCode::ALPHABET.len(), 58);
    }

    #[test]
    fn codes_are_checked_for_shape() {
        assert!(CartCode::parse("Ab3kP9z").is_some());
        assert!(CartCode::parse("Ab3kP9").is_none());
        assert!(CartCode::parse("Ab3kP90").is_none(), "0 is not in the alphabet");
        assert!(CartCode::parse("Ab3kP9zz").is_none());
    }

    #[test]
    fn cart_codes_are_found_in_links() {
        for (text, code) in [
            ("https://shop.example/c/Ab3kP9z", Some("Ab3kP9z")),
            ("see shop.example/c/Ab3kP9z?utm=wa please", Some("Ab3kP9z")),
            ("(https://s.example/c/Ab3kP9z).", Some("Ab3kP9z")),
            ("https://s.example/c/Ab3kP9z#top", Some("Ab3kP9z")),
            ("https://s.example/c/Ab3kP9z/", Some("Ab3kP9z")),
            ("https://s.example/c/Ab3kP9z, thanks", Some("Ab3kP9z")),
            ("line\nhttps://s.example/c/Ab3kP9z\nbye", Some("Ab3kP9z")),
            ("/c/bad0000 then /c/Zz9kP9z", Some("Zz9kP9z")),
            ("https://s.example/c/Ab3kP9zz", None),
            ("https://s.example/c/Ab3kP9", None),
            ("https://s.example/c/Ab3kP9-x", None),
            ("https://s.example/c/Ab3kP90", None),
            ("https://s.example/cart/Ab3kP9z", None),
            ("Ab3kP9z", None),
            ("/c/Ab3kP9é", None),
            ("/c/Ab3é", None),
            ("", None),
        ] {
            assert_eq!(cart_code_in(text).as_ref().map(CartCode::as_str), code, "{text}");
        }
    }
}
