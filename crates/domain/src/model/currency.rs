//! ISO 4217 currency codes in circulation.

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

/// An ISO 4217 code in circulation, uppercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Currency(&'static str);

impl Currency {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        CODES
            .iter()
            .find(|c| **c == raw)
            .map(|c| Self(c))
            .ok_or_else(|| FieldError::new("currency", "must be an ISO 4217 code such as USD or EUR"))
    }

    pub fn as_str(&self) -> &'static str {
        self.0
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
}
