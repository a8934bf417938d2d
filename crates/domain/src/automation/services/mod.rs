//! This feature's services (re-exported by [`crate::services`]).

mod business_hours;
mod rules;

pub use business_hours::BusinessHoursService;
pub use rules::{RULE_PAGES, RuleReferences, RuleService};
