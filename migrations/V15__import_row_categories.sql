-- Categories before the confirm (docs/import.md). A category the person
-- chose for a row (or chose to leave empty) is kept when the batch is
-- reconciled again, instead of the merchant memory's.
ALTER TABLE import_rows ADD COLUMN category_chosen INTEGER NOT NULL DEFAULT 0;
-- The AI's suggestion, kept apart from the category the row gets until
-- the person accepts it.
ALTER TABLE import_rows ADD COLUMN suggested_category_id TEXT REFERENCES categories(id) ON DELETE SET NULL;
