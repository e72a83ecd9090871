-- Contract terms of a recurring expense (docs/planning.md, Cancellation
-- deadlines): the end of a term as given (the current term and its
-- deadline follow from it and the day), the months each renewal runs
-- (0: no fixed term after it), the notice in months or in days (one of
-- the two), and a recorded cancellation: the term's end it reaches, and
-- the item's end date before the cancellation set it, so that taking the
-- cancellation back restores it.
ALTER TABLE expenses ADD COLUMN term_end TEXT;
-- The bounds are the inputs' (docs/actions.md, Contract terms), so a
-- loaded archive holds no terms the service would not take.
ALTER TABLE expenses ADD COLUMN renewal_months INTEGER NOT NULL DEFAULT 12
    CHECK (renewal_months BETWEEN 0 AND 120);
ALTER TABLE expenses ADD COLUMN notice_months INTEGER CHECK (notice_months BETWEEN 0 AND 60);
ALTER TABLE expenses ADD COLUMN notice_days INTEGER CHECK (notice_days BETWEEN 0 AND 1825);
ALTER TABLE expenses ADD COLUMN cancelled_to TEXT;
ALTER TABLE expenses ADD COLUMN end_date_before_cancel TEXT;

-- "Kündbar bis" pushes sent: one per item, deadline and reminder (14 or 3
-- days before), so each is sent once.
CREATE TABLE contract_reminders (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expense_id  TEXT NOT NULL REFERENCES expenses(id) ON DELETE CASCADE,
    cancel_by   TEXT NOT NULL,
    days_before INTEGER NOT NULL,
    sent_at     TEXT NOT NULL,
    PRIMARY KEY (expense_id, cancel_by, days_before)
);
CREATE INDEX contract_reminders_user ON contract_reminders(user_id);
