//! The error answers every operation shares, documented in one place from what the operation
//! takes rather than in each handler's annotation: a key (401, 500, 503; 403 when it takes the
//! secret key alone), a body (400, 408, 413, 415), query parameters (400) and path ids (404).
//! An operation's own annotation wins where it says more (a 404's or a 409's reason).

use utoipa::Modify;
use utoipa::openapi::content::Content;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{OpenApi, Ref, RefOr};

pub const SECRET_KEY: &str = "secret_key";
pub const PUBLISHABLE_KEY: &str = "publishable_key";
pub const MEMBER_SESSION: &str = "member_session";

/// Component name, status, description.
const SHARED: [(&str, &str, &str); 9] = [
    ("BadRequest", "400", "Invalid input: `VALIDATION_ERROR` with one detail per bad field, or `INVALID_JSON`"),
    (
        "Unauthorized",
        "401",
        "`UNAUTHORIZED`: no `X-API-Key`, or not a valid key. Each client address may send 20 bad keys a minute \
        (operators may change it); past that, every request from the address is 429 for the rest of the minute, valid keys \
        included",
    ),
    ("Forbidden", "403", "`FORBIDDEN`: a publishable key on an operation that takes the secret key alone"),
    ("NotFound", "404", "`NOT_FOUND`: no such resource for this key's agent (another agent's ids behave as unknown ones)"),
    ("RequestTimeout", "408", "`REQUEST_TIMEOUT`: the body did not arrive in time"),
    ("PayloadTooLarge", "413", "`PAYLOAD_TOO_LARGE`: the body is over 256 KiB"),
    ("UnsupportedMediaType", "415", "`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json` in UTF-8"),
    ("Internal", "500", "`INTERNAL`: a fault of the server; the `request_id` finds it in the logs"),
    ("Unavailable", "503", "`UNAVAILABLE`: storage is unreachable or busy for now; retry with backoff"),
];

pub struct CommonResponses;

/// Whether the operation accepts a publishable key (its security lists that scheme).
fn takes_publishable_key(operation: &Operation) -> bool {
    operation
        .security
        .iter()
        .flatten()
        .any(|requirement| serde_json::to_value(requirement).is_ok_and(|v| v.as_object().is_some_and(|o| o.contains_key(PUBLISHABLE_KEY))))
}

fn statuses(path: &str, operation: &Operation) -> Vec<&'static str> {
    let has_body = operation.request_body.is_some();
    let has_query = operation.parameters.iter().flatten().any(|p| matches!(p.parameter_in, ParameterIn::Query));
    let mut wanted = vec!["401", "500", "503"];
    if !takes_publishable_key(operation) {
        wanted.push("403");
    }
    if has_body || has_query {
        wanted.push("400");
    }
    if has_body {
        wanted.extend(["408", "413", "415"]);
    }
    if path.contains('{') {
        wanted.push("404");
    }
    wanted
}

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, _, description) in SHARED {
            let response = ResponseBuilder::new()
                .description(description)
                .content("application/json", Content::new(Some(Ref::from_schema_name("ErrorBody"))))
                .build();
            components.responses.insert(name.into(), RefOr::T(response));
        }
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                if operation.security.as_ref().is_none_or(Vec::is_empty) {
                    continue;
                }
                for status in statuses(path, operation) {
                    let (name, _, _) = SHARED.iter().find(|(_, s, _)| *s == status).expect("every shared status has a response");
                    operation.responses.responses.entry(status.into()).or_insert_with(|| RefOr::Ref(Ref::from_response_name(*name)));
                }
            }
        }
    }
}
