//! The OpenAPI 3.1 document, generated from the handlers' annotations. Committed as
//! `docs/openapi.json`; `cargo xtask codegen --check` and a test fail when it is stale, and the
//! check also validates it against the OpenAPI 3.1 schema (docs/api-document.md).

mod conditional;
mod free_form;
mod names;
mod references;
mod responses;

use std::sync::OnceLock;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::http::dto::ProductKindName;
use crate::http::limits::openapi::RateLimitDocs;
use crate::http::routes::{
    activities, campaigns, canned_responses, carts, catalog, contacts, event_webhooks, members, messages, reports, rules, settings, stream,
    tags, templates,
};
use responses::CommonResponses;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Parley API",
        description = "Conversations, contacts, tags, a product catalog and shareable carts for a business agent that sells over chat. \
            Every request carries `X-API-Key`; all data is scoped to the key's agent. \
            Errors have the shape `{\"error\":{\"code\",\"message\",\"details\",\"request_id\"}}`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    servers((url = "http://127.0.0.1:8080", description = "`parley serve` on its default address; point clients at your deployment's base URL")),
    paths(
        tags::list_tags, tags::create_tag, tags::update_tag, tags::delete_tag,
        members::list_members, members::add_member, members::update_member, members::remove_member,
        members::sign_in, members::get_session, members::sign_out, members::change_password,
        activities::list_activities, activities::open_activity, activities::get_activity, activities::update_activity,
        activities::attach_tags, activities::detach_tag, activities::read_activity,
        messages::list_messages, messages::get_message, messages::cancel_message, messages::send_reply, messages::get_media, messages::add_note,
        canned_responses::list_canned_responses, canned_responses::create_canned_response, canned_responses::get_canned_response,
        canned_responses::update_canned_response, canned_responses::delete_canned_response,
        settings::get_business_hours, settings::put_business_hours, settings::get_first_response, settings::put_first_response,
        reports::conversations_report,
        rules::list_rules, rules::create_rule, rules::get_rule, rules::update_rule, rules::delete_rule, rules::list_rule_runs,
        contacts::list_contacts, contacts::get_contact, contacts::create_contact, contacts::update_contact, contacts::delete_contact,
        catalog::list_products, catalog::search_products, catalog::get_product, catalog::list_categories,
        carts::create_cart, carts::get_cart,
        templates::list_templates, templates::get_template, templates::line_templates, templates::channel_templates, templates::send_template,
        campaigns::get_campaign,
        campaigns::list_executions,
        event_webhooks::list_endpoints, event_webhooks::create_endpoint, event_webhooks::get_endpoint,
        event_webhooks::update_endpoint, event_webhooks::delete_endpoint, event_webhooks::rotate_secret,
        event_webhooks::test_endpoint, event_webhooks::list_attempts,
        event_webhooks::list_events, event_webhooks::get_event, event_webhooks::redeliver,
        stream::stream_events,
    ),
    // Types that only query parameters name, which utoipa does not register by itself.
    components(schemas(ProductKindName)),
    modifiers(&ApiKeyAuth, &CommonResponses, &RateLimitDocs),
    tags(
        (name = "Tags", description = "Labels that organize activities"),
        (name = "Team", description = "The agent's team members, and members signing in to the inbox (a session cookie instead of a key)"),
        (name = "Activities", description = "Conversations, one per contact"),
        (name = "Messages", description = "An activity's timeline in both directions, and replies within the 24-hour window"),
        (name = "Canned responses", description = "A team's saved answers, picked by short code"),
        (name = "Rules", description = "Automation: on an event, when every condition holds, Parley does the actions"),
        (name = "Reports", description = "What the team did, counted: conversations, messages and median response times by day, member or channel"),
        (name = "Settings", description = "The agent's business hours: when its team answers, and what a contact is told out of hours"),
        (name = "Contacts", description = "People reached over channels"),
        (name = "Catalog", description = "The published product catalog; publishable keys allowed, CORS enabled"),
        (name = "Carts", description = "Shareable cart snapshots; publishable keys allowed, CORS enabled"),
        (name = "Templates", description = "WhatsApp message templates, sends and campaign delivery records"),
        (name = "Event webhooks", description = "Signed deliveries of every change to your endpoints (Standard Webhooks), and the events list"),
    )
)]
pub struct ApiDoc;

struct ApiKeyAuth;

impl Modify for ApiKeyAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        // Two schemes on the one header, so each operation says which keys it takes: catalog and
        // cart operations list both, every other operation the secret key alone (and answers a
        // publishable key 403, which `CommonResponses` documents from that).
        components.add_security_scheme(
            responses::SECRET_KEY,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description("X-API-Key", "A secret key (`sk_…`): server side only"))),
        );
        components.add_security_scheme(
            responses::PUBLISHABLE_KEY,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "A publishable key (`pk_…`): safe in browser code; catalog and cart operations only",
            ))),
        );
        components.add_security_scheme(
            responses::MEMBER_SESSION,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "parley_session",
                "A member's session, set by `POST /v1/sign_in`; writes also carry its `X-CSRF-Token`. Reaches what a secret key reaches",
            ))),
        );
        // A member's session reaches what a secret key reaches: every secret-key operation
        // takes either.
        for item in openapi.paths.paths.values_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for security in operations.into_iter().flatten().filter_map(|o| o.security.as_mut()) {
                let secret = security.iter().any(|r| serde_json::to_value(r).is_ok_and(|v| v.get(responses::SECRET_KEY).is_some()));
                if secret {
                    security.push(SecurityRequirement::new(responses::MEMBER_SESSION, Vec::<String>::new()));
                }
            }
        }
    }
}

/// The document as served and committed: pretty JSON with a trailing newline, each resource
/// inline copy replaced by a reference to its component ([`references`]), its schemas named as
/// the API names them ([`names`]).
pub fn document() -> &'static str {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut value = serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serializes");
        references::share_components(&mut value);
        conditional::add(&mut value);
        free_form::open(&mut value);
        names::rename(&mut value);
        let mut json = serde_json::to_string_pretty(&value).expect("JSON values serialize");
        json.push('\n');
        json
    })
}
