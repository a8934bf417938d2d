//! The actix application: routes, extractor configuration, middleware. Built the same way by
//! `parley serve` and by the HTTP tests.

use actix_web::body::BoxBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::web::{self, Data};
use actix_web::{App, Error};

use crate::http::extract::{json_config, query_config};
use crate::http::request_context;
use crate::http::routes::{
    self, activities, campaigns, canned_responses, carts, catalog, contacts, event_webhooks, inbound, inbox_page, members, messages, meta,
    reports, rules, settings, stream, tags, templates,
};
use crate::http::run_to_completion::RunToCompletion;
use crate::runtime::metrics::Probe;
use crate::runtime::state::{AppState, EventWakeup};

pub fn build(
    state: Data<AppState>,
) -> App<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<BoxBody>, Error = Error, InitError = ()>> {
    let origins = state.config.cors_origins.clone();
    let metrics_here = !state.config.separate_metrics_address;
    let body_deadline = state.config.body_deadline;
    let platforms = state.platforms.clone();
    App::new()
        // Each service on its own, so a handler or middleware takes what it calls and nothing
        // else; `/metrics` takes the probe (the state, which reads every backlog).
        .app_data(Data::from(state.keys.clone()))
        .app_data(Data::from(state.members.clone()))
        .app_data(Data::from(state.sessions.clone()))
        .app_data(Data::from(state.tags.clone()))
        .app_data(Data::from(state.canned_responses.clone()))
        .app_data(Data::from(state.business_hours.clone()))
        .app_data(Data::from(state.first_response.clone()))
        .app_data(Data::from(state.reports.clone()))
        .app_data(Data::from(state.rules.clone()))
        .app_data(Data::from(state.contacts.clone()))
        .app_data(Data::from(state.activities.clone()))
        .app_data(Data::from(state.messages.clone()))
        .app_data(Data::from(state.catalog.clone()))
        .app_data(Data::from(state.search.clone()))
        .app_data(Data::from(state.carts.clone()))
        .app_data(Data::from(state.lines.clone()))
        .app_data(Data::from(state.sends.clone()))
        .app_data(Data::from(state.campaigns.clone()))
        .app_data(Data::from(state.idempotency.clone()))
        .app_data(Data::from(state.webhook_endpoints.clone()))
        .app_data(Data::new(EventWakeup(state.event_wakeup.clone())))
        .app_data(Data::from(state.event_stream.clone()))
        .app_data(Data::from(state.event_hub.clone()))
        .app_data(Data::new(state.config.clone()))
        .app_data(Data::from(state.health.clone()))
        .app_data(Data::from(state.pages.clone()))
        .app_data(Data::from(state.lifecycle.clone()))
        .app_data(Data::from(state.metrics.clone()))
        .app_data(Data::from(state.platforms.clone()))
        .app_data(Data::from(state.intake.clone()))
        .app_data(Data::from(state.limits.clone()))
        .app_data(probe(&state))
        .app_data(json_config())
        .app_data(query_config())
        // The one public document: registered before the authenticated scope.
        .configure(meta::routes)
        .configure(inbox_page::routes)
        .configure(|cfg| inbound::routes(cfg, &platforms))
        .configure(|cfg| {
            if metrics_here {
                routes::metrics::routes(cfg)
            }
        })
        .service(
            web::scope("/v1")
                .configure(tags::routes)
                .configure(members::routes)
                .configure(activities::routes)
                .configure(messages::routes)
                .configure(canned_responses::routes)
                .configure(settings::routes)
                .configure(rules::routes)
                .configure(reports::routes)
                .configure(contacts::routes)
                .configure(|cfg| catalog::routes(cfg, &origins))
                .configure(|cfg| carts::routes(cfg, &origins))
                .configure(templates::routes)
                .configure(campaigns::routes)
                .configure(event_webhooks::routes)
                .configure(stream::routes)
                // Behind the key and its limits like every /v1 resource: an unknown path is 401
                // without a valid key, and with one a counted 404 with the RateLimit headers.
                .default_service(
                    web::to(routes::route_not_found)
                        .wrap(from_fn(crate::http::limits::middleware::middleware))
                        .wrap(from_fn(crate::http::auth::middleware)),
                ),
        )
        .default_service(web::to(routes::route_not_found))
        // Inside the request context, so a 408 carries the request id and is logged and counted.
        .wrap(body_deadline)
        .wrap(from_fn(request_context::middleware))
        // Outermost, so the whole request (request id scope included) runs as its own task.
        .wrap(RunToCompletion)
}

/// The metrics-only application served on `PARLEY_METRICS_BIND`.
pub fn build_metrics(
    state: Data<AppState>,
) -> App<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<BoxBody>, Error = Error, InitError = ()>> {
    App::new()
        .app_data(Data::from(state.metrics.clone()))
        .app_data(probe(&state))
        .configure(routes::metrics::routes)
        .default_service(web::to(routes::route_not_found))
}

/// What `/metrics` reads the pool and the backlogs through.
fn probe(state: &Data<AppState>) -> Data<dyn Probe> {
    let probe: std::sync::Arc<dyn Probe> = state.clone().into_inner();
    Data::from(probe)
}
