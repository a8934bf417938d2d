//! The use cases of this feature.

pub(crate) mod carts;
pub(crate) mod catalog;
pub(crate) mod search;

pub use carts::*;
pub use catalog::*;
pub use search::*;
