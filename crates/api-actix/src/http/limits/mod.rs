//! The rate limits at the HTTP boundary: the middleware that counts each authenticated request
//! and answers 429 past a limit, and their headers and answer in the OpenAPI document. The
//! limiter itself (in process, or in Redis with a fallback) is `runtime::limits`.

pub mod middleware;
pub mod openapi;
