//! The two recurring jobs, insight generation and upcoming-payment
//! reminders, the scheduled backup, the daily housekeeping (expired
//! sessions), and the daily exchange-rate refresh.
//! The cron routes and the bundled scheduler both run the two jobs, and
//! each job holds a lock (`state::JobLocks`) while it runs, so it never
//! runs twice at once.

pub mod backups;
pub mod housekeeping;
pub mod insights;
pub mod rates;
pub mod scheduler;
pub mod upcoming;
