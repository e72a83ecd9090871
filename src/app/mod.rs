//! The application layer: every feature's use cases as typed functions
//! over the state, between the state and the doors (`actions`, `api`,
//! `web`, `jobs`, `cli`). A door decodes its request, calls one function
//! here and encodes what it answers; nothing here knows HTTP, JSON
//! envelopes or pages, and no door calls another.

pub mod api_tokens;
pub mod assistant;
pub mod bank;
pub mod budget_insights;
pub mod budgets;
pub(crate) mod chunks;
pub mod documents;
pub mod export;
pub mod import;
pub mod input;
pub mod insights;
pub mod merchants;
pub mod receipts;
pub mod records;
pub mod reminders;
pub mod repeats;
pub mod reports;
pub mod reserves;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod sign_in;
pub mod single_sign_on;
pub mod temp_files;
pub mod users;

#[cfg(test)]
pub(crate) mod testing;
