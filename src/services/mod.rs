//! Outbound I/O: the AI provider, banks over FinTS, mail, web push and the exchange-rate
//! refresh.

pub mod ai;
pub mod fints;
pub mod mail;
pub mod net;
pub mod push;
pub mod rates;
