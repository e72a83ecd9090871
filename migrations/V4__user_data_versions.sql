-- A counter per user that every change to the user's records moves on.
-- Whatever is computed from a user's data (the REST API's summary) can be
-- kept while the counter stands still, and is recomputed on the next read
-- after any write: by the web app, the CLI or a job, in any process.
CREATE TABLE user_data_versions (
    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    version INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO user_data_versions (user_id, version) SELECT id, 0 FROM users;

CREATE TRIGGER user_data_versions_new_user AFTER INSERT ON users BEGIN
    INSERT INTO user_data_versions (user_id, version) VALUES (new.id, 0);
END;
CREATE TRIGGER user_data_versions_users AFTER UPDATE OF name, email, locale, base_currency ON users BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.id;
END;

CREATE TRIGGER user_data_versions_accounts_insert AFTER INSERT ON accounts BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_accounts_update AFTER UPDATE ON accounts BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_accounts_delete AFTER DELETE ON accounts BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_categories_insert AFTER INSERT ON categories BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_categories_update AFTER UPDATE ON categories BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_categories_delete AFTER DELETE ON categories BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_expenses_insert AFTER INSERT ON expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_expenses_update AFTER UPDATE ON expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_expenses_delete AFTER DELETE ON expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_daily_expenses_insert AFTER INSERT ON daily_expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_daily_expenses_update AFTER UPDATE ON daily_expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_daily_expenses_delete AFTER DELETE ON daily_expenses BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_incomes_insert AFTER INSERT ON incomes BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_incomes_update AFTER UPDATE ON incomes BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_incomes_delete AFTER DELETE ON incomes BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_transfers_insert AFTER INSERT ON transfers BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_transfers_update AFTER UPDATE ON transfers BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_transfers_delete AFTER DELETE ON transfers BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_insights_insert AFTER INSERT ON insights BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_insights_update AFTER UPDATE ON insights BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_insights_delete AFTER DELETE ON insights BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_reserve_pots_insert AFTER INSERT ON reserve_pots BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_reserve_pots_update AFTER UPDATE ON reserve_pots BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_reserve_pots_delete AFTER DELETE ON reserve_pots BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_documents_insert AFTER INSERT ON documents BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_documents_update AFTER UPDATE ON documents BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_documents_delete AFTER DELETE ON documents BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
