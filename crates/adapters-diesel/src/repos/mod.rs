//! One module per repository port, each implemented on [`Store`](crate::Store).

mod activities;
pub(crate) mod activity_filters;
mod activity_row;
pub(crate) mod activity_search;
mod activity_views;
mod agents;
mod bulk;
mod canned_responses;
mod carts;
pub(crate) mod channel_lists;
pub(crate) mod contact_search;
pub(crate) mod contacts;
pub(crate) mod erasure;
mod events;
mod executions;
mod files;
mod idempotency;
mod inbound_deliveries;
mod keys;
mod lines;
mod mailboxes;
mod messages;
mod products;
mod tags;
mod templates;
mod vectors;
mod webhook_endpoints;
