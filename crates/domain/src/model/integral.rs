//! Integers as JSON writes them: `2` and `2.0` are the same integer (JSON Schema says so, and
//! Python's `json.dumps` of a float writes the second); `2.5` is not one.

use serde_json::Value;

/// Floats this large or larger are not exact integers.
const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53

/// `value` as a non-negative integer, whether written `2` or `2.0`.
pub fn integral_u64(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        let f = value.as_f64()?;
        (f.fract() == 0.0 && (0.0..EXACT_LIMIT).contains(&f)).then_some(f as u64)
    })
}

/// `value` as an integer, whether written `-2` or `-2.0`.
pub fn integral_i64(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| {
        let f = value.as_f64()?;
        (f.fract() == 0.0 && f.abs() < EXACT_LIMIT).then_some(f as i64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_floats_are_integers_and_fractions_are_not() {
        assert_eq!(integral_u64(&json!(2)), Some(2));
        assert_eq!(integral_u64(&json!(2.0)), Some(2));
        assert_eq!(integral_u64(&json!(2.5)), None);
        assert_eq!(integral_u64(&json!(-1.0)), None);
        assert_eq!(integral_u64(&json!(1e300)), None);
        assert_eq!(integral_u64(&json!("2")), None);
        assert_eq!(integral_i64(&json!(-3.0)), Some(-3));
        assert_eq!(integral_i64(&json!(0.1)), None);
    }
}
