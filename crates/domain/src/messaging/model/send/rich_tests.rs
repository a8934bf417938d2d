//! Sends of the richer templates: named placeholders, media and location headers, each button
//! kind, and the kinds Parley refuses as unsupported.

use super::*;
use crate::model::{AgentId, LineId, TemplateDefinition, TemplateId};

fn template(format: ParameterFormat, components: Vec<TemplateComponent>) -> Template {
    Template {
        definition: TemplateDefinition {
            id: TemplateId::new("1"),
            name: "t".into(),
            language: "en_US".into(),
            status: "APPROVED".into(),
            category: "MARKETING".into(),
            parameter_format: format,
            components,
        },
        agent_id: AgentId::new("agt"),
        line_id: LineId::new("chn"),
        created_at: chrono::Utc::now(),
    }
}

fn part(kind: &str, format: Option<&str>, text: Option<&str>) -> TemplateComponent {
    TemplateComponent { kind: kind.into(), format: format.map(Into::into), text: text.map(Into::into), buttons: vec![] }
}

fn buttons(list: Vec<TemplateButton>) -> TemplateComponent {
    TemplateComponent { kind: "BUTTONS".into(), format: None, text: None, buttons: list }
}

fn button(kind: &str) -> TemplateButton {
    TemplateButton { kind: kind.into(), text: "Tap".into(), ..Default::default() }
}

fn named(name: &str, value: &str) -> ParameterInput {
    ParameterInput { kind: Some("text".into()), parameter_name: Some(name.into()), text: Some(value.into()), ..Default::default() }
}

fn text(value: &str) -> ParameterInput {
    ParameterInput { kind: Some("text".into()), text: Some(value.into()), ..Default::default() }
}

fn comp(kind: &str, parameters: Vec<ParameterInput>) -> ComponentInput {
    ComponentInput { kind: Some(kind.into()), parameters: Some(parameters), ..Default::default() }
}

fn button_send(sub_type: &str, index: i64, parameters: Vec<ParameterInput>) -> ComponentInput {
    ComponentInput { kind: Some("button".into()), sub_type: Some(sub_type.into()), index: Some(index), parameters: Some(parameters) }
}

fn send(t: &Template, components: Vec<ComponentInput>) -> Result<TemplateMessage, SendRefusal> {
    TemplateMessage::build(t, Some("14155550100"), Some(components))
}

fn fields(r: Result<TemplateMessage, SendRefusal>) -> Vec<(String, String)> {
    match r {
        Err(SendRefusal::Invalid(errors)) => errors.into_iter().map(|e| (e.field, e.issue)).collect(),
        other => panic!("expected a 400, got {other:?}"),
    }
}

#[test]
fn named_placeholders_are_filled_by_name_in_any_order() {
    let t = template(ParameterFormat::Named, vec![part("BODY", None, Some("Hi {{first_name}}, order {{order_id}} for {{first_name}}."))]);
    let m = send(&t, vec![comp("body", vec![named("order_id", "A-17"), named("first_name", "Ana")])]).unwrap();
    assert_eq!(m.parsed_message, "Hi Ana, order A-17 for Ana.");
    let MessageComponent::Body(ps) = &m.components[0] else { panic!() };
    assert_eq!(ps[0].name.as_deref(), Some("order_id"), "the names travel with the values");
}

#[test]
fn a_missing_unknown_repeated_or_absent_name_is_named() {
    let t = template(ParameterFormat::Named, vec![part("BODY", None, Some("Hi {{first_name}}, order {{order_id}}."))]);
    let errors =
        fields(send(&t, vec![comp("body", vec![named("first_name", "Ana"), named("first_name", "Bo"), named("nick", "x"), text("y")])]));
    let want = [
        ("components[0].parameters[1].parameter_name", "names `first_name` twice"),
        ("components[0].parameters[2].parameter_name", "`nick` is not a placeholder of the body, which has first_name, order_id"),
        ("components[0].parameters[3].parameter_name", "is required"),
        ("components[0].parameters", "the body needs the parameter(s) named order_id"),
    ];
    assert_eq!(errors.len(), want.len(), "{errors:?}");
    for ((field, issue), (want_field, want_issue)) in errors.iter().zip(want) {
        assert_eq!(field, want_field);
        assert!(issue.contains(want_issue), "{issue} ~ {want_issue}");
    }
    let errors = fields(send(&t, vec![]));
    assert_eq!(errors, [("components".to_string(), "the body needs the parameter(s) named first_name, order_id".to_string())]);
    let positional = template(ParameterFormat::Positional, vec![part("BODY", None, Some("Hi {{1}}"))]);
    let errors = fields(send(&positional, vec![comp("body", vec![named("first_name", "Ana")])]));
    assert_eq!(errors[0].0, "components[0].parameters[0].parameter_name", "a numbered template takes no names");
}

#[test]
fn a_media_header_takes_one_parameter_of_its_kind() {
    let t = template(ParameterFormat::Positional, vec![part("HEADER", Some("IMAGE"), None), part("BODY", None, Some("New in!"))]);
    assert_eq!(fields(send(&t, vec![])), [("components".to_string(), "the header needs an image parameter".to_string())]);
    let video = ParameterInput {
        kind: Some("video".into()),
        video: Some(MediaInput { id: Some("123".into()), ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(fields(send(&t, vec![comp("header", vec![video])]))[0].0, "components[0].parameters[0].type");
    let http = ParameterInput {
        kind: Some("image".into()),
        image: Some(MediaInput { link: Some("http://cdn.test/a.jpg".into()), ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(fields(send(&t, vec![comp("header", vec![http])]))[0].0, "components[0].parameters[0].image.link");
    let both = ParameterInput {
        kind: Some("image".into()),
        image: Some(MediaInput { link: Some("https://cdn.test/a.jpg".into()), id: Some("1".into()), ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(fields(send(&t, vec![comp("header", vec![both])]))[0].0, "components[0].parameters[0].image");
    let image = ParameterInput {
        kind: Some("image".into()),
        image: Some(MediaInput { link: Some("https://cdn.test/a.jpg".into()), ..Default::default() }),
        ..Default::default()
    };
    let m = send(&t, vec![comp("header", vec![image])]).unwrap();
    assert_eq!(m.parsed_message, "New in!", "a media header adds no text");
}

#[test]
fn a_location_header_needs_coordinates_in_range_a_name_and_an_address() {
    let t = template(ParameterFormat::Positional, vec![part("HEADER", Some("LOCATION"), None), part("BODY", None, Some("See you"))]);
    let location = |lat: f64| ParameterInput {
        kind: Some("location".into()),
        location: Some(LocationInput { latitude: Some(lat), longitude: Some(-122.4), name: Some("Shop".into()), address: None }),
        ..Default::default()
    };
    let errors = fields(send(&t, vec![comp("header", vec![location(91.0)])]));
    let named: Vec<_> = errors.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(named, ["components[0].parameters[0].location.latitude", "components[0].parameters[0].location.address"]);
}

#[test]
fn each_button_kind_takes_its_own_parameter_under_its_sub_type() {
    let url = TemplateButton { url: Some("https://shop.test/o/{{1}}".into()), ..button("URL") };
    let t = template(
        ParameterFormat::Positional,
        vec![
            part("BODY", None, Some("Use {{1}}")),
            buttons(vec![button("QUICK_REPLY"), url, button("COPY_CODE"), button("PHONE_NUMBER"), button("CATALOG"), button("FLOW")]),
        ],
    );
    let payload = ParameterInput { kind: Some("payload".into()), payload: Some("yes".into()), ..Default::default() };
    let coupon = ParameterInput { kind: Some("coupon_code".into()), coupon_code: Some("25OFF".into()), ..Default::default() };
    let thumbnail = ParameterInput {
        kind: Some("action".into()),
        action: Some(ActionInput { thumbnail_product_retailer_id: Some("sku-1".into()), flow: false }),
        ..Default::default()
    };
    let m = send(
        &t,
        vec![
            comp("body", vec![text("25OFF")]),
            button_send("COPY_CODE", 2, vec![coupon.clone()]),
            button_send("quick_reply", 0, vec![payload.clone()]),
            button_send("url", 1, vec![text("A-17")]),
            button_send("catalog", 4, vec![thumbnail]),
            button_send("flow", 5, vec![]),
        ],
    )
    .unwrap();
    let subs: Vec<_> = m
        .components
        .iter()
        .filter_map(|c| match c {
            MessageComponent::Button { sub_type, index, .. } => Some((*index, sub_type.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(subs, [(0, "quick_reply"), (1, "url"), (2, "copy_code"), (4, "catalog"), (5, "flow")], "in button order");

    let errors = fields(send(
        &t,
        vec![
            comp("body", vec![text("x")]),
            button_send("quick_reply", 0, vec![text("yes")]),
            button_send("url", 2, vec![coupon]),
            button_send("url", 3, vec![]),
        ],
    ));
    let named: Vec<_> = errors.iter().map(|(f, i)| format!("{f}: {i}")).collect();
    assert_eq!(
        named,
        [
            "components[1].parameters[0].type: must be payload here",
            "components[2].sub_type: must be copy_code for button 2 (COPY_CODE)",
            "components[3]: button 3 (PHONE_NUMBER) takes no parameters: leave it out of components",
            "components: button 1 needs 1 parameter (URL button): a text parameter: the end of its URL",
        ],
    );
}

#[test]
fn an_authentication_template_puts_the_code_in_the_body_and_on_its_button() {
    let t = template(
        ParameterFormat::Positional,
        vec![
            part("BODY", None, Some("*{{1}}* is your verification code.")),
            part("FOOTER", None, Some("This code expires in 10 minutes.")),
            buttons(vec![TemplateButton { otp_type: Some("COPY_CODE".into()), ..button("OTP") }]),
        ],
    );
    let errors = fields(send(&t, vec![comp("body", vec![text("123456")])]));
    assert!(errors[0].1.contains("button 0 needs 1 parameter (OTP button): a text parameter: the one-time code"), "{errors:?}");
    let long = fields(send(&t, vec![comp("body", vec![text("123456")]), button_send("url", 0, vec![text("1234567890123456")])]));
    assert_eq!(long[0].0, "components[1].parameters[0].text", "codes are at most 15 characters");
    let m = send(&t, vec![comp("body", vec![text("123456")]), button_send("url", 0, vec![text("123456")])]).unwrap();
    assert_eq!(m.parsed_message, "*123456* is your verification code.\n\nThis code expires in 10 minutes.");
}

#[test]
fn currency_and_date_time_fill_with_their_fallback_text() {
    let t = template(ParameterFormat::Positional, vec![part("BODY", None, Some("Pay {{1}} by {{2}}"))]);
    let currency = ParameterInput {
        kind: Some("currency".into()),
        currency: Some(CurrencyInput { fallback_value: Some("$100.99".into()), code: Some("USD".into()), amount_1000: Some(100_990) }),
        ..Default::default()
    };
    let date = ParameterInput {
        kind: Some("date_time".into()),
        date_time: Some(DateTimeInput { fallback_value: Some("February 25, 1977".into()) }),
        ..Default::default()
    };
    assert_eq!(send(&t, vec![comp("body", vec![currency.clone(), date])]).unwrap().parsed_message, "Pay $100.99 by February 25, 1977");
    let bad = ParameterInput { currency: Some(CurrencyInput { code: Some("usd".into()), ..Default::default() }), ..currency };
    let named: Vec<_> = fields(send(&t, vec![comp("body", vec![bad, text("x")])])).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        named,
        [
            "components[0].parameters[0].currency.fallback_value",
            "components[0].parameters[0].currency.code",
            "components[0].parameters[0].currency.amount_1000"
        ]
    );
}

#[test]
fn a_parameter_carries_only_the_value_its_type_names() {
    let t = template(ParameterFormat::Positional, vec![part("BODY", None, Some("Hi {{1}}"))]);
    let both = ParameterInput { payload: Some("x".into()), ..text("Ana") };
    assert!(fields(send(&t, vec![comp("body", vec![both])]))[0].1.contains("not payload"));
    let newline = fields(send(&t, vec![comp("body", vec![text("two\nlines")])]));
    assert_eq!(newline[0].0, "components[0].parameters[0].text", "the platform refuses newlines in parameters");
}

#[test]
fn kinds_parley_cannot_check_are_refused_whole_naming_the_part() {
    let unsupported = |t: &Template, components| match send(t, components) {
        Err(SendRefusal::Unsupported(e)) => (e.field, e.issue),
        other => panic!("expected unsupported, got {other:?}"),
    };
    let carousel = template(ParameterFormat::Positional, vec![part("BODY", None, Some("Look")), part("CAROUSEL", None, None)]);
    assert_eq!(unsupported(&carousel, vec![]), ("template.components[1]".into(), "a CAROUSEL component".into()));
    let offer = template(ParameterFormat::Positional, vec![part("LIMITED_TIME_OFFER", None, Some("Ends soon"))]);
    assert_eq!(unsupported(&offer, vec![]).1, "a LIMITED_TIME_OFFER component");
    let mpm =
        template(ParameterFormat::Positional, vec![part("BODY", None, Some("Pick")), buttons(vec![button("QUICK_REPLY"), button("MPM")])]);
    assert_eq!(unsupported(&mpm, vec![]), ("template.components[1].buttons[1]".into(), "a MPM button".into()));
    let flow = template(ParameterFormat::Positional, vec![part("BODY", None, Some("Book")), buttons(vec![button("FLOW")])]);
    let data = ParameterInput {
        kind: Some("action".into()),
        action: Some(ActionInput { flow: true, ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(unsupported(&flow, vec![button_send("flow", 0, vec![data])]).0, "components[0].parameters[0]");
    assert!(send(&flow, vec![]).is_ok(), "a flow button with its defaults is fine");
}
