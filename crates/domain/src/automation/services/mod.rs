//! This feature's services (re-exported by [`crate::services`]).

mod business_hours;
mod first_response;
mod round_robin;
mod rule_engine;
mod rules;

pub use business_hours::BusinessHoursService;
pub use first_response::{FirstResponseService, MISSES_PER_PASS, ResponseDue};
pub use round_robin::RoundRobin;
pub use rule_engine::{AWAY_EVERY, EnginePass, RULE_LEASE, RuleActors, RuleEngine, RuleReads, TemplateComponents};
pub use rules::{RULE_PAGES, RUN_RETENTION, RuleReferences, RuleService};
