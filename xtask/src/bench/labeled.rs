//! The generated labeled catalog: thousands of realistic products expanded from the archetypes
//! of `xtask/data/search-generated.json`, with query labels that come from the archetype (every
//! vacuum flask is what "keeping tea warm while travelling" asks for). Deterministic: the same
//! file on every run, so figures compare across runs.

use std::collections::HashMap;
use std::fmt::Write;

use super::devset::{self, LabeledCatalog, Product, Query, search_text};
use super::generate::Lcg;
use super::json::{self, Json, quote};

pub const FILE: &str = "xtask/data/search-generated.json";

/// Sentences of an archetype that make one product's description.
const SENTENCES_PER_PRODUCT: usize = 3;

pub fn generated() -> Result<LabeledCatalog, String> {
    let doc = json::parse(&devset::read(FILE)?).map_err(|e| format!("{FILE}: {e}"))?;
    expand(&doc).map_err(|e| format!("{FILE}: {e}"))
}

fn count(doc: &Json, key: &str) -> Result<usize, String> {
    doc.get(key).and_then(Json::as_f64).filter(|n| *n >= 1.0).map(|n| n as usize).ok_or_else(|| format!("{key} must be a positive number"))
}

fn expand(doc: &Json) -> Result<LabeledCatalog, String> {
    let (per_archetype, draft_every) = (count(doc, "per_archetype")?, count(doc, "draft_every")?);
    let (brands, colours) = (doc.strings_field("brands")?, doc.strings_field("colours")?);
    let mut rng = Lcg(0xca7a_1095);
    let (mut jsonl, mut products) = (String::new(), Vec::new());
    // Active product ids of each archetype, for the labels.
    let mut members: HashMap<&str, Vec<String>> = HashMap::new();
    for archetype in doc.array_field("archetypes")? {
        let key = archetype.str_field("key")?;
        let kind = archetype.str_field("kind")?;
        let tags = archetype.strings_field("tags")?;
        let titles = archetype.strings_field("titles")?;
        let sentences = archetype.strings_field("sentences")?;
        let sizes = archetype.strings_field("sizes").unwrap_or_default();
        let materials = archetype.strings_field("materials").unwrap_or_default();
        let price = archetype.array_field("price")?.iter().filter_map(Json::as_f64).map(|p| p as usize).collect::<Vec<_>>();
        let &[low, high] = price.as_slice() else { return Err(format!("{key}: price must be [low, high]")) };
        if sentences.len() < SENTENCES_PER_PRODUCT || titles.is_empty() || members.contains_key(key) || high < low {
            return Err(format!("archetype {key:?}: needs a unique key, titles, {SENTENCES_PER_PRODUCT}+ sentences and a price range"));
        }
        let ids = members.entry(key).or_default();
        for n in 0..per_archetype {
            let id = format!("lab_{key}_{n:03}");
            let mut title = rng.pick(&titles).replace("{brand}", rng.pick(&brands)).replace("{colour}", rng.pick(&colours));
            for (placeholder, values) in [("{size}", &sizes), ("{material}", &materials)] {
                if title.contains(placeholder) {
                    let value = if values.is_empty() { placeholder } else { rng.pick(values) };
                    title = title.replace(placeholder, value);
                }
            }
            if title.contains('{') {
                return Err(format!("archetype {key:?}: a title has a placeholder with no values: {title}"));
            }
            let description = pick_distinct(&mut rng, &sentences, SENTENCES_PER_PRODUCT).join(" ");
            let base_price = low + rng.below(high - low + 1);
            let active = products.len() % draft_every != draft_every - 1;
            let _ = writeln!(
                jsonl,
                "{{\"_id\":{},\"kind\":{},\"title\":{},\"description\":{},\"category_tags\":[{}],\"currency\":\"USD\",\"base_price\":{base_price},\"status\":\"{}\"}}",
                quote(&id),
                quote(kind),
                quote(&title),
                quote(&description),
                tags.iter().map(|t| quote(t)).collect::<Vec<_>>().join(","),
                if active { "active" } else { "draft" }
            );
            if active {
                ids.push(id.clone());
            }
            products.push(Product { id, text: search_text(&title, &tags, &description), active });
        }
    }
    let queries = devset::queries(doc)?
        .into_iter()
        .map(|(text, grades, held_out)| {
            let mut labels = HashMap::new();
            for (key, grade) in grades.into_iter().filter(|&(_, g)| g > 0) {
                let ids = members.get(key.as_str()).ok_or_else(|| format!("query {text:?} labels unknown archetype {key:?}"))?;
                labels.extend(ids.iter().map(|id| (id.clone(), grade)));
            }
            Ok(Query { text, labels, held_out })
        })
        .collect::<Result<_, String>>()?;
    let catalog = LabeledCatalog { name: "generated catalog", jsonl, products, queries };
    catalog.check()?;
    Ok(catalog)
}

/// `n` different items in random order (a partial Fisher–Yates shuffle).
fn pick_distinct<'a>(rng: &mut Lcg, items: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut pool = items.to_vec();
    for i in 0..n {
        let j = i + rng.below(pool.len() - i);
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_catalog_is_large_labeled_and_deterministic() {
        let catalog = generated().unwrap();
        assert!((5_000..=10_000).contains(&catalog.products.len()), "{} products", catalog.products.len());
        assert!(catalog.queries.len() >= 20);
        assert_eq!(catalog.jsonl, generated().unwrap().jsonl, "the same bytes every run");
        assert_eq!(catalog.jsonl.lines().count(), catalog.products.len());
        let drafts = catalog.products.len() - catalog.active().count();
        assert!(drafts > 0 && drafts < catalog.products.len() / 10);
        // Each line is JSON with the fields an import needs, and titles were filled in.
        for line in catalog.jsonl.lines().step_by(97) {
            let product = json::parse(line).unwrap();
            assert!(product.str_field("_id").unwrap().starts_with("lab_"));
            assert!(!product.str_field("title").unwrap().contains('{'));
            assert!(product.get("base_price").and_then(Json::as_f64).is_some());
        }
    }

    #[test]
    fn archetype_labels_reach_every_active_member() {
        let catalog = generated().unwrap();
        let query = catalog.queries.iter().find(|q| q.text == "keeping tea warm while travelling").unwrap();
        let flasks: Vec<&Product> = catalog.products.iter().filter(|p| p.id.starts_with("lab_vacuum_flask_")).collect();
        assert!(flasks.iter().all(|p| query.labels.get(&p.id) == if p.active { Some(&3) } else { None }));
        assert!(flasks.iter().any(|p| !p.active), "drafts exist and stay unlabeled");
        assert!(catalog.products.iter().filter(|p| p.id.starts_with("lab_travel_tumbler_") && p.active).all(|p| query.labels[&p.id] == 2));
    }

    #[test]
    fn picks_are_distinct() {
        let mut rng = Lcg(1);
        for _ in 0..100 {
            let mut picked = pick_distinct(&mut rng, &["a", "b", "c", "d"], 3);
            picked.sort_unstable();
            picked.dedup();
            assert_eq!(picked.len(), 3);
        }
    }
}
