//! What a [`diesel::dsl::auto_type`] function of this crate names its query's type with:
//! diesel's own helper types, and the types of this crate's query methods (`.prepared()`).
//!
//! A statement or query both backends run is such a function: its body written once, its type
//! worked out by `auto_type`, and each caller runs it on its own connection. A macro is left for
//! what a function cannot hold (see the macro tables of `docs/storage.md`).

pub(crate) use diesel::dsl::*;

/// `.prepared()` on a statement: see [`crate::prepared`].
pub(crate) type Prepared<Q> = crate::prepared::Prepared<Q>;
