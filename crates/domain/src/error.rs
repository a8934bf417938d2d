//! The domain's errors: one for use cases ([`DomainError`]) and one for ports ([`StoreError`]).

/// One broken rule of one input field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub issue: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, issue: impl Into<String>) -> Self {
        Self { field: field.into(), issue: issue.into() }
    }
}

/// What a use case can fail with. The API layer maps each variant to one HTTP status and code.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    #[error("validation failed")]
    Validation(Vec<FieldError>),
    /// `ids` names what was not found when the caller sent several (e.g. tag ids to attach).
    #[error("{resource} not found")]
    NotFound { resource: &'static str, ids: Vec<String> },
    #[error("{message}")]
    Conflict { message: String, details: Vec<FieldError> },
    /// Only APPROVED templates can be sent.
    #[error("the template is not approved (status {0})")]
    TemplateNotApproved(String),
    /// The template, or this send of it, holds a kind Parley cannot check yet (a carousel, a
    /// limited-time offer, a flow's own data): the error names the part; nothing was sent.
    #[error("Parley cannot check a send of {} ({}) yet", .0.issue, .0.field)]
    TemplateUnsupported(FieldError),
    /// The messaging platform refused the message (its 4xx).
    #[error("the platform refused the message: {message}")]
    MessageRejected { code: Option<i64>, message: String, details: Option<String> },
    /// A free-form message outside the 24-hour window since the contact last wrote (`None`:
    /// never): only an approved template may be sent.
    #[error("the 24-hour messaging window is closed")]
    WindowClosed { last_inbound_at: Option<crate::model::Timestamp> },
    /// The contact has no channel Parley can send a free-form message on (WhatsApp).
    #[error("the contact has no channel Parley can send on")]
    ChannelUnsupported,
    /// The messaging platform failed or could not be reached.
    #[error("the messaging platform failed: {0}")]
    Upstream(String),
    /// An idempotent request's first attempt was cut before it answered (see
    /// `IdempotencyBegin::Interrupted`): whether it reached the platform is unknown.
    #[error("the first request with this Idempotency-Key was interrupted before it answered")]
    Interrupted,
    /// The embedder (a remote embedding service) failed or could not be reached.
    #[error("the embedder failed: {0}")]
    EmbedderFailed(String),
    /// The Idempotency-Key was used with another request, or its first request is still running.
    #[error("{0}")]
    IdempotencyConflict(String),
    /// A cart older than its validity (other agents' carts stay `NotFound`).
    #[error("the cart has expired")]
    CartExpired,
    #[error("missing, unknown or revoked API key")]
    Unauthorized,
    #[error("this key may not call this endpoint")]
    Forbidden,
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl DomainError {
    pub fn not_found(resource: &'static str) -> Self {
        Self::NotFound { resource, ids: Vec::new() }
    }

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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    Unavailable(String),
    /// The database refused a value it cannot hold (a byte its text type cannot store, a value
    /// out of its range): writing the same value again fails the same way. The domain's rules
    /// keep such values out; this is what is left when one gets through.
    #[error("refused by storage: {0}")]
    Refused(String),
    #[error("storage failure: {0}")]
    Internal(String),
}

impl From<StoreError> for DomainError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => DomainError::Conflict { message: m, details: Vec::new() },
            StoreError::NotFound(resource) => DomainError::not_found(resource),
            StoreError::Unavailable(m) => DomainError::Unavailable(m),
            // Invalid input, as storage sees it: the same answer as a broken rule.
            StoreError::Refused(m) => DomainError::invalid("value", format!("cannot be stored: {m}")),
            StoreError::Internal(m) => DomainError::Internal(m),
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

    pub fn push(&mut self, e: FieldError) {
        self.0.push(e);
    }

    /// `Err` with every recorded violation, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), DomainError> {
        if self.0.is_empty() { Ok(()) } else { Err(DomainError::Validation(self.0)) }
    }
}
