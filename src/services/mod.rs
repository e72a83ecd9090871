//! Outbound I/O: the AI provider, mail, web push and the exchange-rate
//! refresh.

pub mod ai;
pub mod mail;
pub mod push;
pub mod rates;
