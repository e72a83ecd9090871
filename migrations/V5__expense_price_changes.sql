-- When a recurring expense's amount changes, the old amount and the day
-- are kept, so a subscription's price change can be pointed out.
ALTER TABLE expenses ADD COLUMN previous_amount_cents INTEGER;
ALTER TABLE expenses ADD COLUMN amount_changed_at TEXT;

CREATE TRIGGER expenses_price_change AFTER UPDATE OF amount_cents ON expenses
WHEN old.amount_cents <> new.amount_cents BEGIN
    UPDATE expenses
       SET previous_amount_cents = old.amount_cents,
           amount_changed_at = new.updated_at
     WHERE id = new.id;
END;
