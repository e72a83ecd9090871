-- When the user hid the dashboard's "next steps" card (NULL: not hidden);
-- kept with the user, so it stays hidden in every browser.
ALTER TABLE users ADD COLUMN next_steps_dismissed_at TEXT;
