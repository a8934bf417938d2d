//! A template send, checked against its template: every placeholder gets exactly its parameter.

use super::contact::phone_digits;
use super::template::{Template, fill, parameter_count};
use crate::FieldError;
use crate::error::Violations;

/// One parameter as sent: `{"type": "text", "text": …}` (buttons also take `payload`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParameterInput {
    pub kind: Option<String>,
    pub text: Option<String>,
    pub payload: Option<String>,
}

/// One component as sent, in the platform's business message format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComponentInput {
    /// `header`, `body` or `button`.
    pub kind: Option<String>,
    /// Buttons: `quick_reply` or `url`.
    pub sub_type: Option<String>,
    /// Buttons: which button of the template, 0–9.
    pub index: Option<i64>,
    pub parameters: Option<Vec<ParameterInput>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParameterValue {
    Text(String),
    Payload(String),
}

impl ParameterValue {
    pub fn value(&self) -> &str {
        match self {
            ParameterValue::Text(t) | ParameterValue::Payload(t) => t,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageComponent {
    Header(Vec<ParameterValue>),
    Body(Vec<ParameterValue>),
    Button { sub_type: String, index: u8, parameters: Vec<ParameterValue> },
}

/// A message ready for the platform: the recipient, the template and its filled components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateMessage {
    /// Digits only, with country code.
    pub to: String,
    pub template_name: String,
    pub language: String,
    pub components: Vec<MessageComponent>,
    /// HEADER, BODY and FOOTER texts with placeholders filled, joined by a blank line.
    pub parsed_message: String,
}

/// Parameters of one text parameter list, each 1–1024 characters.
fn parameters(field: &str, input: Option<Vec<ParameterInput>>, allow_payload: bool, v: &mut Violations) -> Vec<ParameterValue> {
    let mut out = Vec::new();
    for (i, p) in input.unwrap_or_default().into_iter().enumerate() {
        let at = format!("{field}.parameters[{i}]");
        let value = match (p.kind.as_deref(), p.text, p.payload) {
            (Some("text"), Some(t), None) => Some(ParameterValue::Text(t)),
            (Some("payload"), None, Some(t)) if allow_payload => Some(ParameterValue::Payload(t)),
            _ => {
                let expected = if allow_payload {
                    "{\"type\":\"text\",\"text\":…} or {\"type\":\"payload\",\"payload\":…}"
                } else {
                    "{\"type\":\"text\",\"text\":…}"
                };
                v.push(FieldError::new(&at, format!("must be {expected}")));
                None
            }
        };
        if let Some(value) = value {
            if value.value().is_empty() || value.value().chars().count() > 1024 {
                v.push(FieldError::new(at, "must be 1 to 1024 characters"));
            } else if !super::text::free_text(value.value()) {
                v.push(FieldError::new(at, "must not contain control characters"));
            } else {
                out.push(value);
            }
        }
    }
    out
}

fn expect_count(field: &str, got: usize, want: usize, v: &mut Violations) {
    if got != want {
        v.push(FieldError::new(field, format!("the template needs {want} parameter(s) here, got {got}")));
    }
}

impl TemplateMessage {
    /// Checks `components` against `template` and renders the message.
    pub fn build(template: &Template, to: Option<&str>, components: Option<Vec<ComponentInput>>) -> Result<Self, Vec<FieldError>> {
        let mut v = Violations::default();
        let to = match to {
            Some(raw) => v.check(phone_digits(raw, "to")),
            None => {
                v.push(FieldError::new("to", "is required"));
                None
            }
        };
        let header_text = template.component("HEADER").and_then(|c| c.text.clone()).unwrap_or_default();
        let body_text = template.component("BODY").and_then(|c| c.text.clone()).unwrap_or_default();
        let buttons = template.component("BUTTONS").map(|c| c.buttons.clone()).unwrap_or_default();

        let mut header = None;
        let mut body = None;
        let mut button_params: Vec<(u8, String, Vec<ParameterValue>)> = Vec::new();
        for (i, c) in components.unwrap_or_default().into_iter().enumerate() {
            let field = format!("components[{i}]");
            match c.kind.as_deref() {
                Some("header") if header.is_none() => header = Some((field.clone(), parameters(&field, c.parameters, false, &mut v))),
                Some("body") if body.is_none() => body = Some((field.clone(), parameters(&field, c.parameters, false, &mut v))),
                Some("header" | "body") => v.push(FieldError::new(format!("{field}.type"), "appears twice")),
                Some("button") => {
                    let index = match c.index {
                        Some(n) if (0..buttons.len() as i64).contains(&n) => Some(n as u8),
                        _ => {
                            v.push(FieldError::new(
                                format!("{field}.index"),
                                format!("must name one of the template's {} button(s), from 0", buttons.len()),
                            ));
                            None
                        }
                    };
                    let sub_type = match c.sub_type.as_deref() {
                        Some(s @ ("quick_reply" | "url")) => Some(s.to_string()),
                        _ => {
                            v.push(FieldError::new(format!("{field}.sub_type"), "must be quick_reply or url"));
                            None
                        }
                    };
                    let params = parameters(&field, c.parameters, true, &mut v);
                    if let (Some(index), Some(sub_type)) = (index, sub_type) {
                        if button_params.iter().any(|(n, _, _)| *n == index) {
                            v.push(FieldError::new(format!("{field}.index"), "names a button twice"));
                        } else {
                            let need = buttons[index as usize].url.as_deref().map_or(0, parameter_count);
                            if sub_type == "url" {
                                expect_count(&field, params.len(), need, &mut v);
                            }
                            button_params.push((index, sub_type, params));
                        }
                    }
                }
                _ => v.push(FieldError::new(format!("{field}.type"), "must be header, body or button")),
            }
        }

        // Every placeholder of the template must be given its parameter.
        for (kind, text, given) in [("header", &header_text, &header), ("body", &body_text, &body)] {
            let need = parameter_count(text);
            match given {
                Some((field, params)) => expect_count(field, params.len(), need, &mut v),
                None if need > 0 => v.push(FieldError::new("components", format!("the {kind} needs {need} parameter(s)"))),
                None => {}
            }
        }
        for (i, b) in buttons.iter().enumerate() {
            let need = b.url.as_deref().map_or(0, parameter_count);
            if need > 0 && !button_params.iter().any(|(n, _, _)| *n as usize == i) {
                v.push(FieldError::new("components", format!("button {i} needs {need} parameter(s)")));
            }
        }
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(errors);
        }

        let values = |p: &[ParameterValue]| p.iter().map(|x| x.value().to_string()).collect::<Vec<_>>();
        let header_params = header.as_ref().map(|(_, p)| values(p)).unwrap_or_default();
        let body_params = body.as_ref().map(|(_, p)| values(p)).unwrap_or_default();
        let footer_text = template.component("FOOTER").and_then(|c| c.text.clone()).unwrap_or_default();
        let parsed_message = [fill(&header_text, &header_params), fill(&body_text, &body_params), footer_text]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");

        let mut components = Vec::new();
        if let Some((_, p)) = header {
            components.push(MessageComponent::Header(p));
        }
        if let Some((_, p)) = body {
            components.push(MessageComponent::Body(p));
        }
        button_params.sort_by_key(|(i, _, _)| *i);
        components.extend(button_params.into_iter().map(|(index, sub_type, parameters)| MessageComponent::Button {
            sub_type,
            index,
            parameters,
        }));
        Ok(Self {
            to: to.expect("validated"),
            template_name: template.definition.name.clone(),
            language: template.definition.language.clone(),
            components,
            parsed_message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentId, LineId, TemplateButton, TemplateComponent, TemplateDefinition, TemplateId};

    fn component(kind: &str, text: Option<&str>, buttons: Vec<TemplateButton>) -> TemplateComponent {
        TemplateComponent { kind: kind.into(), format: text.map(|_| "TEXT".into()), text: text.map(Into::into), buttons }
    }

    fn template() -> Template {
        Template {
            definition: TemplateDefinition {
                id: TemplateId::new("1"),
                name: "order_update".into(),
                language: "en_US".into(),
                status: "APPROVED".into(),
                category: "UTILITY".into(),
                components: vec![
                    component("HEADER", Some("Order {{1}}"), vec![]),
                    component("BODY", Some("Hi {{1}}, your order ships on {{2}}."), vec![]),
                    component("FOOTER", Some("Reply STOP to opt out"), vec![]),
                    component(
                        "BUTTONS",
                        None,
                        vec![
                            TemplateButton { kind: "URL".into(), text: "Track".into(), url: Some("https://shop.example/t/{{1}}".into()) },
                            TemplateButton { kind: "QUICK_REPLY".into(), text: "Thanks".into(), url: None },
                        ],
                    ),
                ],
            },
            agent_id: AgentId::new("agt"),
            line_id: LineId::new("chn"),
            created_at: chrono::Utc::now(),
        }
    }

    fn text(t: &str) -> ParameterInput {
        ParameterInput { kind: Some("text".into()), text: Some(t.into()), payload: None }
    }

    fn comp(kind: &str, params: Vec<ParameterInput>) -> ComponentInput {
        ComponentInput { kind: Some(kind.into()), parameters: Some(params), ..Default::default() }
    }

    fn url_button(index: i64, param: &str) -> ComponentInput {
        ComponentInput {
            kind: Some("button".into()),
            sub_type: Some("url".into()),
            index: Some(index),
            parameters: Some(vec![text(param)]),
        }
    }

    #[test]
    fn a_complete_send_renders_header_body_and_footer() {
        let m = TemplateMessage::build(
            &template(),
            Some("+1 415-555-0100"),
            Some(vec![comp("header", vec![text("A-17")]), comp("body", vec![text("Ana"), text("Friday")]), url_button(0, "A-17")]),
        )
        .unwrap();
        assert_eq!(m.to, "14155550100");
        assert_eq!(m.parsed_message, "Order A-17\n\nHi Ana, your order ships on Friday.\n\nReply STOP to opt out");
        assert_eq!(m.components.len(), 3);
    }

    #[test]
    fn every_missing_or_extra_parameter_is_named() {
        let errors = TemplateMessage::build(&template(), Some("123"), Some(vec![comp("body", vec![text("Ana")]), comp("footer", vec![])]))
            .unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["to", "components[1].type", "components", "components[0]", "components"], "in template order");
        assert!(errors[2].issue.contains("header needs 1"));
        assert!(errors[3].issue.contains("needs 2"));
        assert!(errors[4].issue.contains("button 0 needs 1"));
    }

    #[test]
    fn buttons_are_checked_by_index_and_sub_type() {
        let bad = ComponentInput { kind: Some("button".into()), sub_type: Some("call".into()), index: Some(5), parameters: None };
        let errors = TemplateMessage::build(
            &template(),
            Some("14155550100"),
            Some(vec![comp("header", vec![text("A")]), comp("body", vec![text("a"), text("b")]), url_button(0, "x"), bad]),
        )
        .unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["components[3].index", "components[3].sub_type"]);
    }

    #[test]
    fn parameters_must_be_typed_text() {
        let odd = ParameterInput { kind: Some("currency".into()), text: Some("5".into()), payload: None };
        let errors = TemplateMessage::build(&template(), Some("14155550100"), Some(vec![comp("header", vec![odd])])).unwrap_err();
        assert_eq!(errors[0].field, "components[0].parameters[0]");
    }
}
