-- Budgets and the balance history move the user's data version too
-- (V4), so what is kept while it stands still (the dashboard, the REST
-- replies) is computed again after a budget or a balance changes.
CREATE TRIGGER user_data_versions_budgets_insert AFTER INSERT ON budgets BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_budgets_update AFTER UPDATE ON budgets BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_budgets_delete AFTER DELETE ON budgets BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
CREATE TRIGGER user_data_versions_balance_history_insert AFTER INSERT ON balance_history BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_balance_history_update AFTER UPDATE ON balance_history BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;
CREATE TRIGGER user_data_versions_balance_history_delete AFTER DELETE ON balance_history BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = old.user_id;
END;
