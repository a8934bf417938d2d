//! Reading catalog files: a JSON array of products or JSON Lines (one product per line),
//! each row tagged with the line it starts on, so every bad row can be reported by line.

use parley_domain::model::ProductRecord;
use serde_json::value::RawValue;

pub type Row = (usize, Result<ProductRecord, String>);

/// Parses `content` into rows. A file that is not even valid JSON of either shape yields one
/// error row at the line where parsing stopped.
pub fn parse(content: &str) -> Vec<Row> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    if content.trim_start().starts_with('[') { parse_array(content) } else { parse_lines(content) }
}

fn parse_array(content: &str) -> Vec<Row> {
    let items: Vec<&RawValue> = match serde_json::from_str(content) {
        Ok(items) => items,
        Err(e) => return vec![(e.line().max(1), Err(format!("the file is not a valid JSON array: {}", message(&e))))],
    };
    items
        .into_iter()
        .map(|raw| {
            let offset = raw.get().as_ptr() as usize - content.as_ptr() as usize;
            let line = 1 + content[..offset].bytes().filter(|&b| b == b'\n').count();
            (line, record(raw.get()))
        })
        .collect()
}

fn parse_lines(content: &str) -> Vec<Row> {
    content.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, record(l))).collect()
}

fn record(json: &str) -> Result<ProductRecord, String> {
    serde_json::from_str(json).map_err(|e| message(&e))
}

/// serde's message without its position, which is relative to the row, not the file.
fn message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"_id":"a","kind":"product","title":"A","currency":"USD","base_price":1}"#;

    #[test]
    fn json_lines_rows_carry_their_line_numbers() {
        let rows = parse(&format!("{GOOD}\n\n{{\"_id\": 5}}\nnot json\n"));
        let lines: Vec<usize> = rows.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 3, 4]);
        assert!(rows[0].1.is_ok());
        assert!(rows[1].1.as_ref().unwrap_err().contains("invalid type"));
        assert!(!rows[2].1.as_ref().unwrap_err().contains("at line"), "positions inside a row are dropped");
    }

    #[test]
    fn array_rows_carry_the_line_they_start_on() {
        let rows = parse(&format!("[\n  {GOOD},\n  {{\"_id\": \"b\",\n    \"kind\": \"x\"}},\n  {GOOD}\n]"));
        assert_eq!(rows.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [2, 3, 5]);
        assert!(rows[1].1.is_err(), "missing fields are reported");
    }

    #[test]
    fn a_broken_array_is_one_error_at_its_line() {
        let rows = parse("[\n{\"_id\": \"a\"},\n{oops}\n]");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].0, 3);
    }
}
