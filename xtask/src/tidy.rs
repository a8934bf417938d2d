//! `cargo xtask tidy`: repository rules.

use crate::{cargo, root};

pub fn tidy() -> Result<(), String> {
    let problems: Vec<String> = [migrations_in_step(), domain_is_pure()].into_iter().filter_map(Result::err).collect();
    if problems.is_empty() {
        println!("tidy: ok");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn migration_names(backend: &str) -> Result<Vec<String>, String> {
    let dir = root().join("crates/adapters-diesel/migrations").join(backend);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// Both backends must carry the same migrations, or one schema drifts from the other.
pub fn migrations_in_step() -> Result<(), String> {
    let (sqlite, postgres) = (migration_names("sqlite")?, migration_names("postgres")?);
    if sqlite == postgres { Ok(()) } else { Err(format!("migration folders differ:\n  sqlite:   {sqlite:?}\n  postgres: {postgres:?}")) }
}

/// Crates that do I/O or belong to a framework: the domain must never depend on them.
const FORBIDDEN_IN_DOMAIN: [&str; 8] =
    ["diesel", "diesel-async", "actix-web", "reqwest", "tokio-postgres", "hyper", "rand", "libsqlite3-sys"];

pub fn domain_is_pure() -> Result<(), String> {
    let out = cargo()
        .args(["tree", "--package", "parley-domain", "--edges", "normal", "--prefix", "none", "--format", "{p}", "--all-features"])
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo tree failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let found: Vec<&str> =
        tree.lines().filter_map(|l| l.split_whitespace().next()).filter(|name| FORBIDDEN_IN_DOMAIN.contains(name)).collect();
    if found.is_empty() { Ok(()) } else { Err(format!("parley-domain must stay free of I/O crates but depends on {found:?}")) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_in_step() {
        super::migrations_in_step().unwrap();
    }

    #[test]
    fn the_domain_crate_does_no_io() {
        super::domain_is_pure().unwrap();
    }
}
