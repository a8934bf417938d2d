//! The storage contract runs whole on every backend: each check the domain writes
//! (`pub async fn …(r: Repositories)` in its conformance files) is named in
//! `storage_conformance!`, which each backend's tests expand. A check written and left off that
//! list would never run anywhere, and a backend that stopped expanding it would pass untested.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::root;

/// The backends the contract must run on: (what it is, the test folder, a text its invocation holds).
const BACKENDS: [(&str, &str, &str); 3] = [
    ("memory", "crates/adapters-memory/tests", "parley_adapters_memory"),
    ("SQLite", "crates/adapters-diesel/tests", "\"sqlite\""),
    ("PostgreSQL", "crates/adapters-diesel/tests", "\"postgres\""),
];

/// The checks a conformance file defines: public async functions taking the repositories.
pub fn checks_defined(source: &str) -> BTreeSet<String> {
    source
        .split("pub async fn ")
        .skip(1)
        .filter_map(|rest| {
            let (name, after) = rest.split_once('(')?;
            let params = after.split_once(')')?.0;
            params.contains("Repositories").then(|| name.trim().to_string())
        })
        .collect()
}

/// The checks `storage_conformance!` expands, from its `@tests $fresh;` list.
pub fn checks_listed(macro_source: &str) -> Option<BTreeSet<String>> {
    let list = macro_source.split("(@tests $fresh;").nth(1)?.split(");").next()?;
    Some(list.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect())
}

fn domain_conformance_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    crate::files::rust_files(&root().join("crates/domain/src"), &mut files);
    files.retain(|f| f.to_string_lossy().contains("conformance"));
    files
}

pub fn contract_runs_everywhere() -> Result<(), String> {
    let read = |path: &PathBuf| std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
    let mut defined = BTreeSet::new();
    let mut listed = None;
    for file in domain_conformance_files() {
        let source = read(&file)?;
        defined.extend(checks_defined(&source));
        if source.contains("macro_rules! storage_conformance") {
            listed = checks_listed(&source);
        }
    }
    let Some(listed) = listed else { return Err("storage_conformance! and its list of checks were not found".into()) };
    let mut problems = Vec::new();
    for unlisted in defined.difference(&listed) {
        problems.push(format!("  `{unlisted}` is a contract check that storage_conformance! does not run"));
    }
    for unknown in listed.difference(&defined) {
        problems.push(format!("  storage_conformance! names `{unknown}`, which no conformance file defines"));
    }
    for (backend, folder, marker) in BACKENDS {
        let mut files = Vec::new();
        crate::files::rust_files(&root().join(folder), &mut files);
        let mut expanded = false;
        for file in &files {
            let source = read(file)?;
            expanded |= source.lines().any(|l| l.contains("storage_conformance!(") && l.contains(marker));
        }
        if !expanded {
            problems.push(format!("  {backend}: no test in {folder} expands storage_conformance! (with {marker})"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the storage contract does not run whole on every backend:\n{}", problems.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contract_check_runs_on_every_backend() {
        contract_runs_everywhere().unwrap();
    }

    #[test]
    fn checks_are_read_from_their_definitions_and_the_list() {
        let file = "pub async fn tags_round_trip(r: Repositories) {}\npub async fn helper(x: u32) {}\nasync fn private(r: Repositories) {}\npub async fn two_lines(\n    repos: Repositories,\n) {}\n";
        assert_eq!(checks_defined(file), BTreeSet::from(["tags_round_trip".to_string(), "two_lines".to_string()]));
        let macro_source =
            "macro_rules! storage_conformance {\n ($fresh:expr) => {\n $crate::storage_conformance!(@tests $fresh;\n a, b_c,\n d);\n };";
        assert_eq!(checks_listed(macro_source), Some(BTreeSet::from(["a".into(), "b_c".into(), "d".into()])));
    }
}
