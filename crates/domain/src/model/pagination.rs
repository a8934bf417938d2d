//! Page requests with strict bounds (never clamped) and pages that know their total.

use crate::FieldError;

/// The default and largest page size of one list endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageBounds {
    /// The page size when the caller gives no `limit`.
    pub default_limit: u32,
    /// The largest `limit` accepted; a larger one is an error, never clamped.
    pub max_limit: u32,
}

impl PageBounds {
    /// Activities and contacts: default 20, at most 100.
    pub const CONVERSATIONS: PageBounds = PageBounds { default_limit: 20, max_limit: 100 };
    /// Products: default 50, at most 100.
    pub const PRODUCTS: PageBounds = PageBounds { default_limit: 50, max_limit: 100 };
    /// Canned responses: default 20, at most 100.
    pub const CANNED_RESPONSES: PageBounds = PageBounds { default_limit: 20, max_limit: 100 };
    /// An activity's messages: default 50, at most 100.
    pub const MESSAGES: PageBounds = PageBounds { default_limit: 50, max_limit: 100 };
}

/// A validated `limit`/`offset` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    limit: u32,
    offset: u64,
}

impl PageRequest {
    /// Parses raw query values. Absent values take the defaults; anything that is not an
    /// integer in range is an error, never silently clamped.
    pub fn parse(limit: Option<&str>, offset: Option<&str>, bounds: PageBounds) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let limit = match limit {
            None => Some(bounds.default_limit),
            Some(raw) => match raw.trim().parse::<i64>() {
                Ok(n) if n >= 1 && n <= i64::from(bounds.max_limit) => Some(n as u32),
                _ => {
                    errors.push(FieldError::new("limit", format!("must be an integer from 1 to {}", bounds.max_limit)));
                    None
                }
            },
        };
        let offset = match offset {
            None => Some(0),
            Some(raw) => match raw.trim().parse::<i64>() {
                Ok(n) if n >= 0 => Some(n as u64),
                _ => {
                    errors.push(FieldError::new("offset", "must be an integer of 0 or more"));
                    None
                }
            },
        };
        match (limit, offset) {
            (Some(limit), Some(offset)) => Ok(Self { limit, offset }),
            _ => Err(errors),
        }
    }

    /// A request built in code (seeders, tests); panics on a zero limit, a programming error.
    pub fn new(limit: u32, offset: u64) -> Self {
        assert!(limit > 0, "page limit must be positive");
        Self { limit, offset }
    }

    /// At most this many items, at least 1.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// How many matching items come before the page.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// One page of a list, with the total count of matching rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The page's items, in the list's order.
    pub items: Vec<T>,
    /// How many items match in all, counted under the same filter, not only this page's.
    pub total: u64,
    /// The limit and offset the page answers.
    pub request: PageRequest,
}

impl<T> Page<T> {
    /// `offset + len(items) < total`.
    pub fn has_more(&self) -> bool {
        self.request.offset() + (self.items.len() as u64) < self.total
    }

    /// The same page with each item turned by `f`.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { items: self.items.into_iter().map(f).collect(), total: self.total, request: self.request }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_when_absent() {
        let p = PageRequest::parse(None, None, PageBounds::CONVERSATIONS).unwrap();
        assert_eq!((p.limit(), p.offset()), (20, 0));
    }

    #[test]
    fn out_of_range_and_non_integers_are_rejected_not_clamped() {
        for bad in ["0", "101", "-1", "1.5", "abc", ""] {
            let errs = PageRequest::parse(Some(bad), None, PageBounds::CONVERSATIONS).unwrap_err();
            assert_eq!(errs[0].field, "limit", "limit {bad:?}");
        }
        let errs = PageRequest::parse(Some("0"), Some("-3"), PageBounds::CONVERSATIONS).unwrap_err();
        assert_eq!(errs.len(), 2);
    }

    #[test]
    fn has_more_follows_offset_plus_len() {
        let page = Page { items: vec![1, 2], total: 5, request: PageRequest::new(2, 2) };
        assert!(page.has_more());
        let last = Page { items: vec![5], total: 5, request: PageRequest::new(2, 4) };
        assert!(!last.has_more());
    }
}
