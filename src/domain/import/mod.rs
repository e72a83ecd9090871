//! The staged CSV import's pure rules: reading a bank's export
//! ([`read`]) and deciding what each row is to the user's records
//! ([`reconcile`]). See `docs/import.md`.

pub mod read;
pub mod reconcile;
