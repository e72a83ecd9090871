-- When the user last set an account's balance. Entries never move a
-- balance, so the entries due since that day are what the bank may have
-- booked after it; the accounts page names them.
-- Unknown (NULL) for the accounts kept before: an old `updated_at` may be
-- a rename, and years of entries since would be no useful hint.
ALTER TABLE accounts ADD COLUMN balance_set_at TEXT;

CREATE TRIGGER accounts_balance_set_on_insert AFTER INSERT ON accounts
WHEN new.balance_set_at IS NULL BEGIN
    UPDATE accounts SET balance_set_at = new.created_at WHERE id = new.id;
END;

CREATE TRIGGER accounts_balance_set AFTER UPDATE OF balance_cents ON accounts
WHEN old.balance_cents <> new.balance_cents BEGIN
    UPDATE accounts SET balance_set_at = new.updated_at WHERE id = new.id;
END;
