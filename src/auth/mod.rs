//! Sessions, passwords, secrets and the limits that slow down guessing.

pub mod login_limit;
pub mod password;
pub mod secrets;
pub mod session;
