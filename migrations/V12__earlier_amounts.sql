-- The amounts a recurring expense or income had before its latest one.
-- Each applied to due dates before `until` (exclusive) and after the row
-- before it, so a price change from a chosen day leaves the past as it was
-- (docs/actions.md, Price changes).
CREATE TABLE earlier_amounts (
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expense_id   TEXT REFERENCES expenses(id) ON DELETE CASCADE,
    income_id    TEXT REFERENCES incomes(id) ON DELETE CASCADE,
    until        TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    CHECK ((expense_id IS NULL) <> (income_id IS NULL))
);
CREATE UNIQUE INDEX earlier_amounts_expense ON earlier_amounts(expense_id, user_id, until);
CREATE UNIQUE INDEX earlier_amounts_income ON earlier_amounts(income_id, user_id, until);
CREATE INDEX earlier_amounts_user ON earlier_amounts(user_id);

-- The one earlier amount known before this table: a subscription's price
-- before its last change, up to the day of that change. A change on the day
-- the subscription was entered is taken for a typo fixed, not a price.
INSERT INTO earlier_amounts (user_id, expense_id, until, amount_cents)
SELECT user_id, id, substr(amount_changed_at, 1, 10), previous_amount_cents
  FROM expenses
 WHERE is_subscription = 1
   AND previous_amount_cents IS NOT NULL
   AND previous_amount_cents <> amount_cents
   AND substr(amount_changed_at, 1, 10) > start_date
   AND substr(amount_changed_at, 1, 10) > substr(created_at, 1, 10);
