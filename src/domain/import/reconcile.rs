//! What each staged row is to the user's records. See `docs/import.md`.
