-- The staged CSV import (docs/import.md). The first schema's import_rows
-- was never written to; it is replaced by rows that keep what the bank
-- file said (payee and memo apart, a date or amount that could not be
-- read left empty), the reconciliation's typed reason and match, and the
-- record a confirm wrote.
DROP TABLE import_rows;
CREATE TABLE import_rows (
    id           TEXT PRIMARY KEY,
    batch_id     TEXT NOT NULL REFERENCES import_batches(id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- Position in the file (0-based) and the 1-based line where the row starts.
    position     INTEGER NOT NULL,
    line_no      INTEGER NOT NULL,
    date         TEXT,
    -- Signed: negative is money out (an expense), positive money in (income).
    amount_cents INTEGER,
    currency     TEXT NOT NULL,
    payee        TEXT NOT NULL DEFAULT '',
    memo         TEXT NOT NULL DEFAULT '',
    category_id  TEXT REFERENCES categories(id) ON DELETE SET NULL,
    status       TEXT NOT NULL DEFAULT 'new'
        CHECK (status IN ('new', 'duplicate', 'matched', 'conflict', 'error')),
    -- JSON of the typed reason; its text is rendered in the reader's language.
    reason       TEXT,
    match_kind   TEXT CHECK (match_kind IS NULL
        OR match_kind IN ('daily_expense', 'income', 'expense', 'transfer')),
    match_id     TEXT,
    match_date   TEXT,
    match_cents  INTEGER,
    match_name   TEXT,
    decision     TEXT CHECK (decision IS NULL OR decision IN ('import', 'skip')),
    -- What makes this money movement the same in a later file: date,
    -- amount, payee key and its occurrence among equal rows of the file.
    import_key   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX import_rows_batch ON import_rows(batch_id, position);
CREATE INDEX import_rows_user ON import_rows(user_id);

ALTER TABLE import_batches ADD COLUMN format TEXT NOT NULL DEFAULT '{}';
ALTER TABLE import_batches ADD COLUMN row_count INTEGER NOT NULL DEFAULT 0;

-- Records a confirmed import wrote carry its batch (import_id, already in
-- the first schema) and the row's import key, so the same movement in a
-- later file is known even after the record was renamed.
ALTER TABLE daily_expenses ADD COLUMN import_key TEXT;
ALTER TABLE incomes ADD COLUMN import_key TEXT;
CREATE INDEX daily_expenses_import ON daily_expenses(import_id) WHERE import_id IS NOT NULL;
CREATE INDEX incomes_import ON incomes(import_id) WHERE import_id IS NOT NULL;
-- Reconciliation reads an account's entries by date.
DROP INDEX daily_expenses_account;
CREATE INDEX daily_expenses_account ON daily_expenses(account_id, date);
