//! The domain's errors: one for use cases ([`DomainError`]) and one for ports ([`StoreError`]).
//!
//! Both are `#[non_exhaustive]`: new variants come with new rules, so a caller matches the ones
//! it handles and maps the rest by [`DomainError::code`]. A failure caused by another error
//! keeps it as its [`source`](std::error::Error::source) (a [`Cause`]), so logs and callers can
//! walk the chain down to the database's or the network's own error.

use std::sync::Arc;

/// The error that caused a failure, kept for [`source`](std::error::Error::source) chains.
/// Cheap to clone (shared), so the errors holding one stay `Clone`. Made from any error with
/// [`Cause::new`], or from a message when there is no error value to keep (`"…".into()`).
#[derive(Debug, Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl Cause {
    /// Keeps `error` as the cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }

    /// The cause itself, to downcast or inspect.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A cause known only by its description.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Described(String);

impl From<String> for Cause {
    fn from(message: String) -> Self {
        Self::new(Described(message))
    }
}

impl From<&str> for Cause {
    fn from(message: &str) -> Self {
        Self::new(Described(message.to_string()))
    }
}

/// One broken rule of one input field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field, as the caller named it (`components[0].parameters[1].text`, `tags[2]`).
    pub field: String,
    /// What is wrong with it, in words a caller can act on ("must be at most 256 characters").
    pub issue: String,
}

impl FieldError {
    /// `field` broke a rule: `issue` says which.
    pub fn new(field: impl Into<String>, issue: impl Into<String>) -> Self {
        Self { field: field.into(), issue: issue.into() }
    }
}

/// What a use case can fail with. Each variant has a stable [`code`](DomainError::code), which
/// the HTTP layer maps to one status.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DomainError {
    /// The input broke the rules of one or more fields; each is named once.
    #[error("validation failed")]
    Validation(Vec<FieldError>),
    /// `ids` names what was not found when the caller sent several (e.g. tag ids to attach).
    #[error("{resource} not found")]
    NotFound {
        /// The kind of thing not found (`contact`, `tag`), as the error message names it.
        resource: &'static str,
        /// The ids not found, when the caller sent several.
        ids: Vec<String>,
    },
    /// The change collides with what exists (a taken name, a limit reached); `details` names
    /// the fields concerned, when there are any.
    #[error("{message}")]
    Conflict {
        /// What collided, for the caller.
        message: String,
        /// The fields concerned.
        details: Vec<FieldError>,
    },
    /// Only APPROVED templates can be sent.
    #[error("the template is not approved (status {0})")]
    TemplateNotApproved(String),
    /// The template, or this send of it, holds a kind Parley cannot check yet (a carousel, a
    /// limited-time offer, a flow's own data): the error names the part; nothing was sent.
    #[error("Parley cannot check a send of {} ({}) yet", .0.issue, .0.field)]
    TemplateUnsupported(FieldError),
    /// The messaging platform refused the message (its 4xx).
    #[error("the platform refused the message: {message}")]
    MessageRejected {
        /// The platform's own error code, when it gave one.
        code: Option<i64>,
        /// The platform's message.
        message: String,
        /// The platform's further details, when it gave any.
        details: Option<String>,
    },
    /// A free-form message outside the 24-hour window since the contact last wrote (`None`:
    /// never): only an approved template may be sent.
    #[error("the 24-hour messaging window is closed")]
    WindowClosed {
        /// When the contact last wrote (`None`: never).
        last_inbound_at: Option<crate::model::Timestamp>,
    },
    /// No free-form message can go out: the channel asked for, or else every channel of the
    /// contact, is of a kind Parley does not send replies on (it sends on phone-number,
    /// business-account and email channels), or the agent has no line of the channel's kind.
    #[error("the contact has no channel Parley can send on, or the agent no line on its platform")]
    ChannelUnsupported,
    /// The message cannot go to this recipient as addressed (an authentication template to a
    /// user known only by their business-scoped user id): nothing was sent.
    #[error("the recipient cannot receive this message: {0}")]
    RecipientUnsupported(String),
    /// The messaging platform failed or could not be reached.
    #[error("the messaging platform failed: {0}")]
    Upstream(#[source] Cause),
    /// An idempotent request's first attempt was cut before it answered (see
    /// `IdempotencyBegin::Interrupted`): whether it reached the platform is unknown.
    #[error("the first request with this Idempotency-Key was interrupted before it answered")]
    Interrupted,
    /// The embedder (a remote embedding service) failed or could not be reached.
    #[error("the embedder failed: {0}")]
    EmbedderFailed(#[source] Cause),
    /// The Idempotency-Key was used with another request, or its first request is still running.
    #[error("{0}")]
    IdempotencyConflict(String),
    /// A cart older than its validity (other agents' carts stay `NotFound`).
    #[error("the cart has expired")]
    CartExpired,
    /// No key, or one that is unknown or revoked.
    #[error("missing, unknown or revoked API key")]
    Unauthorized,
    /// A valid key whose kind may not call this (a publishable key on a secret endpoint).
    #[error("this key may not call this endpoint")]
    Forbidden,
    /// A member's session on what only an admin (or a secret key) may do.
    #[error("only an admin may do this")]
    AdminOnly,
    /// A sign-in with an email and password that do not match a member (the same answer for an
    /// unknown email and a wrong password).
    #[error("wrong email or password")]
    SignInFailed,
    /// Sign-ins with this email are refused for a while after repeated failures.
    #[error("too many failed sign-ins")]
    SignInLocked {
        /// How long until the lock ends.
        retry_after: std::time::Duration,
    },
    /// A session cookie that is unknown, forged, signed out or idle too long.
    #[error("the session has ended")]
    SessionEnded,
    /// A member holding a one-time password must choose its own before anything else.
    #[error("the member must change its password first")]
    PasswordChangeRequired,
    /// Storage (or the service itself) cannot answer now; the same call may succeed shortly.
    #[error("storage unavailable: {0}")]
    Unavailable(#[source] Cause),
    /// A bug or a broken invariant: the caller can do nothing about it.
    #[error("internal error: {0}")]
    Internal(#[source] Cause),
}

impl DomainError {
    /// The refusal in words for a record a person reads later (a rule run's `error`, a
    /// scheduled message's `error_message`): each field's issue named.
    pub fn in_words(&self) -> String {
        match self {
            DomainError::Validation(faults) => faults.iter().map(|f| format!("{}: {}", f.field, f.issue)).collect::<Vec<_>>().join("; "),
            other => other.to_string(),
        }
    }

    /// Every code [`code`](Self::code) can return, for callers that map them all (and tests
    /// that check they do).
    pub const CODES: [&'static str; 17] = [
        "VALIDATION_ERROR",
        "NOT_FOUND",
        "CONFLICT",
        "TEMPLATE_NOT_APPROVED",
        "TEMPLATE_UNSUPPORTED",
        "MESSAGE_REJECTED",
        "WINDOW_CLOSED",
        "CHANNEL_UNSUPPORTED",
        "RECIPIENT_UNSUPPORTED",
        "UPSTREAM_ERROR",
        "CART_EXPIRED",
        "UNAUTHORIZED",
        "FORBIDDEN",
        "RATE_LIMITED",
        "PASSWORD_CHANGE_REQUIRED",
        "UNAVAILABLE",
        "INTERNAL",
    ];

    /// The error's stable, machine-readable code: the API's `error.code` for it. It never
    /// changes for a variant; a new variant gets a code of its own or one of these.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "VALIDATION_ERROR",
            Self::NotFound { .. } => "NOT_FOUND",
            Self::Conflict { .. } | Self::IdempotencyConflict(_) => "CONFLICT",
            Self::TemplateNotApproved(_) => "TEMPLATE_NOT_APPROVED",
            Self::TemplateUnsupported(_) => "TEMPLATE_UNSUPPORTED",
            Self::MessageRejected { .. } => "MESSAGE_REJECTED",
            Self::WindowClosed { .. } => "WINDOW_CLOSED",
            Self::ChannelUnsupported => "CHANNEL_UNSUPPORTED",
            Self::RecipientUnsupported(_) => "RECIPIENT_UNSUPPORTED",
            // An interrupted first attempt may or may not have reached the platform: to the
            // caller, the same uncertainty as a platform that failed mid-send.
            Self::Upstream(_) | Self::EmbedderFailed(_) | Self::Interrupted => "UPSTREAM_ERROR",
            Self::CartExpired => "CART_EXPIRED",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden | Self::AdminOnly => "FORBIDDEN",
            Self::SignInFailed | Self::SessionEnded => "UNAUTHORIZED",
            Self::SignInLocked { .. } => "RATE_LIMITED",
            Self::PasswordChangeRequired => "PASSWORD_CHANGE_REQUIRED",
            Self::Unavailable(_) => "UNAVAILABLE",
            Self::Internal(_) => "INTERNAL",
        }
    }

    /// `resource` (`contact`, `tag`) was not found.
    pub fn not_found(resource: &'static str) -> Self {
        Self::NotFound { resource, ids: Vec::new() }
    }

    /// A broken invariant, described (a bug: nothing the caller sent).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::Internal(Cause::from(message.into()))
    }

    /// One field broke one rule.
    pub fn invalid(field: impl Into<String>, issue: impl Into<String>) -> Self {
        Self::Validation(vec![FieldError::new(field, issue)])
    }
}

impl From<FieldError> for DomainError {
    fn from(e: FieldError) -> Self {
        Self::Validation(vec![e])
    }
}

/// What a repository port can fail with. Each port method documents when it returns `Conflict`
/// or `NotFound`.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A uniqueness rule of the contract was hit (duplicate tag name, duplicate channel…).
    #[error("conflict: {0}")]
    Conflict(String),
    /// A write named a parent the agent does not have (a message on an unknown activity): the
    /// resource, as a not-found answer names it.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The database could not be reached or gave up (pool timeout, connection refused).
    #[error("unavailable: {0}")]
    Unavailable(#[source] Cause),
    /// The database refused a value it cannot hold (a byte its text type cannot store, a value
    /// out of its range): writing the same value again fails the same way. The domain's rules
    /// keep such values out; this is what is left when one gets through.
    #[error("refused by storage: {0}")]
    Refused(#[source] Cause),
    /// Anything else: a bug, or a database in a state the adapter does not expect.
    #[error("storage failure: {0}")]
    Internal(#[source] Cause),
}

impl From<StoreError> for DomainError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => DomainError::Conflict { message: m, details: Vec::new() },
            StoreError::NotFound(resource) => DomainError::not_found(resource),
            StoreError::Unavailable(cause) => DomainError::Unavailable(cause),
            // Invalid input, as storage sees it: the same answer as a broken rule.
            StoreError::Refused(cause) => DomainError::invalid("value", format!("cannot be stored: {cause}")),
            StoreError::Internal(cause) => DomainError::Internal(cause),
        }
    }
}

/// Why a value [`Violations::check`] kept is there: `finish` returned no error, so every check passed.
pub(crate) const CHECKED: &str = "checked: Violations::finish found no error";

/// Collects every field error of one input, so a caller learns all its mistakes at once.
#[derive(Debug, Default)]
pub struct Violations(Vec<FieldError>);

impl Violations {
    /// Keeps the value when valid, records the error otherwise.
    pub fn check<T>(&mut self, result: Result<T, FieldError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.0.push(e);
                None
            }
        }
    }

    /// Like [`check`](Self::check) for validators that report several fields at once.
    pub fn check_all<T>(&mut self, result: Result<T, Vec<FieldError>>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(errors) => {
                self.0.extend(errors);
                None
            }
        }
    }

    /// Records `e`, a violation found outside a validator (a rule between two fields, say).
    pub fn push(&mut self, e: FieldError) {
        self.0.push(e);
    }

    /// `Err` with every recorded violation, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), DomainError> {
        if self.0.is_empty() { Ok(()) } else { Err(DomainError::Validation(self.0)) }
    }
}
