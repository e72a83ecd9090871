//! Outbound I/O: mail (and, as features arrive, the AI provider, web push
//! and the exchange-rate refresh).

pub mod mail;
pub mod rates;
