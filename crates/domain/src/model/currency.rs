//! ISO 4217 currency codes in circulation.

use rust_decimal::RoundingStrategy;

use super::money::{Decimal, canonical};
use crate::FieldError;

const CODES: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BHD", "BIF", "BMD", "BND", "BOB",
    "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF", "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP",
    "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF",
    "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK",
    "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MYR", "MZN",
    "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF",
    "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND",
    "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VES", "VND", "VUV", "WST", "XAF", "XCD", "XCG", "XOF", "XPF",
    "YER", "ZAR", "ZMW", "ZWG",
];

/// ISO 4217's minor units where they are not 2 (every other code in `CODES` has cents).
const NO_MINOR_UNITS: &[&str] =
    &["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"];
const THREE_MINOR_UNITS: &[&str] = &["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];

/// An ISO 4217 code in circulation, uppercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Currency(&'static str);

impl Currency {
    /// The code `raw`, exactly (uppercase, in circulation); a `FieldError` on `currency` otherwise.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        CODES
            .iter()
            .find(|c| **c == raw)
            .map(|c| Self(c))
            .ok_or_else(|| FieldError::new("currency", "must be an ISO 4217 code such as USD or EUR"))
    }

    /// The three-letter code.
    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// Decimal places of the currency's minor unit (ISO 4217): USD 2, JPY 0, KWD 3.
    pub fn minor_units(&self) -> u32 {
        if NO_MINOR_UNITS.contains(&self.0) {
            0
        } else if THREE_MINOR_UNITS.contains(&self.0) {
            3
        } else {
            2
        }
    }

    /// The amount rounded to the minor unit, halves away from zero (commercial rounding):
    /// USD 0.125 → 0.13, JPY 99.5 → 100.
    pub fn round(&self, amount: Decimal) -> Decimal {
        canonical(amount.round_dp_with_strategy(self.minor_units(), RoundingStrategy::MidpointAwayFromZero))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_uppercase_codes_in_circulation() {
        assert_eq!(Currency::new("MXN").unwrap().as_str(), "MXN");
        for bad in ["usd", "US", "XXX", "DEM", ""] {
            assert!(Currency::new(bad).is_err(), "{bad}");
        }
        assert!(CODES.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
    }

    #[test]
    fn minor_units_follow_iso_4217() {
        for (code, places) in [("USD", 2), ("EUR", 2), ("JPY", 0), ("KRW", 0), ("KWD", 3), ("BHD", 3)] {
            assert_eq!(Currency::new(code).unwrap().minor_units(), places, "{code}");
        }
        for code in NO_MINOR_UNITS.iter().chain(THREE_MINOR_UNITS) {
            assert!(CODES.contains(code), "{code} is in circulation");
        }
    }

    #[test]
    fn rounding_is_to_the_minor_unit_halves_away_from_zero() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(Currency::new("USD").unwrap().round(d("0.125")), d("0.13"));
        assert_eq!(Currency::new("USD").unwrap().round(d("59.970")), d("59.97"));
        assert_eq!(Currency::new("JPY").unwrap().round(d("99.5")), d("100"));
        assert_eq!(Currency::new("KWD").unwrap().round(d("1.2345")), d("1.235"));
    }
}
