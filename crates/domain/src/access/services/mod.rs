//! The use cases of this feature.

pub(crate) mod key_cache;
pub(crate) mod keys;
pub(crate) mod members;
pub(crate) mod sessions;

pub use key_cache::KEY_CACHE_TTL;
pub use keys::*;
pub use members::*;
pub use sessions::*;
