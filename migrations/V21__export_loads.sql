-- A load of an export into a user's data, while it is written in chunks:
-- `marks` holds, per table it writes, the newest rowid before it began, so
-- that a load that is refused or interrupted (the service stopped) is taken
-- back to exactly what was there (store/export/load.rs).
CREATE TABLE export_loads (
    user_id    TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    marks      TEXT NOT NULL,
    started_at TEXT NOT NULL
);
