//! Shareable carts: an immutable snapshot of products and quantities behind a short code.

use chrono::TimeDelta;

use crate::model::money::{Decimal, canonical};
use crate::model::{AgentId, Currency, Product, Timestamp, VariantRecord};

/// How long a cart can be read after it was created.
pub const CART_VALIDITY: TimeDelta = TimeDelta::days(90);

/// Items in one cart, at most.
pub const MAX_CART_ITEMS: usize = 50;

/// A cart's code: 7 characters from an alphabet without the look-alikes 0, O, I and l.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CartCode(String);

impl CartCode {
    /// The characters a code is drawn from: digits and letters without 0, O, I and l.
    pub const ALPHABET: &'static [u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    /// Characters in every code.
    pub const LEN: usize = 7;

    /// A code as received; `None` when it cannot be one we issued.
    pub fn parse(raw: &str) -> Option<Self> {
        (raw.len() == Self::LEN && raw.bytes().all(|b| Self::ALPHABET.contains(&b))).then(|| Self(raw.to_string()))
    }

    /// The code, case kept (codes are case-sensitive).
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

/// One line of a cart: the product as it was when the cart was made, the variant chosen (one of
/// `product.variants`), and how many.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CartItem {
    /// The product as it was when the cart was made; later imports never change it.
    pub product: Product,
    /// The variant chosen, one of `product.variants`; `None` for the product itself.
    pub variant: Option<VariantRecord>,
    /// How many: 1–99 in carts made through the API.
    pub qty: u8,
}

impl CartItem {
    /// The variant's price, else the product's base price, rounded to the currency's minor unit.
    pub fn unit_price(&self) -> Decimal {
        let price = self.variant.as_ref().map_or(self.product.base_price.value(), |v| v.price);
        self.product.currency.round(price)
    }

    /// `unit_price × qty`: exact, since both are.
    pub fn line_total(&self) -> Decimal {
        canonical(self.unit_price() * Decimal::from(self.qty))
    }
}

/// What a cart costs: every line's currency and the exact sum of the line totals.
#[derive(Debug, Clone, PartialEq)]
pub struct CartTotal {
    /// The currency every line is priced in.
    pub currency: Currency,
    /// The sum of the line totals, exact, in that currency's major units.
    pub total: Decimal,
}

/// A cart: what a storefront hands over, kept under a code unique across agents, never
/// changed, readable until it expires.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cart {
    /// What the cart is found by, unique across agents.
    pub code: CartCode,
    /// The agent whose storefront made it.
    pub agent_id: AgentId,
    /// Its lines, in the order given: 1 to [`MAX_CART_ITEMS`] in carts made through the API.
    pub items: Vec<CartItem>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it stops being readable: [`CART_VALIDITY`] after `created_at`.
    pub expires_at: Timestamp,
}

impl Cart {
    /// Whether the cart has expired at `now` (at `expires_at` exactly, it has).
    pub fn is_expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }

    /// The cart's currency and total; `None` only for a cart made before carts had to hold one
    /// currency, whose lines cannot be summed.
    pub fn total(&self) -> Option<CartTotal> {
        let currency = self.items.first()?.product.currency.clone();
        if self.items.iter().any(|i| i.product.currency != currency) {
            return None;
        }
        let total = canonical(self.items.iter().map(CartItem::line_total).sum());
        Some(CartTotal { currency, total })
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

    mod money {
        use crate::catalog::model::cart::*;
        use crate::model::{ProductRecord, Timestamp};
        use proptest::prelude::*;

        /// A price `mantissa / 10^scale` in `currency`, for a cart line.
        fn line(currency: &str, mantissa: u64, scale: u32, qty: u8) -> CartItem {
            let price = Decimal::from_i128_with_scale(i128::from(mantissa), scale);
            let r = format!(
                r#"{{"_id":"p","kind":"product","title":"T","currency":"{currency}","base_price":{}}}"#,
                crate::model::money::to_json_number(price)
            );
            let record: ProductRecord = serde_json::from_str(&r).unwrap();
            let product = Product::from_record(&AgentId::new("a"), record, Timestamp::UNIX_EPOCH, None).unwrap();
            CartItem { product, variant: None, qty }
        }

        /// The same rounding and sum in integers of the minor unit: the oracle.
        fn minor_units(mantissa: u64, scale: u32, places: u32) -> i128 {
            let m = i128::from(mantissa);
            if scale <= places {
                m * 10_i128.pow(places - scale)
            } else {
                let d = 10_i128.pow(scale - places);
                m / d + i128::from(2 * (m % d) >= d)
            }
        }

        /// A price of 0 to 10^12 with 0 to 4 decimals, as (mantissa, scale), and a quantity.
        fn priced_line() -> impl Strategy<Value = (u64, u32, u8)> {
            (0_u32..=4).prop_flat_map(|scale| (0_u64..=1_000_000_000_000 * 10_u64.pow(scale), Just(scale), 1_u8..=99))
        }

        proptest! {
            #[test]
            fn totals_are_the_exact_sum_of_rounded_lines(
                currency in prop::sample::select(vec![("JPY", 0_u32), ("USD", 2), ("KWD", 3)]),
                lines in prop::collection::vec(priced_line(), 1..=50),
            ) {
                let (code, places) = currency;
                let items: Vec<CartItem> = lines.iter().map(|&(mantissa, scale, qty)| line(code, mantissa, scale, qty)).collect();
                let expected: i128 =
                    lines.iter().map(|&(mantissa, scale, qty)| minor_units(mantissa, scale, places) * i128::from(qty)).sum();
                let at = Timestamp::UNIX_EPOCH;
                let cart = Cart { code: CartCode::parse("Ab3kP9z").unwrap(), agent_id: AgentId::new("a"), items, created_at: at, expires_at: at };
                let total = cart.total().unwrap();
                prop_assert_eq!(total.currency.as_str(), code);
                prop_assert_eq!(total.total, canonical(Decimal::from_i128_with_scale(expected, places)));
                for item in &cart.items {
                    prop_assert!(item.unit_price().scale() <= places);
                    prop_assert_eq!(item.line_total(), item.unit_price() * Decimal::from(item.qty));
                }
            }
        }
    }
}
