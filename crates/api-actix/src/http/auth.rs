//! Authentication and key scopes.
//!
//! [`middleware`] resolves the key (`X-API-Key`, or `Authorization: Bearer`, which generated
//! clients send by default), or without a key a member's session cookie, to its agent before
//! anything else of the request runs (so a bad key is answered 401 before the body is read) and
//! leaves the [`Principal`] in the request (and a session's [`SignedIn`]). Handlers then take
//! [`SecretKey`] or [`PublishableKey`], which check the key's level without I/O: a handler
//! cannot run without the key level it declares.

use std::future::{Ready, ready};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{AUTHORIZATION, HeaderMap};
use actix_web::middleware::Next;
use actix_web::web::Data;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use parley_domain::DomainError;
use parley_domain::model::{Access, AgentId, MemberId, PresentedSession, Principal};
use parley_domain::services::{KeyService, SessionService, SignedIn};

use crate::http::error::ApiError;
use crate::http::session_cookie::{self, SESSION_COOKIE};
use crate::runtime::limits::Limiter;

pub const API_KEY_HEADER: &str = "x-api-key";

pub async fn middleware(req: ServiceRequest, next: Next<impl MessageBody + 'static>) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // CORS preflights carry no key by design; only CORS-enabled resources answer them.
    if req.method() == Method::OPTIONS {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let (Some(keys), Some(limits)) = (req.app_data::<Data<KeyService>>().cloned(), req.app_data::<Data<Limiter>>().cloned()) else {
        return Ok(req.error_response(ApiError::from(DomainError::Internal("the key service or the limiter is not registered".into()))));
    };
    let Ok(presented) = presented_key(req.headers()) else {
        // Two keys: which one was meant is not for the server to guess (a proxy may have
        // added one). Refused like a bad key, and counted like one against the address.
        return Ok(refuse_bad_key(&limits, req, ApiError::AmbiguousApiKey).await);
    };
    if presented.is_none()
        && let Some(cookie) = req.cookie(SESSION_COOKIE)
    {
        return session(req, next, cookie.value().to_string(), limits).await;
    }
    match keys.authenticate(presented).await {
        Ok(principal) => {
            req.extensions_mut().insert(principal);
            Ok(next.call(req).await?.map_into_boxed_body())
        }
        Err(DomainError::Unauthorized) => Ok(refuse_bad_key(&limits, req, ApiError::from(DomainError::Unauthorized)).await),
        Err(e) => Ok(req.error_response(ApiError::from(e))),
    }
}

/// What a member's session may call while it must change its password: the session itself.
const WHILE_PASSWORD_CHANGE: [&str; 2] = ["/v1/session", "/v1/session/password"];

/// A request with a member's session cookie (and no key): the session, the anti-forgery rule of
/// writes, and the first sign-in's password change.
async fn session(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    token: String,
    limits: Data<Limiter>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(sessions) = req.app_data::<Data<SessionService>>().cloned() else {
        return Ok(req.error_response(ApiError::from(DomainError::Internal("the session service is not registered".into()))));
    };
    let Some(presented) = PresentedSession::parse(&token) else {
        return Ok(refuse_bad_key(&limits, req, ApiError::from(DomainError::SessionEnded)).await);
    };
    let signed_in = match sessions.authenticate(&presented).await {
        Ok(signed_in) => signed_in,
        Err(DomainError::SessionEnded) => return Ok(refuse_bad_key(&limits, req, ApiError::from(DomainError::SessionEnded)).await),
        Err(e) => return Ok(req.error_response(ApiError::from(e))),
    };
    if let Err(refused) = session_cookie::check_write(&req, &presented) {
        return Ok(req.error_response(refused));
    }
    if signed_in.member.must_change_password && !WHILE_PASSWORD_CHANGE.contains(&req.path()) {
        return Ok(req.error_response(ApiError::from(DomainError::PasswordChangeRequired)));
    }
    req.extensions_mut().insert(signed_in.principal.clone());
    req.extensions_mut().insert(signed_in);
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// The signed-in member of a request made with a session cookie. A key has no session: a
/// publishable one is refused as on every secret endpoint (403), a secret one is told the
/// endpoint is a session's (401).
pub struct MemberSession(pub SignedIn);

impl FromRequest for MemberSession {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let extensions = req.extensions();
        let session = match (extensions.get::<SignedIn>(), extensions.get::<Principal>()) {
            (Some(signed_in), _) => Ok(MemberSession(signed_in.clone())),
            (None, Some(principal)) if principal.require(Access::Secret).is_err() => Err(ApiError::from(DomainError::Forbidden)),
            (None, _) => Err(ApiError::SessionOnly),
        };
        ready(session)
    }
}

/// The key the request presents: `X-API-Key`, or `Authorization: Bearer <key>` (Stripe's way,
/// and what a generated client sends unless told otherwise); `None` without one (an
/// `Authorization` of another scheme is no key). `Err` when it presents two: the header twice,
/// or both headers with different keys.
fn presented_key(headers: &HeaderMap) -> Result<Option<&str>, ()> {
    let mut api_keys = headers.get_all(API_KEY_HEADER);
    let api_key = api_keys.next().and_then(|v| v.to_str().ok());
    let mut authorizations = headers.get_all(AUTHORIZATION);
    let bearer = authorizations.next().and_then(|v| v.to_str().ok()).and_then(bearer_token);
    if api_keys.next().is_some() || authorizations.next().is_some() {
        return Err(());
    }
    match (api_key, bearer) {
        (Some(a), Some(b)) if a.trim() != b => Err(()),
        (Some(key), _) | (None, Some(key)) => Ok(Some(key)),
        (None, None) => Ok(None),
    }
}

/// The token of a `Bearer` credential (the scheme's name in any case, RFC 9110).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// A missing, wrong or doubled key: counted per client address, and refused past the limit, so
/// keys cannot be guessed at speed; limits::middleware then also refuses valid keys from that
/// address.
async fn refuse_bad_key(limits: &Limiter, req: ServiceRequest, error: ApiError) -> ServiceResponse<BoxBody> {
    let address = limits.client_address(req.peer_addr(), req.headers());
    match limits.bad_key(&address).await {
        Some(retry_after) => req.error_response(ApiError::RateLimited { retry_after }),
        None => req.error_response(error),
    }
}

fn principal(req: &HttpRequest, access: Access) -> Result<Principal, ApiError> {
    let principal = req
        .extensions()
        .get::<Principal>()
        .cloned()
        .ok_or_else(|| DomainError::Internal("route is not behind the authentication middleware".into()))?;
    principal.require(access)?;
    Ok(principal)
}

macro_rules! key_extractor {
    ($(#[$doc:meta])* $name:ident, $access:expr) => {
        $(#[$doc])*
        pub struct $name(pub Principal);

        impl $name {
            pub fn agent(&self) -> &AgentId {
                &self.0.agent_id
            }

            /// The member calling, in a member's session.
            pub fn member(&self) -> Option<MemberId> {
                self.0.member().cloned()
            }
        }

        impl FromRequest for $name {
            type Error = ApiError;
            type Future = Ready<Result<Self, ApiError>>;

            fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
                ready(principal(req, $access).map($name))
            }
        }
    };
}

key_extractor!(
    /// A secret key (`sk_…`): every endpoint.
    SecretKey,
    Access::Secret
);
key_extractor!(
    /// Any key of the agent, publishable (`pk_…`) included: catalog reads and carts.
    PublishableKey,
    Access::Publishable
);
