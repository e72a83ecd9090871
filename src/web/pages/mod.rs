//! One module per screen, named like its URL; `common` and `record_page`
//! hold what the record screens share.

pub mod accounts;
pub mod assistant;
pub mod auth;
pub mod bank;
pub mod budgets;
pub mod categories;
pub mod common;
pub mod daily_expenses;
pub mod dashboard;
pub mod documents;
pub mod errors;
pub mod expenses;
pub mod forecasts;
pub mod import;
pub mod incomes;
pub mod insights;
pub mod record_page;
pub mod reserves;
pub mod search;
pub mod settings;
pub mod transfers;
