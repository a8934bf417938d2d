//! `cargo xtask tidy`: repository rules.

use crate::{cargo, root};

pub fn tidy() -> Result<(), String> {
    let problems: Vec<String> =
        [migrations_in_step(), domain_is_pure(), remote_reads_are_capped()].into_iter().filter_map(Result::err).collect();
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

/// Reading a whole `reqwest::Response` (`.bytes()`, `.text()`, `.json()`, awaited) buffers
/// whatever the remote sends: 1 GiB, if it likes (issue 39). Outside `crates/adapters-http`, an
/// answer is read with `parley_adapters_http::read_capped` instead. Checked in every crate's
/// `src/` (tests may read their own servers' answers whole), whitespace and line breaks
/// between the call and its `.await` ignored, comment lines skipped.
const UNCAPPED_READS: [&str; 5] = [".bytes().await", ".text().await", ".json().await", ".json::<", ".text_with_charset("];

/// Where `source` reads a response whole: (line, the call).
pub fn uncapped_reads(source: &str) -> Vec<(usize, &'static str)> {
    // The code with every whitespace character dropped, and the line each remaining one is on.
    let (mut compact, mut lines) = (String::new(), Vec::new());
    for (number, line) in source.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for c in line.chars().filter(|c| !c.is_whitespace()) {
            compact.push(c);
            lines.extend(std::iter::repeat_n(number + 1, c.len_utf8()));
        }
    }
    let mut found: Vec<(usize, &'static str)> =
        UNCAPPED_READS.iter().flat_map(|call| compact.match_indices(call).map(|(at, _)| (lines[at], *call)).collect::<Vec<_>>()).collect();
    found.sort_unstable();
    found
}

pub fn remote_reads_are_capped() -> Result<(), String> {
    let crates = root().join("crates");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).map_err(|e| format!("cannot read {}: {e}", crates.display()))?.filter_map(Result::ok) {
        if entry.file_name() != "adapters-http" {
            rust_files(&entry.path().join("src"), &mut files);
        }
    }
    let mut problems = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        for (line, call) in uncapped_reads(&source) {
            let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
            problems.push(format!("  {shown}:{line}: `{call}` reads a remote answer whole"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "read remote answers with parley_adapters_http::read_capped and a cap (docs/hostile-input.md#bounded-reads):\n{}",
            problems.join("\n")
        ))
    }
}

/// Every `.rs` file under `dir`, if it exists.
fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn remote_reads_are_capped() {
        super::remote_reads_are_capped().unwrap();
    }

    #[test]
    fn whole_reads_of_a_response_are_found_and_nothing_else() {
        let found = super::uncapped_reads(
            "let a = response.bytes().await?;\nlet b = r\n    .text()\n    .await;\n// response.json().await in a comment\nlet c: T = r.json::<T>().await?;\nlet d = r.json().await;\n",
        );
        assert_eq!(found, vec![(1, ".bytes().await"), (3, ".text().await"), (6, ".json::<"), (7, ".json().await")]);
        let fine =
            "if id.bytes().all(|b| b.is_ascii_digit()) {}\nlet t = m.text();\nrequest.json(&body);\nread_capped(response, CAP).await?;\n";
        assert_eq!(super::uncapped_reads(fine), vec![]);
    }

    #[test]
    fn migrations_are_in_step() {
        super::migrations_in_step().unwrap();
    }

    #[test]
    fn the_domain_crate_does_no_io() {
        super::domain_is_pure().unwrap();
    }
}
