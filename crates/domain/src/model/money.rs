//! Exact money: decimal amounts, never binary floating point, and their JSON form.
//!
//! JSON has one number type and serde_json reads it as an `f64` unless told otherwise, so
//! `19.99` would arrive as 19.989999999999998436805981327779591083526611328125. Amounts are
//! read from the number's own digits instead (serde_json's raw values) and written back digit
//! for digit: `3 × 19.99` is `59.97` end to end.

pub use rust_decimal::Decimal;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// The amount of a JSON number's text (`12`, `19.99`, `1e3`, `-0.5`); `None` for anything
/// else, or a number a 96-bit decimal cannot hold exactly (more than 28 significant digits).
pub fn parse_number(text: &str) -> Option<Decimal> {
    let text = text.trim();
    let json_number = text.bytes().next().is_some_and(|b| b == b'-' || b.is_ascii_digit())
        && text.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    if !json_number {
        return None;
    }
    let amount = if text.contains(['e', 'E']) { Decimal::from_scientific(text).ok()? } else { Decimal::from_str_exact(text).ok()? };
    Some(canonical(amount))
}

/// The amount without trailing zeros, and zero without a sign: `20.50` → `20.5`, `-0` → `0`.
pub fn canonical(amount: Decimal) -> Decimal {
    if amount.is_zero() { Decimal::ZERO } else { amount.normalize() }
}

/// serde for an amount as a JSON number written digit for digit (`79`, `19.99`).
pub mod json_number {
    use super::*;

    /// Writes the amount as a JSON number, canonical ([`canonical`]) and digit for digit.
    pub fn serialize<S: Serializer>(amount: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_string(canonical(*amount).to_string()).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }

    /// Reads a JSON number from its own digits ([`parse_number`]); an error for anything else.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let raw: Box<RawValue> = Deserialize::deserialize(d)?;
        parse_number(raw.get())
            .ok_or_else(|| D::Error::custom(format!("invalid amount {}, expected a number of at most 28 digits", raw.get())))
    }

    /// The same for an optional amount (`null` or absent is `None`).
    pub mod option {
        use super::*;

        /// Writes `Some` as [`serialize`](super::serialize) does, and `None` as `null`.
        pub fn serialize<S: Serializer>(amount: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
            match amount {
                Some(a) => super::serialize(a, s),
                None => s.serialize_none(),
            }
        }

        /// Reads `null` as `None`, and a number as [`deserialize`](super::deserialize) does.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
            let raw: Option<Box<RawValue>> = Deserialize::deserialize(d)?;
            match raw {
                None => Ok(None),
                Some(raw) if raw.get() == "null" => Ok(None),
                Some(raw) => parse_number(raw.get())
                    .map(Some)
                    .ok_or_else(|| D::Error::custom(format!("invalid amount {}, expected a number of at most 28 digits", raw.get()))),
            }
        }
    }
}

/// An amount's text as a JSON number, for writers that build JSON by hand.
pub fn to_json_number(amount: Decimal) -> String {
    canonical(amount).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Priced {
        #[serde(with = "json_number")]
        price: Decimal,
        #[serde(default, with = "json_number::option", skip_serializing_if = "Option::is_none")]
        was: Option<Decimal>,
    }

    #[test]
    fn amounts_keep_the_digits_they_were_written_with() {
        for (text, written) in [
            ("19.99", "19.99"),
            ("79", "79"),
            ("79.0", "79"),
            ("20.50", "20.5"),
            ("1e3", "1000"),
            ("1.5E2", "150"),
            ("-0", "0"),
            ("0.1", "0.1"),
            ("999999999999.999", "999999999999.999"),
            ("0.30000000000000004", "0.30000000000000004"),
        ] {
            let p: Priced = serde_json::from_str(&format!(r#"{{"price":{text}}}"#)).unwrap();
            assert_eq!(serde_json::to_string(&p).unwrap(), format!(r#"{{"price":{written}}}"#), "{text}");
        }
    }

    #[test]
    fn arithmetic_is_decimal() {
        let p: Priced = serde_json::from_str(r#"{"price":19.99}"#).unwrap();
        assert_eq!(to_json_number(p.price * Decimal::from(3)), "59.97");
        let (a, b): (Priced, Priced) =
            (serde_json::from_str(r#"{"price":0.1}"#).unwrap(), serde_json::from_str(r#"{"price":0.2}"#).unwrap());
        assert_eq!(to_json_number(a.price + b.price), "0.3");
    }

    #[test]
    fn values_read_as_from_text() {
        let p: Priced = serde_json::from_value(json!({"price": 12.5, "was": 20})).unwrap();
        assert_eq!((p.price, p.was), (Decimal::new(125, 1), Some(Decimal::from(20))));
        let p: Priced = serde_json::from_value(json!({"price": 1, "was": null})).unwrap();
        assert_eq!(p.was, None);
    }

    #[test]
    fn only_numbers_are_amounts() {
        for bad in [r#""12""#, "true", "null", "[1]", "1e40", "123456789012345678901234567890"] {
            assert!(serde_json::from_str::<Priced>(&format!(r#"{{"price":{bad}}}"#)).is_err(), "{bad}");
        }
    }
}
