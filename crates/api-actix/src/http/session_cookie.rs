//! The member session's cookie and the anti-forgery rule of writes made with it.
//!
//! The cookie is `HttpOnly` (page scripts cannot read it), `SameSite=Strict` (browsers do not
//! send it with requests another site starts) and `Secure` over https. A write made with it
//! must also carry the session's anti-forgery token in `X-CSRF-Token`, which only a page of
//! this site can have read (from the sign-in answer or `GET /v1/session`), and must not be
//! marked `Sec-Fetch-Site: cross-site`: three locks, any one of which stops a forged form.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::dev::ServiceRequest;
use actix_web::http::Method;
use parley_domain::model::PresentedSession;

use crate::http::error::ApiError;

/// The cookie's name.
pub const SESSION_COOKIE: &str = "parley_session";
/// The header a write in a session carries its anti-forgery token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long the browser keeps the cookie; the server ends the session sooner when it is idle
/// (12 hours), so this only spares a member signing in each time the browser restarts.
const COOKIE_DAYS: i64 = 30;

/// The cookie that carries a new session's token.
pub fn session_cookie(token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, token.to_string())
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .max_age(CookieDuration::days(COOKIE_DAYS))
        .finish()
}

/// The cookie that makes the browser forget the session.
pub fn cleared_cookie(secure: bool) -> Cookie<'static> {
    let mut cookie = session_cookie("", secure);
    cookie.make_removal();
    cookie
}

/// Whether the request came over https (as this server or its proxy saw it).
pub fn is_https(req: &HttpRequest) -> bool {
    req.connection_info().scheme() == "https"
}

/// `CrossSite` for a write in a session that lacks the session's anti-forgery token or that the
/// browser marks as started by another site. Reads pass: they change nothing.
pub fn check_write(req: &ServiceRequest, presented: &PresentedSession) -> Result<(), ApiError> {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    let headers = req.headers();
    let cross_site = headers.get("sec-fetch-site").is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"));
    let token = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if cross_site || !presented.csrf_matches(token) {
        return Err(ApiError::CrossSite);
    }
    Ok(())
}
