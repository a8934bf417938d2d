//! Which rows of a collection carry each facet a search can filter on (a kind, a category tag).
//!
//! One compressed bitmap of row numbers per facet (roaring: sorted, dense runs as bitsets,
//! sparse ones as arrays), so a filter's rows cost memory and time in proportion to how many
//! rows it keeps, and intersecting a tag with a kind is one bitmap operation. Rows move when a
//! collection fills a hole (swap-remove); [`Facets::swap_remove`] moves their bits the same way.

use std::collections::HashMap;

use parley_domain::model::{ProductFilter, ProductKind, Searchable};
use roaring::RoaringBitmap;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Facet {
    Kind(ProductKind),
    Tag(Box<str>),
}

fn facets_of(searchable: &Searchable) -> Box<[Facet]> {
    let tags = searchable.category_tags.iter().map(|t| Facet::Tag(t.as_str().into()));
    std::iter::once(Facet::Kind(searchable.kind)).chain(tags).collect()
}

#[derive(Default)]
pub(super) struct Facets {
    rows_of: HashMap<Facet, RoaringBitmap>,
    /// Per row, its facets: which bitmaps to clear when the row changes or moves.
    of_row: Vec<Box<[Facet]>>,
}

/// A collection's row number as a bitmap holds it. Collections stay far below 2³² rows: the
/// f32 matrix alone would take terabytes first.
fn bit(row: usize) -> u32 {
    u32::try_from(row).expect("a collection has fewer than 2^32 rows")
}

impl Facets {
    /// Gives `row` the facets of `searchable`: a new row when `row` is the row count, else a
    /// replacement of that row's facets.
    pub(super) fn set(&mut self, row: usize, searchable: &Searchable) {
        let facets = facets_of(searchable);
        if row == self.of_row.len() {
            self.of_row.push(Box::default());
        } else if self.of_row[row] == facets {
            return;
        }
        let old = std::mem::replace(&mut self.of_row[row], facets);
        self.clear(row, &old);
        for facet in self.of_row[row].iter() {
            self.rows_of.entry(facet.clone()).or_default().insert(bit(row));
        }
    }

    /// Drops row `hole` and moves row `last` (the final row) into it, as the collection does.
    pub(super) fn swap_remove(&mut self, hole: usize, last: usize) {
        let removed = self.of_row.swap_remove(hole);
        self.clear(hole, &removed);
        if hole != last {
            let moved = std::mem::take(&mut self.of_row[hole]);
            self.clear(last, &moved);
            for facet in moved.iter() {
                self.rows_of.entry(facet.clone()).or_default().insert(bit(hole));
            }
            self.of_row[hole] = moved;
        }
    }

    fn clear(&mut self, row: usize, facets: &[Facet]) {
        for facet in facets {
            if let Some(rows) = self.rows_of.get_mut(facet) {
                rows.remove(bit(row));
                if rows.is_empty() {
                    self.rows_of.remove(facet);
                }
            }
        }
    }

    /// The rows that match `filter`, in ascending order; `None` when it filters nothing out.
    pub(super) fn rows(&self, filter: &ProductFilter) -> Option<Vec<u32>> {
        let by_kind = filter.kind.map(|kind| self.rows_of.get(&Facet::Kind(kind)));
        let by_tag = filter.tag.as_deref().map(|tag| self.rows_of.get(&Facet::Tag(tag.into())));
        let rows = match (by_kind, by_tag) {
            (None, None) => return None,
            (Some(None), _) | (_, Some(None)) => return Some(Vec::new()),
            (Some(Some(one)), None) | (None, Some(Some(one))) => one.iter().collect(),
            (Some(Some(kind)), Some(Some(tag))) => (kind & tag).iter().collect(),
        };
        Some(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn searchable(kind: ProductKind, tags: &[&str]) -> Searchable {
        Searchable { vector: Vec::new(), kind, category_tags: tags.iter().map(|t| t.to_string()).collect() }
    }

    fn filter(tag: Option<&str>, kind: Option<ProductKind>) -> ProductFilter {
        ProductFilter { tag: tag.map(str::to_string), kind }
    }

    use ProductKind::{Product, Service};

    #[test]
    fn rows_follow_sets_replacements_and_swap_removes() {
        let mut facets = Facets::default();
        facets.set(0, &searchable(Product, &["Outdoor"]));
        facets.set(1, &searchable(Service, &["Outdoor", "Sale"]));
        facets.set(2, &searchable(Product, &["Sale"]));
        assert_eq!(facets.rows(&filter(None, None)), None, "no filter: every row, without listing them");
        assert_eq!(facets.rows(&filter(Some("Outdoor"), None)), Some(vec![0, 1]));
        assert_eq!(facets.rows(&filter(Some("Sale"), Some(Product))), Some(vec![2]));
        assert_eq!(facets.rows(&filter(Some("outdoor"), None)), Some(vec![]), "tags are exact");
        assert_eq!(facets.rows(&filter(Some("Outdoor"), Some(Service))), Some(vec![1]));

        facets.set(0, &searchable(Service, &[]));
        assert_eq!(facets.rows(&filter(Some("Outdoor"), None)), Some(vec![1]), "a replaced row leaves its old tags");
        assert_eq!(facets.rows(&filter(None, Some(Service))), Some(vec![0, 1]));

        // Row 0 goes; row 2 (Product, Sale) moves into it.
        facets.swap_remove(0, 2);
        assert_eq!(facets.rows(&filter(Some("Sale"), None)), Some(vec![0, 1]));
        assert_eq!(facets.rows(&filter(None, Some(Product))), Some(vec![0]));
        assert_eq!(facets.rows(&filter(None, Some(Service))), Some(vec![1]));
        // The final row goes: nothing moves.
        facets.swap_remove(1, 1);
        assert_eq!(facets.rows(&filter(Some("Outdoor"), None)), Some(vec![]));
        assert_eq!(facets.rows(&filter(None, Some(Service))), Some(vec![]));
        assert!(!facets.rows_of.contains_key(&Facet::Tag("Outdoor".into())), "an emptied facet is dropped");
    }
}
