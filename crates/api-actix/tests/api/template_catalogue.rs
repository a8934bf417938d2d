//! A catalogue of templates as the platform makes them — each header format, each button kind,
//! named and numbered placeholders, an authentication template — synced from the fake Graph API
//! and sent through the real app on both backends. For each: the exact wire body Parley sends
//! for a valid request (Meta's documented send examples are the requests), and the 400 for each
//! way a request can be incomplete, with nothing sent. Kinds Parley cannot check are 422
//! `TEMPLATE_UNSUPPORTED` naming the part.

use crate::messaging::{CLOUD_PHONE, accepted, cloud_line, issues, messages_path, send_uri, sends_received, start};
use serde_json::{Value, json};
use wiremock::Mock;
use wiremock::matchers::{body_json, method, path};

backend_tests!(
    every_template_of_the_catalogue_goes_out_exactly_as_the_platform_documents_it,
    every_incomplete_send_is_400_naming_the_part_and_nothing_is_sent,
    kinds_parley_cannot_check_are_422_template_unsupported_naming_the_part,
    the_template_shows_what_a_send_needs,
);

const TO: &str = "14155550100";

/// One template as the Graph API lists it, a valid send of it, what the platform must receive
/// (its `template.components`, absent when none), and the `parsed_message`.
struct Entry {
    template: Value,
    send: Value,
    wire: Option<Value>,
    parsed: &'static str,
}

fn template(id: &str, name: &str, category: &str, format: &str, components: Value) -> Value {
    json!({"id": id, "name": name, "language": "en_US", "status": "APPROVED", "category": category,
        "parameter_format": format, "components": components})
}

fn catalogue() -> Vec<Entry> {
    vec![
        // An image header by link, a numbered body, a quick reply with its payload.
        Entry {
            template: template(
                "8001",
                "summer_sale",
                "MARKETING",
                "POSITIONAL",
                json!([
                    {"type": "HEADER", "format": "IMAGE", "example": {"header_handle": ["4::aW1hZ2UvanBlZw==:ARb"]}},
                    {"type": "BODY", "text": "Hi {{1}}, our summer sale is on: {{2}} off everything.", "example": {"body_text": [["Ana", "25%"]]}},
                    {"type": "FOOTER", "text": "Reply STOP to opt out"},
                    {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "Show me"}, {"type": "QUICK_REPLY", "text": "Stop"}]}
                ]),
            ),
            send: json!([
                {"type": "header", "parameters": [{"type": "image", "image": {"link": "https://cdn.example.com/summer.jpg"}}]},
                {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "25%"}]},
                {"type": "button", "sub_type": "quick_reply", "index": "0", "parameters": [{"type": "payload", "payload": "SHOW-SALE"}]}
            ]),
            wire: Some(json!([
                {"type": "header", "parameters": [{"type": "image", "image": {"link": "https://cdn.example.com/summer.jpg"}}]},
                {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "25%"}]},
                {"type": "button", "sub_type": "quick_reply", "index": "0", "parameters": [{"type": "payload", "payload": "SHOW-SALE"}]}
            ])),
            parsed: "Hi Ana, our summer sale is on: 25% off everything.\n\nReply STOP to opt out",
        },
        // A video header by uploaded media id.
        Entry {
            template: template(
                "8002",
                "product_tour",
                "MARKETING",
                "POSITIONAL",
                json!([
                    {"type": "HEADER", "format": "VIDEO"},
                    {"type": "BODY", "text": "See the new mug in action."}
                ]),
            ),
            send: json!([{"type": "header", "parameters": [{"type": "video", "video": {"id": "1166846181421424"}}]}]),
            wire: Some(json!([{"type": "header", "parameters": [{"type": "video", "video": {"id": "1166846181421424"}}]}])),
            parsed: "See the new mug in action.",
        },
        // A document header with the file name the recipient sees.
        Entry {
            template: template(
                "8003",
                "invoice_ready",
                "UTILITY",
                "POSITIONAL",
                json!([
                    {"type": "HEADER", "format": "DOCUMENT"},
                    {"type": "BODY", "text": "Your invoice {{1}} is attached."}
                ]),
            ),
            send: json!([
                {"type": "header", "parameters": [{"type": "document", "document": {"link": "https://cdn.example.com/inv/A-17.pdf", "filename": "Invoice A-17.pdf"}}]},
                {"type": "body", "parameters": [{"type": "text", "text": "A-17"}]}
            ]),
            wire: Some(json!([
                {"type": "header", "parameters": [{"type": "document", "document": {"link": "https://cdn.example.com/inv/A-17.pdf", "filename": "Invoice A-17.pdf"}}]},
                {"type": "body", "parameters": [{"type": "text", "text": "A-17"}]}
            ])),
            parsed: "Your invoice A-17 is attached.",
        },
        // A location header, its coordinates written as strings as in Meta's example.
        Entry {
            template: template(
                "8004",
                "store_opening",
                "MARKETING",
                "POSITIONAL",
                json!([
                    {"type": "HEADER", "format": "LOCATION"},
                    {"type": "BODY", "text": "Our new store opens Saturday. See you there!"}
                ]),
            ),
            send: json!([{"type": "header", "parameters": [{"type": "location", "location": {
                "latitude": "37.483307", "longitude": "122.148981", "name": "Pablo Morales", "address": "1 Hacker Way, Menlo Park, CA 94025"}}]}]),
            wire: Some(json!([{"type": "header", "parameters": [{"type": "location", "location": {
                "latitude": 37.483307, "longitude": 122.148981, "name": "Pablo Morales", "address": "1 Hacker Way, Menlo Park, CA 94025"}}]}])),
            parsed: "Our new store opens Saturday. See you there!",
        },
        // Named placeholders in the header and the body, given in any order.
        Entry {
            template: template(
                "8005",
                "order_confirmation",
                "UTILITY",
                "NAMED",
                json!([
                    {"type": "HEADER", "format": "TEXT", "text": "Order {{order_number}}", "example": {"header_text_named_params": [{"param_name": "order_number", "example": "A-1"}]}},
                    {"type": "BODY", "text": "Thank you, {{first_name}}! Order {{order_number}} is confirmed.",
                        "example": {"body_text_named_params": [{"param_name": "first_name", "example": "Jessica"}, {"param_name": "order_number", "example": "A-1"}]}}
                ]),
            ),
            send: json!([
                {"type": "header", "parameters": [{"type": "text", "parameter_name": "order_number", "text": "SKBUP2-4CPIG9"}]},
                {"type": "body", "parameters": [
                    {"type": "text", "parameter_name": "order_number", "text": "SKBUP2-4CPIG9"},
                    {"type": "text", "parameter_name": "first_name", "text": "Jessica"}
                ]}
            ]),
            wire: Some(json!([
                {"type": "header", "parameters": [{"type": "text", "parameter_name": "order_number", "text": "SKBUP2-4CPIG9"}]},
                {"type": "body", "parameters": [
                    {"type": "text", "parameter_name": "order_number", "text": "SKBUP2-4CPIG9"},
                    {"type": "text", "parameter_name": "first_name", "text": "Jessica"}
                ]}
            ])),
            parsed: "Order SKBUP2-4CPIG9\n\nThank you, Jessica! Order SKBUP2-4CPIG9 is confirmed.",
        },
        // A coupon: Meta's example writes the sub_type in capitals and the index as a number.
        Entry {
            template: template(
                "8006",
                "coupon_code_fall2023_25off",
                "MARKETING",
                "POSITIONAL",
                json!([
                    {"type": "HEADER", "format": "TEXT", "text": "Our Fall Sale is on!"},
                    {"type": "BODY", "text": "Shop now through November and use code {{1}} to get {{2}} off of all merchandise!"},
                    {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "Unsubscribe"}, {"type": "COPY_CODE", "example": "250FF"}]}
                ]),
            ),
            send: json!([
                {"type": "body", "parameters": [{"type": "text", "text": "25OFF"}, {"type": "text", "text": "25%"}]},
                {"type": "button", "sub_type": "COPY_CODE", "index": 1, "parameters": [{"type": "coupon_code", "coupon_code": "25OFF"}]}
            ]),
            wire: Some(json!([
                {"type": "body", "parameters": [{"type": "text", "text": "25OFF"}, {"type": "text", "text": "25%"}]},
                {"type": "button", "sub_type": "copy_code", "index": "1", "parameters": [{"type": "coupon_code", "coupon_code": "25OFF"}]}
            ])),
            parsed: "Our Fall Sale is on!\n\nShop now through November and use code 25OFF to get 25% off of all merchandise!",
        },
        // Authentication: the code in the body and on the OTP button, under `url`.
        Entry {
            template: template(
                "8007",
                "verification_code",
                "AUTHENTICATION",
                "POSITIONAL",
                json!([
                    {"type": "BODY", "text": "*{{1}}* is your verification code. For your security, do not share this code.", "add_security_recommendation": true},
                    {"type": "FOOTER", "text": "This code expires in 10 minutes.", "code_expiration_minutes": 10},
                    {"type": "BUTTONS", "buttons": [{"type": "OTP", "otp_type": "COPY_CODE", "text": "Copy code"}]}
                ]),
            ),
            send: json!([
                {"type": "body", "parameters": [{"type": "text", "text": "J$FpnYnP"}]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "J$FpnYnP"}]}
            ]),
            wire: Some(json!([
                {"type": "body", "parameters": [{"type": "text", "text": "J$FpnYnP"}]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "J$FpnYnP"}]}
            ])),
            parsed: "*J$FpnYnP* is your verification code. For your security, do not share this code.\n\nThis code expires in 10 minutes.",
        },
        // Currency and date_time: the recipient reads their fallback text.
        Entry {
            template: template(
                "8008",
                "payment_due",
                "UTILITY",
                "POSITIONAL",
                json!([
                    {"type": "BODY", "text": "Your payment of {{1}} is due on {{2}}."},
                    {"type": "BUTTONS", "buttons": [{"type": "URL", "text": "Pay now", "url": "https://shop.example.com/pay/{{1}}"}]}
                ]),
            ),
            send: json!([
                {"type": "body", "parameters": [
                    {"type": "currency", "currency": {"fallback_value": "$100.99", "code": "USD", "amount_1000": 100990}},
                    {"type": "date_time", "date_time": {"fallback_value": "February 25, 1977"}}
                ]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "inv-9"}]}
            ]),
            wire: Some(json!([
                {"type": "body", "parameters": [
                    {"type": "currency", "currency": {"fallback_value": "$100.99", "code": "USD", "amount_1000": 100990}},
                    {"type": "date_time", "date_time": {"fallback_value": "February 25, 1977"}}
                ]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "inv-9"}]}
            ])),
            parsed: "Your payment of $100.99 is due on February 25, 1977.",
        },
        // A catalog button with its thumbnail product.
        Entry {
            template: template(
                "8009",
                "catalog_week",
                "MARKETING",
                "POSITIONAL",
                json!([
                    {"type": "BODY", "text": "New this week in our catalog."},
                    {"type": "BUTTONS", "buttons": [{"type": "CATALOG", "text": "View catalog"}]}
                ]),
            ),
            send: json!([{"type": "button", "sub_type": "CATALOG", "index": 0, "parameters": [
                {"type": "action", "action": {"thumbnail_product_retailer_id": "2lc20305pt"}}]}]),
            wire: Some(json!([{"type": "button", "sub_type": "catalog", "index": "0", "parameters": [
                {"type": "action", "action": {"thumbnail_product_retailer_id": "2lc20305pt"}}]}])),
            parsed: "New this week in our catalog.",
        },
        // Buttons that take nothing (a phone number, a fixed URL) and a flow opened with its defaults.
        Entry {
            template: template(
                "8010",
                "contact_us",
                "UTILITY",
                "POSITIONAL",
                json!([
                    {"type": "BODY", "text": "Questions? We are here."},
                    {"type": "BUTTONS", "buttons": [
                        {"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550100"},
                        {"type": "URL", "text": "Help center", "url": "https://shop.example.com/help"},
                        {"type": "FLOW", "text": "Book a call", "flow_id": "1234", "flow_action": "navigate"}
                    ]}
                ]),
            ),
            send: json!([]),
            wire: None,
            parsed: "Questions? We are here.",
        },
    ]
}

async fn every_template_of_the_catalogue_goes_out_exactly_as_the_platform_documents_it(backend: &str) {
    let (server, app) = start(backend).await;
    let entries = catalogue();
    cloud_line(&app, &server, entries.iter().map(|e| e.template.clone()).collect()).await;
    for (n, e) in entries.iter().enumerate() {
        let mut template = json!({"name": e.template["name"], "language": {"code": "en_US"}});
        if let Some(components) = &e.wire {
            template["components"] = components.clone();
        }
        let wamid = format!("wamid.catalogue{n}");
        // Marketing templates through the Marketing Messages API, the rest as any message.
        let endpoint = match e.template["category"].as_str() {
            Some("MARKETING") => format!("/v23.0/{CLOUD_PHONE}/marketing_messages"),
            _ => messages_path(CLOUD_PHONE),
        };
        let _exact = Mock::given(method("POST"))
            .and(path(endpoint))
            .and(body_json(json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": TO, "type": "template", "template": template})))
            .respond_with(accepted(TO, &wamid))
            .expect(1)
            .mount_as_scoped(&server)
            .await;
        let id = e.template["id"].as_str().unwrap();
        let r = app.post(&send_uri(id), &app.a.secret, json!({"to": TO, "components": e.send})).await;
        assert_eq!(r.status, 200, "{}: {}", e.template["name"], r.body);
        assert_eq!((r.data()["message_id"].as_str(), r.data()["parsed_message"].as_str()), (Some(wamid.as_str()), Some(e.parsed)));
    }
    server.verify().await;
}

/// Sends of catalogue templates that are incomplete or wrong, each with the field and the words
/// its 400 must carry.
fn incomplete() -> Vec<(&'static str, Value, &'static str, &'static str)> {
    let image = |link: &str| json!({"type": "header", "parameters": [{"type": "image", "image": {"link": link}}]});
    let body2 = json!({"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "25%"}]});
    let named = |name: &str| json!({"type": "text", "parameter_name": name, "text": "x"});
    let coupon_body = json!({"type": "body", "parameters": [{"type": "text", "text": "25OFF"}, {"type": "text", "text": "25%"}]});
    let code_body = json!({"type": "body", "parameters": [{"type": "text", "text": "123456"}]});
    let location = |l: Value| json!([{"type": "header", "parameters": [{"type": "location", "location": l}]}]);
    vec![
        // media headers
        ("8001", json!([body2]), "components", "the header needs an image parameter"),
        (
            "8001",
            json!([{"type": "header", "parameters": [{"type": "text", "text": "A"}]}, body2]),
            "components[0].parameters[0].type",
            "must be image here",
        ),
        ("8001", json!([image("http://cdn.example.com/summer.jpg"), body2]), "components[0].parameters[0].image.link", "https"),
        (
            "8001",
            json!([{"type": "header", "parameters": [{"type": "image", "image": {}}]}, body2]),
            "components[0].parameters[0].image",
            "exactly one of link",
        ),
        (
            "8001",
            json!([{"type": "header", "parameters": []}, body2]),
            "components[0].parameters[0]",
            "is required: the header takes one image parameter, got 0",
        ),
        (
            "8001",
            json!([image("https://cdn.example.com/a.jpg"), body2, {"type": "button", "sub_type": "quick_reply", "index": 0, "parameters": [{"type": "text", "text": "x"}]}]),
            "components[2].parameters[0].type",
            "must be payload here",
        ),
        (
            "8002",
            json!([{"type": "header", "parameters": [{"type": "image", "image": {"id": "1"}}]}]),
            "components[0].parameters[0].type",
            "must be video here",
        ),
        (
            "8002",
            json!([{"type": "header", "parameters": [{"type": "video", "video": {"id": "1", "filename": "a.mp4"}}]}]),
            "components[0].parameters[0].video.filename",
            "documents only",
        ),
        (
            "8003",
            json!([{"type": "body", "parameters": [{"type": "text", "text": "A-17"}]}]),
            "components",
            "the header needs a document parameter",
        ),
        // location header
        ("8004", json!([]), "components", "the header needs a location parameter"),
        (
            "8004",
            location(json!({"latitude": 37.4, "longitude": 122.1, "name": "Shop"})),
            "components[0].parameters[0].location.address",
            "is required",
        ),
        (
            "8004",
            location(json!({"latitude": 137.4, "longitude": 122.1, "name": "Shop", "address": "Main St"})),
            "components[0].parameters[0].location.latitude",
            "between -90 and 90",
        ),
        // named placeholders
        (
            "8005",
            json!([{"type": "header", "parameters": [named("order_number")]}, {"type": "body", "parameters": [named("first_name")]}]),
            "components[1].parameters",
            "the body needs the parameter(s) named order_number",
        ),
        (
            "8005",
            json!([{"type": "header", "parameters": [named("order_number")]}, {"type": "body", "parameters": [named("first_name"), named("order_number"), named("nickname")]}]),
            "components[1].parameters[2].parameter_name",
            "`nickname` is not a placeholder of the body",
        ),
        (
            "8005",
            json!([{"type": "header", "parameters": [{"type": "text", "text": "A-1"}]}, {"type": "body", "parameters": [named("first_name"), named("order_number")]}]),
            "components[0].parameters[0].parameter_name",
            "is required",
        ),
        (
            "8005",
            json!([{"type": "body", "parameters": [named("first_name"), named("order_number")]}]),
            "components",
            "the header needs the parameter(s) named order_number",
        ),
        // numbered placeholders take no names
        (
            "8003",
            json!([{"type": "header", "parameters": [{"type": "document", "document": {"id": "1"}}]}, {"type": "body", "parameters": [named("invoice")]}]),
            "components[1].parameters[0].parameter_name",
            "numbers them",
        ),
        // copy code
        ("8006", json!([coupon_body]), "components", "button 1 needs 1 parameter (COPY_CODE button): a coupon_code parameter"),
        (
            "8006",
            json!([coupon_body, {"type": "button", "sub_type": "copy_code", "index": 1, "parameters": [{"type": "coupon_code", "coupon_code": "THIS-CODE-IS-TOO-LONG"}]}]),
            "components[1].parameters[0].coupon_code",
            "1 to 15 characters",
        ),
        (
            "8006",
            json!([coupon_body, {"type": "button", "sub_type": "url", "index": 1, "parameters": [{"type": "coupon_code", "coupon_code": "25OFF"}]}]),
            "components[1].sub_type",
            "must be copy_code for button 1 (COPY_CODE)",
        ),
        // authentication
        ("8007", json!([code_body]), "components", "button 0 needs 1 parameter (OTP button): a text parameter: the one-time code"),
        (
            "8007",
            json!([{"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "123456"}]}]),
            "components",
            "the body needs 1 parameter(s)",
        ),
        // currency and date_time
        (
            "8008",
            json!([{"type": "body", "parameters": [{"type": "currency", "currency": {"fallback_value": "$1", "amount_1000": 1000}}, {"type": "date_time", "date_time": {}}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "x"}]}]),
            "components[0].parameters[0].currency.code",
            "is required",
        ),
        (
            "8008",
            json!([{"type": "body", "parameters": [{"type": "text", "text": "$1"}, {"type": "date_time", "date_time": {}}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "x"}]}]),
            "components[0].parameters[1].date_time.fallback_value",
            "is required",
        ),
        (
            "8008",
            json!([{"type": "body", "parameters": [{"type": "text", "text": "two\nlines"}, {"type": "text", "text": "Friday"}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "x"}]}]),
            "components[0].parameters[0].text",
            "newlines",
        ),
        // catalog
        (
            "8009",
            json!([{"type": "button", "sub_type": "catalog", "index": 0, "parameters": [{"type": "action", "action": {}}]}]),
            "components[0].parameters[0].action.thumbnail_product_retailer_id",
            "is required",
        ),
        // buttons that take nothing
        (
            "8010",
            json!([{"type": "button", "sub_type": "url", "index": 1, "parameters": [{"type": "text", "text": "x"}]}]),
            "components[0]",
            "button 1 (URL) takes no parameters",
        ),
        (
            "8010",
            json!([{"type": "button", "sub_type": "url", "index": 0, "parameters": []}]),
            "components[0]",
            "button 0 (PHONE_NUMBER) takes no parameters",
        ),
        (
            "8010",
            json!([{"type": "button", "sub_type": "url", "index": 3, "parameters": []}]),
            "components[0].index",
            "one of the template's 3 button(s)",
        ),
        ("8010", json!([{"type": "header", "parameters": []}]), "components[0].type", "the template has no header"),
    ]
}

async fn every_incomplete_send_is_400_naming_the_part_and_nothing_is_sent(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, catalogue().into_iter().map(|e| e.template).collect()).await;
    let _none = Mock::given(method("POST")).respond_with(accepted(TO, "wamid.never")).expect(0).mount_as_scoped(&server).await;
    for (id, components, field, issue) in incomplete() {
        let r = app.post(&send_uri(id), &app.a.secret, json!({"to": TO, "components": components})).await;
        let found = issues(&r);
        assert_eq!(r.status, 400, "{id} {components}: {}", r.body);
        assert!(
            found.iter().any(|(f, i)| f == field && i.contains(issue)),
            "{id} {components}: expected {field:?} ~ {issue:?}, got {found:?}"
        );
    }
    // Coordinates that are neither numbers nor decimal strings are not JSON the API reads.
    let r = app
        .post(
            &send_uri("8004"),
            &app.a.secret,
            json!({"to": TO, "components": [{"type": "header", "parameters": [{"type": "location",
            "location": {"latitude": "north", "longitude": 1, "name": "a", "address": "b"}}]}]}),
        )
        .await;
    r.assert_error(400, "INVALID_JSON");
    assert_eq!(sends_received(&server).await, 0, "nothing reached the platform");
    server.verify().await;
}

async fn kinds_parley_cannot_check_are_422_template_unsupported_naming_the_part(backend: &str) {
    let (server, app) = start(backend).await;
    let templates = vec![
        template(
            "8101",
            "carousel_promo",
            "MARKETING",
            "POSITIONAL",
            json!([
                {"type": "BODY", "text": "Our picks for you"},
                {"type": "CAROUSEL", "cards": [{"components": [{"type": "HEADER", "format": "IMAGE"}, {"type": "BODY", "text": "Mug"}]}]}
            ]),
        ),
        template(
            "8102",
            "limited_offer",
            "MARKETING",
            "POSITIONAL",
            json!([
                {"type": "LIMITED_TIME_OFFER", "limited_time_offer": {"text": "Expiring offer!", "has_expiration": true}},
                {"type": "BODY", "text": "Good deal"}
            ]),
        ),
        template(
            "8103",
            "pick_products",
            "MARKETING",
            "POSITIONAL",
            json!([
                {"type": "BODY", "text": "Pick yours"},
                {"type": "BUTTONS", "buttons": [{"type": "MPM", "text": "View items"}]}
            ]),
        ),
        template(
            "8104",
            "book_table",
            "UTILITY",
            "POSITIONAL",
            json!([
                {"type": "BODY", "text": "Book a table"},
                {"type": "BUTTONS", "buttons": [{"type": "FLOW", "text": "Book", "flow_id": "1234"}]}
            ]),
        ),
    ];
    cloud_line(&app, &server, templates).await;
    let _none = Mock::given(method("POST")).respond_with(accepted(TO, "wamid.never")).expect(0).mount_as_scoped(&server).await;
    let flow_data = json!([{"type": "button", "sub_type": "flow", "index": "0", "parameters": [
        {"type": "action", "action": {"flow_token": "AQAAAAACS5FpgQ_cAAAAAD0QI3s.", "flow_action_data": {"screen": "BOOKING"}}}]}]);
    let cases = [
        ("8101", json!([]), "template.components[1]", "a CAROUSEL component"),
        ("8102", json!([]), "template.components[0]", "a LIMITED_TIME_OFFER component"),
        ("8103", json!([]), "template.components[1].buttons[0]", "a MPM button"),
        ("8104", flow_data, "components[0].parameters[0]", "a flow's own token and data"),
    ];
    for (id, components, field, issue) in cases {
        let r = app.post(&send_uri(id), &app.a.secret, json!({"to": TO, "components": components})).await;
        r.assert_error(422, "TEMPLATE_UNSUPPORTED");
        assert_eq!(issues(&r), [(field.to_string(), issue.to_string())], "{}", r.body);
        assert!(r.body["error"]["message"].as_str().unwrap().contains(issue), "{}", r.body);
    }
    // Listed all the same, so a caller sees them.
    let names: Vec<String> = app
        .get("/v1/templates", &app.a.secret)
        .await
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["book_table", "carousel_promo", "limited_offer", "pick_products"]);
    assert_eq!(sends_received(&server).await, 0);
    server.verify().await;
}

async fn the_template_shows_what_a_send_needs(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, catalogue().into_iter().map(|e| e.template).collect()).await;
    let t = |id: &'static str| {
        let app = &app;
        async move { app.get(&format!("/v1/templates/{id}"), &app.a.secret).await.data().clone() }
    };
    let image = t("8001").await;
    assert_eq!(image["components"][0], json!({"type": "HEADER", "format": "IMAGE"}));
    let named = t("8005").await;
    assert_eq!(named["parameter_format"], "NAMED");
    assert_eq!(named["components"][1]["text"], "Thank you, {{first_name}}! Order {{order_number}} is confirmed.");
    let auth = t("8007").await;
    assert_eq!(auth["components"][2]["buttons"], json!([{"type": "OTP", "text": "Copy code", "otp_type": "COPY_CODE"}]));
    let contact = t("8010").await;
    assert_eq!(
        contact["components"][1]["buttons"],
        json!([
            {"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550100"},
            {"type": "URL", "text": "Help center", "url": "https://shop.example.com/help"},
            {"type": "FLOW", "text": "Book a call"}
        ])
    );
    let coupon: Value = t("8006").await;
    assert_eq!(coupon["components"][2]["buttons"][1], json!({"type": "COPY_CODE", "text": ""}));
}
