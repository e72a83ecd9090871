-- A batch's rows of one status in file order, for getImport and the import
-- page paged by key (docs/import.md): a page of one status begins at its
-- key in this index however deep it is, and a batch's counts per status
-- are read from the index alone.
CREATE INDEX import_rows_status ON import_rows(batch_id, status, position);
