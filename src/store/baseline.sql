-- The schema of migrations/V1 to V26 make, written by `CASHKEEPER_WRITE_BASELINE=1 cargo test --lib baseline_is_what` (src/store/baseline.rs): not edited by hand.

CREATE TABLE refinery_schema_history(
             version int4 PRIMARY KEY,
             name VARCHAR(255),
             applied_on VARCHAR(255),
             checksum VARCHAR(255));

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    -- Stored as typed for display; uniqueness and look-up use the lower-cased
    -- column, so Alice@Example.org and alice@example.org are one account.
    email         TEXT NOT NULL,
    email_lower   TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    -- argon2id PHC string; the password itself is never stored.
    password_hash TEXT NOT NULL,
    locale        TEXT NOT NULL DEFAULT 'en' CHECK (locale IN ('de', 'en')),
    base_currency TEXT NOT NULL DEFAULT 'EUR',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
, disabled_at TEXT, totp_secret TEXT, totp_pending TEXT, totp_enabled_at TEXT, totp_last_step INTEGER, has_password INTEGER NOT NULL DEFAULT 1, next_steps_dismissed_at TEXT);

CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    -- Sliding expiry: pushed forward on use (at most once an hour).
    expires_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL
, id TEXT, user_agent TEXT NOT NULL DEFAULT '', via_provider INTEGER NOT NULL DEFAULT 0);

CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT,
    revoked_at   TEXT
);

CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL CHECK (type IN ('checking', 'savings', 'etf')),
    currency      TEXT NOT NULL,
    -- Kept by the user; entries never change it.
    balance_cents INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
, balance_set_at TEXT);

CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    icon        TEXT NOT NULL DEFAULT '',
    color       TEXT NOT NULL DEFAULT '#64748b',
    -- Optional monthly spending limit in the base currency (budget warnings).
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE expenses (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    currency        TEXT NOT NULL,
    frequency       TEXT NOT NULL
        CHECK (frequency IN ('weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly')),
    start_date      TEXT NOT NULL,
    end_date        TEXT,
    account_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
    category_id     TEXT REFERENCES categories(id) ON DELETE SET NULL,
    is_subscription INTEGER NOT NULL DEFAULT 0,
    notes           TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL, previous_amount_cents INTEGER, amount_changed_at TEXT, term_end TEXT, renewal_months INTEGER NOT NULL DEFAULT 12
    CHECK (renewal_months BETWEEN 0 AND 120), notice_months INTEGER CHECK (notice_months BETWEEN 0 AND 60), notice_days INTEGER CHECK (notice_days BETWEEN 0 AND 1825), cancelled_to TEXT, end_date_before_cancel TEXT,
    CHECK (end_date IS NULL OR end_date >= start_date)
);

CREATE TABLE daily_expenses (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    currency     TEXT NOT NULL,
    date         TEXT NOT NULL,
    account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
    category_id  TEXT REFERENCES categories(id) ON DELETE SET NULL,
    merchant     TEXT NOT NULL DEFAULT '',
    notes        TEXT NOT NULL DEFAULT '',
    -- Set when the row came from a confirmed CSV import.
    import_id    TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
, import_key TEXT);

CREATE TABLE incomes (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    currency     TEXT NOT NULL,
    frequency    TEXT NOT NULL
        CHECK (frequency IN ('once', 'weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly')),
    start_date   TEXT NOT NULL,
    end_date     TEXT,
    account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
    notes        TEXT NOT NULL DEFAULT '',
    import_id    TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL, import_key TEXT,
    CHECK (end_date IS NULL OR end_date >= start_date)
);

CREATE TABLE transfers (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    from_account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
    to_account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    -- In the source account's currency.
    currency        TEXT NOT NULL,
    frequency       TEXT NOT NULL
        CHECK (frequency IN ('once', 'weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly')),
    start_date      TEXT NOT NULL,
    end_date        TEXT,
    note            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    CHECK (from_account_id <> to_account_id),
    CHECK (end_date IS NULL OR end_date >= start_date)
);

CREATE TABLE documents (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    file_name        TEXT NOT NULL,
    content_type     TEXT NOT NULL,
    size_bytes       INTEGER NOT NULL,
    sha256           TEXT NOT NULL,
    expense_id       TEXT REFERENCES expenses(id) ON DELETE SET NULL,
    daily_expense_id TEXT REFERENCES daily_expenses(id) ON DELETE SET NULL,
    created_at       TEXT NOT NULL
);

CREATE TABLE reserve_pots (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expense_id   TEXT NOT NULL UNIQUE REFERENCES expenses(id) ON DELETE CASCADE,
    amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
    updated_at   TEXT NOT NULL
);

CREATE TABLE insights (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type         TEXT NOT NULL CHECK (type IN ('spending_anomaly', 'budget_warning',
                     'saving_opportunity', 'subscription_alert', 'trend_info')),
    severity     TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    -- Title and message are stored in German; metadata carries the
    -- language-independent facts the UI renders in any language.
    title        TEXT NOT NULL,
    message      TEXT NOT NULL,
    metadata     TEXT,
    -- Identifies "the same finding" so a second run does not duplicate it.
    dedupe_key   TEXT NOT NULL,
    is_read      INTEGER NOT NULL DEFAULT 0,
    dismissed_at TEXT,
    created_at   TEXT NOT NULL,
    expires_at   TEXT
);

CREATE TABLE merchant_categories (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    merchant    TEXT NOT NULL,
    category_id TEXT NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
    uses        INTEGER NOT NULL DEFAULT 1,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (user_id, merchant)
);

CREATE TABLE conversations (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title      TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE conversation_messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT NOT NULL,
    created_at      TEXT NOT NULL
, tool_calls TEXT, tool_call_id TEXT, tool_name TEXT, seq INTEGER NOT NULL DEFAULT 0, summary TEXT);

CREATE TABLE import_batches (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    file_name    TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'staged'
        CHECK (status IN ('staged', 'reconciled', 'confirmed', 'cancelled')),
    mapping      TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    confirmed_at TEXT
, format TEXT NOT NULL DEFAULT '{}', row_count INTEGER NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT 'file'
    CHECK (source IN ('file', 'fints')));

CREATE TABLE push_subscriptions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    endpoint   TEXT NOT NULL UNIQUE,
    p256dh     TEXT NOT NULL,
    auth       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
, session_id TEXT);

CREATE TABLE exchange_rates (
    currency   TEXT PRIMARY KEY,
    rate       TEXT NOT NULL,
    rate_date  TEXT NOT NULL,
    fetched_at TEXT NOT NULL
);

CREATE VIRTUAL TABLE daily_expenses_fts USING fts5(
    name, merchant, notes,
    content = 'daily_expenses', content_rowid = 'rowid',
    tokenize = 'trigram'
);
INSERT INTO "daily_expenses_fts"("daily_expenses_fts") VALUES ('rebuild');

CREATE TABLE daily_expense_months (
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month        TEXT NOT NULL,
    currency     TEXT NOT NULL,
    category_id  TEXT NOT NULL DEFAULT '',
    amount_cents INTEGER NOT NULL,
    entries      INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, currency, category_id)
) WITHOUT ROWID;

CREATE TABLE user_data_versions (
    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    version INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE import_rows (
    id           TEXT PRIMARY KEY,
    batch_id     TEXT NOT NULL REFERENCES import_batches(id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- Position in the file (0-based) and the 1-based line where the row starts.
    position     INTEGER NOT NULL,
    line_no      INTEGER NOT NULL,
    date         TEXT,
    -- Signed: negative is money out (an expense), positive money in (income).
    amount_cents INTEGER,
    currency     TEXT NOT NULL,
    payee        TEXT NOT NULL DEFAULT '',
    memo         TEXT NOT NULL DEFAULT '',
    category_id  TEXT REFERENCES categories(id) ON DELETE SET NULL,
    status       TEXT NOT NULL DEFAULT 'new'
        CHECK (status IN ('new', 'duplicate', 'matched', 'conflict', 'error')),
    -- JSON of the typed reason; its text is rendered in the reader's language.
    reason       TEXT,
    match_kind   TEXT CHECK (match_kind IS NULL
        OR match_kind IN ('daily_expense', 'income', 'expense', 'transfer')),
    match_id     TEXT,
    match_date   TEXT,
    match_cents  INTEGER,
    match_name   TEXT,
    decision     TEXT CHECK (decision IS NULL OR decision IN ('import', 'skip')),
    -- What makes this money movement the same in a later file: date,
    -- amount, payee key and its occurrence among equal rows of the file.
    import_key   TEXT NOT NULL DEFAULT ''
, category_chosen INTEGER NOT NULL DEFAULT 0, suggested_category_id TEXT REFERENCES categories(id) ON DELETE SET NULL);

CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   TEXT,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

CREATE TABLE login_challenges (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
, via_provider INTEGER NOT NULL DEFAULT 0);

CREATE TABLE oidc_identities (
    issuer       TEXT NOT NULL,
    subject      TEXT NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    PRIMARY KEY (issuer, subject)
) WITHOUT ROWID;

CREATE TABLE earlier_amounts (
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expense_id   TEXT REFERENCES expenses(id) ON DELETE CASCADE,
    income_id    TEXT REFERENCES incomes(id) ON DELETE CASCADE,
    until        TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    CHECK ((expense_id IS NULL) <> (income_id IS NULL))
);

CREATE TABLE assistant_proposals (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL REFERENCES conversation_messages(id) ON DELETE CASCADE,
    tool_call_id    TEXT NOT NULL DEFAULT '',
    tool            TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'saved', 'discarded')),
    record_id       TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

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

CREATE TABLE budget_alerts (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category_id TEXT NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
    month       TEXT NOT NULL,
    sent_at     TEXT NOT NULL,
    PRIMARY KEY (category_id, month)
);

CREATE TABLE balance_history (
    user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    -- The calendar day (UTC, like every "today" of the service) the balance is of.
    date          TEXT NOT NULL,
    -- Signed, in the account's currency: an overdrawn account is negative.
    balance_cents INTEGER NOT NULL,
    -- When it was written (a timestamp), for the curious reader of an export.
    recorded_at   TEXT NOT NULL
);

CREATE TABLE export_loads (
    user_id    TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    marks      TEXT NOT NULL,
    started_at TEXT NOT NULL
);

CREATE TABLE contract_reminders (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expense_id  TEXT NOT NULL REFERENCES expenses(id) ON DELETE CASCADE,
    cancel_by   TEXT NOT NULL,
    days_before INTEGER NOT NULL,
    sent_at     TEXT NOT NULL,
    PRIMARY KEY (expense_id, cancel_by, days_before)
);

CREATE TABLE bank_connections (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bank_code       TEXT NOT NULL,
    bank_name       TEXT NOT NULL,
    url             TEXT NOT NULL,
    login_name      TEXT NOT NULL,
    customer_id     TEXT,
    pin_sealed      TEXT,
    state_sealed    TEXT,
    tan_method      TEXT,
    auto_sync       INTEGER NOT NULL DEFAULT 0 CHECK (auto_sync IN (0, 1)),
    auto_confirm    INTEGER NOT NULL DEFAULT 0 CHECK (auto_confirm IN (0, 1)),
    last_sync_at    TEXT,
    last_error      TEXT,
    last_error_text TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    -- Automatic sync needs the saved PIN.
    CHECK (auto_sync = 0 OR pin_sealed IS NOT NULL)
);

CREATE TABLE bank_accounts (
    connection_id  TEXT NOT NULL REFERENCES bank_connections(id) ON DELETE CASCADE,
    user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    iban           TEXT NOT NULL,
    bic            TEXT,
    account_number TEXT NOT NULL,
    name           TEXT,
    owner_name     TEXT,
    currency       TEXT,
    account_id     TEXT REFERENCES accounts(id) ON DELETE SET NULL,
    last_booking   TEXT,
    PRIMARY KEY (connection_id, iban)
);

CREATE TABLE bank_sync_asks (
    connection_id TEXT PRIMARY KEY REFERENCES bank_connections(id) ON DELETE CASCADE,
    user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    asked_at      TEXT NOT NULL,
    -- The connection's last_sync_at when it was asked (NULL: never synced).
    last_sync_at  TEXT
);

CREATE INDEX sessions_user ON sessions(user_id);

CREATE INDEX sessions_expires ON sessions(expires_at);

CREATE INDEX password_resets_user ON password_resets(user_id);

CREATE INDEX api_tokens_user ON api_tokens(user_id);

CREATE INDEX accounts_user ON accounts(user_id);

CREATE INDEX categories_user ON categories(user_id);

CREATE INDEX expenses_user ON expenses(user_id);

CREATE INDEX expenses_account ON expenses(account_id);

CREATE INDEX expenses_category ON expenses(category_id);

CREATE INDEX daily_expenses_user_date ON daily_expenses(user_id, date);

CREATE INDEX daily_expenses_category ON daily_expenses(category_id);

CREATE INDEX incomes_user ON incomes(user_id);

CREATE INDEX incomes_account ON incomes(account_id);

CREATE INDEX transfers_user ON transfers(user_id);

CREATE INDEX transfers_from ON transfers(from_account_id);

CREATE INDEX transfers_to ON transfers(to_account_id);

CREATE INDEX documents_user ON documents(user_id);

CREATE INDEX reserve_pots_user ON reserve_pots(user_id);

CREATE INDEX insights_user_created ON insights(user_id, created_at);

CREATE INDEX insights_user_dedupe ON insights(user_id, dedupe_key);

CREATE INDEX merchant_categories_category ON merchant_categories(category_id);

CREATE INDEX conversations_user ON conversations(user_id, updated_at);

CREATE INDEX conversation_messages_user ON conversation_messages(user_id);

CREATE INDEX import_batches_user ON import_batches(user_id);

CREATE INDEX push_subscriptions_user ON push_subscriptions(user_id);

CREATE TRIGGER daily_expenses_fts_delete AFTER DELETE ON daily_expenses BEGIN
    INSERT INTO daily_expenses_fts(daily_expenses_fts, rowid, name, merchant, notes)
    VALUES ('delete', old.rowid, old.name, old.merchant, old.notes);
END;

CREATE TRIGGER daily_expenses_fts_update AFTER UPDATE OF name, merchant, notes ON daily_expenses BEGIN
    INSERT INTO daily_expenses_fts(daily_expenses_fts, rowid, name, merchant, notes)
    VALUES ('delete', old.rowid, old.name, old.merchant, old.notes);
    INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
    VALUES (new.rowid, new.name, new.merchant, new.notes);
END;

CREATE INDEX daily_expenses_user_currency ON daily_expenses(user_id, currency);

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

CREATE TRIGGER expenses_price_change AFTER UPDATE OF amount_cents ON expenses
WHEN old.amount_cents <> new.amount_cents BEGIN
    UPDATE expenses
       SET previous_amount_cents = old.amount_cents,
           amount_changed_at = new.updated_at
     WHERE id = new.id;
END;

CREATE INDEX conversation_messages_conversation ON conversation_messages(conversation_id, seq);

CREATE INDEX import_rows_batch ON import_rows(batch_id, position);

CREATE INDEX import_rows_user ON import_rows(user_id);

CREATE INDEX daily_expenses_import ON daily_expenses(import_id) WHERE import_id IS NOT NULL;

CREATE INDEX incomes_import ON incomes(import_id) WHERE import_id IS NOT NULL;

CREATE INDEX daily_expenses_account ON daily_expenses(account_id, date);

CREATE TRIGGER daily_expenses_fts_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
    VALUES (new.rowid, new.name, new.merchant, new.notes);
END;

CREATE TRIGGER daily_expense_months_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
    VALUES (new.user_id, substr(new.date, 1, 7), new.currency, COALESCE(new.category_id, ''), new.amount_cents, 1)
    ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET
        amount_cents = amount_cents + excluded.amount_cents,
        entries = entries + 1;
END;

CREATE TRIGGER user_data_versions_daily_expenses_insert AFTER INSERT ON daily_expenses
WHEN new.import_id IS NULL BEGIN
    UPDATE user_data_versions SET version = version + 1 WHERE user_id = new.user_id;
END;

CREATE UNIQUE INDEX sessions_id ON sessions(id);

CREATE INDEX login_challenges_user ON login_challenges(user_id);

CREATE INDEX oidc_identities_user ON oidc_identities(user_id);

CREATE UNIQUE INDEX earlier_amounts_expense ON earlier_amounts(expense_id, user_id, until);

CREATE UNIQUE INDEX earlier_amounts_income ON earlier_amounts(income_id, user_id, until);

CREATE INDEX earlier_amounts_user ON earlier_amounts(user_id);

CREATE TRIGGER accounts_balance_set_on_insert AFTER INSERT ON accounts
WHEN new.balance_set_at IS NULL BEGIN
    UPDATE accounts SET balance_set_at = new.created_at WHERE id = new.id;
END;

CREATE TRIGGER accounts_balance_set AFTER UPDATE OF balance_cents ON accounts
WHEN old.balance_cents <> new.balance_cents BEGIN
    UPDATE accounts SET balance_set_at = new.updated_at WHERE id = new.id;
END;

CREATE INDEX assistant_proposals_conversation ON assistant_proposals(conversation_id, created_at);

CREATE INDEX assistant_proposals_user ON assistant_proposals(user_id);

CREATE INDEX assistant_proposals_message ON assistant_proposals(message_id);

CREATE INDEX budgets_user ON budgets(user_id, category_id, month);

CREATE INDEX budget_alerts_user ON budget_alerts(user_id);

CREATE UNIQUE INDEX balance_history_day ON balance_history(account_id, date);

CREATE INDEX balance_history_user ON balance_history(user_id, account_id, date);

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

CREATE INDEX contract_reminders_user ON contract_reminders(user_id);

CREATE INDEX import_rows_status ON import_rows(batch_id, status, position);

CREATE INDEX bank_connections_user ON bank_connections(user_id, created_at);

CREATE INDEX bank_accounts_account ON bank_accounts(account_id);
