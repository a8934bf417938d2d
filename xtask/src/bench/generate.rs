//! A deterministic synthetic catalog: realistic sizes and shapes (categories, variants, sales,
//! services, drafts), the same bytes on every run so figures compare across runs.

use std::fmt::Write as _;
use std::io::{self, Write};

pub const CATEGORIES: [&str; 24] = [
    "Kitchen",
    "Coffee & Tea",
    "Outdoor",
    "Travel",
    "Home",
    "Personal Care",
    "Apparel",
    "Gifts",
    "Services",
    "Garden",
    "Toys",
    "Books",
    "Audio",
    "Lighting",
    "Bath",
    "Bedding",
    "Pets",
    "Fitness",
    "Office",
    "Stationery",
    "Footwear",
    "Bags",
    "Jewelry",
    "Baby",
];

const WORDS: [&str; 32] = [
    "durable",
    "handmade",
    "lightweight",
    "recycled",
    "steel",
    "linen",
    "walnut",
    "ceramic",
    "waterproof",
    "compact",
    "everyday",
    "travel",
    "classic",
    "soft",
    "insulated",
    "modular",
    "quiet",
    "warm",
    "bright",
    "natural",
    "organic",
    "bamboo",
    "cotton",
    "wool",
    "leather",
    "glass",
    "cast-iron",
    "stone",
    "copper",
    "canvas",
    "merino",
    "oak",
];

/// A small linear congruential generator: deterministic and dependency-free.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// `YYYY-MM-DDTHH:MM:SS.000Z` for seconds since the Unix epoch (civil-from-days).
fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.000Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `count` products as JSON Lines.
pub fn catalog(count: usize) -> String {
    let mut out = Vec::with_capacity(count * 900);
    write_catalog(count, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the generator writes UTF-8")
}

/// Writes `count` products as JSON Lines, one line at a time, so a million products (about
/// 900 MB) never sit in memory at once.
pub fn write_catalog(count: usize, out: &mut impl Write) -> io::Result<()> {
    write_catalog_tagged(count, out, &|_| &[])
}

/// [`write_catalog`], with product `i` given the extra category tags `extra(i)` after its own.
pub fn write_catalog_tagged(count: usize, out: &mut impl Write, extra: &dyn Fn(usize) -> &'static [&'static str]) -> io::Result<()> {
    let mut rng = Lcg(0x5eed);
    let start = 1_735_689_600; // 2025-01-01
    let mut line = String::with_capacity(2048);
    for i in 0..count {
        line.clear();
        let kind = if i % 10 == 0 { "service" } else { "product" };
        let status = if i % 20 == 7 { "draft" } else { "active" };
        let (c1, c2) = (CATEGORIES[i % CATEGORIES.len()], CATEGORIES[(i * 7 + 3) % CATEGORIES.len()]);
        let mut tags = if c1 == c2 { format!("[\"{c1}\"") } else { format!("[\"{c1}\",\"{c2}\"") };
        for tag in extra(i) {
            let _ = write!(tags, ",\"{tag}\"");
        }
        tags.push(']');
        let title = format!("{} {} {} No. {i}", capitalize(rng.pick(&WORDS)), rng.pick(&WORDS), c1.to_lowercase());
        let description: Vec<&str> = (0..40).map(|_| rng.pick(&WORDS)).collect();
        let price = 5 + (i * 37) % 500;
        let sale = if i % 6 == 0 { format!(",\"compare_at_price\":{}", price + price / 4 + 1) } else { String::new() };
        let created = rfc3339(start + (i as i64) * 137);
        let mut variants = String::from("[");
        if kind == "product" && i % 2 == 0 {
            for (v, size) in ["S", "M", "L"].iter().enumerate() {
                if v > 0 {
                    variants.push(',');
                }
                let _ = write!(
                    variants,
                    "{{\"id\":\"gen_{i:06}_{size}\",\"title\":\"{size}\",\"price\":{}.99,\"selected_options\":[{{\"name\":\"Size\",\"value\":\"{size}\"}}]}}",
                    price + v
                );
            }
        }
        variants.push(']');
        let _ = writeln!(
            line,
            "{{\"_id\":\"gen_{i:06}\",\"kind\":\"{kind}\",\"title\":\"{title}\",\"description\":\"{}.\",\"media\":[{{\"url\":\"https://cdn.example.com/gen/{i}.jpg\",\"alt\":\"{title}\",\"type\":\"image\",\"position\":0}}],\"category_tags\":{tags},\"currency\":\"USD\",\"base_price\":{price}.99{sale},\"variants\":{variants},\"status\":\"{status}\",\"created_at\":\"{created}\"}}",
            capitalize(&description.join(" "))
        );
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_735_689_600), "2025-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_709_210_096), "2024-02-29T12:34:56.000Z");
    }

    #[test]
    fn the_catalog_is_deterministic_one_line_per_product() {
        let a = catalog(50);
        assert_eq!(a, catalog(50));
        assert_eq!(a.lines().count(), 50);
        assert!(a.lines().all(|l| l.starts_with("{\"_id\":\"gen_") && l.ends_with('}')));
    }
}
