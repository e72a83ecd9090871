-- A confirmed import writes up to 200,000 one-time expenses in one
-- transaction. For those rows (import_id set) the search index, the month
-- sums and the data version are kept in step once for the whole batch by
-- the confirm itself (store/imports.rs), not row by row: the per-row
-- trigram indexing alone made a confirm of 100,000 rows take seconds.
-- Every other insert, and every update and delete, keeps its trigger.
DROP TRIGGER daily_expenses_fts_insert;
CREATE TRIGGER daily_expenses_fts_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
    VALUES (new.rowid, new.name, new.merchant, new.notes);
END;

DROP TRIGGER daily_expense_months_insert;
CREATE TRIGGER daily_expense_months_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
    VALUES (new.user_id, substr(new.date, 1, 7), new.currency, COALESCE(new.category_id, ''), new.amount_cents, 1)
    ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET
        amount_cents = amount_cents + excluded.amount_cents,
        entries = entries + 1;
END;

DROP TRIGGER user_data_versions_daily_expenses_insert;
CREATE TRIGGER user_data_versions_daily_expenses_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
