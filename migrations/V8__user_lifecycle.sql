-- An administrator can disable a user (`cashkeeper user disable`): set,
-- the user cannot sign in; their data stays until enabled or deleted.
ALTER TABLE users ADD COLUMN disabled_at TEXT;
