//! Business hours and their arithmetic; automation rules.

pub mod business_hours;
pub mod open_time;
pub mod response_target;
pub mod round_robin;
pub mod rule;
pub mod rule_facts;
pub mod rule_run;

pub use business_hours::{BusinessHours, BusinessHoursInput, Period};
pub use open_time::OpenTime;
pub use response_target::{MAX_TARGET_MINUTES, ResponseTarget};
pub use round_robin::{MemberLoad, next_in_turn};
pub use rule::{
    AssignTarget, CheckedRule, Condition, ConditionField, ConditionOp, ConditionValue, InputValue, MAX_RULES_PER_AGENT, ReplyText, Rule,
    RuleAction, RuleActionInput, RuleConditionInput, RuleInput, RuleName, RuleTrigger,
};
pub use rule_facts::{EventFacts, RuleFacts};
pub use rule_run::{RuleRun, RunOutcome};
