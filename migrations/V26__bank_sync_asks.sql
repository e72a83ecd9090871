-- The scheduled bank sync (docs/bank-sync.md) asks for a TAN or an
-- approval once: it remembers the ask, with the connection's last sync as
-- it was then, and leaves the connection alone until a sync of it has
-- completed since (the person fetched by hand).
CREATE TABLE bank_sync_asks (
    connection_id TEXT PRIMARY KEY REFERENCES bank_connections(id) ON DELETE CASCADE,
    user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    asked_at      TEXT NOT NULL,
    -- The connection's last_sync_at when it was asked (NULL: never synced).
    last_sync_at  TEXT
);
