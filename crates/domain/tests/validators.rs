//! Property tests of the value objects and parsers that take outside input: whatever they are
//! given they never panic, what they accept satisfies the rules of docs/api-conventions.md,
//! what they accept they accept again unchanged (round trip), and inputs
//! built to be valid are always accepted.

use chrono::{DateTime, Datelike, SecondsFormat, Utc};
use parley_domain::model::text::{bounded, free_text};
use parley_domain::model::{
    AccessToken, ActivityId, ActivitySearch, ActivityStatus, AgentId, AgentName, Assignee, CampaignKey, CartCode, Channel, ChannelType,
    ComponentInput, ContactId, Currency, CustomAttributes, Decimal, Email, ExecutionStatus, KeyKind, LineId, MessageComponent, Notes,
    PageBounds, PageRequest, ParameterFormat, ParameterInput, ParameterValue, PhoneNumberId, PresentedKey, Price, ProductId, ProductKind,
    ProductStatus, ProfileName, ReceivedId, SEARCH_BOUNDS, SearchQuery, SearchRequest, TagColor, TagDescription, TagId, TagName, Template,
    TemplateButton, TemplateComponent, TemplateDefinition, TemplateId, TemplateMessage, WabaId, fill, fill_named, has_control_characters,
    parameter_count, parse_timestamp, phone_digits, placeholder_names, placeholders,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any string, biased towards what breaks validators: edges of whitespace, control
/// characters, digits and punctuation the rules care about, multi-byte characters.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ \t\n\r\u{0}\u{7f}\u{85}\u{a0}\u{2028}#@.+_:%/?-]{0,6}[a-zA-Z0-9éİß\u{1F600}]{0,12}[ \t\n\u{0}]{0,3}",
        "[0-9 +-]{0,24}",
        "[ -~]{0,80}",
    ]
}

/// A non-control, non-blank-edged text of `min..=max` characters (multi-byte included).
fn text_of(min: usize, max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![4 => "[a-zA-Z0-9]", 1 => "[éü漢\u{1F600}ß]", 1 => "[ \n\t.,!]"], min..=max).prop_map(|cs| {
        let mut s: String = cs.concat();
        // Valid text does not start or end with whitespace (it would be trimmed away).
        if s.starts_with(char::is_whitespace) {
            s.replace_range(..1, "a");
        }
        if s.ends_with(char::is_whitespace) {
            s.pop();
            s.push('z');
        }
        s
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        hostile().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(hostile(), inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// The documented shape of bounded text: trimmed, `min..=max` characters, no control
/// characters but newline and tab.
fn check_bounded(raw: &str, got: &str, min: usize, max: usize) {
    assert_eq!(got, raw.trim(), "stored trimmed");
    let n = got.chars().count();
    assert!((min..=max).contains(&n), "{n} characters, outside {min}..={max}");
    assert!(!got.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "control character kept: {got:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn bounded_text_accepts_only_what_its_rules_allow(raw in hostile(), min in 0usize..3, extra in 0usize..70) {
        let max = min + extra;
        let trimmed = raw.trim();
        let n = trimmed.chars().count();
        // Control characters are refused anywhere in what was sent, ends included: trimming
        // would otherwise take a form feed or a carriage return at an end for whitespace.
        let expected_ok = (min..=max).contains(&n) && !raw.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
        match bounded("f", &raw, min, max) {
            Ok(got) => {
                check_bounded(&raw, &got, min, max);
                assert_eq!(bounded("f", &got, min, max).ok(), Some(got.clone()), "round trip");
            }
            Err(e) => {
                assert_eq!(e.field, "f");
                assert!(!expected_ok, "refused valid text {:?}: {}", raw, e.issue);
            }
        }
    }

    #[test]
    fn text_value_objects_follow_their_bounds(raw in hostile()) {
        macro_rules! check {
            ($ty:ident, $min:expr, $max:expr) => {
                if let Ok(v) = $ty::new(&raw) {
                    check_bounded(&raw, v.as_str(), $min, $max);
                    assert_eq!($ty::new(v.as_str()).ok(), Some(v.clone()), "round trip of {}", stringify!($ty));
                }
            };
        }
        check!(TagName, 1, 64);
        check!(TagDescription, 0, 500);
        check!(ProfileName, 1, 256);
        check!(Notes, 0, 5000);
        check!(Assignee, 1, 128);
        check!(AgentName, 1, 128);
        if let Ok(name) = TagName::new(&raw) {
            assert_eq!(name.key(), name.as_str().to_lowercase(), "uniqueness ignores case");
        }
    }

    #[test]
    fn valid_text_is_always_accepted_unchanged(name in text_of(1, 64), long in text_of(1, 256)) {
        assert_eq!(TagName::new(&name).unwrap().as_str(), name.as_str());
        assert_eq!(TagName::new(&format!("  {name}\t")).unwrap().as_str(), name.as_str(), "trimmed");
        assert_eq!(ProfileName::new(&long).unwrap().as_str(), long.as_str());
        assert_eq!(Notes::new(&long).unwrap().as_str(), long.as_str());
        if name.chars().count() <= 128 {
            assert_eq!(Assignee::new(&name).unwrap().as_str(), name.as_str());
        }
    }

    #[test]
    fn tag_colors_are_hex_and_lowercased(raw in hostile(), valid in "#[0-9a-fA-F]{6}") {
        if let Ok(c) = TagColor::new(&raw) {
            assert!(c.as_str().len() == 7 && c.as_str().starts_with('#'));
            assert!(c.as_str()[1..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{}", c.as_str());
            assert_eq!(c.as_str(), raw.to_ascii_lowercase());
        }
        let c = TagColor::new(&valid).unwrap();
        assert_eq!(c.as_str(), valid.to_ascii_lowercase());
        assert_eq!(TagColor::new(c.as_str()).unwrap(), c);
    }

    #[test]
    fn enumerations_parse_exactly_their_names(raw in hostile()) {
        if let Ok(s) = ActivityStatus::parse(&raw) { assert_eq!(s.as_str(), raw.as_str()); }
        if let Ok(t) = ChannelType::parse(&raw) { assert_eq!(t.as_str(), raw.as_str()); }
        if let Ok(k) = ProductKind::parse(&raw) { assert_eq!(k.as_str(), raw.as_str()); }
        if let Ok(s) = ProductStatus::parse(&raw) { assert_eq!(s.as_str(), raw.as_str()); }
        if let Some(s) = ExecutionStatus::parse(&raw) { assert_eq!(s.as_str(), raw.as_str()); }
        if let Some(k) = KeyKind::parse(&raw) { assert_eq!(k.as_str(), raw.as_str()); }
    }

    #[test]
    fn phone_numbers_are_7_to_15_digits(raw in hostile()) {
        if let Ok(d) = phone_digits(&raw, "to") {
            assert!((7..=15).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()), "{d:?}");
            assert_eq!(phone_digits(&d, "to").unwrap(), d.clone(), "round trip");
            for t in [ChannelType::Whatsapp, ChannelType::Sms] {
                assert_eq!(Channel::new(t, &raw).unwrap().channel_id(), d.as_str());
            }
        }
    }

    #[test]
    fn written_phone_numbers_are_accepted_as_their_digits(digits in "[0-9]{7,15}", plus in any::<bool>(), seps in proptest::collection::vec(prop_oneof![Just(""), Just(" "), Just("-")], 15)) {
        let mut written = String::from(if plus { "+" } else { "" });
        for (c, sep) in digits.chars().zip(&seps) {
            written.push(c);
            written.push_str(sep);
        }
        assert_eq!(phone_digits(&written, "to").unwrap(), digits.clone());
        let channel = Channel::new(ChannelType::Whatsapp, &written).unwrap();
        assert_eq!(channel.channel_id(), digits.as_str());
        assert_eq!(channel.digits(), digits);
    }

    #[test]
    fn channels_of_every_type_validate_their_id(raw in hostile(), pick in 0usize..6) {
        let t = ChannelType::ALL[pick];
        if let Ok(c) = Channel::new(t, &raw) {
            assert_eq!(c.channel_type(), t);
            assert_eq!(Channel::new(t, c.channel_id()).unwrap(), c.clone(), "round trip");
            match t {
                ChannelType::Email => assert!(c.channel_id().contains('@')),
                ChannelType::Whatsapp | ChannelType::Sms => assert!(c.channel_id().bytes().all(|b| b.is_ascii_digit())),
                _ => check_bounded(&raw, c.channel_id(), 1, 256),
            }
        }
    }

    #[test]
    fn emails_are_lowercased_addresses(raw in prop_oneof![hostile(), "[A-Za-z0-9.éİ+ ]{0,70}@[A-Za-z0-9.-]{0,70}"]) {
        if let Ok(e) = Email::new(&raw) {
            let s = e.as_str();
            assert!(s.len() <= 254 && !s.chars().any(|c| c.is_whitespace() || c.is_control()), "{s:?}");
            assert_eq!(s, raw.trim().to_lowercase());
            let (local, domain) = s.split_once('@').unwrap();
            assert!(!local.is_empty() && local.len() <= 64);
            assert!(!domain.contains('@') && domain.contains('.'));
            assert!(domain.split('.').all(|l| !l.is_empty() && l.len() <= 63));
            assert_eq!(Email::new(s).unwrap(), e.clone(), "round trip");
        }
    }

    #[test]
    fn plausible_emails_are_accepted(local in "[a-z0-9][a-z0-9._+-]{0,30}", domain in "[a-z0-9]{1,20}(\\.[a-z0-9]{1,10}){1,3}", upper in any::<bool>()) {
        let raw = format!("{local}@{domain}");
        let written = if upper { raw.to_uppercase() } else { raw.clone() };
        assert_eq!(Email::new(&format!(" {written} ")).unwrap().as_str(), raw.as_str());
    }

    #[test]
    fn custom_attributes_stay_within_their_limits(value in json_value(), patch in json_value()) {
        let Value::Object(map) = value else { return Ok(()) };
        if let Ok(attrs) = CustomAttributes::new(map) {
            let m = attrs.as_map();
            assert!(m.len() <= CustomAttributes::MAX_KEYS);
            assert!(m.keys().all(|k| !k.trim().is_empty() && k.chars().count() <= 128));
            assert!(Value::Object(m.clone()).to_string().len() <= CustomAttributes::MAX_BYTES);
            assert_eq!(CustomAttributes::new(m.clone()).unwrap(), attrs.clone(), "round trip");
            if let Value::Object(patch) = patch
                && let Ok(merged) = attrs.merged(patch.clone())
            {
                for (k, v) in &patch {
                    assert_eq!(merged.as_map().get(k), (!v.is_null()).then_some(v), "patch key {:?}", k);
                }
                assert!(merged.as_map().len() <= CustomAttributes::MAX_KEYS);
            }
        }
    }

    #[test]
    fn received_attributes_carry_no_control_characters(value in json_value(), patch in json_value()) {
        fn strings(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::String(s) => out.push(s.clone()),
                Value::Array(items) => items.iter().for_each(|x| strings(x, out)),
                Value::Object(m) => m.values().for_each(|x| strings(x, out)),
                _ => {}
            }
        }
        let Value::Object(map) = value else { return Ok(()) };
        let keys_ok = |m: &serde_json::Map<String, Value>| m.keys().all(|k| !has_control_characters(k));
        if let Ok(attrs) = CustomAttributes::received(map.clone()) {
            let mut values = Vec::new();
            strings(&Value::Object(attrs.as_map().clone()), &mut values);
            assert!(values.iter().all(|v| free_text(v)), "{values:?}");
            assert!(keys_ok(attrs.as_map()));
            assert_eq!(CustomAttributes::new(map).unwrap(), attrs.clone(), "the same bounds as stored attributes");
            if let Value::Object(patch) = patch
                && attrs.merged(patch.clone()).is_ok()
            {
                let mut patched = Vec::new();
                strings(&Value::Object(patch), &mut patched);
                assert!(patched.iter().all(|v| free_text(v)));
            }
        }
    }

    #[test]
    fn received_ids_are_refused_exactly_when_they_hold_a_control_character(raw in prop_oneof![hostile(), "[a-z]{3}_[A-Za-z0-9]{24}", "[a-z_]{0,4}[\u{0}-\u{1f}\u{7f}-\u{9f}][a-z_]{0,4}"]) {
        let control = raw.chars().any(char::is_control);
        assert_eq!(has_control_characters(&raw), control);
        assert_eq!(TagId::received(raw.clone()).map(|id| id.into_string()), (!control).then(|| raw.clone()), "kept as given");
        assert_eq!(ContactId::received(raw.clone()).is_none(), control);
        assert_eq!(ActivityId::received(raw.clone()).is_none(), control);
        assert_eq!(TemplateId::received(raw.clone()).is_none(), control);
        assert_eq!(LineId::received(raw.clone()).is_none(), control);
        assert_eq!(ProductId::received(raw.clone()).is_none(), control);
        let refused = TagId::field("tag_ids[3]", raw.clone());
        assert_eq!(refused.as_ref().err().map(|e| e.field.as_str()), control.then_some("tag_ids[3]"));
    }

    #[test]
    fn free_text_keeps_newline_and_tab_and_no_other_control_character(raw in hostile()) {
        let allowed = raw.chars().all(|c| !c.is_control() || c == '\n' || c == '\t');
        assert_eq!(free_text(&raw), allowed);
        if let Ok(notes) = Notes::new(&raw) {
            assert!(free_text(notes.as_str()) && !notes.as_str().contains('\0') && !notes.as_str().contains('\r'));
        }
    }

    #[test]
    fn currencies_are_uppercase_iso_codes(raw in prop_oneof![hostile(), "[A-Za-z]{3}"]) {
        if let Ok(c) = Currency::new(&raw) {
            assert_eq!(c.as_str(), raw.as_str());
            assert!(c.as_str().len() == 3 && c.as_str().bytes().all(|b| b.is_ascii_uppercase()));
        }
    }

    #[test]
    fn page_requests_are_in_bounds_and_never_clamped(limit in proptest::option::of(prop_oneof![hostile(), any::<i64>().prop_map(|n| n.to_string()), (-5i64..120).prop_map(|n| n.to_string())]), offset in proptest::option::of(prop_oneof![hostile(), any::<i64>().prop_map(|n| n.to_string()), any::<u64>().prop_map(|n| n.to_string())])) {
        for bounds in [PageBounds::CONVERSATIONS, PageBounds::PRODUCTS, SEARCH_BOUNDS] {
            match PageRequest::parse(limit.as_deref(), offset.as_deref(), bounds) {
                Ok(p) => {
                    assert!((1..=bounds.max_limit).contains(&p.limit()));
                    match &limit {
                        None => assert_eq!(p.limit(), bounds.default_limit),
                        Some(raw) => assert_eq!(raw.trim().parse::<i64>().ok(), Some(i64::from(p.limit())), "never clamped"),
                    }
                    match &offset {
                        None => assert_eq!(p.offset(), 0),
                        Some(raw) => assert_eq!(raw.trim().parse::<u64>().ok(), Some(p.offset())),
                    }
                }
                Err(errors) => {
                    assert!(!errors.is_empty());
                    assert!(errors.iter().all(|e| e.field == "limit" || e.field == "offset"));
                }
            }
        }
    }

    #[test]
    fn page_requests_in_bounds_are_accepted(limit in 1u32..=100, offset in 0i64..=i64::MAX) {
        let p = PageRequest::parse(Some(&limit.to_string()), Some(&offset.to_string()), PageBounds::CONVERSATIONS).unwrap();
        assert_eq!((p.limit(), p.offset()), (limit, offset as u64));
    }

    #[test]
    fn search_queries_are_trimmed_and_bounded(
        q in proptest::option::of(hostile()),
        limit in proptest::option::of(prop_oneof![hostile(), (-3i64..60).prop_map(|n| n.to_string())]),
        kind in proptest::option::of(prop_oneof![hostile(), Just("product".to_string()), Just("service".to_string())]),
    ) {
        let request = SearchRequest { q: q.as_deref(), limit: limit.as_deref(), tag: None, kind: kind.as_deref() };
        match SearchQuery::parse(request) {
            Ok(s) => {
                assert_eq!(s.text(), q.as_deref().unwrap().trim());
                assert!((1..=500).contains(&s.text().chars().count()));
                assert!((1..=50).contains(&s.limit()));
                assert_eq!(s.filter().kind.map(|k| k.as_str()), kind.as_deref());
            }
            Err(errors) => assert!(!errors.is_empty() && errors.iter().all(|e| ["q", "limit", "kind"].contains(&e.field.as_str()))),
        }
    }

    #[test]
    fn valid_searches_are_accepted(q in text_of(1, 500), limit in 1u32..=50, tag in proptest::option::of(hostile())) {
        let request = SearchRequest { q: Some(&q), limit: Some(&limit.to_string()), tag: tag.as_deref(), kind: None };
        let s = SearchQuery::parse(request).unwrap();
        assert_eq!((s.text(), s.limit(), s.filter().tag.as_deref()), (q.as_str(), limit, tag.as_deref()));
    }

    #[test]
    fn activity_searches_hold_a_name_and_maybe_digits(raw in hostile()) {
        if let Ok(s) = ActivitySearch::new(&raw) {
            assert_eq!(s.name_fragment(), parley_domain::model::text::search_key(raw.trim()));
            if let Some(d) = s.digit_fragment() {
                assert!(d.len() >= 3 && d.bytes().all(|b| b.is_ascii_digit()));
            }
        }
    }

    #[test]
    fn cart_codes_are_7_characters_of_the_alphabet(raw in prop_oneof![hostile(), "[0-9A-Za-z]{7}"], valid in proptest::collection::vec(proptest::sample::select(CartCode::ALPHABET), 7)) {
        if let Some(c) = CartCode::parse(&raw) {
            assert_eq!(c.as_str(), raw.as_str());
            assert!(c.as_str().len() == 7 && c.as_str().bytes().all(|b| CartCode::ALPHABET.contains(&b)));
        }
        let valid = String::from_utf8(valid).unwrap();
        assert_eq!(CartCode::parse(&valid).unwrap().as_str(), valid.as_str());
    }

    #[test]
    fn product_ids_are_url_safe(raw in hostile(), valid in "[A-Za-z0-9_.:~!$&'()*+,;=@é-]{1,128}") {
        if let Ok(id) = ProductId::new(&raw) {
            let s = id.as_str();
            assert!((1..=128).contains(&s.chars().count()));
            assert!(!s.chars().any(|c| c.is_whitespace() || c.is_control() || "/?#%".contains(c)), "{s:?}");
            assert_eq!(ProductId::new(s).unwrap(), id.clone());
        }
        assert_eq!(ProductId::new(&valid).unwrap().as_str(), valid.as_str());
    }

    #[test]
    fn prices_are_exact_and_in_range(mantissa in any::<i64>(), scale in 0_u32..=12) {
        let value = Decimal::new(mantissa, scale);
        let in_range = value >= Decimal::ZERO && value <= Decimal::from(1_000_000_000_000_i64);
        match Price::new("base_price", value) {
            Ok(p) => {
                assert!(in_range, "{value}");
                assert_eq!(p.value(), value, "the same amount");
                assert_eq!(p.value().to_string(), parley_domain::model::money::to_json_number(value), "written without trailing zeros");
            }
            Err(e) => {
                assert_eq!(e.field, "base_price");
                assert!(!in_range, "{value}");
            }
        }
    }

    #[test]
    fn timestamps_parse_rfc3339_to_milliseconds(raw in prop_oneof![hostile(), "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,12})?(Z|[+-][0-9]{2}:[0-9]{2})"], millis in -62_135_596_800_000i64..253_402_300_799_999, nanos in 0u32..1_000_000) {
        if let Ok(t) = parse_timestamp("since", &raw) {
            assert_eq!(t.timestamp_subsec_nanos() % 1_000_000, 0, "milliseconds only");
            assert!((0..=9999).contains(&t.year()), "{raw} is {t}, which RFC 3339 in UTC cannot write");
        }
        let at = DateTime::<Utc>::from_timestamp_millis(millis).unwrap();
        let written = at.to_rfc3339_opts(SecondsFormat::Millis, true);
        assert_eq!(parse_timestamp("since", &written).unwrap(), at, "round trip of {}", written);
        let finer = (at + chrono::TimeDelta::nanoseconds(i64::from(nanos))).to_rfc3339_opts(SecondsFormat::Nanos, true);
        assert_eq!(parse_timestamp("since", &finer).unwrap(), at, "{} truncates to milliseconds", finer);
    }

    #[test]
    fn campaign_keys_are_1_to_64_safe_characters(raw in hostile(), valid in "[A-Za-z0-9_.:-]{1,64}") {
        if let Ok(k) = CampaignKey::new(&raw) {
            assert_eq!(k.as_str(), raw.as_str());
            assert!((1..=64).contains(&k.as_str().len()));
            assert!(k.as_str().bytes().all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b)));
        }
        assert_eq!(CampaignKey::new(&valid).unwrap().as_str(), valid.as_str());
    }

    #[test]
    fn platform_ids_and_tokens_are_checked(raw in hostile(), digits in "[0-9]{1,32}") {
        if let Ok(id) = PhoneNumberId::new(&raw) {
            assert!((1..=32).contains(&id.as_str().len()) && id.as_str().bytes().all(|b| b.is_ascii_digit()));
        }
        if let Ok(id) = WabaId::new(&raw) {
            assert!((1..=32).contains(&id.as_str().len()) && id.as_str().bytes().all(|b| b.is_ascii_digit()));
        }
        if let Ok(t) = AccessToken::new(&raw) {
            assert!((8..=4096).contains(&t.expose().len()) && !t.expose().contains(char::is_whitespace));
        }
        assert_eq!(PhoneNumberId::new(&digits).unwrap().as_str(), digits.as_str());
        assert_eq!(WabaId::new(&digits).unwrap().as_str(), digits.as_str());
    }

    #[test]
    fn presented_keys_are_checked_for_shape(raw in prop_oneof![hostile(), "(sk|pk)_[A-Za-z0-9é]{38,42}"], secret in "[A-Za-z0-9]{40}", publishable in any::<bool>()) {
        if let Ok(k) = PresentedKey::parse(&raw) {
            assert_eq!(raw.len(), 43);
            assert!(raw[3..].bytes().all(|b| b.is_ascii_alphanumeric()));
            assert_eq!(&raw[..3], k.kind().prefix());
        }
        let kind = if publishable { KeyKind::Publishable } else { KeyKind::Secret };
        let key = PresentedKey::parse(&format!("{}{secret}", kind.prefix())).unwrap();
        assert_eq!(key.kind(), kind);
    }

    #[test]
    fn placeholders_are_sorted_distinct_positive_numbers(text in prop_oneof![hostile(), "([a-z ]{0,3}(\\{\\{|\\}\\}|\\{| ?[0-9]{1,3} ?|\\}))*"]) {
        let found = placeholders(&text);
        assert!(found.windows(2).all(|w| w[0] < w[1]), "sorted, distinct: {found:?}");
        assert!(found.iter().all(|n| *n > 0));
        assert_eq!(parameter_count(&text), found.last().map_or(0, |&n| n as usize), "up to the highest");
        assert_eq!(fill(&text, &[]), text.clone(), "no parameters: the text is left as it is");
    }

    #[test]
    fn placeholders_of_a_written_template_are_found_and_filled(parts in proptest::collection::vec(("[a-zA-Z ,.é]{0,8}", 1u32..6, any::<bool>()), 0..8), trailer in "[a-z .]{0,5}") {
        let mut text = String::new();
        let mut expected = String::new();
        let params: Vec<String> = (1..6).map(|n| format!("<{n}>")).collect();
        let mut numbers = Vec::new();
        for (literal, n, spaced) in &parts {
            text.push_str(literal);
            text.push_str(&if *spaced { format!("{{{{ {n} }}}}") } else { format!("{{{{{n}}}}}") });
            expected.push_str(literal);
            expected.push_str(&params[*n as usize - 1]);
            if !numbers.contains(n) { numbers.push(*n); }
        }
        text.push_str(&trailer);
        expected.push_str(&trailer);
        numbers.sort_unstable();
        assert_eq!(placeholders(&text), numbers);
        assert_eq!(parameter_count(&text), numbers.last().map_or(0, |&n| n as usize));
        assert_eq!(fill(&text, &params), expected);
    }

    #[test]
    fn named_placeholders_of_a_written_template_are_found_and_filled(parts in proptest::collection::vec(("[a-zA-Z ,.é{}]{0,8}", "[a-z_][a-z0-9_]{0,6}", any::<bool>()), 0..8), trailer in "[a-z .]{0,5}") {
        let mut text = String::new();
        let mut expected = String::new();
        let mut names: Vec<String> = Vec::new();
        for (literal, name, spaced) in &parts {
            // A literal ending in `{` would make the placeholder's braces part of a longer run.
            let literal = literal.replace(['{', '}'], "");
            text.push_str(&literal);
            text.push_str(&if *spaced { format!("{{{{ {name} }}}}") } else { format!("{{{{{name}}}}}") });
            expected.push_str(&literal);
            expected.push_str(&format!("<{name}>"));
            if !names.contains(name) { names.push(name.clone()); }
        }
        text.push_str(&trailer);
        expected.push_str(&trailer);
        assert_eq!(placeholder_names(&text), names, "distinct, in order of first appearance");
        assert_eq!(placeholders(&text), Vec::<u32>::new(), "no numbers among names");
        let values: Vec<(String, String)> = names.iter().map(|n| (n.clone(), format!("<{n}>"))).collect();
        assert_eq!(fill_named(&text, &values), expected);
        assert_eq!(fill_named(&text, &[]), text.clone(), "no values: the text is left as it is");
    }

    #[test]
    fn named_template_sends_never_panic_and_fill_every_name(names in proptest::collection::vec(prop_oneof![Just("first_name".to_string()), Just("order_id".to_string()), hostile()], 0..4), values in proptest::collection::vec(prop_oneof!["[A-Za-z0-9 ]{1,12}", hostile()], 0..4)) {
        let mut t = template();
        t.definition.parameter_format = ParameterFormat::Named;
        t.definition.components = vec![TemplateComponent { kind: "BODY".into(), text: Some("Hi {{first_name}}, order {{order_id}}".into()), ..Default::default() }];
        let parameters: Vec<ParameterInput> = names.iter().zip(&values).map(|(n, v)| ParameterInput { kind: Some("text".into()), parameter_name: Some(n.clone()), text: Some(v.clone()), ..Default::default() }).collect();
        let body = ComponentInput { kind: Some("body".into()), parameters: Some(parameters), ..Default::default() };
        if let Ok(message) = TemplateMessage::build(&t, Some("14155550100"), Some(vec![body])) {
            let mut given: Vec<&str> = names.iter().take(values.len()).map(String::as_str).collect();
            given.sort_unstable();
            assert_eq!(given, ["first_name", "order_id"], "accepted only with each name exactly once");
            let value_of = |name: &str| names.iter().zip(&values).find(|(n, _)| *n == name).map(|(_, v)| v.as_str()).unwrap();
            assert_eq!(message.parsed_message, format!("Hi {}, order {}", value_of("first_name"), value_of("order_id")), "every placeholder filled by name");
        }
    }

    #[test]
    fn template_sends_never_panic_and_fill_every_placeholder(to in prop_oneof![hostile(), "\\+?[0-9]{7,15}"].prop_map(Some), components in proptest::option::of(proptest::collection::vec(component_input(), 0..5))) {
        let t = template();
        if let Ok(message) = TemplateMessage::build(&t, to.as_deref(), components) {
            assert!((7..=15).contains(&message.to.len()) && message.to.bytes().all(|b| b.is_ascii_digit()));
            // Accepted only with one parameter per placeholder: 1 in the header, 2 in the body, 1 in the URL button.
            let counts: Vec<(String, usize)> = message
                .components
                .iter()
                .map(|c| match c {
                    MessageComponent::Header(p) => ("header".to_string(), p.len()),
                    MessageComponent::Body(p) => ("body".to_string(), p.len()),
                    MessageComponent::Button { index, sub_type, parameters } => (format!("button {index} {}", sub_type.as_str()), parameters.len()),
                })
                .filter(|(k, _)| !k.ends_with("quick_reply"))
                .collect();
            assert_eq!(counts, vec![("header".to_string(), 1), ("body".to_string(), 2), ("button 0 url".to_string(), 1)]);
            for c in &message.components {
                let (MessageComponent::Header(p) | MessageComponent::Body(p) | MessageComponent::Button { parameters: p, .. }) = c;
                for v in p {
                    let (ParameterValue::Text(t) | ParameterValue::Payload(t)) = &v.value else { panic!("only text and payloads fit this template: {v:?}") };
                    assert!((1..=1024).contains(&t.chars().count()) && free_text(t));
                }
            }
            assert!(message.parsed_message.starts_with("Order "));
        }
    }
}

fn component_input() -> impl Strategy<Value = ComponentInput> {
    let kind =
        proptest::option::of(prop_oneof![Just("header".to_string()), Just("body".to_string()), Just("button".to_string()), hostile()]);
    let parameter = (
        proptest::option::of(prop_oneof![
            Just("text".to_string()),
            Just("payload".to_string()),
            Just("coupon_code".to_string()),
            hostile()
        ]),
        proptest::option::of(hostile()),
        proptest::option::of(hostile()),
        proptest::option::of(prop_oneof![Just("first_name".to_string()), hostile()]),
    )
        .prop_map(|(kind, text, payload, parameter_name)| ParameterInput { kind, text, payload, parameter_name, ..Default::default() });
    (
        kind,
        proptest::option::of(prop_oneof![Just("url".to_string()), Just("quick_reply".to_string()), hostile()]),
        proptest::option::of(prop_oneof![any::<i64>(), -1i64..4]),
        proptest::option::of(proptest::collection::vec(parameter, 0..4)),
    )
        .prop_map(|(kind, sub_type, index, parameters)| ComponentInput { kind, sub_type, index, parameters })
}

fn template() -> Template {
    let component = |kind: &str, text: Option<&str>, buttons: Vec<TemplateButton>| TemplateComponent {
        kind: kind.into(),
        format: text.map(|_| "TEXT".into()),
        text: text.map(Into::into),
        buttons,
    };
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
        created_at: Utc::now(),
    }
}

#[test]
fn a_send_with_every_parameter_is_accepted_and_rendered() {
    let text = |t: &str| ParameterInput { kind: Some("text".into()), text: Some(t.into()), ..Default::default() };
    let components = vec![
        ComponentInput { kind: Some("header".into()), parameters: Some(vec![text("A-17")]), ..Default::default() },
        ComponentInput { kind: Some("body".into()), parameters: Some(vec![text("Iris"), text("Friday")]), ..Default::default() },
        ComponentInput { kind: Some("button".into()), sub_type: Some("url".into()), index: Some(0), parameters: Some(vec![text("A-17")]) },
    ];
    let m = TemplateMessage::build(&template(), Some("+1 415 555 0100"), Some(components)).unwrap();
    assert_eq!(m.parsed_message, "Order A-17\n\nHi Iris, your order ships on Friday.");
    assert_eq!(m.to, "14155550100");
}
