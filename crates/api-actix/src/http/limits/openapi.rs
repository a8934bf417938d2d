//! The rate limits in the OpenAPI document, added to every operation behind the API key in one
//! place rather than in each handler's annotation: the `RateLimit-*` headers on its successful
//! responses (error answers carry them too, as the API description says) and a 429 answer with
//! `Retry-After`, defined once as the `RateLimited` response.

use utoipa::Modify;
use utoipa::openapi::content::Content;
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{OpenApi, Ref, RefOr};

const RATE_LIMITED: &str = "RateLimited";

const SUMMARY: &str = " Rate limits per key: 100 requests a minute over every endpoint, and 30 searches a minute on top \
    (operators may change them); every response to a valid key, errors included, carries `RateLimit-Limit`, \
    `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the quota is full again), and past a limit the answer is \
    429 `RATE_LIMITED` with `Retry-After` in seconds. Requests with a bad key are limited per client address.";

pub struct RateLimitDocs;

fn integer_header(description: &str) -> Header {
    HeaderBuilder::new().schema(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0))).description(Some(description)).build()
}

fn rate_headers() -> [(String, Header); 3] {
    [
        ("RateLimit-Limit".into(), integer_header("Requests a minute of the tighter policy (search's, on search)")),
        ("RateLimit-Remaining".into(), integer_header("Requests that would be accepted right now")),
        ("RateLimit-Reset".into(), integer_header("Seconds until Remaining is back to Limit")),
    ]
}

fn rate_limited() -> Response {
    let mut response = ResponseBuilder::new()
        .description(
            "Too many requests (`RATE_LIMITED`): past the key's or the search limit, or too many bad keys from this \
            client address (then without `RateLimit-*` headers, whatever the key)",
        )
        .content("application/json", Content::new(Some(Ref::from_schema_name("ErrorBody"))))
        .header("Retry-After", integer_header("Whole seconds before a request can be accepted again"))
        .build();
    response.headers.extend(rate_headers());
    response
}

fn document(operation: &mut Operation) {
    if operation.security.as_ref().is_none_or(Vec::is_empty) {
        return;
    }
    for (status, response) in operation.responses.responses.iter_mut() {
        if let (RefOr::T(response), true) = (response, status.starts_with('2')) {
            response.headers.extend(rate_headers());
        }
    }
    operation.responses.responses.insert("429".into(), RefOr::Ref(Ref::from_response_name(RATE_LIMITED)));
}

impl Modify for RateLimitDocs {
    fn modify(&self, openapi: &mut OpenApi) {
        if let Some(description) = openapi.info.description.as_mut() {
            description.push_str(SUMMARY);
        }
        openapi.components.get_or_insert_with(Default::default).responses.insert(RATE_LIMITED.into(), RefOr::T(rate_limited()));
        for item in openapi.paths.paths.values_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                document(operation);
            }
        }
    }
}
