//! The tuning corpus: texts read from Princeton WordNet 3.0's data files (`data.noun`,
//! `data.verb`, `data.adj`, `data.adv`), which `cargo xtask distill` fetches. Each synset gives
//! its definition, its example sentences, its words (multi-word and compound words included,
//! which the token-by-token distillation never sees whole) and its first word glossed by the
//! definition (`raincoat: a water-resistant coat`), where a name meets its description as in a
//! product's text.

use std::collections::HashSet;
use std::path::Path;

/// The parts of speech's data files, in the order they are read.
pub const DATA_FILES: [&str; 4] = ["data.noun", "data.verb", "data.adj", "data.adv"];

/// Every distinct text of the corpus, in file order: definitions, examples and words, each once
/// (compared lowercased: the teacher's tokenizer is uncased).
pub fn read_corpus(dir: &Path) -> Result<Vec<String>, String> {
    let mut texts = Texts::default();
    for name in DATA_FILES {
        let path = dir.join(name);
        let content = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for line in content.lines().filter(|l| !l.starts_with("  ")) {
            let synset = parse_line(line).ok_or_else(|| format!("{}: not a WordNet data line: {line:.80}", path.display()))?;
            let glossed = synset.words.first().zip(synset.definitions.first()).map(|(word, definition)| format!("{word}: {definition}"));
            synset.definitions.into_iter().chain(synset.examples).chain(synset.words).chain(glossed).for_each(|t| texts.add(t));
        }
    }
    Ok(texts.list)
}

#[derive(Default)]
struct Texts {
    seen: HashSet<String>,
    list: Vec<String>,
}

impl Texts {
    fn add(&mut self, text: String) {
        if !text.is_empty() && self.seen.insert(text.to_lowercase()) {
            self.list.push(text);
        }
    }
}

#[derive(Debug, PartialEq)]
struct Synset {
    words: Vec<String>,
    definitions: Vec<String>,
    examples: Vec<String>,
}

/// `offset lex_filenum ss_type w_cnt (word lex_id){w_cnt} … | gloss`, where `w_cnt` is two hex
/// digits and the gloss is definitions and quoted examples separated by `; `.
fn parse_line(line: &str) -> Option<Synset> {
    let (head, gloss) = line.split_once(" | ")?;
    let fields: Vec<&str> = head.split_whitespace().collect();
    let count = usize::from_str_radix(fields.get(3)?, 16).ok()?;
    let words = (0..count).map(|i| fields.get(4 + 2 * i).map(|w| clean_word(w))).collect::<Option<Vec<_>>>()?;
    let (mut definitions, mut examples) = (Vec::new(), Vec::new());
    for part in gloss.trim().split("; ").map(str::trim).filter(|p| !p.is_empty()) {
        match part.strip_prefix('"') {
            Some(example) => examples.push(example.split('"').next().unwrap_or_default().trim().to_string()),
            None => definitions.push(part.to_string()),
        }
    }
    Some(Synset { words, definitions: vec![definitions.join("; ")], examples })
}

/// `laying_waste` → `laying waste`; adjective markers such as `(p)` and `(a)` are dropped.
fn clean_word(word: &str) -> String {
    let word = word.split('(').next().unwrap_or(word);
    word.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noun_line_gives_words_definition_and_examples() {
        let line = "00217593 04 n 02 kill 1 laying_waste 0 002 @ 00217014 n 0000 + 00355365 v 0101 | the destruction of an enemy plane or ship; \"the pilot reported two kills during the mission\"  ";
        let synset = parse_line(line).unwrap();
        assert_eq!(synset.words, ["kill", "laying waste"]);
        assert_eq!(synset.definitions, ["the destruction of an enemy plane or ship"]);
        assert_eq!(synset.examples, ["the pilot reported two kills during the mission"]);
    }

    #[test]
    fn verb_frames_and_adjective_markers_are_not_words() {
        let verb =
            "00060063 29 v 01 abort 1 001 @ 00358431 v 0000 01 + 01 00 | cease development, die, and be aborted; \"an aborting fetus\"  ";
        assert_eq!(parse_line(verb).unwrap().words, ["abort"]);
        let adjective = "00095873 00 s 02 asleep(p) 0 at_peace(p) 2 003 & 00095280 a 0000 | dead; \"he is deceased\"";
        let synset = parse_line(adjective).unwrap();
        assert_eq!(synset.words, ["asleep", "at peace"]);
        assert_eq!(synset.definitions, ["dead"]);
    }

    #[test]
    fn a_line_without_a_gloss_is_refused() {
        assert_eq!(parse_line("00217593 04 n 01 kill 1 000"), None);
        assert_eq!(parse_line("00217593 04 n zz kill 1 000 | gloss"), None);
    }

    #[test]
    fn texts_are_kept_once_ignoring_case() {
        let mut texts = Texts::default();
        ["Coat", "coat", "", "raincoat"].map(String::from).into_iter().for_each(|t| texts.add(t));
        assert_eq!(texts.list, ["Coat", "raincoat"]);
    }
}
