//! Small helpers shared by the text value objects.

use crate::FieldError;

/// Trims `raw` and checks its length in characters is within `min..=max`.
pub fn bounded(field: &str, raw: &str, min: usize, max: usize) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    let len = trimmed.chars().count();
    if len < min {
        return Err(FieldError::new(
            field,
            if min == 1 { "must not be empty".to_string() } else { format!("must be at least {min} characters") },
        ));
    }
    if len > max {
        return Err(FieldError::new(field, format!("must be at most {max} characters")));
    }
    if trimmed.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(FieldError::new(field, "must not contain control characters"));
    }
    Ok(trimmed.to_string())
}

/// The ASCII digits of `raw`, in order.
pub fn digits_of(raw: &str) -> String {
    raw.chars().filter(char::is_ascii_digit).collect()
}
