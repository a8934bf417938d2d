//! Unknown query parameters are refused, on every endpoint, from this one place: a mistyped
//! filter (`?serach=`) answered with every row would have an integration act on the wrong
//! ones. The parameters an operation accepts are read from the OpenAPI document, which the
//! handlers' own parameter structs generate: a new route is covered, and documented, by being
//! declared, and cannot accept a parameter the document does not list.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use parley_domain::{DomainError, FieldError};
use utoipa::openapi::path::{Operation, ParameterIn};

use crate::http::error::ApiError;

/// Endpoints outside the document that take no parameter at all.
const WITHOUT_PARAMETERS: [&str; 3] = ["/v1/openapi.json", "/healthz", "/readyz"];

/// The query parameters each documented `(route pattern, method)` accepts.
type Accepted = HashMap<(String, &'static str), HashSet<String>>;

fn accepted() -> &'static Accepted {
    static TABLE: OnceLock<Accepted> = OnceLock::new();
    TABLE.get_or_init(|| {
        use utoipa::OpenApi;
        let mut table = Accepted::new();
        for (path, item) in crate::http::openapi::ApiDoc::openapi().paths.paths {
            let operations: [(&'static str, &Option<Operation>); 5] =
                [("GET", &item.get), ("POST", &item.post), ("PUT", &item.put), ("PATCH", &item.patch), ("DELETE", &item.delete)];
            for (method, operation) in operations {
                let Some(operation) = operation else { continue };
                let names = operation
                    .parameters
                    .iter()
                    .flatten()
                    .filter(|p| matches!(p.parameter_in, ParameterIn::Query))
                    .map(|p| p.name.clone())
                    .collect();
                table.insert((path.clone(), method), names);
            }
        }
        for path in WITHOUT_PARAMETERS {
            table.insert((path.to_string(), "GET"), HashSet::new());
        }
        table
    })
}

/// The names in `query` that `allowed` lacks, each once, in the order given.
fn unknown_names(query: &str, allowed: &HashSet<String>) -> Vec<String> {
    let Ok(pairs) = web::Query::<Vec<(String, String)>>::from_query(query) else { return Vec::new() };
    let mut unknown: Vec<String> = Vec::new();
    for (name, _) in pairs.into_inner() {
        if !allowed.contains(&name) && !unknown.contains(&name) {
            unknown.push(name);
        }
    }
    unknown
}

/// 400 `VALIDATION_ERROR` naming every parameter the route's operation does not accept.
/// Routes and methods the table does not know (the platforms' inbound webhooks, whose senders
/// add parameters as they please; a method the route lacks, answered 405) pass untouched.
pub async fn refuse_unknown(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let query = req.query_string();
    if !query.is_empty()
        && let Some(pattern) = req.match_pattern()
        && let Some(allowed) = accepted().get(&(pattern, req.method().as_str()))
    {
        let unknown = unknown_names(query, allowed);
        if !unknown.is_empty() {
            let mut names: Vec<&str> = allowed.iter().map(String::as_str).collect();
            names.sort_unstable();
            let message = if names.is_empty() {
                "is not a parameter of this endpoint, which takes none".to_string()
            } else {
                format!("is not a parameter of this endpoint (it takes {})", names.join(", "))
            };
            let errors = unknown.into_iter().map(|name| FieldError::new(printable(&name), message.clone())).collect();
            return Ok(req.error_response(ApiError::from(DomainError::Validation(errors))));
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// A name as it may be echoed: control characters dropped, 64 characters at most.
fn printable(name: &str) -> String {
    let shown: String = name.chars().filter(|c| !c.is_control()).take(64).collect();
    if shown.is_empty() { "query".to_string() } else { shown }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unknown_name_is_named_once_in_order() {
        let allowed: HashSet<String> = ["limit", "status"].into_iter().map(String::from).collect();
        assert_eq!(unknown_names("limit=2&serach=a&x=1&serach=b", &allowed), ["serach", "x"]);
        assert!(unknown_names("status=open&status=closed", &allowed).is_empty());
        assert_eq!(unknown_names("a%20b=1", &allowed), ["a b"], "names are decoded");
    }

    #[test]
    fn the_document_lists_the_list_filters() {
        let table = accepted();
        let activities = &table[&("/v1/activities".to_string(), "GET")];
        for name in ["limit", "offset", "status", "tag", "search"] {
            assert!(activities.contains(name), "{name}");
        }
        assert!(table[&("/v1/activities/{id}".to_string(), "GET")].is_empty(), "path parameters are not query parameters");
    }
}
