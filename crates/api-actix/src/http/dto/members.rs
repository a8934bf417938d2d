//! The team DTOs: members, signing in and sessions.

use super::*;
use parley_domain::services::NewMemberInput;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One of the agent's team members.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemberDto {
    #[schema(example = "usr_4fJq0ZpXr3TyLk5bW0cMd7Hs")]
    pub id: String,
    /// Lowercased; unique among the agent's members.
    #[schema(example = "ana@shop.example")]
    pub email: String,
    pub name: String,
    /// `admin` (also manages the team) or `member`.
    #[schema(value_type = MemberRoleName)]
    pub role: String,
    /// True until the member replaces its one-time password.
    pub must_change_password: bool,
    /// The most open conversations round robin gives it (0: none); null: no limit.
    #[schema(minimum = 0, maximum = 10000)]
    pub max_open: Option<u32>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// What a member's settings change: only the fields sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMember {
    /// The most open conversations round robin gives the member, 0–10,000 (0: none); null
    /// removes the limit.
    #[serde(default, deserialize_with = "crate::http::extract::double_option")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 10000)]
    pub max_open: Option<Option<serde_json::Value>>,
}

/// `admin` or `member`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemberRoleName {
    Admin,
    Member,
}

impl From<&Member> for MemberDto {
    fn from(m: &Member) -> Self {
        Self {
            id: m.id.as_str().to_string(),
            email: m.email.as_str().to_string(),
            name: m.name.as_str().to_string(),
            role: m.role.as_str().to_string(),
            must_change_password: m.must_change_password,
            max_open: m.max_open.map(parley_domain::model::MaxOpen::get),
            created_at: timestamp(m.created_at),
        }
    }
}

/// A member just added, with the password it signs in with first: shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct AddedMemberDto {
    #[serde(flatten)]
    pub member: MemberDto,
    /// The one-time password: hand it to the member, who must replace it at the first sign-in.
    /// Only its hash is kept.
    pub password: String,
}

impl From<AddedMember> for AddedMemberDto {
    fn from(added: AddedMember) -> Self {
        Self { member: MemberDto::from(&added.member), password: added.one_time_password }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMember {
    /// Required; an email address, unique among the agent's members (any case).
    #[schema(value_type = String, required = true, format = Email, max_length = 254, example = "ana@shop.example")]
    pub email: Option<String>,
    /// Required; trimmed, 1–128 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 128, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub name: Option<String>,
    /// `member` when absent.
    #[schema(value_type = Option<MemberRoleName>)]
    pub role: Option<String>,
}

impl From<CreateMember> for NewMemberInput {
    fn from(b: CreateMember) -> Self {
        Self { email: b.email, name: b.name, role: b.role }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    #[schema(value_type = String, required = true, example = "ana@shop.example")]
    pub email: Option<String>,
    #[schema(value_type = String, required = true, format = Password)]
    pub password: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePassword {
    /// The password the member signed in with.
    #[schema(value_type = String, required = true, format = Password)]
    pub current_password: Option<String>,
    /// 12–128 characters, different from the current one.
    #[schema(value_type = String, required = true, format = Password, min_length = 12, max_length = 128)]
    pub new_password: Option<String>,
}

/// A member's session, as the page reads it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionDto {
    pub member: MemberDto,
    /// Send it as `X-CSRF-Token` with every write made in this session.
    pub csrf_token: String,
    /// The session ends after this long without a request.
    #[schema(example = 43200)]
    pub idle_timeout_seconds: i64,
}

impl SessionDto {
    pub fn new(member: &Member, csrf_token: String) -> Self {
        Self { member: MemberDto::from(member), csrf_token, idle_timeout_seconds: SESSION_IDLE.num_seconds() }
    }
}

/// Answer of a sign-out.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedOut {
    pub signed_out: bool,
}
