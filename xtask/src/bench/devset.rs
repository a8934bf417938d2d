//! Labeled catalogs for measuring search quality: products, and shopper queries with graded
//! relevance labels. The demo catalog's dev set is `xtask/data/search-devset.json`; the
//! generated one lives in [`super::labeled`]. Both are checked on load, so a bad edit fails
//! the benchmark and `cargo test` rather than skewing the figures.

use std::collections::{HashMap, HashSet};

use super::json::{self, Json};
use crate::root;

pub const DEVSET: &str = "xtask/data/search-devset.json";

/// One catalog product as search sees it.
pub struct Product {
    pub id: String,
    /// The text the server embeds, which BM25 indexes too.
    pub text: String,
    /// Drafts are never returned, so never labeled.
    pub active: bool,
}

pub struct Query {
    pub text: String,
    /// Grade (1–3) by product id; every other product is 0.
    pub labels: HashMap<String, u8>,
    /// Kept out of every tuning decision (`"held_out": true` in the file): the bench reports
    /// these queries apart, so a gain that only fits the others shows.
    pub held_out: bool,
}

pub struct LabeledCatalog {
    pub name: &'static str,
    /// The catalog file's content, as `parley catalog import` reads it.
    pub jsonl: String,
    pub products: Vec<Product>,
    pub queries: Vec<Query>,
}

impl LabeledCatalog {
    pub fn active(&self) -> impl Iterator<Item = &Product> {
        self.products.iter().filter(|p| p.active)
    }

    /// Labels only on active products, grades 1–3, at least one good answer (grade ≥ 2) per
    /// query, queries the API accepts (1–500 characters), no query twice.
    pub fn check(&self) -> Result<(), String> {
        let active: HashSet<&str> = self.active().map(|p| p.id.as_str()).collect();
        let mut seen = HashSet::new();
        for query in &self.queries {
            let q = &query.text;
            if !(1..=500).contains(&q.chars().count()) || !seen.insert(q.as_str()) {
                return Err(format!("{}: query {q:?} is empty, too long or repeated", self.name));
            }
            if let Some((id, _)) = query.labels.iter().find(|(id, g)| !active.contains(id.as_str()) || !(1..=3).contains(*g)) {
                return Err(format!("{}: query {q:?} labels {id:?}, which is not an active product or has a grade outside 1–3", self.name));
            }
            if !query.labels.values().any(|&g| g >= 2) {
                return Err(format!("{}: query {q:?} has no label of 2 or more", self.name));
            }
        }
        Ok(())
    }
}

/// What the server embeds for a product: title, then category tags, then description, joined
/// by ". " (as the domain's `Product::search_text`).
pub fn search_text(title: &str, tags: &[&str], description: &str) -> String {
    let mut text = title.to_string();
    if !tags.is_empty() {
        text.push_str(". ");
        text.push_str(&tags.join(", "));
    }
    if !description.is_empty() {
        text.push_str(". ");
        text.push_str(description);
    }
    text
}

/// A file of the repository, read whole.
pub fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(root().join(path)).map_err(|e| format!("{path}: {e}"))
}

/// A query as written in a dev-set file: its text, `(key, grade)` labels (keys not yet
/// resolved to products) and whether it is held out.
pub type RawQuery = (String, Vec<(String, u8)>, bool);

/// The `queries` of a dev-set file.
pub fn queries(doc: &Json) -> Result<Vec<RawQuery>, String> {
    doc.array_field("queries")?
        .iter()
        .map(|query| {
            let text = query.str_field("q")?.to_string();
            let labels = query
                .get("labels")
                .and_then(Json::as_object)
                .ok_or_else(|| format!("query {text:?} has no labels object"))?
                .iter()
                .map(|(key, grade)| match grade.as_f64() {
                    Some(g) if g.fract() == 0.0 && (0.0..=3.0).contains(&g) => Ok((key.clone(), g as u8)),
                    _ => Err(format!("query {text:?}: the grade of {key:?} must be 0–3")),
                })
                .collect::<Result<_, _>>()?;
            let held_out = match query.get("held_out") {
                None => false,
                Some(flag) => flag.as_bool().ok_or_else(|| format!("query {text:?}: held_out must be true or false"))?,
            };
            Ok((text, labels, held_out))
        })
        .collect()
}

/// The demo catalog with its dev set.
pub fn demo() -> Result<LabeledCatalog, String> {
    let doc = json::parse(&read(DEVSET)?).map_err(|e| format!("{DEVSET}: {e}"))?;
    let jsonl = read(doc.str_field("catalog")?)?;
    let products = jsonl.lines().filter(|l| !l.trim().is_empty()).map(product).collect::<Result<Vec<_>, _>>()?;
    let queries = queries(&doc)?
        .into_iter()
        .map(|(text, labels, held_out)| Query { text, labels: labels.into_iter().filter(|&(_, g)| g > 0).collect(), held_out })
        .collect();
    let catalog = LabeledCatalog { name: "demo catalog", jsonl, products, queries };
    catalog.check().map_err(|e| format!("{DEVSET}: {e}"))?;
    Ok(catalog)
}

/// One catalog line.
fn product(line: &str) -> Result<Product, String> {
    let p = json::parse(line)?;
    let tags = p.strings_field("category_tags").unwrap_or_default();
    let description = p.get("description").and_then(Json::as_str).unwrap_or("");
    Ok(Product {
        id: p.str_field("_id")?.to_string(),
        text: search_text(p.str_field("title")?, &tags, description),
        active: p.get("status").and_then(Json::as_str).unwrap_or("active") == "active",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_dev_set_is_valid_and_large_enough() {
        let demo = demo().unwrap();
        assert_eq!(demo.products.len(), 40);
        assert_eq!(demo.active().count(), 36, "the four drafts are known");
        assert!(demo.queries.len() >= 45, "{} queries", demo.queries.len());
        let canonical = &demo.queries[0];
        assert_eq!(canonical.text, "something to keep my coffee hot");
        assert_eq!(canonical.labels.get("prd_thermos_500"), Some(&3));
    }

    #[test]
    fn search_text_mirrors_the_server() {
        assert_eq!(search_text("Bottle", &["Travel", "Outdoor"], "Keeps drinks hot."), "Bottle. Travel, Outdoor. Keeps drinks hot.");
        assert_eq!(search_text("Bottle", &[], ""), "Bottle");
    }

    #[test]
    fn checks_catch_bad_labels() {
        let product = |id: &str, active| Product { id: id.into(), text: String::new(), active };
        let catalog = |labels: &[(&str, u8)]| LabeledCatalog {
            name: "test",
            jsonl: String::new(),
            products: vec![product("a", true), product("d", false)],
            queries: vec![Query { text: "q".into(), labels: labels.iter().map(|&(id, g)| (id.to_string(), g)).collect(), held_out: false }],
        };
        assert!(catalog(&[("a", 3)]).check().is_ok());
        assert!(catalog(&[("d", 3)]).check().is_err(), "drafts cannot be labeled");
        assert!(catalog(&[("zzz", 3)]).check().is_err(), "unknown products cannot be labeled");
        assert!(catalog(&[("a", 1)]).check().is_err(), "every query needs a good answer");
        assert!(catalog(&[("a", 4)]).check().is_err());
    }
}
