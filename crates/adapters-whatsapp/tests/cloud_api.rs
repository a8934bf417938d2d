//! The adapter against a fake Graph API (wiremock): exact requests, paging, every error class.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::time::Duration;

use parley_adapters_whatsapp::{CloudApi, CloudApiConfig};
use parley_domain::model::{
    AccessToken, AgentId, ComponentInput, Line, LineAccess, LineAccount, LineId, ParameterInput, PhoneNumberId, Template, TemplateButton,
    TemplateComponent, TemplateDefinition, TemplateId, TemplateMessage, WabaId,
};
use parley_domain::ports::{MessagingPlatform, PlatformError, SentMessage};
use serde_json::{Value, json};
use wiremock::matchers::{body_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TOKEN: &str = "EAAG-test-token";
const PHONE: &str = "106540352242922";
const WABA: &str = "102290129340398";
const SEND_PATH: &str = "/v23.0/106540352242922/messages";
const LIST_PATH: &str = "/v23.0/102290129340398/message_templates";

fn api(server: &MockServer) -> CloudApi {
    api_with_timeout(server, Duration::from_secs(5))
}

fn api_with_timeout(server: &MockServer, timeout: Duration) -> CloudApi {
    CloudApi::new(CloudApiConfig {
        base_url: server.uri(),
        timeout,
        connect_timeout: Duration::from_secs(1),
        retry_backoff: Duration::from_millis(10),
        ..Default::default()
    })
    .unwrap()
}

fn line() -> Line {
    Line {
        id: LineId::new("chn_1"),
        agent_id: AgentId::new("agt_1"),
        account: LineAccount::Whatsapp { phone_number_id: PhoneNumberId::new(PHONE).unwrap(), waba_id: WabaId::new(WABA).unwrap() },
        access: LineAccess::Cloud(AccessToken::new(TOKEN).unwrap()),
        created_at: chrono::Utc::now(),
        pace: Default::default(),
    }
}

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
            parameter_format: Default::default(),
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
                        TemplateButton { kind: "QUICK_REPLY".into(), text: "Stop".into(), ..Default::default() },
                    ],
                ),
            ],
        },
        agent_id: AgentId::new("agt_1"),
        line_id: LineId::new("chn_1"),
        created_at: chrono::Utc::now(),
    }
}

fn text(t: &str) -> ParameterInput {
    ParameterInput { kind: Some("text".into()), text: Some(t.into()), ..Default::default() }
}

fn message() -> TemplateMessage {
    TemplateMessage::build(&template(), Some("14155550100"), Some(message_components())).unwrap()
}

fn message_components() -> Vec<ComponentInput> {
    vec![
        ComponentInput { kind: Some("header".into()), parameters: Some(vec![text("A-17")]), ..Default::default() },
        ComponentInput { kind: Some("body".into()), parameters: Some(vec![text("Ana"), text("Friday")]), ..Default::default() },
        ComponentInput { kind: Some("button".into()), sub_type: Some("url".into()), index: Some(0), parameters: Some(vec![text("A-17")]) },
        ComponentInput {
            kind: Some("button".into()),
            sub_type: Some("quick_reply".into()),
            index: Some(1),
            parameters: Some(vec![ParameterInput { kind: Some("payload".into()), payload: Some("STOP".into()), ..Default::default() }]),
        },
    ]
}

fn expected_body(callback: Option<&str>) -> Value {
    let mut body = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "14155550100",
        "type": "template",
        "template": {
            "name": "order_update",
            "language": {"code": "en_US"},
            "components": [
                {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
                {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "Friday"}]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "A-17"}]},
                {"type": "button", "sub_type": "quick_reply", "index": "1", "parameters": [{"type": "payload", "payload": "STOP"}]}
            ]
        }
    });
    if let Some(c) = callback {
        body["biz_opaque_callback_data"] = json!(c);
    }
    body
}

fn accepted() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "messaging_product": "whatsapp",
        "contacts": [{"input": "14155550100", "wa_id": "14155550100"}],
        "messages": [{"id": "wamid.HBgLMTQxNTU1NTAxMDAVAgARGBI"}]
    }))
}

fn platform_error(code: i64, message: &str, details: Option<&str>) -> Value {
    let mut error = json!({"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEf"});
    if let Some(d) = details {
        error["error_data"] = json!({"messaging_product": "whatsapp", "details": d});
    }
    json!({ "error": error })
}

/// Every error of this adapter must be free of the token.
fn assert_no_token(e: &PlatformError) {
    assert!(!format!("{e} {e:?}").contains(TOKEN), "the token leaked into {e:?}");
}

async fn send_error(status: u16, body: Value) -> PlatformError {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(ResponseTemplate::new(status).set_body_json(body))
        .expect(1)
        .mount(&server)
        .await;
    let e = api(&server).send_template(&line(), &message(), None).await.unwrap_err();
    assert_no_token(&e);
    e
}

#[tokio::test]
async fn a_marketing_template_goes_through_the_marketing_messages_api_and_a_user_id_as_recipient() {
    let server = MockServer::start().await;
    let mut body = expected_body(None);
    body.as_object_mut().unwrap().remove("to");
    body["recipient"] = json!("US.13491208655302741918");
    Mock::given(method("POST"))
        .and(path("/v23.0/106540352242922/marketing_messages"))
        .and(body_json(body))
        .respond_with(accepted())
        .expect(1)
        .mount(&server)
        .await;
    let mut template = template();
    template.definition.category = "MARKETING".into();
    let components = message_components();
    let marketing = TemplateMessage::build(&template, Some("US.13491208655302741918"), Some(components)).unwrap();
    assert!(marketing.marketing);
    api(&server).send_template(&line(), &marketing, None).await.unwrap();
}

#[tokio::test]
async fn a_send_posts_exactly_the_platform_body_with_the_bearer_token() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .and(header("content-type", "application/json"))
        .and(body_json(expected_body(None)))
        .respond_with(accepted())
        .expect(1)
        .mount(&server)
        .await;

    let sent = api(&server).send_template(&line(), &message(), None).await.unwrap();
    assert_eq!(sent, SentMessage { message_id: "wamid.HBgLMTQxNTU1NTAxMDAVAgARGBI".into(), wa_id: Some("14155550100".into()) });

    let requests = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert!(body.get("biz_opaque_callback_data").is_none(), "no callback data key without callback data");
    assert_eq!(requests[0].url.query(), None);
}

#[tokio::test]
async fn a_send_under_a_campaign_carries_its_key_as_callback_data() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .and(body_json(expected_body(Some("spring-sale"))))
        .respond_with(accepted())
        .expect(1)
        .mount(&server)
        .await;

    let sent = api(&server).send_template(&line(), &message(), Some("spring-sale")).await.unwrap();
    assert_eq!(sent.message_id, "wamid.HBgLMTQxNTU1NTAxMDAVAgARGBI");
}

#[tokio::test]
async fn a_template_without_parameters_is_sent_without_components() {
    let server = MockServer::start().await;
    let mut t = template();
    t.definition.components = vec![component("BODY", Some("Hello!"), vec![])];
    let m = TemplateMessage::build(&t, Some("14155550100"), None).unwrap();
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .and(body_json(json!({
            "messaging_product": "whatsapp", "recipient_type": "individual", "to": "14155550100", "type": "template",
            "template": {"name": "order_update", "language": {"code": "en_US"}}
        })))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"messages": [{"id": "wamid.X"}]})))
        .expect(1)
        .mount(&server)
        .await;
    let sent = api(&server).send_template(&line(), &m, None).await.unwrap();
    assert_eq!(sent, SentMessage { message_id: "wamid.X".into(), wa_id: None });
}

#[tokio::test]
async fn undeliverable_131026_is_rejected() {
    let e = send_error(400, platform_error(131026, "Message undeliverable", None)).await;
    assert_eq!(e, PlatformError::Rejected { code: Some(131026), message: "Message undeliverable".into(), details: None });
}

#[tokio::test]
async fn parameter_mismatch_132000_is_rejected_with_details() {
    let details = "body: number of localizable_params (1) does not match the expected number of params (2)";
    let e = send_error(
        400,
        platform_error(132000, "(#132000) Number of parameters does not match the expected number of params", Some(details)),
    )
    .await;
    assert_eq!(
        e,
        PlatformError::Rejected {
            code: Some(132000),
            message: "(#132000) Number of parameters does not match the expected number of params".into(),
            details: Some(details.into()),
        }
    );
}

#[tokio::test]
async fn an_expired_token_190_is_unauthorized() {
    let e = send_error(401, platform_error(190, "Error validating access token: Session has expired", None)).await;
    assert_eq!(e, PlatformError::Unauthorized { message: "Error validating access token: Session has expired".into() });
}

#[tokio::test]
async fn code_190_is_unauthorized_whatever_the_status() {
    let e = send_error(400, platform_error(190, "Invalid OAuth access token", None)).await;
    assert!(matches!(e, PlatformError::Unauthorized { .. }), "{e:?}");
}

#[tokio::test]
async fn a_failing_platform_is_unavailable_and_a_send_is_never_retried() {
    // `send_error` mounts the mock with `.expect(1)`: the server verifies a single request on drop.
    let e = send_error(500, platform_error(2, "An unexpected error has occurred. Please retry your request later.", None)).await;
    assert!(matches!(e, PlatformError::Unavailable { ref message } if message.starts_with("HTTP 500")), "{e:?}");
}

#[tokio::test]
async fn a_send_that_times_out_is_unavailable_and_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(accepted().set_delay(Duration::from_millis(1500)))
        .expect(1)
        .mount(&server)
        .await;
    let e = api_with_timeout(&server, Duration::from_millis(200)).send_template(&line(), &message(), None).await.unwrap_err();
    assert_no_token(&e);
    assert_eq!(e, PlatformError::Unavailable { message: "the platform did not answer in time".into() });
}

#[tokio::test]
async fn an_unreadable_success_body_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>oops</html>"))
        .expect(1)
        .mount(&server)
        .await;
    let e = api(&server).send_template(&line(), &message(), None).await.unwrap_err();
    assert!(matches!(e, PlatformError::Unavailable { .. }), "{e:?}");
}

#[tokio::test]
async fn an_unreachable_platform_is_unavailable() {
    // A port that was just free: nothing listens there (wiremock pools its servers, so dropping one does not close it).
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let api = CloudApi::new(CloudApiConfig { base_url: format!("http://127.0.0.1:{port}"), ..Default::default() }).unwrap();
    let e = api.send_template(&line(), &message(), None).await.unwrap_err();
    assert_no_token(&e);
    assert!(matches!(e, PlatformError::Unavailable { .. }), "{e:?}");
}

#[tokio::test]
async fn a_sandbox_line_never_reaches_the_network() {
    let server = MockServer::start().await;
    let mut sandbox = line();
    sandbox.access = LineAccess::Sandbox;
    let e = api(&server).send_template(&sandbox, &message(), None).await.unwrap_err();
    assert!(matches!(e, PlatformError::Unauthorized { .. }));
    assert!(api(&server).templates(&sandbox).await.is_err());
    assert!(server.received_requests().await.unwrap().is_empty());
}

fn page(server: &MockServer, names: &[&str], after: Option<&str>) -> Value {
    let data: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            json!({
                "id": format!("{name}-{i}"), "name": name, "language": "en_US", "status": "APPROVED", "category": "MARKETING",
                "parameter_format": "POSITIONAL",
                "components": [
                    {"type": "HEADER", "format": "TEXT", "text": "Order {{1}}", "example": {"header_text": ["A-1"]}},
                    {"type": "BODY", "text": "Hi {{1}}"},
                    {"type": "BUTTONS", "buttons": [{"type": "URL", "text": "Track", "url": "https://shop.example/t/{{1}}"}]}
                ]
            })
        })
        .collect();
    let mut paging = json!({"cursors": {"before": "b", "after": after.unwrap_or("z")}});
    if let Some(after) = after {
        paging["next"] = json!(format!("{}{LIST_PATH}?limit=100&after={after}", server.uri()));
    }
    json!({"data": data, "paging": paging})
}

#[tokio::test]
async fn templates_follow_paging_next_to_the_last_page() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .and(query_param("after", "cursor-2"))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(&server, &["third"], None)))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .and(query_param("limit", "100"))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(&server, &["first", "second"], Some("cursor-2"))))
        .expect(1)
        .mount(&server)
        .await;

    let templates = api(&server).templates(&line()).await.unwrap();
    let names: Vec<_> = templates.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["first", "second", "third"]);
    let first = &templates[0];
    assert_eq!((first.id.as_str(), first.language.as_str(), first.status.as_str()), ("first-0", "en_US", "APPROVED"));
    assert_eq!(first.category, "MARKETING");
    assert_eq!(
        first.components,
        vec![
            TemplateComponent { kind: "HEADER".into(), format: Some("TEXT".into()), text: Some("Order {{1}}".into()), buttons: vec![] },
            TemplateComponent { kind: "BODY".into(), format: None, text: Some("Hi {{1}}".into()), buttons: vec![] },
            TemplateComponent {
                kind: "BUTTONS".into(),
                format: None,
                text: None,
                buttons: vec![TemplateButton {
                    kind: "URL".into(),
                    text: "Track".into(),
                    url: Some("https://shop.example/t/{{1}}".into()),
                    ..Default::default()
                }],
            },
        ]
    );
}

#[tokio::test]
async fn a_template_list_survives_one_503() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(&server, &["only"], None)))
        .expect(1)
        .mount(&server)
        .await;
    let templates = api(&server).templates(&line()).await.unwrap();
    assert_eq!(templates.len(), 1);
}

#[tokio::test]
async fn a_template_list_gives_up_after_two_retries() {
    let server = MockServer::start().await;
    Mock::given(method("GET")).and(path(LIST_PATH)).respond_with(ResponseTemplate::new(500)).expect(3).mount(&server).await;
    let e = api(&server).templates(&line()).await.unwrap_err();
    assert_eq!(e, PlatformError::Unavailable { message: "HTTP 500".into() });
}

#[tokio::test]
async fn a_template_list_that_times_out_is_retried_then_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(&server, &["late"], None)).set_delay(Duration::from_millis(1500)))
        .expect(3)
        .mount(&server)
        .await;
    let e = api_with_timeout(&server, Duration::from_millis(150)).templates(&line()).await.unwrap_err();
    assert_eq!(e, PlatformError::Unavailable { message: "the platform did not answer in time".into() });
}

#[tokio::test]
async fn a_rejected_template_list_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .respond_with(ResponseTemplate::new(401).set_body_json(platform_error(190, "Error validating access token", None)))
        .expect(1)
        .mount(&server)
        .await;
    let e = api(&server).templates(&line()).await.unwrap_err();
    assert_no_token(&e);
    assert_eq!(e, PlatformError::Unauthorized { message: "Error validating access token".into() });
}

#[tokio::test]
async fn a_paging_link_to_another_host_is_not_followed() {
    let server = MockServer::start().await;
    let mut body = page(&server, &["first"], None);
    body["paging"]["next"] = json!("https://elsewhere.example/v23.0/1/message_templates?after=x");
    Mock::given(method("GET"))
        .and(path(LIST_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(&server)
        .await;
    let e = api(&server).templates(&line()).await.unwrap_err();
    assert!(matches!(e, PlatformError::Unavailable { .. }), "{e:?}");
}

async fn read_all(file: parley_domain::ports::MediaFile) -> Vec<u8> {
    use futures_util::StreamExt;
    let chunks: Vec<Vec<u8>> = file.body.map(|c| c.unwrap()).collect().await;
    chunks.concat()
}

#[tokio::test]
async fn media_is_looked_up_then_fetched_with_the_lines_token() {
    let server = MockServer::start().await;
    let file_url = format!("{}/whatsapp_business/attachments/?mid=1013", server.uri());
    Mock::given(method("GET"))
        .and(path("/v23.0/1013"))
        .and(query_param("phone_number_id", PHONE))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"messaging_product": "whatsapp", "url": file_url, "mime_type": "image/jpeg", "sha256": "x", "file_size": "4", "id": "1013"}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/whatsapp_business/attachments/"))
        .and(query_param("mid", "1013"))
        .and(header("authorization", "Bearer EAAG-test-token"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"\xff\xd8ok".to_vec(), "application/octet-stream"))
        .expect(1)
        .mount(&server)
        .await;

    let file = api(&server).media(&line(), "1013").await.unwrap();
    assert_eq!((file.mime_type.as_str(), file.length), ("image/jpeg", Some(4)));
    assert_eq!(read_all(file).await, b"\xff\xd8ok");
}

#[tokio::test]
async fn media_the_platform_no_longer_has_is_rejected_and_odd_ids_never_reach_it() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v23.0/999"))
        .respond_with(ResponseTemplate::new(404).set_body_json(platform_error(100, "Unsupported get request", None)))
        .mount(&server)
        .await;
    let api = api(&server);
    assert!(matches!(api.media(&line(), "999").await, Err(PlatformError::Rejected { code: Some(100), .. })));
    for odd in ["", "../v23.0/me", "1013?x=1"] {
        assert!(matches!(api.media(&line(), odd).await, Err(PlatformError::Rejected { code: None, .. })), "{odd:?}");
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_media_url_over_plain_http_to_another_host_is_not_followed() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v23.0/1013"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"url": "http://elsewhere.test/file", "mime_type": "image/jpeg"})))
        .mount(&server)
        .await;
    let e = api(&server).media(&line(), "1013").await.unwrap_err();
    assert!(matches!(e, PlatformError::Unavailable { .. }), "{e:?}");
}
