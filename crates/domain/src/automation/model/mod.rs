//! Business hours and their arithmetic.

pub mod business_hours;

pub use business_hours::{BusinessHours, BusinessHoursInput, Period};
