//! cashkeeper: a self-hosted personal finance tracker in one binary.
//!
//! `main.rs` is a short boot script; everything it starts lives here so the
//! black-box tests can build the very same router on `127.0.0.1:0`.
//!
//! Where to start reading:
//! - [`router`] builds the router, [`state`] is the state every handler shares;
//! - [`config`] reads and checks the environment once, before a port is bound;
//! - [`app`] holds every feature's use cases as typed functions over the state;
//! - [`actions`] is the server-action layer (`POST /actions/{name}`) the pages use;
//! - [`web`] renders the pages, [`api`] serves `/api` and the REST API `/api/v1`;
//! - [`http`] is the kit those three doors share: session extractors, panic guard, uploads, paging, action names;
//! - [`app::reports`] computes what pages, actions, the REST API and the jobs show;
//! - [`store`] owns SQLite, [`domain`] the pure rules, [`auth`] sessions and secrets.
//!
//! Layers import downward only, and no door (actions, api, web, jobs, cli)
//! imports another: error, clock, config, memory, cache, outbound ← domain ←
//! i18n ← store ← auth, services, demo ← state ← app ← http ← actions, api,
//! web, jobs ← router ← server ← cli. `layers.rs` checks this by reading `src/`.

pub mod actions;
pub mod api;
pub mod app;
pub mod auth;
pub mod cache;
pub mod cli;
pub mod clock;
pub mod config;
pub mod demo;
pub mod domain;
pub mod error;
pub mod http;
pub mod i18n;
pub mod jobs;
pub mod memory;
pub mod outbound;
pub mod router;
pub mod server;
pub mod services;
pub mod state;
pub mod store;
pub mod web;

#[cfg(test)]
mod layers;

pub use config::Config;
pub use error::{Error, Result};
pub use state::AppState;

/// The application version, as `/api/v1/health` and `--version` report it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The integer version of the REST API's response shapes.
pub const API_VERSION: u32 = 1;
