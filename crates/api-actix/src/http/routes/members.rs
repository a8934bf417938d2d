//! The team: `/v1/members`, and members signing in and out (`/v1/sign_in`, `/v1/session`).

use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, web};
use parley_domain::model::MemberId;
use parley_domain::services::{MemberService, Patch, SessionService};

use super::{created, ok, open_resource, resource};
use crate::http::auth::{MemberSession, SecretKey};
use crate::http::dto::{
    AddedMemberDto, ChangePassword, CreateMember, DataBody, Deleted, MemberDto, SessionDto, SignIn, SignedOut, UpdateMember,
};
use crate::http::error::{ApiError, ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};
use crate::http::session_cookie::{cleared_cookie, is_https, session_cookie};
use crate::runtime::limits::Limiter;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/members").route(web::get().to(list_members)).route(web::post().to(add_member)))
        .service(resource("/members/{id}").route(web::patch().to(update_member)).route(web::delete().to(remove_member)))
        // Signing in presents no key: counted per address instead (below).
        .service(open_resource("/sign_in").route(web::post().to(sign_in)))
        .service(resource("/session").route(web::get().to(get_session)).route(web::delete().to(sign_out)))
        .service(resource("/session/password").route(web::post().to(change_password)));
}

/// List the agent's team members, oldest first.
#[utoipa::path(get, path = "/v1/members", tag = "Team", security(("secret_key" = [])),
    responses((status = 200, body = DataBody<Vec<MemberDto>>)))]
pub async fn list_members(caller: SecretKey, members: Data<MemberService>) -> ApiResult<HttpResponse> {
    let members = members.list(caller.agent()).await?;
    Ok(ok(members.iter().map(MemberDto::from).collect::<Vec<_>>()))
}

/// Add a team member: 201 with its one-time password, shown this once. A secret key or an
/// admin's session.
#[utoipa::path(post, path = "/v1/members", tag = "Team", security(("secret_key" = [])), request_body = CreateMember,
    responses((status = 201, body = DataBody<AddedMemberDto>),
        (status = 403, description = "A member's session that is not an admin's", body = ErrorBody),
        (status = 409, description = "The agent has a member with this email", body = ErrorBody)))]
pub async fn add_member(caller: SecretKey, members: Data<MemberService>, body: Json<Object<CreateMember>>) -> ApiResult<HttpResponse> {
    caller.0.require_admin()?;
    let added = members.add(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(AddedMemberDto::from(added)))
}

/// Change a member's settings: `max_open`, the most open conversations round robin gives it.
/// A secret key, an admin's session, or the member's own.
#[utoipa::path(patch, path = "/v1/members/{id}", tag = "Team", security(("secret_key" = [])), request_body = UpdateMember,
    params(("id" = String, Path, description = "Member id")),
    responses((status = 200, body = DataBody<MemberDto>),
        (status = 400, description = "`max_open` is not a whole number from 0 to 10,000 or null", body = ErrorBody),
        (status = 403, description = "Another member's session that is not an admin's", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn update_member(
    caller: SecretKey,
    members: Data<MemberService>,
    id: PathId<MemberId>,
    body: Json<Object<UpdateMember>>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    caller.0.require_admin_or(&id)?;
    let max_open = Patch::from_double_option(body.into_inner().into_inner().max_open);
    let member = members.set_max_open(caller.agent(), &id, max_open).await?;
    Ok(ok(MemberDto::from(&member)))
}

/// Remove a team member: its sessions end; activities assigned to it keep `assigned_to` and
/// show no `assignee`. A secret key or an admin's session.
#[utoipa::path(delete, path = "/v1/members/{id}", tag = "Team", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Member id")),
    responses((status = 200, body = DataBody<Deleted>), (status = 403, body = ErrorBody)))]
pub async fn remove_member(caller: SecretKey, members: Data<MemberService>, id: PathId<MemberId>) -> ApiResult<HttpResponse> {
    caller.0.require_admin()?;
    let id = id.into_inner();
    members.remove(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.into_string(), deleted: true }))
}

/// Sign a member in by email and password: sets the session cookie (`HttpOnly`,
/// `SameSite=Strict`, `Secure` over https) and answers the session with its anti-forgery token.
/// An unknown email and a wrong password get the same 401; five failures within 15 minutes lock
/// the email for 15 minutes (429); every attempt counts against the address's limit for bad
/// credentials.
#[utoipa::path(post, path = "/v1/sign_in", tag = "Team", request_body = SignIn,
    responses((status = 200, body = DataBody<SessionDto>,
            headers(("Set-Cookie" = String, description = "`parley_session`: the session's token"))),
        (status = 400, description = "`VALIDATION_ERROR`: the email or the password is missing", body = ErrorBody),
        (status = 401, description = "Wrong email or password", body = ErrorBody),
        (status = 408, description = "`REQUEST_TIMEOUT`: the body did not arrive in time", body = ErrorBody),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over 256 KiB", body = ErrorBody),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json` in UTF-8", body = ErrorBody),
        (status = 429, description = "Too many failed sign-ins with this email, or from this address", body = ErrorBody)))]
pub async fn sign_in(
    req: HttpRequest,
    sessions: Data<SessionService>,
    limits: Data<Limiter>,
    body: Json<Object<SignIn>>,
) -> ApiResult<HttpResponse> {
    // Each attempt costs an Argon2 hash: counted before it is spent.
    let address = limits.client_address(req.peer_addr(), req.headers());
    if let Some(retry_after) = limits.bad_key(&address).await {
        return Err(ApiError::RateLimited { retry_after });
    }
    let SignIn { email, password } = body.into_inner().into_inner();
    let (opened, member) = sessions.sign_in(email, password).await?;
    tracing::info!(member = %member.id, agent = %member.agent_id, "a member signed in");
    Ok(HttpResponse::Ok()
        .cookie(session_cookie(&opened.token, is_https(&req)))
        .json(DataBody { data: SessionDto::new(&member, opened.csrf_token) }))
}

/// The signed-in member and its session's anti-forgery token.
#[utoipa::path(get, path = "/v1/session", tag = "Team", security(("member_session" = [])),
    responses((status = 200, body = DataBody<SessionDto>), (status = 401, description = "No session (a key has none)", body = ErrorBody)))]
pub async fn get_session(session: MemberSession) -> ApiResult<HttpResponse> {
    let signed_in = session.0;
    Ok(ok(SessionDto::new(&signed_in.member, signed_in.csrf_token)))
}

/// Sign out: the session ends and the cookie is cleared.
#[utoipa::path(delete, path = "/v1/session", tag = "Team", security(("member_session" = [])),
    responses((status = 200, body = DataBody<SignedOut>)))]
pub async fn sign_out(req: HttpRequest, session: MemberSession, sessions: Data<SessionService>) -> ApiResult<HttpResponse> {
    sessions.sign_out(&session.0.session.id).await?;
    Ok(HttpResponse::Ok().cookie(cleared_cookie(is_https(&req))).json(DataBody { data: SignedOut { signed_out: true } }))
}

/// Replace the member's password (required before anything else while it holds its one-time
/// password): its other sessions end, this one stays.
#[utoipa::path(post, path = "/v1/session/password", tag = "Team", security(("member_session" = [])), request_body = ChangePassword,
    responses((status = 200, body = DataBody<SessionDto>),
        (status = 400, description = "The current password is wrong, or the new one breaks the rules", body = ErrorBody)))]
pub async fn change_password(
    session: MemberSession,
    sessions: Data<SessionService>,
    body: Json<Object<ChangePassword>>,
) -> ApiResult<HttpResponse> {
    let ChangePassword { current_password, new_password } = body.into_inner().into_inner();
    let member = sessions.change_password(&session.0, current_password, new_password).await?;
    Ok(ok(SessionDto::new(&member, session.0.csrf_token)))
}
