//! Message templates as the platform approves them, and their numbered placeholders.

use super::{AgentId, LineId, Timestamp};

/// The platform's id of a template.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TemplateId(String);

impl TemplateId {
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The only sendable status.
pub const APPROVED: &str = "APPROVED";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateButton {
    /// `URL`, `QUICK_REPLY`, `PHONE_NUMBER`, `COPY_CODE`… as the platform names it.
    pub kind: String,
    pub text: String,
    /// For `URL` buttons; may hold one `{{1}}` placeholder filled at send time.
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateComponent {
    /// `HEADER`, `BODY`, `FOOTER`, `BUTTONS`… uppercase, as the platform names it.
    pub kind: String,
    /// `TEXT`, `IMAGE`… for headers.
    pub format: Option<String>,
    pub text: Option<String>,
    pub buttons: Vec<TemplateButton>,
}

/// A template as the platform lists it for a business account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateDefinition {
    pub id: TemplateId,
    pub name: String,
    pub language: String,
    /// `APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`… stored as given.
    pub status: String,
    pub category: String,
    pub components: Vec<TemplateComponent>,
}

/// A template synced for one of the agent's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub definition: TemplateDefinition,
    pub agent_id: AgentId,
    pub line_id: LineId,
    /// When Parley first saw it.
    pub created_at: Timestamp,
}

impl Template {
    pub fn is_approved(&self) -> bool {
        self.definition.status == APPROVED
    }

    pub fn component(&self, kind: &str) -> Option<&TemplateComponent> {
        self.definition.components.iter().find(|c| c.kind == kind)
    }
}

/// The distinct numbers of the `{{n}}` placeholders in `text`, ascending.
pub fn placeholders(text: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                if let Some(n) = placeholder_number(&after[..end])
                    && !found.contains(&n)
                {
                    found.push(n);
                }
                rest = &after[end + 2..];
            }
            None => break,
        }
    }
    found.sort_unstable();
    found
}

/// The number of a placeholder from what is between its braces: the platform's `1`, `2`, …
/// (spaces around allowed), never `0`, a sign or a leading zero, which no template holds.
fn placeholder_number(inner: &str) -> Option<u32> {
    let digits = inner.trim();
    let canonical = !digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
    canonical.then(|| digits.parse().ok()).flatten()
}

/// How many parameters `text` needs: as many as its highest placeholder, since the platform
/// fills `{{n}}` with the n-th parameter (its templates number them 1…n without gaps).
pub fn parameter_count(text: &str) -> usize {
    placeholders(text).last().map_or(0, |&n| n as usize)
}

/// `text` with `{{n}}` replaced by `params[n - 1]`; unknown placeholders stay as written.
pub fn fill(text: &str, params: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let value = placeholder_number(&after[..end]).and_then(|n| params.get(n as usize - 1));
                match value {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[start..start + 2 + end + 2]),
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
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
}
