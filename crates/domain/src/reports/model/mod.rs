//! What reports count, and how a report is asked for and answered.

pub mod report;
pub mod report_facts;
pub mod report_query;

pub use report::{GroupKey, Report, ReportRow, median};
pub use report_facts::{EndedSpan, ReportFacts, ReportRange, ReportSpan, SLOT_MINUTES, SlotCount, SpanKind, Tally, slot_of};
pub use report_query::{GroupBy, MAX_REPORT_DAYS, ReportQuery, ReportQueryInput};
