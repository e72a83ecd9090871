-- Every balance an account had, one row per account and day: what
-- "net worth over time" is drawn from (docs/actions.md, Net worth).
-- Written by the application, not by triggers, whenever a balance is set:
-- creating an account and changing its balance record today; an import's
-- closing balance records the day of the file's balance. A second change
-- on the same day replaces the first (the unique key), so a day holds the
-- balance it ended with. An account's rows go with it (the foreign key).
CREATE TABLE balance_history (
    user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    -- The calendar day (UTC, like every "today" of the service) the balance is of.
    date          TEXT NOT NULL,
    -- Signed, in the account's currency: an overdrawn account is negative.
    balance_cents INTEGER NOT NULL,
    -- When it was written (a timestamp), for the curious reader of an export.
    recorded_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX balance_history_day ON balance_history(account_id, date);
CREATE INDEX balance_history_user ON balance_history(user_id, account_id, date);

-- The accounts kept before: one point each, the balance they have now,
-- from the day they were created. The pages say that history starts now.
INSERT INTO balance_history (user_id, account_id, date, balance_cents, recorded_at)
SELECT user_id, id, substr(created_at, 1, 10), balance_cents,
       strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
  FROM accounts;
