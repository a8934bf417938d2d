//! This feature's services (re-exported by [`crate::services`]).

mod business_hours;

pub use business_hours::BusinessHoursService;
