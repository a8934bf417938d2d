//! A template send, checked against its template before anything is spent: every placeholder
//! gets exactly its parameter, every parameter is of a kind its place takes, and a template
//! Parley cannot check is refused whole.

mod button;
mod input;
mod parameter;
#[cfg(test)]
mod rich_tests;

pub use button::ButtonSubType;
pub use input::*;
pub use parameter::{HeaderMedia, HeaderMediaKind, MediaSource, Parameter, ParameterValue};

use self::button::{ButtonRule, describe, rule};
use self::parameter::{Slot, one_of, parse};
use crate::FieldError;
use crate::error::Violations;
use crate::model::contact::{Channel, ChannelType};
use crate::model::placeholder::{fill, fill_named, parameter_count, placeholder_names};
use crate::model::template::{ParameterFormat, Template, TemplateButton, TemplateComponent};

/// One filled component of a template message, as the platform takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageComponent {
    /// The header's parameters: its text placeholders' values, or its one media or location.
    Header(Vec<Parameter>),
    /// The body's parameters, one per placeholder.
    Body(Vec<Parameter>),
    /// One button's parameter, by the button's place in the template.
    Button {
        /// How the platform names the button's kind.
        sub_type: ButtonSubType,
        /// Which of the template's buttons, from 0.
        index: u8,
        /// At most one parameter (none for a flow button, opened with its defaults).
        parameters: Vec<Parameter>,
    },
}

/// A message ready for the platform: the recipient, the template and its filled components.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateMessage {
    /// The recipient: a phone number's digits, with country code, or a business-scoped user id
    /// (a user who hides their phone).
    pub to: String,
    /// The template's name, as the platform lists it.
    pub template_name: String,
    /// The template's language code (`en_US`).
    pub language: String,
    /// The filled components: the header, the body, then buttons by index.
    pub components: Vec<MessageComponent>,
    /// HEADER, BODY and FOOTER texts with placeholders filled, joined by a blank line.
    pub parsed_message: String,
    /// Whether the template's category is MARKETING as Parley last heard: the platform takes
    /// marketing templates through its Marketing Messages API, the others as any message.
    pub marketing: bool,
}

/// Why a send cannot go out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendRefusal {
    /// The request is incomplete or wrong: every problem, by field.
    Invalid(Vec<FieldError>),
    /// The template, or this send of it, holds a kind Parley cannot check yet; the error names it.
    Unsupported(FieldError),
}

/// Where a header's parameters go, by the header's format; `None` for a format Parley cannot check.
fn header_slot(header: &TemplateComponent) -> Option<Slot> {
    let format = header.format.as_deref().map(str::to_ascii_uppercase);
    match format.as_deref() {
        None | Some("TEXT") => Some(Slot::HeaderText),
        Some("IMAGE") => Some(Slot::HeaderMedia(HeaderMediaKind::Image)),
        Some("VIDEO") => Some(Slot::HeaderMedia(HeaderMediaKind::Video)),
        Some("DOCUMENT") => Some(Slot::HeaderMedia(HeaderMediaKind::Document)),
        Some("LOCATION") => Some(Slot::HeaderLocation),
        Some(_) => None,
    }
}

/// The first part of `template` whose sends Parley cannot check (a carousel, a limited-time
/// offer, a header or button kind it does not know), named by its place in the template.
fn unsupported_part(template: &Template) -> Option<FieldError> {
    for (i, c) in template.definition.components.iter().enumerate() {
        let at = format!("template.components[{i}]");
        match c.kind.as_str() {
            "HEADER" if header_slot(c).is_none() => {
                return Some(FieldError::new(at, format!("a {} header", c.format.as_deref().unwrap_or_default())));
            }
            "HEADER" | "BODY" | "FOOTER" => {}
            "BUTTONS" => {
                if let Some((j, b)) = c.buttons.iter().enumerate().find(|(_, b)| rule(b).is_none()) {
                    return Some(FieldError::new(format!("{at}.buttons[{j}]"), format!("a {} button", b.kind)));
                }
            }
            other => return Some(FieldError::new(at, format!("a {other} component"))),
        }
    }
    None
}

/// How the placeholders of one text part (the header or the body) are filled.
struct TextPart<'a> {
    part: &'static str,
    text: &'a str,
    named: bool,
}

impl TextPart<'_> {
    fn names(&self) -> Vec<&str> {
        placeholder_names(self.text)
    }
}

/// One component's parameters for `slot`. In a named template the header's and the body's
/// carry the `parameter_name` of a placeholder of `part`, each once; elsewhere none does.
fn parameters(
    field: &str,
    inputs: Option<Vec<ParameterInput>>,
    slot: Slot,
    part: Option<&TextPart>,
    v: &mut Violations,
) -> (usize, Vec<Parameter>) {
    let inputs = inputs.unwrap_or_default();
    let given = inputs.len();
    let names = part.filter(|p| p.named).map(TextPart::names);
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, input) in inputs.into_iter().enumerate() {
        let at = format!("{field}.parameters[{i}]");
        let name_at = format!("{at}.parameter_name");
        match (&names, input.parameter_name.as_deref()) {
            (Some(_), None) => v.push(FieldError::new(name_at, "is required: this template's placeholders are named")),
            (Some(names), Some(name)) if !names.contains(&name) => {
                let part = part.map_or("", |p| p.part);
                let has = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                v.push(FieldError::new(name_at, format!("`{name}` is not a placeholder of the {part}, which has {has}")));
            }
            (Some(_), Some(name)) if seen.iter().any(|s| s == name) => v.push(FieldError::new(name_at, format!("names `{name}` twice"))),
            (Some(_), Some(name)) => seen.push(name.to_string()),
            (None, Some(_)) if part.is_some() => {
                v.push(FieldError::new(name_at, "is for templates with named placeholders; this one numbers them ({{1}})"))
            }
            (None, Some(_)) => v.push(FieldError::new(name_at, "is for the header and body of templates with named placeholders")),
            (None, None) => {}
        }
        if let Some(p) = parse(&at, input, slot, v) {
            out.push(p);
        }
    }
    (given, out)
}

/// A component given `got` parameters where the template takes `want`: the error names the
/// exact parameter, the first extra one (`components[i].parameters[want]`) or the first missing
/// one (`components[i].parameters[got]`, where it belongs).
fn expect_count(field: &str, got: usize, want: usize, v: &mut Violations) {
    if got > want {
        v.push(FieldError::new(
            format!("{field}.parameters[{want}]"),
            format!("is extra: the template needs {want} parameter(s) here, got {got}"),
        ));
    } else if got < want {
        v.push(FieldError::new(
            format!("{field}.parameters[{got}]"),
            format!("is required: the template needs {want} parameter(s) here, got {got}"),
        ));
    }
}

/// Every placeholder of a text part has its parameter: by count when numbered, by name when named.
fn check_placeholders(part: &TextPart, given: Option<&(String, usize, Vec<Parameter>)>, v: &mut Violations) {
    if part.named {
        let names = part.names();
        let missing: Vec<&str> =
            names.iter().copied().filter(|n| !given.is_some_and(|(_, _, ps)| ps.iter().any(|p| p.name.as_deref() == Some(n)))).collect();
        if !missing.is_empty() {
            let field = given.map_or_else(|| "components".to_string(), |(f, _, _)| format!("{f}.parameters"));
            v.push(FieldError::new(field, format!("the {} needs the parameter(s) named {}", part.part, missing.join(", "))));
        }
        return;
    }
    let need = parameter_count(part.text);
    match given {
        Some((field, count, _)) => expect_count(field, *count, need, v),
        None if need > 0 => v.push(FieldError::new("components", format!("the {} needs {need} parameter(s)", part.part))),
        None => {}
    }
}

/// A text part with its placeholders filled from `params`.
fn render(part: &TextPart, params: &[Parameter]) -> String {
    if part.named {
        let pairs: Vec<(String, String)> =
            params.iter().filter_map(|p| Some((p.name.clone()?, p.value.fill_text()?.to_string()))).collect();
        fill_named(part.text, &pairs)
    } else {
        let values: Vec<String> = params.iter().map(|p| p.value.fill_text().unwrap_or_default().to_string()).collect();
        fill(part.text, &values)
    }
}

/// A button component: the template's button at `index`, the `sub_type` its kind goes by, and
/// the one parameter it takes (if any).
struct ButtonSend {
    index: u8,
    sub_type: ButtonSubType,
    parameters: Vec<Parameter>,
}

/// Checks one button component; `Err` when it holds what Parley cannot check yet (a flow's own
/// data), which refuses the whole send.
fn button(field: &str, c: ComponentInput, buttons: &[TemplateButton], v: &mut Violations) -> Result<Option<ButtonSend>, FieldError> {
    let index = match c.index {
        Some(n) if (0..buttons.len() as i64).contains(&n) => n as u8,
        _ => {
            let issue = format!("must name one of the template's {} button(s), from 0", buttons.len());
            v.push(FieldError::new(format!("{field}.index"), issue));
            return Ok(None);
        }
    };
    let b = &buttons[index as usize];
    let Some(ButtonRule::Takes { sub_type, slot, .. }) = rule(b) else {
        v.push(FieldError::new(field, format!("button {index} ({}) takes no parameters: leave it out of components", b.kind)));
        return Ok(None);
    };
    if c.sub_type.as_deref().and_then(ButtonSubType::parse) != Some(sub_type) {
        v.push(FieldError::new(format!("{field}.sub_type"), format!("must be {} for button {index} ({})", sub_type.as_str(), b.kind)));
    }
    let Some(slot) = slot else {
        // A flow button opens the flow with its defaults; its own token and data are not checked yet.
        return match c.parameters.unwrap_or_default().first() {
            Some(p) if p.action.as_ref().is_some_and(|a| a.flow) => {
                Err(FieldError::new(format!("{field}.parameters[0]"), "a flow's own token and data"))
            }
            Some(_) => {
                v.push(FieldError::new(format!("{field}.parameters"), format!("button {index} ({}) takes no parameters", b.kind)));
                Ok(None)
            }
            None => Ok(Some(ButtonSend { index, sub_type, parameters: Vec::new() })),
        };
    };
    let (given, parameters) = parameters(field, c.parameters, slot, None, v);
    if given > 1 {
        v.push(FieldError::new(format!("{field}.parameters[1]"), format!("is extra: button {index} takes one parameter, got {given}")));
    }
    Ok(Some(ButtonSend { index, sub_type, parameters }))
}

impl TemplateMessage {
    /// Checks `components` against `template` and renders the message.
    pub fn build(template: &Template, to: Option<&str>, components: Option<Vec<ComponentInput>>) -> Result<Self, SendRefusal> {
        if let Some(part) = unsupported_part(template) {
            return Err(SendRefusal::Unsupported(part));
        }
        let mut v = Violations::default();
        let to = match to {
            Some(raw) => v.check(Channel::named("to", ChannelType::Whatsapp, raw).map(|c| c.channel_id().to_string())),
            None => {
                v.push(FieldError::new("to", "is required"));
                None
            }
        };
        let named = template.definition.parameter_format == ParameterFormat::Named;
        let text_of = |kind: &str| template.component(kind).and_then(|c| c.text.as_deref()).unwrap_or_default();
        let header_place = template.component("HEADER").and_then(header_slot);
        let header_part = TextPart { part: "header", text: text_of("HEADER"), named };
        let body_part = TextPart { part: "body", text: text_of("BODY"), named };
        let buttons = template.component("BUTTONS").map(|c| c.buttons.as_slice()).unwrap_or_default();

        let mut header: Option<(String, usize, Vec<Parameter>)> = None;
        let mut body: Option<(String, usize, Vec<Parameter>)> = None;
        let mut button_sends: Vec<ButtonSend> = Vec::new();
        let mut unsupported = None;
        for (i, c) in components.unwrap_or_default().into_iter().enumerate() {
            let field = format!("components[{i}]");
            match (c.kind.as_deref(), header_place) {
                (Some("header"), _) if header.is_some() => v.push(FieldError::new(format!("{field}.type"), "appears twice")),
                (Some("header"), None) => v.push(FieldError::new(format!("{field}.type"), "the template has no header")),
                (Some("header"), Some(slot)) => {
                    let text = (slot == Slot::HeaderText).then_some(&header_part);
                    let (given, ps) = parameters(&field, c.parameters, slot, text, &mut v);
                    header = Some((field, given, ps));
                }
                (Some("body"), _) if body.is_some() => v.push(FieldError::new(format!("{field}.type"), "appears twice")),
                (Some("body"), _) => {
                    let (given, ps) = parameters(&field, c.parameters, Slot::BodyText, Some(&body_part), &mut v);
                    body = Some((field, given, ps));
                }
                (Some("button"), _) => match button(&field, c, buttons, &mut v) {
                    Ok(Some(b)) if button_sends.iter().any(|s| s.index == b.index) => {
                        v.push(FieldError::new(format!("{field}.index"), "names a button twice"))
                    }
                    Ok(Some(b)) => button_sends.push(b),
                    Ok(None) => {}
                    Err(e) => unsupported = unsupported.or(Some(e)),
                },
                _ => v.push(FieldError::new(format!("{field}.type"), "must be header, body or button")),
            }
        }
        if let Some(part) = unsupported {
            return Err(SendRefusal::Unsupported(part));
        }

        // Every placeholder, media header and required button gets its parameter.
        match header_place {
            Some(Slot::HeaderText) => check_placeholders(&header_part, header.as_ref(), &mut v),
            Some(slot) => {
                let kind = one_of(slot.kinds());
                match &header {
                    None => v.push(FieldError::new("components", format!("the header needs {} {kind} parameter", article(&kind)))),
                    Some((field, given, _)) if *given != 1 => {
                        let (at, issue) = if *given == 0 { (0, "is required") } else { (1, "is extra") };
                        v.push(FieldError::new(
                            format!("{field}.parameters[{at}]"),
                            format!("{issue}: the header takes one {kind} parameter, got {given}"),
                        ))
                    }
                    Some(_) => {}
                }
            }
            None => {}
        }
        check_placeholders(&body_part, body.as_ref(), &mut v);
        for (i, b) in buttons.iter().enumerate() {
            if let Some(ButtonRule::Takes { slot: Some(slot), required: true, .. }) = rule(b)
                && !button_sends.iter().any(|s| s.index as usize == i)
            {
                v.push(FieldError::new("components", format!("button {i} needs 1 parameter ({} button): {}", b.kind, describe(slot))));
            }
        }
        if let Err(crate::DomainError::Validation(errors)) = v.finish() {
            return Err(SendRefusal::Invalid(errors));
        }

        let header_params = header.map(|(_, _, p)| p);
        let body_params = body.map(|(_, _, p)| p);
        let header_text = match (&header_place, &header_params) {
            (Some(Slot::HeaderText), params) => render(&header_part, params.as_deref().unwrap_or_default()),
            _ => String::new(),
        };
        let parsed_message = [header_text, render(&body_part, body_params.as_deref().unwrap_or_default()), text_of("FOOTER").to_string()]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");

        let mut components = Vec::new();
        if let Some(p) = header_params {
            components.push(MessageComponent::Header(p));
        }
        if let Some(p) = body_params {
            components.push(MessageComponent::Body(p));
        }
        button_sends.sort_by_key(|b| b.index);
        components.extend(button_sends.into_iter().map(|b| MessageComponent::Button {
            sub_type: b.sub_type,
            index: b.index,
            parameters: b.parameters,
        }));
        Ok(Self {
            to: to.expect(crate::error::CHECKED),
            template_name: template.definition.name.clone(),
            language: template.definition.language.clone(),
            components,
            parsed_message,
            marketing: template.definition.category.eq_ignore_ascii_case("MARKETING"),
        })
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentId, LineId, TemplateDefinition, TemplateId};

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
                parameter_format: ParameterFormat::Positional,
                components: vec![
                    component("HEADER", Some("Order {{1}}"), vec![]),
                    component("BODY", Some("Hi {{1}}, your order ships on {{2}}."), vec![]),
                    component("FOOTER", Some("Reply STOP to opt out"), vec![]),
                    component(
                        "BUTTONS",
                        None,
                        vec![
                            TemplateButton {
                                kind: "URL".into(),
                                text: "Track".into(),
                                url: Some("https://shop.example/t/{{1}}".into()),
                                ..Default::default()
                            },
                            TemplateButton { kind: "QUICK_REPLY".into(), text: "Thanks".into(), ..Default::default() },
                        ],
                    ),
                ],
            },
            agent_id: AgentId::new("agt"),
            line_id: LineId::new("chn"),
            created_at: chrono::Utc::now(),
        }
    }

    fn invalid(r: Result<TemplateMessage, SendRefusal>) -> Vec<FieldError> {
        match r {
            Err(SendRefusal::Invalid(errors)) => errors,
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    fn text(t: &str) -> ParameterInput {
        ParameterInput { kind: Some("text".into()), text: Some(t.into()), ..Default::default() }
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
        let errors =
            invalid(TemplateMessage::build(&template(), Some("123"), Some(vec![comp("body", vec![text("Ana")]), comp("footer", vec![])])));
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["to", "components[1].type", "components", "components[0].parameters[1]", "components"], "in template order");
        assert!(errors[2].issue.contains("header needs 1"));
        assert!(errors[3].issue.contains("is required: the template needs 2 parameter(s) here, got 1"), "{errors:?}");
        assert!(errors[4].issue.contains("button 0 needs 1"));
    }

    #[test]
    fn a_parameter_too_many_or_too_few_is_named_by_its_exact_place() {
        let two_headers = comp("header", vec![text("A"), text("B")]);
        let no_header = comp("header", vec![]);
        let four = comp("body", vec![text("a"), text("b"), text("c"), text("d")]);
        let two_params = ComponentInput { parameters: Some(vec![text("x"), text("y")]), ..url_button(0, "x") };
        let errors = invalid(TemplateMessage::build(&template(), Some("14155550100"), Some(vec![two_headers, four, two_params])));
        let found: Vec<(&str, &str)> = errors.iter().map(|e| (e.field.as_str(), e.issue.as_str())).collect();
        assert_eq!(
            found,
            [
                ("components[2].parameters[1]", "is extra: button 0 takes one parameter, got 2"),
                ("components[0].parameters[1]", "is extra: the template needs 1 parameter(s) here, got 2"),
                ("components[1].parameters[2]", "is extra: the template needs 2 parameter(s) here, got 4"),
            ]
        );
        let errors = invalid(TemplateMessage::build(
            &template(),
            Some("14155550100"),
            Some(vec![no_header, comp("body", vec![text("a"), text("b")]), url_button(0, "x")]),
        ));
        assert_eq!(errors.iter().map(|e| e.field.as_str()).collect::<Vec<_>>(), ["components[0].parameters[0]"]);
        assert!(errors[0].issue.starts_with("is required"), "{errors:?}");
    }

    #[test]
    fn buttons_are_checked_by_index_and_sub_type() {
        let out_of_range = ComponentInput { kind: Some("button".into()), sub_type: Some("url".into()), index: Some(5), parameters: None };
        let wrong_sub_type = ComponentInput { sub_type: Some("quick_reply".into()), ..url_button(0, "x") };
        let errors = invalid(TemplateMessage::build(
            &template(),
            Some("14155550100"),
            Some(vec![comp("header", vec![text("A")]), comp("body", vec![text("a"), text("b")]), wrong_sub_type, out_of_range]),
        ));
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["components[2].sub_type", "components[3].index"]);
        assert!(errors[0].issue.contains("must be url for button 0 (URL)"), "{errors:?}");
    }

    #[test]
    fn header_text_parameters_are_text_currency_or_date_time() {
        let odd = ParameterInput { kind: Some("payload".into()), payload: Some("5".into()), ..Default::default() };
        let errors = invalid(TemplateMessage::build(&template(), Some("14155550100"), Some(vec![comp("header", vec![odd])])));
        assert_eq!(errors[0].field, "components[0].parameters[0].type");
        assert!(errors[0].issue.contains("text, currency or date_time"), "{errors:?}");
    }
}
