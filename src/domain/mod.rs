//! Pure rules: no I/O, no clock, no database. Each type's `parse` returns a
//! value that can only hold a valid input, with errors naming the field.

pub mod banks;
pub mod budgets;
pub mod categories;
pub mod contracts;
pub mod currency;
pub mod documents;
pub mod email;
pub mod fold;
pub mod forecast;
pub mod import;
pub mod insights;
pub mod locale;
pub mod merchant;
pub mod money;
pub mod net_worth;
pub mod prices;
pub mod rates;
pub mod receipts;
pub mod recurrence;
pub mod repeats;
pub mod reserves;
pub mod user_agent;
pub mod views;
