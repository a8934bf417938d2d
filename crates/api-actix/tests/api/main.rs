//! The API's integration tests, one binary: each module is a former test file, the shared
//! helpers (`common`) are compiled once, and the binary links the embedder once.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

// First, in a group of its own: its macros (`http_tests!`, `backend_tests!`) serve the modules below.
#[macro_use]
mod common;

mod activities;
mod api_document;
mod browser;
mod business_hours;
mod canned_responses;
mod carts;
mod catalog;
mod catalog_cli;
mod concurrent_writes;
mod contacts;
mod email;
mod event_fairness;
mod event_instances;
mod event_types;
mod event_webhooks;
mod first_response;
mod hostile_bodies;
mod huge_answers;
mod inbound_cli;
mod inbound_restart;
mod inbox;
mod inbox_browser;
mod instagram;
mod line_pacing;
mod lines_cli;
mod message_instances;
mod messaging;
mod metrics;
mod pg_restart;
mod rate_limits;
mod readme;
mod reply_recovery;
mod reports;
mod request_deadline;
mod rule_engine;
mod rule_instances;
mod rules;
mod sandbox_cli;
mod scheduled_messages;
mod scheduled_restart;
mod search;
mod search_instances;
mod serve_cli;
mod shutdown;
mod storable_text;
mod stream;
mod tags;
mod team;
mod template_catalogue;
mod timeline;
mod whatsapp_users;
mod wire;
