//! The use cases of this feature.

pub(crate) mod key_cache;
pub(crate) mod keys;

pub use key_cache::KEY_CACHE_TTL;
pub use keys::*;
