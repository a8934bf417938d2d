//! The domain speaks of messages, lines and channels, never of one platform's wire format: each
//! platform's parsing, signing and sending lives in its adapter. This test reads every file of
//! the crate and fails on a word that belongs to a platform's wire.

use std::path::Path;

/// Words of the platforms' wires, matched without regard to case.
const ANY_CASE: &[&str] = &[
    "wamid",
    "messaging_product",
    "x-hub-signature",
    "hub.challenge",
    "hub.verify_token",
    "graph.facebook.com",
    "nfm_reply",
    "response_json",
    "rfc822",
    "rfc 5322",
];
/// Protocol names, matched as written (`mime_type` is the API's own field).
const AS_WRITTEN: &[&str] = &["MIME", "SMTP", "IMAP"];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the crate's folders are readable") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml" || e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn no_file_of_the_domain_holds_a_platforms_wire_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut all = Vec::new();
    for dir in ["src", "tests"] {
        files(&root.join(dir), &mut all);
    }
    all.push(root.join("Cargo.toml"));
    assert!(all.len() > 40, "the walk found the crate's files: {}", all.len());
    let this_file = Path::new(file!()).file_name().expect("a file name");
    for path in all.iter().filter(|p| p.file_name() != Some(this_file)) {
        let text = std::fs::read_to_string(path).expect("a text file");
        let lower = text.to_lowercase();
        for word in ANY_CASE.iter().filter(|w| lower.contains(*w)) {
            found.push(format!("{}: {word}", path.display()));
        }
        for word in AS_WRITTEN.iter().filter(|w| text.contains(*w)) {
            found.push(format!("{}: {word}", path.display()));
        }
    }
    assert!(found.is_empty(), "platform words in the domain (move them to the platform's adapter):\n{}", found.join("\n"));
}
