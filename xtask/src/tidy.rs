//! `cargo xtask tidy`: repository rules.

use crate::files::rust_files;
use crate::{cargo, root};

pub fn tidy() -> Result<(), String> {
    let problems: Vec<String> = [
        migrations_in_step(),
        domain_is_pure(),
        remote_reads_are_capped(),
        binary_imports_run_one_way(),
        lints_are_expected_not_allowed(),
        dependencies_come_from_the_workspace(),
        no_tracker_numbers(),
        crate::words::words_hold(),
        crate::contract::contract_runs_everywhere(),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
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

/// What the domain may depend on directly, each for a reason a reviewer can weigh: a crate added
/// to the domain is added here, in the same change. Nothing here does I/O or belongs to a framework.
const ALLOWED_IN_DOMAIN: [(&str, &str); 17] = [
    ("async-trait", "the ports are async traits"),
    ("base64", "event webhook secrets and signatures are base64"),
    ("chrono", "timestamps"),
    ("chrono-tz", "business hours in the shop's own time zone (the IANA database, compiled in)"),
    ("futures-channel", "the inbound service marks deliveries done as they finish"),
    ("futures-util", "streams of ports"),
    ("hex", "hashes of keys and bodies as text"),
    ("hmac", "signing event webhook payloads"),
    ("mockall", "the `mock` feature: mocks of every port"),
    ("rust_decimal", "exact money"),
    ("serde", "events and stored documents"),
    ("serde_json", "events' data and stored documents"),
    ("sha2", "hashes of API keys and request bodies"),
    ("thiserror", "the domain's typed errors"),
    ("tracing", "services say what they did"),
    ("unicode-normalization", "search keys ignore accents"),
    ("url", "webhook endpoints' URLs parsed by their value object"),
];

/// Crates that do I/O or belong to a framework: not even a dependency of a dependency.
const FORBIDDEN_IN_DOMAIN: [&str; 9] =
    ["diesel", "diesel-async", "actix-web", "reqwest", "tokio", "tokio-postgres", "hyper", "rand", "libsqlite3-sys"];

/// The domain's dependencies, `depth` levels down (1: its own), every feature on.
fn domain_dependencies(depth: &str) -> Result<Vec<String>, String> {
    let out = cargo()
        .args(["tree", "--package", "parley-domain", "--edges", "normal", "--prefix", "none", "--format", "{p}", "--all-features"])
        .args(["--depth", depth])
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo tree failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    Ok(tree.lines().filter_map(|l| l.split_whitespace().next()).filter(|n| *n != "parley-domain").map(str::to_string).collect())
}

pub fn domain_is_pure() -> Result<(), String> {
    let own = domain_dependencies("1")?;
    let unlisted: Vec<&String> = own.iter().filter(|name| !ALLOWED_IN_DOMAIN.iter().any(|(allowed, _)| allowed == name)).collect();
    let all = domain_dependencies("100")?;
    let forbidden: Vec<&String> = all.iter().filter(|name| FORBIDDEN_IN_DOMAIN.contains(&name.as_str())).collect();
    let mut problems = Vec::new();
    if !unlisted.is_empty() {
        problems.push(format!("parley-domain depends on {unlisted:?}, which xtask/src/tidy.rs's ALLOWED_IN_DOMAIN does not list (add it there with its reason, or keep it out of the domain)"));
    }
    if !forbidden.is_empty() {
        problems.push(format!("parley-domain must stay free of I/O crates but depends on {forbidden:?}"));
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// Reading a whole `reqwest::Response` (`.bytes()`, `.text()`, `.json()`, awaited) buffers
/// whatever the remote sends: 1 GiB, if it likes. Outside `crates/adapters-http`, an
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

/// The binary's layers, outermost first: each may import those after it, never those before.
/// `docs/architecture.md` states the same order, and the check holds it to this list.
const BINARY_LAYERS: [&str; 3] = ["cli", "http", "runtime"];

/// Where `source` (a file of layer `layer`) names a layer before it: (line, the layer).
pub fn imports_against_the_order(layer: &str, source: &str) -> Vec<(usize, &'static str)> {
    let Some(position) = BINARY_LAYERS.iter().position(|l| *l == layer) else { return Vec::new() };
    let outer = &BINARY_LAYERS[..position];
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        for name in outer {
            // `crate::http::…` as a path, `crate::http` as a module, or `crate::{http, …}` in a list.
            let path = format!("crate::{name}");
            let as_path = code
                .match_indices(&path)
                .any(|(at, _)| code[at + path.len()..].chars().next().is_none_or(|next| !(next.is_alphanumeric() || next == '_')));
            let in_list = code.contains("crate::{") && code.split(['{', ',', '}', ' ', ';']).any(|part| part == *name);
            if as_path || in_list {
                found.push((number + 1, *name));
            }
        }
    }
    found
}

pub fn binary_imports_run_one_way() -> Result<(), String> {
    let src = root().join("crates/api-actix/src");
    let mut problems = Vec::new();
    for layer in BINARY_LAYERS {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        for file in files {
            let source = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            for (line, outer) in imports_against_the_order(layer, &source) {
                let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
                problems.push(format!("  {shown}:{line}: `{layer}` imports `{outer}`"));
            }
        }
    }
    let stated = format!("Imports run one way: {}", BINARY_LAYERS.map(|l| format!("`{l}`")).join(" → "));
    let architecture =
        std::fs::read_to_string(root().join("docs/architecture.md")).map_err(|e| format!("cannot read docs/architecture.md: {e}"))?;
    if !architecture.contains(&stated) {
        problems.push(format!("  docs/architecture.md no longer says \"{stated}\""));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the binary's imports run {} (docs/architecture.md):\n{}", BINARY_LAYERS.join(" → "), problems.join("\n")))
    }
}

/// The workspace's members, as the root manifest lists them (the fuzz targets build alone, on
/// nightly, and are not among them).
fn members() -> Result<Vec<String>, String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    let line = manifest.lines().find(|l| l.trim_start().starts_with("members = [")).ok_or("Cargo.toml lists no members")?;
    Ok(line.split('"').skip(1).step_by(2).map(String::from).collect())
}

/// A lint is silenced with `#[expect(lint, reason = "…")]`, never `#[allow]`: the reason is
/// written down, and the attribute fails once the code no longer needs it.
pub fn lints_are_expected_not_allowed() -> Result<(), String> {
    let mut problems = Vec::new();
    for member in members()? {
        let mut files = Vec::new();
        for dir in ["src", "tests", "benches", "examples"] {
            rust_files(&root().join(&member).join(dir), &mut files);
        }
        for file in files {
            let source = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            for (number, line) in source.lines().enumerate() {
                let code = line.trim_start();
                // Spelled in pieces, so this file does not find itself.
                let (outer, inner) = (concat!("#[", "allow("), concat!("#![", "allow("));
                if code.starts_with(outer) || code.starts_with(inner) || code.contains(&format!("({outer}")) {
                    let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
                    problems.push(format!("  {shown}:{}: use #[expect(…, reason = \"…\")] instead of #[allow]", number + 1));
                }
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(format!("lints silenced without a reason:\n{}", problems.join("\n"))) }
}

/// Where a member's manifest names a dependency by version instead of `workspace = true`:
/// (line, the line). Every version is chosen once, in the root `[workspace.dependencies]`.
pub fn dependencies_outside_the_workspace(manifest: &str) -> Vec<(usize, String)> {
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for (number, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line.trim_matches(['[', ']']).split('.').any(|part| part.ends_with("dependencies"));
            continue;
        }
        if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            let by_workspace = line.contains(".workspace = true") || line.contains("workspace = true");
            if !by_workspace {
                found.push((number + 1, line.to_string()));
            }
        }
    }
    found
}

pub fn dependencies_come_from_the_workspace() -> Result<(), String> {
    let mut problems = Vec::new();
    for member in members()? {
        let path = root().join(&member).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (line, text) in dependencies_outside_the_workspace(&manifest) {
            problems.push(format!("  {member}/Cargo.toml:{line}: {text}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("declare these in the root [workspace.dependencies] and use `workspace = true`:\n{}", problems.join("\n")))
    }
}

/// The lines (from 1) of `text` that cite a tracker's number (the word, then a number or `#` and
/// a number, in any case): the tracker is not in the repository, so a reader cannot follow one;
/// say what the thing is.
pub fn tracker_citations(text: &str) -> Vec<usize> {
    let cites = |line: &str| {
        let lower = line.to_ascii_lowercase();
        lower.match_indices("issue").any(|(at, _)| {
            let before_ok = !lower[..at].ends_with(|c: char| c.is_ascii_alphanumeric());
            let rest = lower[at + "issue".len()..].strip_prefix('s').unwrap_or(&lower[at + "issue".len()..]);
            let rest = rest.strip_prefix(' ').map(|r| r.strip_prefix('#').unwrap_or(r));
            before_ok && rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    text.lines().enumerate().filter(|(_, line)| cites(line)).map(|(n, _)| n + 1).collect()
}

/// No file of the repository's own cites a tracker number ([`tracker_citations`]).
pub fn no_tracker_numbers() -> Result<(), String> {
    let mut files = Vec::new();
    for dir in ["crates", "docs", "xtask", ".ci"] {
        text_files(&root().join(dir), &mut files);
    }
    files.extend(["README.md", "CHANGELOG.md"].map(|f| root().join(f)));
    let mut problems = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for line in tracker_citations(&text) {
            let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
            problems.push(format!("  {shown}:{line}: cites a tracker number; say what the thing is instead"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(format!("tracker numbers cited:\n{}", problems.join("\n"))) }
}

/// Every file under `dir` but build output and the model weights.
fn text_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | "models") {
                text_files(&path, out);
            }
        } else {
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
    fn binary_imports_run_one_way() {
        super::binary_imports_run_one_way().unwrap();
    }

    #[test]
    fn imports_of_an_outer_layer_are_found_and_nothing_else() {
        let source = "use crate::http::dto::X;\nuse crate::runtime::state::AppState;\n// crate::cli::args in a comment\nuse crate::{cli, runtime};\nlet h = crate::httpish;\nuse crate::http;\nuse crate::http as web;\n";
        assert_eq!(super::imports_against_the_order("runtime", source), vec![(1, "http"), (4, "cli"), (6, "http"), (7, "http")]);
        assert_eq!(super::imports_against_the_order("http", source), vec![(4, "cli")]);
        assert_eq!(super::imports_against_the_order("cli", source), vec![]);
    }

    #[test]
    fn lints_are_expected_not_allowed() {
        super::lints_are_expected_not_allowed().unwrap();
    }

    #[test]
    fn dependencies_come_from_the_workspace() {
        super::dependencies_come_from_the_workspace().unwrap();
    }

    #[test]
    fn a_dependency_by_version_is_found_and_nothing_else() {
        let manifest = "[package]\nversion = \"1\"\n[dependencies]\nserde.workspace = true\n# a comment\ntoml = \"0.9\"\nx = { workspace = true, optional = true }\n[target.'cfg(unix)'.dev-dependencies]\ny = { version = \"1\" }\n[lints]\nworkspace = true\n";
        let found: Vec<usize> = super::dependencies_outside_the_workspace(manifest).into_iter().map(|(line, _)| line).collect();
        assert_eq!(found, vec![6, 9]);
    }

    #[test]
    fn tracker_numbers_are_found_and_nothing_else() {
        let word = concat!("iss", "ue");
        let text = format!("a {word} 39 here\nno {word}s here\nmy{word} 4\n{}S #12\nthe {word}r 3\n", word.to_uppercase());
        assert_eq!(super::tracker_citations(&text), vec![1, 4]);
    }

    #[test]
    fn no_file_cites_a_tracker_number() {
        super::no_tracker_numbers().unwrap();
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
