//! Sessions, passwords, secrets and the limits that slow down guessing.

pub mod api_tokens;
pub mod client;
pub mod login_limit;
pub mod oidc;
pub mod origin;
pub mod password;
pub mod rate_limit;
pub mod sealed;
pub mod secrets;
pub mod session;
pub mod totp;
