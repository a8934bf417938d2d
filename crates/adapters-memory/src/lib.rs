//! In-memory adapters of every repository port of `parley-domain`: a third storage backend,
//! beside SQLite and PostgreSQL (`parley-adapters-diesel`), for tests of the domain's services
//! and of code that reuses them. It needs no database, no file and no setup: a store is made
//! empty, in microseconds, for each test.
//!
//! **Not for production.** Nothing persists (the data goes with the last clone of the store),
//! and the state lives in one process, so several `parley serve` instances cannot share it.
//!
//! It is held to the same contract as the databases: the domain's storage conformance suite
//! (`parley_domain::storage_conformance!`) runs on it unchanged (`tests/conformance.rs`). Every
//! port method takes one lock over the whole state, checks what could refuse the write, then
//! writes, so each call is atomic like one database transaction: a conversation is inserted
//! whole or not at all, events are stored with the change they report only when it takes
//! effect, claims and compare-and-set updates never let two callers win. Orders, ties, totals,
//! scoping by agent and the kept counts (unread counts, tag counts, last messages) are those of
//! the databases; lists and searches apply the domain's own rules (`ActivityFilter::matches`,
//! `ContactFilter::matches`, `CannedSearch::matches`).
//!
//! ```
//! use parley_domain::model::{Agent, AgentId, AgentName, MAX_TAGS_PER_AGENT, Tag, TagColor, TagId, TagName, parse_timestamp};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let repos = parley_adapters_memory::repositories();
//! let at = parse_timestamp("at", "2026-01-01T00:00:00Z").unwrap();
//! let shop = Agent { id: AgentId::new("agt_shop"), name: AgentName::new("Shop").unwrap(), created_at: at };
//! repos.agents.insert(&shop).await.unwrap();
//!
//! let vip = Tag {
//!     id: TagId::new("tag_vip"),
//!     agent_id: shop.id.clone(),
//!     name: TagName::new("VIP").unwrap(),
//!     color: TagColor::default_color(),
//!     description: None,
//!     created_at: at,
//!     updated_at: at,
//! };
//! assert!(repos.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap());
//! // Names are unique per agent, ignoring case, as on the databases.
//! let twin = Tag { id: TagId::new("tag_twin"), name: TagName::new("vip").unwrap(), ..vip.clone() };
//! assert!(repos.tags.insert(&twin, MAX_TAGS_PER_AGENT, &[]).await.is_err());
//! assert_eq!(repos.tags.list(&shop.id).await.unwrap(), [vip]);
//! # });
//! ```

#![deny(missing_docs)]

mod activities;
mod agents;
mod business_hours;
mod canned_responses;
mod carts;
mod contacts;
mod endpoints;
mod erasure;
mod events;
mod executions;
mod files;
mod first_response;
mod health;
mod idempotency;
mod inbound_deliveries;
mod keys;
mod lines;
mod mailboxes;
mod members;
mod messages;
mod outbox;
mod products;
mod reports;
mod rules;
mod scheduled;
mod store;
mod tags;
mod templates;
mod vectors;

pub use store::MemoryStore;

/// Every repository port over one new, empty in-memory store: `MemoryStore::new().repositories()`.
pub fn repositories() -> parley_domain::ports::Repositories {
    MemoryStore::new().repositories()
}
