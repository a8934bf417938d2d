//! `docs/storage.md` lists every macro of this crate with why it is one, says how many there
//! are, and lists every `auto_type` statement function: a macro or function added without its
//! row, a row without its reason, or a count left behind, fails here instead of drifting.

use std::path::Path;

/// The names after each `marker` in the `.rs` files under `dir` (`macro_rules! name`, or the
/// `fn name` following `#[auto_type`).
fn names_in(dir: &Path, marker: &str, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            names_in(&path, marker, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for rest in text.split(marker).skip(1) {
                let rest = if marker == "macro_rules! " { rest } else { rest.split_once("fn ").map_or("", |(_, after)| after) };
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                found.push(name);
            }
        }
    }
}

fn storage_md() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/storage.md")).unwrap()
}

fn crate_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The cells of the table rows whose first cell names `item` (as `` `item` `` or `` `item!` ``).
fn rows_naming<'a>(doc: &'a str, item: &str) -> Vec<Vec<&'a str>> {
    doc.lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| l.trim().trim_matches('|').split('|').map(str::trim).collect::<Vec<_>>())
        .filter(|cells| cells[0].contains(&format!("`{item}`")) || cells[0].contains(&format!("`{item}!")))
        .collect()
}

#[test]
fn storage_md_lists_every_macro_with_its_reason_and_counts_them() {
    let doc = storage_md();
    let mut macros = Vec::new();
    names_in(&crate_src(), "macro_rules! ", &mut macros);
    macros.sort();

    for m in &macros {
        // The macro tables have five or six columns, the last one the reason; other tables
        // may name a macro too.
        let rows: Vec<_> = rows_naming(&doc, m).into_iter().filter(|cells| cells.len() >= 5).collect();
        assert!(!rows.is_empty(), "docs/storage.md has no row for `{m}!`: add it to the macro tables");
        for cells in rows {
            let reason = cells.last().copied().unwrap_or_default();
            assert!(reason.len() > 10, "`{m}!`'s row says no reason for being a macro: {cells:?}");
        }
    }

    let stated: usize = doc
        .split("The crate defines ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("storage.md says \"The crate defines N macros\"");
    assert_eq!(stated, macros.len(), "storage.md's macro count; the crate has {}: {macros:?}", macros.len());
}

#[test]
fn storage_md_lists_every_statement_function() {
    let doc = storage_md();
    let mut functions = Vec::new();
    names_in(&crate_src(), "#[auto_type", &mut functions);
    assert!(!functions.is_empty(), "the crate's statement functions were not found");
    let section = doc.split("### Statements as functions").nth(1).expect("storage.md has a \"Statements as functions\" section");
    for f in &functions {
        assert!(!rows_naming(section, f).is_empty(), "docs/storage.md's \"Statements as functions\" has no row for `{f}`");
    }
}
