-- Budgets (docs/budgets.md): a monthly amount per category, kept like a
-- price history. Each row holds from its month on, until the category's
-- next row; a row without an amount ends the budget from its month on, so
-- months before a change keep what they had.
CREATE TABLE budgets (
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category_id  TEXT NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
    -- YYYY-MM
    month        TEXT NOT NULL,
    -- In the user's base currency; NULL: no budget from this month on.
    amount_cents INTEGER CHECK (amount_cents IS NULL OR amount_cents > 0),
    rollover     INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (category_id, month)
);
CREATE INDEX budgets_user ON budgets(user_id, category_id, month);

-- A category's monthly limit was the budget before budgets: it becomes the
-- category's budget from the month the category was made, without rollover.
INSERT INTO budgets (user_id, category_id, month, amount_cents, rollover, created_at)
SELECT user_id, id, substr(created_at, 1, 7), monthly_limit_cents, 0, updated_at
FROM categories WHERE monthly_limit_cents IS NOT NULL AND monthly_limit_cents > 0;
ALTER TABLE categories DROP COLUMN monthly_limit_cents;

-- "Over budget" pushes sent (docs/budgets.md): one per category and month.
CREATE TABLE budget_alerts (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category_id TEXT NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
    month       TEXT NOT NULL,
    sent_at     TEXT NOT NULL,
    PRIMARY KEY (category_id, month)
);
CREATE INDEX budget_alerts_user ON budget_alerts(user_id);
