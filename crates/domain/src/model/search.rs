//! Semantic search: the validated query, what a search returns, and the vectors kept for it.

use super::{PageBounds, PageRequest, Product, ProductId};
use crate::FieldError;

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 500;

/// Search results per request: default 10, at most 50.
pub const SEARCH_BOUNDS: PageBounds = PageBounds { default_limit: 10, max_limit: 50 };

/// A search request: a natural-language query (trimmed, 1–500 characters) and a result count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    text: String,
    limit: u32,
}

impl SearchQuery {
    /// Validates raw query values, reporting every broken rule at once.
    pub fn parse(q: Option<&str>, limit: Option<&str>) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let text = match q.map(str::trim) {
            None | Some("") => Err(FieldError::new("q", "is required")),
            Some(t) if t.chars().count() > MAX_QUERY_CHARS => {
                Err(FieldError::new("q", format!("must be at most {MAX_QUERY_CHARS} characters")))
            }
            Some(t) => Ok(t.to_string()),
        }
        .map_err(|e| errors.push(e))
        .ok();
        let limit = PageRequest::parse(limit, None, SEARCH_BOUNDS).map_err(|e| errors.extend(e)).ok();
        match (text, limit) {
            (Some(text), Some(page)) => Ok(Self { text, limit: page.limit() }),
            _ => Err(errors),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn limit(&self) -> u32 {
        self.limit
    }
}

/// One result: an active product and its cosine similarity to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub product: Product,
    pub score: f32,
}

/// Vectors for the products of one import, in the same order, all made by one embedder.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportVectors {
    /// The embedder's identity (see `Embedder::identity`).
    pub embedder: String,
    pub vectors: Vec<Vec<f32>>,
}

/// Where a reader of catalog changes stands: everything up to this revision (and, within it,
/// up to this product) has been seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChangeCursor {
    pub revision: u64,
    pub product: Option<ProductId>,
}

/// A product changed at `revision`. `vector` is its vector when the product is searchable: active
/// and embedded by the embedder asked about. `None` means it must not be found.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorChange {
    pub product: ProductId,
    pub revision: u64,
    pub vector: Option<Vec<f32>>,
}

impl Product {
    /// The text a product is embedded from: its title, its categories and its description.
    pub fn search_text(&self) -> String {
        let mut text = self.title.clone();
        if !self.category_tags.is_empty() {
            text.push_str(". ");
            text.push_str(&self.category_tags.join(", "));
        }
        if !self.description.is_empty() {
            text.push_str(". ");
            text.push_str(&self.description);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(e: Vec<FieldError>) -> Vec<String> {
        e.into_iter().map(|f| f.field).collect()
    }

    #[test]
    fn query_is_trimmed_and_bounded_by_characters() {
        let q = SearchQuery::parse(Some("  warm socks "), None).unwrap();
        assert_eq!((q.text(), q.limit()), ("warm socks", 10));
        assert!(SearchQuery::parse(Some(&"é".repeat(500)), None).is_ok(), "500 characters, 1000 bytes");
        assert_eq!(fields(SearchQuery::parse(Some(&"a".repeat(501)), None).unwrap_err()), ["q"]);
        assert_eq!(fields(SearchQuery::parse(Some("   "), None).unwrap_err()), ["q"]);
        assert_eq!(fields(SearchQuery::parse(None, None).unwrap_err()), ["q"]);
    }

    #[test]
    fn limit_is_1_to_50_and_every_error_is_reported() {
        assert_eq!(SearchQuery::parse(Some("x"), Some("50")).unwrap().limit(), 50);
        assert_eq!(SearchQuery::parse(Some("x"), Some("1")).unwrap().limit(), 1);
        for bad in ["0", "51", "-1", "ten", "2.5"] {
            assert_eq!(fields(SearchQuery::parse(Some("x"), Some(bad)).unwrap_err()), ["limit"], "{bad}");
        }
        assert_eq!(fields(SearchQuery::parse(None, Some("0")).unwrap_err()), ["q", "limit"]);
    }
}
