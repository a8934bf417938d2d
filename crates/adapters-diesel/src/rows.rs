//! Conversions between stored columns and domain values.

use chrono::{DateTime, Utc};
use parley_domain::FieldError;
use parley_domain::model::Timestamp;

use crate::error::DbError;

pub(crate) fn millis(t: Timestamp) -> i64 {
    t.timestamp_millis()
}

pub(crate) fn from_millis(ms: i64) -> Result<Timestamp, DbError> {
    DateTime::<Utc>::from_timestamp_millis(ms).ok_or_else(|| DbError::Corrupt(format!("timestamp {ms} out of range")))
}

pub(crate) fn opt_from_millis(ms: Option<i64>) -> Result<Option<Timestamp>, DbError> {
    ms.map(from_millis).transpose()
}

/// A vector as stored: its f32 components, little-endian.
pub(crate) fn encode_vector(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn decode_vector(bytes: &[u8]) -> Result<Vec<f32>, DbError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(DbError::Corrupt(format!("a stored vector of {} bytes", bytes.len())));
    }
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Stored values were validated on the way in; one that no longer validates is corruption.
pub(crate) fn valid<T>(r: Result<T, FieldError>) -> Result<T, DbError> {
    r.map_err(|e| DbError::Corrupt(format!("{}: {}", e.field, e.issue)))
}
