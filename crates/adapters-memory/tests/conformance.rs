//! Holds the in-memory backend to the one storage port contract in `parley_domain::conformance`,
//! as `parley-adapters-diesel` holds SQLite and PostgreSQL to it. Each check gets a store of its
//! own, empty; nothing needs cleaning up after it, hence the unit guard.

parley_domain::storage_conformance!(async { (parley_adapters_memory::repositories(), ()) });
