//! `Idempotency-Key` on any POST: a handler opts in by taking an [`IdempotencyKey`] and running
//! its work through [`IdempotencyKey::once`]. With the header, a retry with the same key and
//! the same meaning within 24 hours answers the first response again (`Idempotent-Replayed:
//! true`) without running the work; the same key with another body is 409. The rules (what a
//! key holds, how long, interrupted first attempts) live in the domain's `IdempotencyService`;
//! work that records a recovery point under its key ([`IdempotencyKey::once_recovering`])
//! answers what it recorded to a retry after a crash.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError};
use parley_domain::DomainError;
use parley_domain::model::{AgentId, IdempotentResponse};
use parley_domain::services::{IdempotencyBegin, IdempotencyService};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::http::error::{ApiError, ApiResult};

pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";

/// The request's `Idempotency-Key` header, when it sent one.
pub struct IdempotencyKey(Option<String>);

impl FromRequest for IdempotencyKey {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        // A value that is not visible ASCII becomes one the domain refuses with a clear 400.
        ready(Ok(Self(req.headers().get(IDEMPOTENCY_HEADER).map(|v| v.to_str().unwrap_or("\u{0}").to_string()))))
    }
}

impl IdempotencyKey {
    /// Runs `work` on `body`, once per key: `target` names what the request acts on (a path's
    /// id), and with the body's meaning (re-serialized, not its bytes) makes the fingerprint a
    /// reused key must match. Without the header, simply runs `work`. A retry after a first
    /// request that was cut is 502: whether it had its effect is unknown.
    pub async fn once<B, F, Fut>(
        self,
        idempotency: &IdempotencyService,
        agent: &AgentId,
        target: &str,
        body: B,
        work: F,
    ) -> ApiResult<HttpResponse>
    where
        B: Serialize,
        F: FnOnce(B) -> Fut,
        Fut: Future<Output = ApiResult<HttpResponse>>,
    {
        let no_recovery: Option<fn(String) -> Recovered> = None;
        self.run(idempotency, agent, target, body, |body, _| work(body), no_recovery).await
    }

    /// [`once`](Self::once) for work that records a recovery point under the key before it acts
    /// (`work` gets the key): a retry after a cut first request answers `recover(point)`, what
    /// the point names as it is now, and runs the work again when there is no point, or `recover`
    /// finds nothing under it (`None`): the first request was cut before it recorded anything.
    pub async fn once_recovering<B, F, Fut, R, RFut>(
        self,
        idempotency: &IdempotencyService,
        agent: &AgentId,
        target: &str,
        body: B,
        work: F,
        recover: R,
    ) -> ApiResult<HttpResponse>
    where
        B: Serialize,
        F: FnOnce(B, Option<String>) -> Fut,
        Fut: Future<Output = ApiResult<HttpResponse>>,
        R: FnOnce(String) -> RFut,
        RFut: Future<Output = Option<ApiResult<HttpResponse>>>,
    {
        self.run(idempotency, agent, target, body, work, Some(recover)).await
    }

    async fn run<B, F, Fut, R, RFut>(
        self,
        idempotency: &IdempotencyService,
        agent: &AgentId,
        target: &str,
        body: B,
        work: F,
        recover: Option<R>,
    ) -> ApiResult<HttpResponse>
    where
        B: Serialize,
        F: FnOnce(B, Option<String>) -> Fut,
        Fut: Future<Output = ApiResult<HttpResponse>>,
        R: FnOnce(String) -> RFut,
        RFut: Future<Output = Option<ApiResult<HttpResponse>>>,
    {
        let Some(key) = self.0 else {
            return Ok(work(body, None).await.unwrap_or_else(|e| e.error_response()));
        };
        let fingerprint = hex::encode(Sha256::digest(format!("{target}\n{}", serde_json::to_string(&body).unwrap_or_default())));
        let answer = match idempotency.begin(agent, &key, &fingerprint).await? {
            IdempotencyBegin::Replay(first) => return Ok(replay(first)),
            IdempotencyBegin::Proceed => work(body, Some(key.clone())).await,
            IdempotencyBegin::Interrupted { recovery_point } => match (recover, recovery_point) {
                // Running the work again could do it twice: answer what is known, as for a timeout.
                (None, _) => Err(ApiError::from(DomainError::Interrupted)),
                // Cut before it recorded anything: nothing was done, so doing it now is the answer.
                (Some(_), None) => work(body, Some(key.clone())).await,
                (Some(recover), Some(point)) => match recover(point).await {
                    Some(answer) => answer,
                    None => work(body, Some(key.clone())).await,
                },
            },
        };
        let (status, response) = match answer {
            Ok(response) => (response.status(), response),
            Err(e) => (e.status_code(), e.error_response()),
        };
        let bytes =
            actix_web::body::to_bytes(response.into_body()).await.map_err(|_| DomainError::Internal("unreadable response".into()))?;
        let stored = IdempotentResponse { status: status.as_u16(), body: String::from_utf8_lossy(&bytes).into_owned() };
        idempotency.finish(agent, &key, &stored).await?;
        Ok(HttpResponse::build(status).content_type("application/json").body(bytes))
    }
}

/// What a handler without recovery points would recover: never called.
type Recovered = Ready<Option<ApiResult<HttpResponse>>>;

/// The first attempt's response again.
fn replay(first: IdempotentResponse) -> HttpResponse {
    let status = StatusCode::from_u16(first.status).unwrap_or(StatusCode::OK);
    HttpResponse::build(status).content_type("application/json").insert_header(("Idempotent-Replayed", "true")).body(first.body)
}
