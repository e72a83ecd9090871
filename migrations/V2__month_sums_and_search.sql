-- Month views read sums of one-time expenses per (month, category,
-- currency). With every column they need in the index, SQLite answers them
-- from the index alone instead of visiting thousands of scattered rows.
CREATE INDEX daily_expenses_month_sums
    ON daily_expenses(user_id, date, currency, category_id, amount_cents);

-- Substring search over one-time expenses without scanning the table: a
-- trigram full-text index over the searched columns, kept in step by
-- triggers. (Queries shorter than three characters fall back to LIKE.)
CREATE VIRTUAL TABLE daily_expenses_fts USING fts5(
    name, merchant, notes,
    content = 'daily_expenses', content_rowid = 'rowid',
    tokenize = 'trigram'
);
INSERT INTO daily_expenses_fts(daily_expenses_fts) VALUES ('rebuild');

CREATE TRIGGER daily_expenses_fts_insert AFTER INSERT ON daily_expenses BEGIN
    INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
    VALUES (new.rowid, new.name, new.merchant, new.notes);
END;
CREATE TRIGGER daily_expenses_fts_delete AFTER DELETE ON daily_expenses BEGIN
    INSERT INTO daily_expenses_fts(daily_expenses_fts, rowid, name, merchant, notes)
    VALUES ('delete', old.rowid, old.name, old.merchant, old.notes);
END;
CREATE TRIGGER daily_expenses_fts_update AFTER UPDATE OF name, merchant, notes ON daily_expenses BEGIN
    INSERT INTO daily_expenses_fts(daily_expenses_fts, rowid, name, merchant, notes)
    VALUES ('delete', old.rowid, old.name, old.merchant, old.notes);
    INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
    VALUES (new.rowid, new.name, new.merchant, new.notes);
END;

-- "Is anything in another currency than the base?" answered by two index seeks.
CREATE INDEX daily_expenses_user_currency ON daily_expenses(user_id, currency);
