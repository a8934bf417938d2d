//! Parley's domain: the rules of a business that sells over chat, as a library.
//!
//! Pure Rust: entities, value objects that refuse invalid input, the ports (traits) the
//! use-case services need, and the services themselves. No I/O and no framework types: the
//! `parley` binary wires these services to SQLite or PostgreSQL, the messaging platforms and an
//! HTTP API, and another Rust service can wire them to its own adapters.
//!
//! # The parts
//!
//! - [`model`]: the entities (an [`Activity`](model::Activity) is a conversation with one
//!   contact, a [`Line`](model::Line) the business's number or account on a platform) and the
//!   value objects their fields are made of. A value object's constructor checks its rules, so
//!   a value that exists is valid: [`TagName::new`](model::TagName::new) refuses a blank or
//!   too-long name with a [`FieldError`].
//! - [`ports`]: what the services need from outside, as traits: repositories (one per kind of
//!   record, scoped by agent, the tenant, save for the workers' own), the clock, id source,
//!   messaging platform, embedder. Each documents its contract; [`ports::Repositories`] bundles
//!   the storage ports.
//! - [`services`]: the use cases (create a tag, reply inside the messaging window, snapshot a
//!   cart). Each takes raw input (`…Input`, `…Query`), validates it through the value objects,
//!   applies the rules and calls its ports. A service takes exactly the ports it uses.
//! - [`error`]: [`DomainError`] for use cases, each variant with a stable
//!   [`code`](DomainError::code); [`StoreError`] for ports. Causes are kept as
//!   [`source`](std::error::Error::source)s.
//!
//! # Features
//!
//! - `mock`: [mockall](https://docs.rs/mockall) mocks of every port (`MockTagRepository`…),
//!   for unit tests that script a port's answers.
//! - `conformance`: the storage contract as a test suite, the macro `storage_conformance!`: a
//!   storage adapter passes it to prove it keeps every port's contract. The `parley-adapters-memory`
//!   crate passes it in memory (use it in tests instead of writing a fake), and
//!   `parley-adapters-diesel` on SQLite and PostgreSQL.
//!
//! # Using one service with your own adapter
//!
//! A loyalty service labels its best customers with Parley's tags, keeping them in its own
//! store. It implements the one port [`TagService`](services::TagService) stores through,
//! [`TagRepository`](ports::TagRepository), plus a clock and an id source, and gets the domain's
//! rules (names unique per agent ignoring case, at most
//! [`MAX_TAGS_PER_AGENT`](model::MAX_TAGS_PER_AGENT), an event carrying the changed tag with each
//! change) without writing them:
//!
//! ```
//! use std::sync::{Arc, Mutex};
//!
//! use parley_domain::async_trait;
//! use parley_domain::model::{AgentId, Event, EventObject, EventType, IdKind, Tag, TagId, Timestamp};
//! use parley_domain::ports::{Clock, IdSource, StoreResult, TagRepository};
//! use parley_domain::services::{NewTagInput, TagService};
//! use parley_domain::DomainError;
//!
//! /// The loyalty service's own store: its tags, and the events of their changes (its outbox).
//! #[derive(Default)]
//! struct LoyaltyTags(Mutex<Kept>);
//!
//! #[derive(Default)]
//! struct Kept {
//!     tags: Vec<Tag>,
//!     events: Vec<Event>,
//! }
//!
//! #[async_trait]
//! impl TagRepository for LoyaltyTags {
//!     async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Tag>> {
//!         let kept = self.0.lock().expect("not poisoned");
//!         let mut tags: Vec<Tag> = kept.tags.iter().filter(|t| &t.agent_id == agent).cloned().collect();
//!         tags.sort_by_key(|t| (t.name.as_str().to_lowercase(), t.id.as_str().to_string()));
//!         Ok(tags)
//!     }
//!     async fn get(&self, agent: &AgentId, id: &TagId) -> StoreResult<Option<Tag>> {
//!         Ok(self.list(agent).await?.into_iter().find(|t| &t.id == id))
//!     }
//!     async fn find_many(&self, agent: &AgentId, ids: &[TagId]) -> StoreResult<Vec<Tag>> {
//!         Ok(self.list(agent).await?.into_iter().filter(|t| ids.contains(&t.id)).collect())
//!     }
//!     async fn insert(&self, tag: &Tag, max_per_agent: u32, events: &[Event]) -> StoreResult<bool> {
//!         let mut kept = self.0.lock().expect("not poisoned");
//!         let theirs = kept.tags.iter().filter(|t| t.agent_id == tag.agent_id);
//!         // The contract: `Conflict` when the name is taken, `false` at the limit, and then
//!         // nothing written; else the tag and its events together.
//!         if theirs.clone().any(|t| t.name.as_str().to_lowercase() == tag.name.as_str().to_lowercase()) {
//!             return Err(parley_domain::StoreError::Conflict("tag name".into()));
//!         }
//!         if theirs.count() >= max_per_agent as usize {
//!             return Ok(false);
//!         }
//!         kept.tags.push(tag.clone());
//!         kept.events.extend_from_slice(events);
//!         Ok(true)
//!     }
//!     async fn update(&self, tag: &Tag, events: &[Event]) -> StoreResult<bool> {
//!         let mut kept = self.0.lock().expect("not poisoned");
//!         let Some(slot) = kept.tags.iter_mut().find(|t| t.id == tag.id && t.agent_id == tag.agent_id) else { return Ok(false) };
//!         *slot = tag.clone();
//!         kept.events.extend_from_slice(events);
//!         Ok(true)
//!     }
//!     async fn delete(&self, agent: &AgentId, id: &TagId, events: &[Event]) -> StoreResult<bool> {
//!         let mut kept = self.0.lock().expect("not poisoned");
//!         let before = kept.tags.len();
//!         kept.tags.retain(|t| !(&t.id == id && &t.agent_id == agent));
//!         let deleted = kept.tags.len() < before;
//!         if deleted {
//!             kept.events.extend_from_slice(events);
//!         }
//!         Ok(deleted)
//!     }
//! }
//!
//! struct FixedClock;
//! impl Clock for FixedClock {
//!     fn now(&self) -> Timestamp {
//!         "2026-11-27T12:00:00Z".parse().expect("a valid time")
//!     }
//! }
//!
//! #[derive(Default)]
//! struct CountingIds(std::sync::atomic::AtomicU64);
//! impl IdSource for CountingIds {
//!     fn new_id(&self, kind: IdKind) -> String {
//!         format!("{}_{}", kind.prefix(), self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
//!     }
//!     fn secret(&self, len: usize) -> String { "s".repeat(len) }
//!     fn code(&self, alphabet: &'static [u8], len: usize) -> String { (alphabet[0] as char).to_string().repeat(len) }
//!     fn bytes(&self, len: usize) -> Vec<u8> { vec![7; len] }
//!     fn unit(&self) -> f64 { 0.5 }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().expect("a runtime").block_on(async {
//! let store = Arc::new(LoyaltyTags::default());
//! let tags = TagService::new(store.clone(), Arc::new(FixedClock), Arc::new(CountingIds::default()));
//! let shop = AgentId::new("agt_shop");
//!
//! let vip = tags.create(&shop, NewTagInput { name: Some("VIP".into()), ..Default::default() }).await?;
//! assert_eq!(vip.name.as_str(), "VIP");
//!
//! // The domain's rules hold whatever the store: names are unique ignoring case…
//! let again = tags.create(&shop, NewTagInput { name: Some("vip".into()), ..Default::default() }).await;
//! assert_eq!(again.unwrap_err().code(), "CONFLICT");
//! // …and input is validated before any port is called.
//! let blank = tags.create(&shop, NewTagInput { name: Some("  ".into()), ..Default::default() }).await;
//! assert!(matches!(blank, Err(DomainError::Validation(ref fields)) if fields[0].field == "name"));
//!
//! assert_eq!(tags.list(&shop).await?.len(), 1);
//! // One change, one event, carrying the tag as it was made.
//! let kept = store.0.lock().expect("not poisoned");
//! assert_eq!(kept.events.len(), 1);
//! assert_eq!(kept.events[0].event_type, EventType::TagCreated);
//! assert!(matches!(&kept.events[0].object, EventObject::Tag(tag) if tag.name.as_str() == "VIP"));
//! # Ok::<(), DomainError>(())
//! # }).expect("the example runs");
//! ```

#![deny(missing_docs)]

pub mod error;
pub mod model;
pub mod ports;
pub mod services;

pub mod access;
pub mod automation;
pub mod catalog;
pub mod conversations;
pub mod events;
pub mod lines;
pub mod messaging;
pub mod reports;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use error::{Cause, DomainError, FieldError, StoreError};

/// The attribute a port's implementation needs (the ports are `async_trait` traits), so a
/// reuser implements one without depending on `async-trait` directly.
pub use async_trait::async_trait;
