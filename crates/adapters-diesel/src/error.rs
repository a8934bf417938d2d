//! The adapter's error, and how it maps onto the domain's [`StoreError`].

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use parley_domain::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(transparent)]
    Query(#[from] DieselError),
    #[error("connection pool: {0}")]
    Pool(String),
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("migrations failed: {0}")]
    Migration(String),
    #[error("unsupported database url {0:?}: use sqlite://PATH or postgres://…")]
    Url(String),
    #[error("stored row is invalid: {0}")]
    Corrupt(String),
}

impl From<diesel_async::pooled_connection::deadpool::PoolError> for DbError {
    fn from(e: diesel_async::pooled_connection::deadpool::PoolError) -> Self {
        DbError::Pool(e.to_string())
    }
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Query(DieselError::DatabaseError(kind, info)) => match kind {
                DatabaseErrorKind::UniqueViolation | DatabaseErrorKind::ForeignKeyViolation => {
                    StoreError::Conflict(info.constraint_name().unwrap_or(info.message()).to_string())
                }
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand => {
                    StoreError::Unavailable(info.message().to_string())
                }
                // SQLite reports its uniqueness failures without a kind on some paths, and
                // "database is locked" when a writer outlasts the busy timeout.
                _ if info.message().starts_with("UNIQUE constraint failed") => StoreError::Conflict(info.message().to_string()),
                _ if info.message().contains("database is locked") => StoreError::Unavailable(info.message().to_string()),
                _ => StoreError::Internal(info.message().to_string()),
            },
            DbError::Pool(m) | DbError::Connect(m) => StoreError::Unavailable(m),
            other => StoreError::Internal(other.to_string()),
        }
    }
}

pub(crate) type DbResult<T> = Result<T, DbError>;
