-- Sums of one-time expenses per user, month, currency and category, kept
-- in step by triggers. The dashboard, the REST summary and the insights
-- read a few hundred of these instead of thousands of expenses.
-- category_id is '' for uncategorised entries (a key column cannot be NULL
-- and still be unique).
CREATE TABLE daily_expense_months (
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month        TEXT NOT NULL,
    currency     TEXT NOT NULL,
    category_id  TEXT NOT NULL DEFAULT '',
    amount_cents INTEGER NOT NULL,
    entries      INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, currency, category_id)
) WITHOUT ROWID;

INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
SELECT user_id, substr(date, 1, 7), currency, COALESCE(category_id, ''), SUM(amount_cents), COUNT(*)
FROM daily_expenses
GROUP BY 1, 2, 3, 4;

CREATE TRIGGER daily_expense_months_insert AFTER INSERT ON daily_expenses BEGIN
    INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
    VALUES (new.user_id, substr(new.date, 1, 7), new.currency, COALESCE(new.category_id, ''), new.amount_cents, 1)
    ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET
        amount_cents = amount_cents + excluded.amount_cents,
        entries = entries + 1;
END;

CREATE TRIGGER daily_expense_months_delete AFTER DELETE ON daily_expenses BEGIN
    UPDATE daily_expense_months
       SET amount_cents = amount_cents - old.amount_cents, entries = entries - 1
     WHERE user_id = old.user_id AND month = substr(old.date, 1, 7)
       AND currency = old.currency AND category_id = COALESCE(old.category_id, '');
    DELETE FROM daily_expense_months
     WHERE user_id = old.user_id AND month = substr(old.date, 1, 7)
       AND currency = old.currency AND category_id = COALESCE(old.category_id, '')
       AND entries <= 0;
END;

CREATE TRIGGER daily_expense_months_update
AFTER UPDATE OF user_id, date, currency, category_id, amount_cents ON daily_expenses BEGIN
    UPDATE daily_expense_months
       SET amount_cents = amount_cents - old.amount_cents, entries = entries - 1
     WHERE user_id = old.user_id AND month = substr(old.date, 1, 7)
       AND currency = old.currency AND category_id = COALESCE(old.category_id, '');
    DELETE FROM daily_expense_months
     WHERE user_id = old.user_id AND month = substr(old.date, 1, 7)
       AND currency = old.currency AND category_id = COALESCE(old.category_id, '')
       AND entries <= 0;
    INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
    VALUES (new.user_id, substr(new.date, 1, 7), new.currency, COALESCE(new.category_id, ''), new.amount_cents, 1)
    ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET
        amount_cents = amount_cents + excluded.amount_cents,
        entries = entries + 1;
END;

-- The month sums no longer come from this index.
DROP INDEX daily_expenses_month_sums;
