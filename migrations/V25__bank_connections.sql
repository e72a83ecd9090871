-- Bank sync over FinTS (docs/bank-sync.md): a user's connections to their
-- banks and the bank accounts each one shows. Only settled facts live
-- here; a dialog waiting for a TAN or an approval lives in memory.
--
-- The PIN (only when the user asked to save it) and the bank's state (its
-- parameters, the customer system id) are sealed with the data
-- directory's key, like the two-factor secrets. The last error is a code,
-- worded when read in the reader's language; `last_error_text` holds only
-- a refusal's own words from the bank.
CREATE TABLE bank_connections (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bank_code       TEXT NOT NULL,
    bank_name       TEXT NOT NULL,
    url             TEXT NOT NULL,
    login_name      TEXT NOT NULL,
    customer_id     TEXT,
    pin_sealed      TEXT,
    state_sealed    TEXT,
    tan_method      TEXT,
    auto_sync       INTEGER NOT NULL DEFAULT 0 CHECK (auto_sync IN (0, 1)),
    auto_confirm    INTEGER NOT NULL DEFAULT 0 CHECK (auto_confirm IN (0, 1)),
    last_sync_at    TEXT,
    last_error      TEXT,
    last_error_text TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    -- Automatic sync needs the saved PIN.
    CHECK (auto_sync = 0 OR pin_sealed IS NOT NULL)
);
CREATE INDEX bank_connections_user ON bank_connections(user_id, created_at);

-- `iban` is the account's key within its connection: its IBAN, or its
-- account number when the bank gives none.
CREATE TABLE bank_accounts (
    connection_id  TEXT NOT NULL REFERENCES bank_connections(id) ON DELETE CASCADE,
    user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    iban           TEXT NOT NULL,
    bic            TEXT,
    account_number TEXT NOT NULL,
    name           TEXT,
    owner_name     TEXT,
    currency       TEXT,
    account_id     TEXT REFERENCES accounts(id) ON DELETE SET NULL,
    last_booking   TEXT,
    PRIMARY KEY (connection_id, iban)
);
CREATE INDEX bank_accounts_account ON bank_accounts(account_id);

-- Where a batch came from: a file the user uploaded, or a bank sync.
ALTER TABLE import_batches ADD COLUMN source TEXT NOT NULL DEFAULT 'file'
    CHECK (source IN ('file', 'fints'));
