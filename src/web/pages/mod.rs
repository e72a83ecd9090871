//! One module per screen, named like its URL.

pub mod accounts;
pub mod auth;
pub mod categories;
pub mod common;
pub mod daily_expenses;
pub mod dashboard;
pub mod errors;
pub mod expenses;
pub mod forecasts;
pub mod incomes;
pub mod insights;
pub mod reserves;
pub mod search;
pub mod settings;
pub mod transfers;
