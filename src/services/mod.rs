//! Outbound I/O: mail and the exchange-rate refresh (and, as features
//! arrive, the AI provider and web push).

pub mod mail;
pub mod push;
pub mod rates;
