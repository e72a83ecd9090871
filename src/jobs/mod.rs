//! When the two recurring jobs run (their use cases are
//! `app::insights` and `app::reminders`), the scheduled backup, the daily housekeeping (expired
//! sessions), the daily exchange-rate refresh, and the morning bank sync.
//! The cron routes and the bundled scheduler both run the two jobs, and
//! each job holds a lock (`state::JobLocks`) while it runs, so it never
//! runs twice at once.

pub mod backups;
pub mod bank_sync;
pub mod housekeeping;
pub mod rates;
pub mod scheduler;
