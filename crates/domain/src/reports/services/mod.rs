//! This feature's use cases (re-exported by [`crate::services`]).

mod reports;

pub use reports::ReportService;
