//! One module per screen, named like its URL.

pub mod auth;
pub mod dashboard;
pub mod errors;
pub mod settings;
