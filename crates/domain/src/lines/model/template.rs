//! Message templates as the platform approves them.

use crate::model::{AgentId, LineId, Timestamp};

/// The platform's id of a template.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TemplateId(String);

impl TemplateId {
    /// Wraps a template id as the platform gives it or a caller sends it (no check): an unknown one
    /// matches nothing.
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The only sendable status.
pub const APPROVED: &str = "APPROVED";

/// How a template's placeholders are written: `{{1}}` or `{{first_name}}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterFormat {
    /// `{{1}}`, `{{2}}`…, filled by the n-th parameter. The platform's default.
    #[default]
    Positional,
    /// `{{first_name}}`…, filled by the parameter of that `parameter_name`.
    Named,
}

impl ParameterFormat {
    /// Both formats.
    pub const ALL: [ParameterFormat; 2] = [Self::Positional, Self::Named];

    /// The platform's name: `POSITIONAL` or `NAMED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Positional => "POSITIONAL",
            Self::Named => "NAMED",
        }
    }

    /// The platform's name, any case; anything else (or nothing) is the default, positional.
    pub fn parse(raw: Option<&str>) -> Self {
        match raw {
            Some(s) if s.eq_ignore_ascii_case("NAMED") => Self::Named,
            _ => Self::Positional,
        }
    }
}

/// A button of a template's `BUTTONS` component, as the platform lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateButton {
    /// `URL`, `QUICK_REPLY`, `PHONE_NUMBER`, `COPY_CODE`, `OTP`, `FLOW`, `CATALOG`… as the
    /// platform names it.
    pub kind: String,
    /// The label the recipient sees.
    pub text: String,
    /// For `URL` buttons; may hold one `{{1}}` placeholder filled at send time.
    pub url: Option<String>,
    /// For `PHONE_NUMBER` buttons.
    pub phone_number: Option<String>,
    /// For `OTP` buttons: `COPY_CODE`, `ONE_TAP` or `ZERO_TAP`.
    pub otp_type: Option<String>,
}

/// One part of a template (header, body, footer, buttons), as the platform lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateComponent {
    /// `HEADER`, `BODY`, `FOOTER`, `BUTTONS`… uppercase, as the platform names it.
    pub kind: String,
    /// `TEXT`, `IMAGE`… for headers.
    pub format: Option<String>,
    /// Its text, with placeholders; `None` for a part without text (media headers, buttons).
    pub text: Option<String>,
    /// A `BUTTONS` component's buttons, in order; empty for other kinds.
    pub buttons: Vec<TemplateButton>,
}

/// A template as the platform lists it for a business account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateDefinition {
    /// The platform's id, unique per business account; lines sharing an account hold the same one.
    pub id: TemplateId,
    /// Its name, which sends use with `language`.
    pub name: String,
    /// Its language code (`en_US`).
    pub language: String,
    /// `APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`… stored as given.
    pub status: String,
    /// The platform's category (`MARKETING`, `UTILITY`, `AUTHENTICATION`…), as given.
    pub category: String,
    /// How its placeholders are written.
    pub parameter_format: ParameterFormat,
    /// Its parts, in the platform's order.
    pub components: Vec<TemplateComponent>,
}

/// A template synced for one of the agent's lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Template {
    /// The template as the platform last listed it.
    pub definition: TemplateDefinition,
    /// The agent whose line it belongs to.
    pub agent_id: AgentId,
    /// The line it was synced for.
    pub line_id: LineId,
    /// When Parley first saw it.
    pub created_at: Timestamp,
}

impl Template {
    /// Whether it can be sent: its status is [`APPROVED`].
    pub fn is_approved(&self) -> bool {
        self.definition.status == APPROVED
    }

    /// Its first part of `kind` (`HEADER`, `BODY`…, exact case), if any.
    pub fn component(&self, kind: &str) -> Option<&TemplateComponent> {
        self.definition.components.iter().find(|c| c.kind == kind)
    }
}
