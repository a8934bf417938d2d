//! The use cases of this feature.

pub(crate) mod lines;
pub(crate) mod pacing;
pub(crate) mod sends;
pub(crate) mod template_notices;

pub use lines::*;
pub use pacing::{FIRST_HOLD, THROTTLE_RETRIES, Turn, Unpaced};
pub use sends::*;
