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
