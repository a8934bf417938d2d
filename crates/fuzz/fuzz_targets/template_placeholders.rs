//! The template placeholder parser (`{{n}}` and `{{name}}`) and the renderers that fill them,
//! on arbitrary text: never a panic (slicing at byte offsets of multi-byte text is the risk),
//! numbers sorted, distinct and positive, names distinct and well-formed, and filling
//! consistent with counting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_domain::model::{fill, fill_named, parameter_count, placeholder_names, placeholders};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let found = placeholders(text);
    assert!(found.windows(2).all(|w| w[0] < w[1]), "sorted and distinct: {found:?}");
    assert!(found.iter().all(|n| *n > 0));
    assert_eq!(parameter_count(text), found.last().map_or(0, |&n| n as usize), "as many as the highest");
    // Without parameters nothing is replaced.
    assert_eq!(fill(text, &[]), text);
    assert_eq!(fill_named(text, &[]), text);
    // With a parameter for every number up to the highest, each placeholder is replaced: the
    // rendered text holds one marker per placeholder occurrence and no `{{n}}` of those left.
    if let Some(max) = found.last().copied().filter(|m| *m <= 64) {
        let params: Vec<String> = (1..=max).map(|n| format!("\u{1}{n}\u{1}")).collect();
        let out = fill(text, &params);
        for n in &found {
            assert!(out.contains(&params[*n as usize - 1]), "placeholder {n} of {text:?} not filled: {out:?}");
        }
    }
    // Names: distinct, lowercase words, each filled when given a value.
    let names = placeholder_names(text);
    for (i, name) in names.iter().enumerate() {
        assert!(!names[..i].contains(name), "distinct: {names:?}");
        assert!(!name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_lowercase() || b.is_ascii_digit()));
        assert!(!name.as_bytes()[0].is_ascii_digit(), "a name never starts with a digit: {name}");
    }
    let values: Vec<(String, String)> = names.iter().map(|n| (n.to_string(), format!("\u{2}{n}\u{2}"))).collect();
    let out = fill_named(text, &values);
    for (_, marker) in &values {
        assert!(out.contains(marker.as_str()), "{marker:?} of {text:?} not filled: {out:?}");
    }
});
