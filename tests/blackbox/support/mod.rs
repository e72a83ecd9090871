//! Test support, in one place: a new test is a few lines, and a fix to the
//! set-up is made once.
//!
//! - [`app`]: `spawn_app()` starts the real router on 127.0.0.1:0 with a
//!   fresh data directory; `TEST_LOG=1` prints the server's log.
//! - [`reply`]: an action's reply, its envelope parsed.
//! - [`users`]: typed users that carry their session cookie.
//! - [`calls`]: one helper per route, so tests read as arrange / act /
//!   assert (`app.ok(&user, "createAccount", …)`, `app.refused(…)`).
//! - [`clock`]: the app's clock set to a day, a user signed in again after.
//! - [`seed`]: long histories written through the store in a moment.
//! - [`upload`]: multipart bodies, as a browser's form sends them.
//! - [`service`]: the real executable as a child process, for tests that
//!   kill it, start it again or measure its memory.
//! - [`browser`]: headless Chromium through chromedriver, and a user
//!   signed in there (`browser::signed_in`).
//!
//! `use crate::support::*;` brings all but the browser's helpers, which a
//! browser test names from `crate::support::browser`.

pub mod app;
pub mod browser;
pub mod calls;
pub mod child;
pub mod clock;
pub mod reply;
pub mod seed;
pub mod service;
pub mod sheets;
pub mod upload;
pub mod users;

pub use app::{spawn_app, spawn_app_in, spawn_app_with, TestApp};
pub use reply::ActionReply;
pub use users::{unique_email, TestUser};
