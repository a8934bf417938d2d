//! Semantic search: the validated query, what a search returns, and the vectors kept for it.

use crate::FieldError;
use crate::model::{PageBounds, PageRequest, Product, ProductFilter, ProductId, ProductKind};

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 500;

/// Search results per request: default 10, at most 50.
pub const SEARCH_BOUNDS: PageBounds = PageBounds { default_limit: 10, max_limit: 50 };

/// A search request: a natural-language query (trimmed, 1–500 characters), a result count, and
/// the filter the results must all match (a category tag and a kind, as the product list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    text: String,
    limit: u32,
    filter: ProductFilter,
}

/// The raw values of a search, as a request carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchRequest<'a> {
    /// The query; required.
    pub q: Option<&'a str>,
    /// How many results, 1–50; 10 when absent.
    pub limit: Option<&'a str>,
    /// A category tag, matched exactly.
    pub tag: Option<&'a str>,
    /// `product` or `service`.
    pub kind: Option<&'a str>,
}

impl SearchQuery {
    /// Validates raw query values, reporting every broken rule at once.
    pub fn parse(request: SearchRequest<'_>) -> Result<Self, Vec<FieldError>> {
        let SearchRequest { q, limit, tag, kind } = request;
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
        let kind = kind.map(|k| ProductKind::parse(k).map_err(|e| errors.push(e)).ok());
        match (text, limit, kind) {
            (Some(text), Some(page), None | Some(Some(_))) => {
                let filter = ProductFilter { tag: tag.map(str::to_string), kind: kind.flatten() };
                Ok(Self { text, limit: page.limit(), filter })
            }
            _ => Err(errors),
        }
    }

    /// The query, trimmed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// At most this many results.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// What every result must match.
    pub fn filter(&self) -> &ProductFilter {
        &self.filter
    }
}

/// What the vector index keeps of a searchable product: its vector, and what searches filter on.
#[derive(Debug, Clone, PartialEq)]
pub struct Searchable {
    /// The product's vector, as the embedder made it from [`Product::search_text`].
    pub vector: Vec<f32>,
    /// The product's kind.
    pub kind: ProductKind,
    /// The product's category tags, in its order.
    pub category_tags: Vec<String>,
}

impl Searchable {
    /// Whether a product with these facets passes `filter` (every given part matches).
    pub fn matches(&self, filter: &ProductFilter) -> bool {
        filter.kind.is_none_or(|k| k == self.kind) && filter.tag.as_ref().is_none_or(|t| self.category_tags.contains(t))
    }
}

/// One result: an active product and its cosine similarity to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The product found.
    pub product: Product,
    /// Its cosine similarity to the query: higher is closer.
    pub score: f32,
}

/// Vectors for the products of one import, in the same order, all made by one embedder.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportVectors {
    /// The embedder's identity (see `Embedder::identity`).
    pub embedder: String,
    /// One vector per product, in the import's order.
    pub vectors: Vec<Vec<f32>>,
}

/// Where a reader of catalog changes stands: everything up to this revision (and, within it,
/// up to this product) has been seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChangeCursor {
    /// The last revision seen whole, or in part up to `product`.
    pub revision: u64,
    /// Within `revision`, the last product seen (by `_id`); `None`: the revision was seen whole.
    pub product: Option<ProductId>,
}

/// A product changed at `revision`. `searchable` is set when the product is searchable: active
/// and embedded by the embedder asked about. `None` means it must not be found.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorChange {
    /// The product's `_id`.
    pub product: ProductId,
    /// The catalog revision that stamped the change.
    pub revision: u64,
    /// What the index keeps of it; `None`: take it out of the index.
    pub searchable: Option<Searchable>,
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

    fn parse<'a>(q: Option<&'a str>, limit: Option<&'a str>) -> Result<SearchQuery, Vec<FieldError>> {
        SearchQuery::parse(SearchRequest { q, limit, ..SearchRequest::default() })
    }

    #[test]
    fn query_is_trimmed_and_bounded_by_characters() {
        let q = parse(Some("  warm socks "), None).unwrap();
        assert_eq!((q.text(), q.limit()), ("warm socks", 10));
        assert!(parse(Some(&"é".repeat(500)), None).is_ok(), "500 characters, 1000 bytes");
        assert_eq!(fields(parse(Some(&"a".repeat(501)), None).unwrap_err()), ["q"]);
        assert_eq!(fields(parse(Some("   "), None).unwrap_err()), ["q"]);
        assert_eq!(fields(parse(None, None).unwrap_err()), ["q"]);
    }

    #[test]
    fn limit_is_1_to_50_and_every_error_is_reported() {
        assert_eq!(parse(Some("x"), Some("50")).unwrap().limit(), 50);
        assert_eq!(parse(Some("x"), Some("1")).unwrap().limit(), 1);
        for bad in ["0", "51", "-1", "ten", "2.5"] {
            assert_eq!(fields(parse(Some("x"), Some(bad)).unwrap_err()), ["limit"], "{bad}");
        }
        assert_eq!(fields(parse(None, Some("0")).unwrap_err()), ["q", "limit"]);
    }

    #[test]
    fn filters_are_a_tag_taken_as_is_and_a_known_kind() {
        let request = SearchRequest { q: Some("tent"), tag: Some("Outdoor Gear"), kind: Some("service"), ..SearchRequest::default() };
        let filter = SearchQuery::parse(request).unwrap().filter().clone();
        assert_eq!(filter, ProductFilter { tag: Some("Outdoor Gear".into()), kind: Some(ProductKind::Service) });
        assert_eq!(parse(Some("tent"), None).unwrap().filter(), &ProductFilter::default());
        let bad = SearchRequest { q: Some(""), kind: Some("Product"), ..SearchRequest::default() };
        assert_eq!(fields(SearchQuery::parse(bad).unwrap_err()), ["q", "kind"], "kinds are exact, and every error is reported");
    }

    #[test]
    fn a_searchable_product_matches_every_given_part_of_a_filter() {
        let s = Searchable { vector: vec![1.0], kind: ProductKind::Product, category_tags: vec!["Outdoor".into(), "Sale".into()] };
        let filter = |tag: Option<&str>, kind| ProductFilter { tag: tag.map(str::to_string), kind };
        assert!(s.matches(&filter(None, None)));
        assert!(s.matches(&filter(Some("Sale"), Some(ProductKind::Product))));
        assert!(!s.matches(&filter(Some("sale"), None)), "tags match exactly");
        assert!(!s.matches(&filter(Some("Outdoor"), Some(ProductKind::Service))));
    }
}
