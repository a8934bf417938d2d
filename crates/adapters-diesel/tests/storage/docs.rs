//! `docs/storage.md` lists every macro of this crate and says how many there are: a macro added
//! without its row, or a count left behind, fails here instead of drifting.

use std::path::Path;

/// The names of every `macro_rules!` under `dir`, sorted, each once per definition.
fn macros_in(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            macros_in(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for rest in text.split("macro_rules! ").skip(1) {
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                found.push(name);
            }
        }
    }
}

#[test]
fn storage_md_lists_every_macro_and_counts_them() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(crate_dir.join("../../docs/storage.md")).unwrap();
    let mut macros = Vec::new();
    macros_in(&crate_dir.join("src"), &mut macros);
    macros.sort();

    let missing: Vec<&String> = macros.iter().filter(|m| !doc.contains(&format!("`{m}!"))).collect();
    assert!(missing.is_empty(), "docs/storage.md has no row for {missing:?}: add each to the macro tables");

    let stated: usize = doc
        .split("The crate defines ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("storage.md says \"The crate defines N macros\"");
    assert_eq!(stated, macros.len(), "storage.md's macro count; the crate has {}: {macros:?}", macros.len());
}
