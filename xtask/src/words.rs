//! Holds `docs/architecture.md`'s "Words" table to the code: every name the table gives exists
//! where it says (a type, a module, a crate, an API path or field, a command, a metric), and the
//! inbound side never calls its own types webhooks (that word means Parley's event webhooks).

use std::path::{Path, PathBuf};

use crate::root;

/// One row of the table: the word, and the names in backticks of its code and API columns.
#[derive(Debug, PartialEq)]
pub struct Word {
    pub word: String,
    pub code: Vec<String>,
    pub api: Vec<String>,
}

/// The rows of the `## Words` section's table.
pub fn words_table(architecture: &str) -> Vec<Word> {
    let section = architecture.split("\n## Words").nth(1).and_then(|rest| rest.split("\n## ").next()).unwrap_or_default();
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| word |"))
        .filter_map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let [word, code, api] = cells[..] else { return None };
            Some(Word { word: word.to_string(), code: quoted(code), api: quoted(api) })
        })
        .collect()
}

/// The texts between backticks.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// What a name of the code column must be, if it is a name at all: values (`whatsapp`) and
/// examples (`chn_…`) are not checked.
fn check_code_name(name: &str, sources: &Sources) -> Option<String> {
    if name.contains('…') {
        return None;
    }
    if let Some(krate) = name.strip_prefix("adapters-") {
        let dir = root().join("crates").join(format!("adapters-{krate}"));
        return (!dir.is_dir()).then(|| format!("crate `{name}` (no {})", dir.display()));
    }
    if name.contains("::") {
        let file = name.replace("::", "/");
        let found = sources.files.iter().any(|(path, _)| {
            let path = path.to_string_lossy();
            path.ends_with(&format!("/{file}.rs")) || path.ends_with(&format!("/{file}/mod.rs"))
        });
        return (!found).then(|| format!("module `{name}` (no file {file}.rs)"));
    }
    if name.starts_with(char::is_uppercase) {
        let defined = ["struct", "enum", "trait", "type"].iter().any(|kind| sources.defines(kind, name));
        return (!defined).then(|| format!("type `{name}` (no struct, enum, trait or type of that name)"));
    }
    // A field of the code that the API shows by the same name (`channel_id`).
    let named = sources.files.iter().any(|(_, text)| text.contains(&format!("{name}:")));
    (!named).then(|| format!("field `{name}`"))
}

/// What a name of the API column must be: a path of the OpenAPI document or a platform URL the
/// binary serves, a field the document names, a command of the binary, or a metric it reports.
fn check_api_name(name: &str, sources: &Sources, openapi: &str, commands: &str, metrics: &str) -> Option<String> {
    if name.starts_with("/v1/") {
        return (!openapi.contains(&format!("\"{name}\""))).then(|| format!("path `{name}` (not in docs/openapi.json)"));
    }
    if let Some(platform_urls) = name.strip_suffix("{platform}") {
        let served = sources.files.iter().any(|(_, text)| text.contains(&format!("\"{platform_urls}")));
        return (!served).then(|| format!("URL `{name}` (no route starts with {platform_urls})"));
    }
    if let Some(command) = name.strip_prefix("parley ") {
        let command = command.split_whitespace().next().unwrap_or_default();
        let known = commands.contains(&format!("name = \"{command}\"")) || commands.contains(&format!("alias = \"{command}\""));
        return (!known).then(|| format!("command `{name}` (no command or alias `{command}` in src/cli/args.rs)"));
    }
    if let Some(metric) = name.strip_prefix("parley_") {
        let prefix = metric.trim_end_matches('*');
        return (!metrics.contains(&format!("\"{prefix}"))).then(|| format!("metric `{name}` (not registered in runtime/metrics.rs)"));
    }
    let field = name.trim_end_matches("[]");
    (!openapi.contains(&format!("\"{field}\""))).then(|| format!("field `{name}` (not in docs/openapi.json)"))
}

/// The workspace's Rust sources (`crates/*/src`, with their text).
struct Sources {
    files: Vec<(PathBuf, String)>,
}

impl Sources {
    fn read() -> Result<Self, String> {
        let mut paths = Vec::new();
        let crates = root().join("crates");
        for entry in std::fs::read_dir(&crates).map_err(|e| format!("cannot read {}: {e}", crates.display()))?.flatten() {
            crate::files::rust_files(&entry.path().join("src"), &mut paths);
        }
        let files = paths
            .into_iter()
            .map(|p| std::fs::read_to_string(&p).map(|text| (p.clone(), text)).map_err(|e| format!("cannot read {}: {e}", p.display())))
            .collect::<Result<_, _>>()?;
        Ok(Self { files })
    }

    fn defines(&self, kind: &str, name: &str) -> bool {
        self.files.iter().any(|(_, text)| type_names(text, kind).any(|defined| defined == name))
    }
}

/// The names of the items of `kind` (`struct`, `enum`…) defined in `source`.
fn type_names<'a>(source: &'a str, kind: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    source.lines().filter_map(move |line| {
        let line = line.trim_start();
        let line = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
        let rest = line.strip_prefix(kind)?.strip_prefix(' ')?;
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        Some(&rest[..end])
    })
}

/// Where the inbound side lives: platform deliveries in, whatever their transport.
fn is_inbound_side(path: &Path) -> bool {
    let path = path.to_string_lossy();
    ["/adapters-whatsapp/", "/adapters-email/", "/inbound"].iter().any(|part| path.contains(part))
}

pub fn words_hold() -> Result<(), String> {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).map_err(|e| format!("cannot read {path}: {e}"));
    let architecture = read("docs/architecture.md")?;
    let openapi = read("docs/openapi.json")?;
    let commands = read("crates/api-actix/src/cli/args.rs")?;
    let metrics = read("crates/api-actix/src/runtime/metrics.rs")?;
    let sources = Sources::read()?;
    let words = words_table(&architecture);
    let mut problems = Vec::new();
    if words.len() < 5 {
        problems.push(format!("  the Words table has {} rows: it could not be read", words.len()));
    }
    for word in &words {
        let code = word.code.iter().filter_map(|n| check_code_name(n, &sources));
        let api = word.api.iter().filter_map(|n| check_api_name(n, &sources, &openapi, &commands, &metrics));
        problems.extend(code.chain(api).map(|p| format!("  \"{}\": {p}", word.word)));
    }
    for (path, text) in sources.files.iter().filter(|(path, _)| is_inbound_side(path)) {
        for kind in ["struct", "enum", "trait", "type"] {
            for name in type_names(text, kind).filter(|n| n.contains("Webhook")) {
                let shown = path.strip_prefix(root()).unwrap_or(path).display();
                problems.push(format!("  {shown}: `{name}` is on the inbound side: \"webhook\" means Parley's event webhooks"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("docs/architecture.md's Words table and the code disagree:\n{}", problems.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_table_holds_to_the_code() {
        words_hold().unwrap();
    }

    #[test]
    fn a_row_gives_its_word_and_the_names_of_each_column() {
        let doc = "# A\n\n## Words\n\n| word | in the code | in the API |\n|---|---|---|\n| line | a number (`Line`, ids `chn_…`) | `/v1/lines`, `parley lines` |\n\n## Next\n| x | `Y` | `z` |\n";
        let words = words_table(doc);
        assert_eq!(
            words,
            [Word {
                word: "line".into(), code: vec!["Line".into(), "chn_…".into()], api: vec!["/v1/lines".into(), "parley lines".into()]
            }]
        );
    }

    #[test]
    fn names_that_do_not_exist_are_found() {
        let sources = Sources { files: vec![(PathBuf::from("/x/src/inbound.rs"), "pub struct Line {\n    line_id: String,\n}\n".into())] };
        assert_eq!(check_code_name("Line", &sources), None);
        assert!(check_code_name("Lane", &sources).is_some());
        assert_eq!(check_code_name("line_id", &sources), None);
        assert!(check_code_name("lane_id", &sources).is_some());
        assert_eq!(check_code_name("chn_…", &sources), None);
        let openapi = r#"{"paths": {"/v1/lines/{line_id}/templates": {}}, "channel_type": 1}"#;
        let commands = "#[command(name = \"inbound\", visible_alias = \"webhooks\")]";
        let metrics = "gauge(&mut registry, \"inbound_backlog\"";
        assert_eq!(check_api_name("/v1/lines/{line_id}/templates", &sources, openapi, commands, metrics), None);
        assert!(check_api_name("/v1/lanes/{line_id}/templates", &sources, openapi, commands, metrics).is_some());
        assert_eq!(check_api_name("parley webhooks …", &sources, openapi, commands, metrics), None);
        assert!(check_api_name("parley hooks", &sources, openapi, commands, metrics).is_some());
        assert_eq!(check_api_name("parley_inbound_*", &sources, openapi, commands, metrics), None);
        assert!(check_api_name("parley_outbound_*", &sources, openapi, commands, metrics).is_some());
        assert_eq!(check_api_name("channel_type", &sources, openapi, commands, metrics), None);
        assert!(check_api_name("lane_type", &sources, openapi, commands, metrics).is_some());
    }
}
