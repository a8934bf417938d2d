//! The adapter's error, and how it maps onto the domain's [`StoreError`].

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use parley_domain::{Cause, StoreError};

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
    /// A write that would pass a limit of the storage contract (an activity's tags): rolled
    /// back, and a `Conflict` for the domain.
    #[error("{0}")]
    Limit(String),
}

impl From<diesel_async::pooled_connection::deadpool::PoolError> for DbError {
    fn from(e: diesel_async::pooled_connection::deadpool::PoolError) -> Self {
        DbError::Pool(e.to_string())
    }
}

impl DbError {
    /// A transaction the database aborted only to resolve a conflict with another one: a
    /// deadlock (PostgreSQL's SQLSTATE 40P01, which diesel reports without a kind) or a
    /// serialization failure (40001). Running it again from the start may succeed.
    pub(crate) fn is_transient_conflict(&self) -> bool {
        match self {
            DbError::Query(DieselError::DatabaseError(kind, info)) => {
                matches!(kind, DatabaseErrorKind::SerializationFailure) || info.message().contains("deadlock detected")
            }
            DbError::Query(DieselError::RollbackErrorOnCommit { commit_error, .. }) => {
                matches!(&**commit_error, DieselError::DatabaseError(DatabaseErrorKind::SerializationFailure, _))
            }
            _ => false,
        }
    }

    /// A write that would give two rows one unique key (or point at a row that is not there):
    /// what the domain hears as a `Conflict`.
    pub(crate) fn is_conflict(&self) -> bool {
        matches!(self, DbError::Query(e) if matches!(meaning_of_query(e), Meaning::Conflict(_)))
    }
}

/// What a failure means to the domain, decided before the error itself becomes the cause.
enum Meaning {
    Conflict(String),
    Refused,
    Unavailable,
    Internal,
}

fn meaning_of_query(e: &DieselError) -> Meaning {
    match e {
        DieselError::DatabaseError(kind, info) => {
            let message = info.message();
            match kind {
                DatabaseErrorKind::UniqueViolation | DatabaseErrorKind::ForeignKeyViolation => {
                    Meaning::Conflict(info.constraint_name().unwrap_or(message).to_string())
                }
                // A value the column cannot hold: the same value is refused every time.
                DatabaseErrorKind::CheckViolation | DatabaseErrorKind::NotNullViolation => Meaning::Refused,
                _ if is_value_refused(message) => Meaning::Refused,
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand => Meaning::Unavailable,
                // Still conflicting after the retries of `in_transaction!`: busy, not a bug.
                DatabaseErrorKind::SerializationFailure => Meaning::Unavailable,
                _ if message.contains("deadlock detected") => Meaning::Unavailable,
                // SQLite reports its uniqueness failures without a kind on some paths, and
                // "database is locked" when a writer outlasts the busy timeout.
                _ if message.starts_with("UNIQUE constraint failed") => Meaning::Conflict(message.to_string()),
                _ if message.contains("database is locked") => Meaning::Unavailable,
                // PostgreSQL going away or not back yet (SQLSTATE classes 57P and 08 arrive as
                // `Unknown`): the client should retry, this is no bug.
                _ if is_server_unavailable(message) => Meaning::Unavailable,
                _ => Meaning::Internal,
            }
        }
        // A commit that failed and whose rollback failed too: the connection went away.
        DieselError::RollbackErrorOnCommit { commit_error, .. } => meaning_of_query(commit_error),
        DieselError::BrokenTransactionManager => Meaning::Unavailable,
        _ => Meaning::Internal,
    }
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> Self {
        let meaning = match &e {
            DbError::Query(query) => meaning_of_query(query),
            DbError::Pool(_) | DbError::Connect(_) => Meaning::Unavailable,
            DbError::Limit(m) => Meaning::Conflict(m.clone()),
            DbError::Migration(_) | DbError::Url(_) | DbError::Corrupt(_) => Meaning::Internal,
        };
        // The adapter's error stays the cause, so logs reach the database's own words.
        match meaning {
            Meaning::Conflict(what) => StoreError::Conflict(what),
            Meaning::Refused => StoreError::Refused(Cause::new(e)),
            Meaning::Unavailable => StoreError::Unavailable(Cause::new(e)),
            Meaning::Internal => StoreError::Internal(Cause::new(e)),
        }
    }
}

/// Messages of a database refusing a value it cannot hold (PostgreSQL's SQLSTATE class 22,
/// data exceptions, which arrive as `Unknown`: a NUL byte in text, an escape jsonb cannot hold,
/// a number out of range; SQLite's value past its size limit).
fn is_value_refused(message: &str) -> bool {
    const MARKERS: [&str; 7] = [
        "invalid byte sequence for encoding",
        "character with byte sequence",
        "unsupported Unicode escape sequence",
        "value too long for type",
        "out of range",
        "invalid input syntax",
        "string or blob too big",
    ];
    MARKERS.iter().any(|m| message.contains(m))
}

/// Messages of a PostgreSQL server that is shutting down, restarting or in recovery, or that
/// cancelled a statement on its `statement_timeout`.
fn is_server_unavailable(message: &str) -> bool {
    const MARKERS: [&str; 6] = [
        "terminating connection",
        "the database system is",
        "server closed the connection",
        "connection closed",
        "canceling statement due to statement timeout",
        "no connection to the server",
    ];
    MARKERS.iter().any(|m| message.contains(m))
}

pub(crate) type DbResult<T> = Result<T, DbError>;

#[cfg(test)]
mod tests {
    use super::*;

    fn db(kind: DatabaseErrorKind, message: &str) -> StoreError {
        DbError::Query(DieselError::DatabaseError(kind, Box::new(message.to_string()))).into()
    }

    #[test]
    fn a_database_going_away_is_unavailable_not_a_bug() {
        for message in [
            "terminating connection due to administrator command",
            "the database system is shutting down",
            "the database system is starting up",
            "canceling statement due to statement timeout",
            "server closed the connection unexpectedly",
        ] {
            assert!(matches!(db(DatabaseErrorKind::Unknown, message), StoreError::Unavailable(_)), "{message}");
        }
        assert!(matches!(db(DatabaseErrorKind::UnableToSendCommand, "connection closed"), StoreError::Unavailable(_)));
        assert!(matches!(DbError::Query(DieselError::BrokenTransactionManager).into(), StoreError::Unavailable(_)));
        assert!(matches!(DbError::Pool("timed out waiting".into()).into(), StoreError::Unavailable(_)));
        assert!(matches!(db(DatabaseErrorKind::Unknown, "syntax error at or near \"SELEC\""), StoreError::Internal(_)), "bugs stay 500");
    }

    #[test]
    fn a_value_the_database_cannot_hold_is_refused_not_a_failure_that_may_pass() {
        for message in [
            "invalid byte sequence for encoding \"UTF8\": 0x00",
            "unsupported Unicode escape sequence",
            "value too long for type character varying(10)",
            "string or blob too big",
        ] {
            assert!(matches!(db(DatabaseErrorKind::Unknown, message), StoreError::Refused(_)), "{message}");
        }
        assert!(matches!(db(DatabaseErrorKind::CheckViolation, "new row violates check constraint"), StoreError::Refused(_)));
    }

    #[test]
    fn deadlocks_and_serialization_failures_are_retried_then_unavailable() {
        let query = |kind, message: &str| DbError::Query(DieselError::DatabaseError(kind, Box::new(message.to_string())));
        let deadlock = query(DatabaseErrorKind::Unknown, "deadlock detected");
        let serialization = query(DatabaseErrorKind::SerializationFailure, "could not serialize access");
        assert!(deadlock.is_transient_conflict() && serialization.is_transient_conflict());
        assert!(!query(DatabaseErrorKind::UniqueViolation, "duplicate key").is_transient_conflict());
        assert!(!DbError::Pool("timed out".into()).is_transient_conflict());
        assert!(matches!(StoreError::from(deadlock), StoreError::Unavailable(_)));
        assert!(matches!(StoreError::from(serialization), StoreError::Unavailable(_)));
    }
}
