-- Single sign-on: which provider account (issuer and subject, the stable
-- id the provider gives a person) belongs to which cashkeeper user. Linked
-- on the first sign-in through the provider; an email change at the
-- provider does not move the link.
CREATE TABLE oidc_identities (
    issuer       TEXT NOT NULL,
    subject      TEXT NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    PRIMARY KEY (issuer, subject)
) WITHOUT ROWID;
CREATE INDEX oidc_identities_user ON oidc_identities(user_id);

-- An account made by its first sign-in through the provider has a random
-- password nobody knows until its owner sets one; sessions remember whether
-- the provider started them, so such an owner confirms a sensitive change
-- by signing in through the provider again (docs/sign-in.md).
ALTER TABLE users ADD COLUMN has_password INTEGER NOT NULL DEFAULT 1;
ALTER TABLE sessions ADD COLUMN via_provider INTEGER NOT NULL DEFAULT 0;
-- A challenge for the second factor after a sign-in through the provider
-- (two-factor sign-in applies there too) starts a provider session.
ALTER TABLE login_challenges ADD COLUMN via_provider INTEGER NOT NULL DEFAULT 0;
