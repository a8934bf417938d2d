//! A template's placeholders, as the platform writes them: `{{1}}`, `{{2}}`… in positional
//! templates, `{{first_name}}`… in named ones. Anything else between braces is plain text.

/// One placeholder: its number or its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholder<'a> {
    /// `{{1}}`, `{{2}}`…: a positional template's, from 1.
    Number(u32),
    /// `{{first_name}}`…: a named template's.
    Name(&'a str),
}

/// What is between a placeholder's braces: the platform's `1`, `2`, … (never `0`, a sign or a
/// leading zero, which no template holds) or a name of lowercase letters, digits and
/// underscores that starts with a letter or an underscore. Spaces around either are allowed.
fn parse(inner: &str) -> Option<Placeholder<'_>> {
    let inner = inner.trim();
    let first = *inner.as_bytes().first()?;
    if first.is_ascii_digit() {
        let canonical = first != b'0' && inner.bytes().all(|b| b.is_ascii_digit());
        return canonical.then(|| inner.parse().ok().map(Placeholder::Number)).flatten();
    }
    let name =
        (first == b'_' || first.is_ascii_lowercase()) && inner.bytes().all(|b| b == b'_' || b.is_ascii_lowercase() || b.is_ascii_digit());
    name.then_some(Placeholder::Name(inner))
}

/// A run of `text`: literal text, or `{{…}}` with what it names (if it names anything).
enum Piece<'a> {
    Literal(&'a str),
    Braced { raw: &'a str, placeholder: Option<Placeholder<'a>> },
}

/// Calls `visit` on each piece of `text`, in order; an unclosed `{{` is literal.
fn scan<'a>(text: &'a str, mut visit: impl FnMut(Piece<'a>)) {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        visit(Piece::Literal(&rest[..start]));
        visit(Piece::Braced { raw: &rest[start..start + 2 + end + 2], placeholder: parse(&after[..end]) });
        rest = &after[end + 2..];
    }
    visit(Piece::Literal(rest));
}

/// Every placeholder of `text`, in order of appearance, repeats included.
fn all(text: &str) -> Vec<Placeholder<'_>> {
    let mut found = Vec::new();
    scan(text, |piece| {
        if let Piece::Braced { placeholder: Some(p), .. } = piece {
            found.push(p);
        }
    });
    found
}

/// The distinct numbers of the `{{n}}` placeholders in `text`, ascending.
pub fn placeholders(text: &str) -> Vec<u32> {
    let mut numbers: Vec<u32> = all(text)
        .into_iter()
        .filter_map(|p| match p {
            Placeholder::Number(n) => Some(n),
            Placeholder::Name(_) => None,
        })
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The distinct names of the `{{name}}` placeholders in `text`, in order of first appearance.
pub fn placeholder_names(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for p in all(text) {
        if let Placeholder::Name(name) = p
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// How many parameters `text` needs: as many as its highest placeholder, since the platform
/// fills `{{n}}` with the n-th parameter (its templates number them 1…n without gaps).
pub fn parameter_count(text: &str) -> usize {
    placeholders(text).last().map_or(0, |&n| n as usize)
}

/// `text` with each placeholder replaced by what `value` gives for it; placeholders without a
/// value stay as written.
pub fn fill_with<'v>(text: &str, value: impl Fn(Placeholder<'_>) -> Option<&'v str>) -> String {
    let mut out = String::with_capacity(text.len());
    scan(text, |piece| match piece {
        Piece::Literal(s) => out.push_str(s),
        Piece::Braced { raw, placeholder } => out.push_str(placeholder.and_then(&value).unwrap_or(raw)),
    });
    out
}

/// `text` with `{{n}}` replaced by `params[n - 1]`; other placeholders stay as written.
pub fn fill(text: &str, params: &[String]) -> String {
    fill_with(text, |p| match p {
        Placeholder::Number(n) => params.get(n as usize - 1).map(String::as_str),
        Placeholder::Name(_) => None,
    })
}

/// `text` with `{{name}}` replaced by the value paired with `name`; other placeholders stay.
pub fn fill_named(text: &str, params: &[(String, String)]) -> String {
    fill_with(text, |p| match p {
        Placeholder::Name(name) => params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()),
        Placeholder::Number(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_distinct_numbers_in_order() {
        assert_eq!(placeholders("Hi {{1}}, your order {{2}} ships {{ 3 }}; {{1}} again"), [1, 2, 3]);
        assert_eq!(placeholders("No params, {{name}} or {{0}} or {{"), Vec::<u32>::new());
        assert_eq!(parameter_count("{{2}} then {{1}}"), 2);
        assert_eq!(parameter_count("only {{2}}"), 2, "the second parameter fills it");
        assert_eq!(placeholders("{{01}} {{+1}} {{1x}} {{ }} {{99999999999}}"), Vec::<u32>::new(), "not numbers a template writes");
        assert_eq!(fill("{{01}} {{+1}} {{2}}", &["a".into(), "b".into()]), "{{01}} {{+1}} b", "filled as counted");
    }

    #[test]
    fn fill_replaces_each_placeholder_and_leaves_the_rest() {
        let params = vec!["Ana".to_string(), "A-17".to_string()];
        assert_eq!(fill("Hi {{1}}, order {{2}} for {{1}}.", &params), "Hi Ana, order A-17 for Ana.");
        assert_eq!(fill("{{3}} stays, {{x}} too, and {{ unclosed", &params), "{{3}} stays, {{x}} too, and {{ unclosed");
        assert_eq!(fill("ÿ {{1}} ü", &params), "ÿ Ana ü", "multibyte text is kept intact");
    }

    #[test]
    fn named_placeholders_are_lowercase_names_in_order_of_appearance() {
        assert_eq!(placeholder_names("Hi {{first_name}}, order {{ order_2 }} for {{first_name}} {{_x}}"), ["first_name", "order_2", "_x"]);
        assert_eq!(placeholder_names("{{First}} {{first-name}} {{1}} {{a b}} {{}}"), Vec::<&str>::new(), "not names a template writes");
        assert_eq!(placeholders("{{first_name}} {{2}}"), [2], "numbers and names are told apart");
    }

    #[test]
    fn fill_named_replaces_by_name_and_leaves_numbers() {
        let params = vec![("first_name".to_string(), "Ana".to_string())];
        assert_eq!(fill_named("Hi {{first_name}} ({{ first_name }}), {{1}} {{other}}", &params), "Hi Ana (Ana), {{1}} {{other}}");
    }
}
