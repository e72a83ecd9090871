-- Sign-in security: the user's own sessions, two-factor codes (TOTP) and
-- recovery codes, and the short-lived challenge between the password and
-- the code.

-- Sessions get a public id (the token hash is never shown), the browser
-- that opened them, and push subscriptions the session that made them, so
-- signing a browser out also stops its reminders.
ALTER TABLE sessions ADD COLUMN id TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
UPDATE sessions SET id = lower(hex(randomblob(16))) WHERE id IS NULL;
CREATE UNIQUE INDEX sessions_id ON sessions(id);
ALTER TABLE push_subscriptions ADD COLUMN session_id TEXT;

-- The TOTP secret, encrypted with the key in the data directory (see
-- docs/sign-in.md): a copy of the database alone does not give it away.
-- totp_pending is a secret being set up and not yet confirmed;
-- totp_last_step the last 30-second step whose code was accepted, so a
-- code works once.
ALTER TABLE users ADD COLUMN totp_secret TEXT;
ALTER TABLE users ADD COLUMN totp_pending TEXT;
ALTER TABLE users ADD COLUMN totp_enabled_at TEXT;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER;

-- Single-use recovery codes, stored as SHA-256 of the normalised code.
CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   TEXT,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

-- Between a right password and the code: hashed, single use, five minutes.
CREATE TABLE login_challenges (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);
CREATE INDEX login_challenges_user ON login_challenges(user_id);
