//! The template placeholder parser (`{{n}}`) and the renderer that fills them, on arbitrary
//! text: never a panic (slicing at byte offsets of multi-byte text is the risk), placeholders
//! sorted, distinct and positive, and filling consistent with counting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_domain::model::{fill, parameter_count, placeholders};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let found = placeholders(text);
    assert!(found.windows(2).all(|w| w[0] < w[1]), "sorted and distinct: {found:?}");
    assert!(found.iter().all(|n| *n > 0));
    assert_eq!(parameter_count(text), found.last().map_or(0, |&n| n as usize), "as many as the highest");
    // Without parameters nothing is replaced.
    assert_eq!(fill(text, &[]), text);
    // With a parameter for every number up to the highest, each placeholder is replaced: the
    // rendered text holds one marker per placeholder occurrence and no `{{n}}` of those left.
    if let Some(max) = found.last().copied().filter(|m| *m <= 64) {
        let params: Vec<String> = (1..=max).map(|n| format!("\u{1}{n}\u{1}")).collect();
        let out = fill(text, &params);
        for n in &found {
            assert!(out.contains(&params[*n as usize - 1]), "placeholder {n} of {text:?} not filled: {out:?}");
        }
    }
});
