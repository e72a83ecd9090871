//! The two languages of the UI. Each text is a field of [`Texts`], so a
//! missing translation is a compile error, not a blank on a page.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    De,
    #[default]
    En,
}

impl Locale {
    pub fn code(self) -> &'static str {
        match self {
            Locale::De => "de",
            Locale::En => "en",
        }
    }

    pub fn from_code(code: &str) -> Option<Locale> {
        match code {
            "de" => Some(Locale::De),
            "en" => Some(Locale::En),
            _ => None,
        }
    }

    /// The best of our two languages for an `Accept-Language` header: the
    /// first language tag we speak, by the browser's q-values; English when
    /// the browser names neither.
    pub fn from_accept_language(header: Option<&str>) -> Locale {
        let Some(header) = header else {
            return Locale::En;
        };
        let mut best: Option<(f32, Locale)> = None;
        for part in header.split(',') {
            let mut pieces = part.trim().split(';');
            let tag = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            let primary = tag.split('-').next().unwrap_or("");
            let Some(locale) = Locale::from_code(primary) else {
                continue;
            };
            if q > 0.0 && best.is_none_or(|(bq, _)| q > bq) {
                best = Some((q, locale));
            }
        }
        best.map(|(_, l)| l).unwrap_or(Locale::En)
    }

    /// The label of a frequency code.
    pub fn frequency(self, f: crate::domain::recurrence::Frequency) -> &'static str {
        use crate::domain::recurrence::Frequency::*;
        let t = self.texts();
        match f {
            Once => t.freq_once,
            Weekly => t.freq_weekly,
            Monthly => t.freq_monthly,
            Quarterly => t.freq_quarterly,
            HalfYearly => t.freq_half_yearly,
            Yearly => t.freq_yearly,
        }
    }

    /// A month's short name (1 = January).
    pub fn month_short(self, month: u32) -> &'static str {
        const EN: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        const DE: [&str; 12] = [
            "Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez",
        ];
        let i = (month.clamp(1, 12) - 1) as usize;
        match self {
            Locale::De => DE[i],
            Locale::En => EN[i],
        }
    }

    /// A month's full name with its year: "November 2026".
    pub fn month_year(self, year: i32, month: u32) -> String {
        const EN: [&str; 12] = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        const DE: [&str; 12] = [
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ];
        let i = (month.clamp(1, 12) - 1) as usize;
        let name = match self {
            Locale::De => DE[i],
            Locale::En => EN[i],
        };
        format!("{name} {year}")
    }

    /// The label of an account type.
    pub fn account_type(self, kind: &str) -> &'static str {
        let t = self.texts();
        match kind {
            "savings" => t.type_savings,
            "etf" => t.type_etf,
            _ => t.type_checking,
        }
    }

    pub fn texts(self) -> &'static Texts {
        match self {
            Locale::De => &DE,
            Locale::En => &EN,
        }
    }
}

/// Every text of the UI, in one language.
pub struct Texts {
    pub app_name: &'static str,
    pub skip_to_content: &'static str,
    pub menu: &'static str,
    // navigation
    pub nav_dashboard: &'static str,
    pub nav_accounts: &'static str,
    pub nav_expenses: &'static str,
    pub nav_daily_expenses: &'static str,
    pub nav_subscriptions: &'static str,
    pub nav_incomes: &'static str,
    pub nav_transfers: &'static str,
    pub nav_categories: &'static str,
    pub nav_documents: &'static str,
    pub nav_reserves: &'static str,
    pub nav_forecasts: &'static str,
    pub nav_insights: &'static str,
    pub nav_import: &'static str,
    pub nav_search: &'static str,
    pub nav_assistant: &'static str,
    pub nav_settings: &'static str,
    pub logout: &'static str,
    pub language: &'static str,
    // sign-in
    pub email: &'static str,
    pub password: &'static str,
    pub name: &'static str,
    pub login_title: &'static str,
    pub login_button: &'static str,
    pub register_title: &'static str,
    pub register_button: &'static str,
    pub register_closed: &'static str,
    pub no_account: &'static str,
    pub have_account: &'static str,
    pub forgot_link: &'static str,
    pub forgot_title: &'static str,
    pub forgot_intro: &'static str,
    pub forgot_button: &'static str,
    pub forgot_sent: &'static str,
    pub reset_title: &'static str,
    pub reset_button: &'static str,
    pub reset_done: &'static str,
    pub reset_invalid: &'static str,
    pub new_password: &'static str,
    pub password_hint: &'static str,
    // dashboard
    pub dashboard_title: &'static str,
    pub dashboard_welcome: &'static str,
    pub dashboard_empty: &'static str,
    // settings
    pub settings_title: &'static str,
    pub settings_profile: &'static str,
    pub base_currency: &'static str,
    pub save: &'static str,
    pub saved: &'static str,
    pub change_password: &'static str,
    pub current_password: &'static str,
    // errors
    pub not_found_title: &'static str,
    pub not_found_text: &'static str,
    pub back_home: &'static str,
    pub error_title: &'static str,
    pub error_text: &'static str,
    pub script_required: &'static str,
    // records and dashboard
    pub add: &'static str,
    pub edit: &'static str,
    pub delete: &'static str,
    pub cancel: &'static str,
    pub confirm_delete: &'static str,
    pub actions: &'static str,
    pub amount: &'static str,
    pub currency: &'static str,
    pub date: &'static str,
    pub start_date: &'static str,
    pub end_date: &'static str,
    pub frequency: &'static str,
    pub account: &'static str,
    pub category: &'static str,
    pub notes: &'static str,
    pub note: &'static str,
    pub merchant: &'static str,
    pub kind: &'static str,
    pub balance: &'static str,
    pub uncategorised: &'static str,
    pub all: &'static str,
    pub filter: &'static str,
    pub month: &'static str,
    pub is_subscription: &'static str,
    pub per_month: &'static str,
    pub per_year: &'static str,
    pub total: &'static str,
    pub empty_list: &'static str,
    pub from_account: &'static str,
    pub to_account: &'static str,
    pub freq_once: &'static str,
    pub freq_weekly: &'static str,
    pub freq_monthly: &'static str,
    pub freq_quarterly: &'static str,
    pub freq_half_yearly: &'static str,
    pub freq_yearly: &'static str,
    pub type_checking: &'static str,
    pub type_savings: &'static str,
    pub type_etf: &'static str,
    pub icon: &'static str,
    pub color: &'static str,
    pub monthly_limit: &'static str,
    pub search_placeholder: &'static str,
    pub search_button: &'static str,
    pub no_results: &'static str,
    pub prev_month: &'static str,
    pub next_month: &'static str,
    pub cashflow_view: &'static str,
    pub cashflow_hint: &'static str,
    pub reserve_view: &'static str,
    pub reserve_hint: &'static str,
    pub income: &'static str,
    pub expenses: &'static str,
    pub surplus: &'static str,
    pub vs_last_month: &'static str,
    pub fixed_costs: &'static str,
    pub subscriptions: &'static str,
    pub next_payments: &'static str,
    pub nothing_due: &'static str,
    pub spending_by_category: &'static str,
    pub income_vs_expenses: &'static str,
    pub total_assets: &'static str,
    pub new_account: &'static str,
    pub new_category: &'static str,
    pub new_expense: &'static str,
    pub new_daily_expense: &'static str,
    pub new_income: &'static str,
    pub new_transfer: &'static str,
    pub save_changes: &'static str,
    pub next_due: &'static str,
    pub ended: &'static str,
    pub monthly_equivalent: &'static str,
    pub yearly_cost: &'static str,
    pub need_account_first: &'static str,
    pub account_in_use_hint: &'static str,
    pub move_entries_to: &'static str,
    pub delete_and_move: &'static str,
    pub merchant_hint: &'static str,
    pub in_base: &'static str,
    pub from: &'static str,
    pub to: &'static str,
    pub results: &'static str,
    pub kind_account: &'static str,
    pub kind_category: &'static str,
    pub kind_expense: &'static str,
    pub kind_daily_expense: &'static str,
    pub kind_income: &'static str,
    pub kind_transfer: &'static str,
}

pub static EN: Texts = Texts {
    app_name: "cashkeeper",
    skip_to_content: "Skip to content",
    menu: "Menu",
    nav_dashboard: "Dashboard",
    nav_accounts: "Accounts",
    nav_expenses: "Expenses",
    nav_daily_expenses: "Daily expenses",
    nav_subscriptions: "Subscriptions",
    nav_incomes: "Income",
    nav_transfers: "Transfers",
    nav_categories: "Categories",
    nav_documents: "Documents",
    nav_reserves: "Reserves",
    nav_forecasts: "Forecasts",
    nav_insights: "Insights",
    nav_import: "Import",
    nav_search: "Search",
    nav_assistant: "Assistant",
    nav_settings: "Settings",
    logout: "Log out",
    language: "Language",
    email: "Email",
    password: "Password",
    name: "Name",
    login_title: "Sign in",
    login_button: "Sign in",
    register_title: "Create an account",
    register_button: "Create account",
    register_closed: "Registration is closed on this server. Ask its owner for an account.",
    no_account: "No account yet?",
    have_account: "Already have an account?",
    forgot_link: "Forgot your password?",
    forgot_title: "Reset your password",
    forgot_intro: "Enter your email address and we will send you a link to choose a new password.",
    forgot_button: "Send link",
    forgot_sent:
        "If an account exists for that address, a link is on its way. It works once, for one hour.",
    reset_title: "Choose a new password",
    reset_button: "Set password",
    reset_done: "Your password has been changed. You can sign in now.",
    reset_invalid: "This link is invalid, used or expired. Ask for a new one.",
    new_password: "New password",
    password_hint: "At least 8 characters.",
    dashboard_title: "Dashboard",
    dashboard_welcome: "Welcome",
    dashboard_empty:
        "Nothing recorded yet. Start with an account, then add your income and expenses.",
    settings_title: "Settings",
    settings_profile: "Profile",
    base_currency: "Base currency",
    save: "Save",
    saved: "Saved.",
    change_password: "Change password",
    current_password: "Current password",
    not_found_title: "Page not found",
    not_found_text: "There is no page at this address.",
    back_home: "Back to the dashboard",
    error_title: "Something went wrong",
    error_text: "The server could not finish this request. Please try again.",
    script_required: "This form needs JavaScript.",
    add: "Add",
    edit: "Edit",
    delete: "Delete",
    cancel: "Cancel",
    confirm_delete: "Delete this entry? This cannot be undone.",
    actions: "Actions",
    amount: "Amount",
    currency: "Currency",
    date: "Date",
    start_date: "Start date",
    end_date: "End date (optional)",
    frequency: "Frequency",
    account: "Account",
    category: "Category",
    notes: "Notes",
    note: "Note",
    merchant: "Merchant",
    kind: "Type",
    balance: "Balance",
    uncategorised: "Uncategorised",
    all: "All",
    filter: "Filter",
    month: "Month",
    is_subscription: "This is a subscription",
    per_month: "per month",
    per_year: "per year",
    total: "Total",
    empty_list: "Nothing here yet.",
    from_account: "From account",
    to_account: "To account",
    freq_once: "once",
    freq_weekly: "weekly",
    freq_monthly: "monthly",
    freq_quarterly: "quarterly",
    freq_half_yearly: "half-yearly",
    freq_yearly: "yearly",
    type_checking: "Checking",
    type_savings: "Savings",
    type_etf: "ETF",
    icon: "Icon (emoji)",
    color: "Colour",
    monthly_limit: "Monthly limit (optional)",
    search_placeholder: "Search names, notes, merchants…",
    search_button: "Search",
    no_results: "No matches.",
    prev_month: "Previous month",
    next_month: "Next month",
    cashflow_view: "Cashflow",
    cashflow_hint: "What is actually due this month.",
    reserve_view: "Reserve view",
    reserve_hint: "Yearly and quarterly items spread over the months.",
    income: "Income",
    expenses: "Expenses",
    surplus: "Surplus",
    vs_last_month: "vs. last month",
    fixed_costs: "Fixed costs",
    subscriptions: "Subscriptions",
    next_payments: "Next payments",
    nothing_due: "Nothing due in the next 30 days.",
    spending_by_category: "Spending by category",
    income_vs_expenses: "Income and expenses, last 12 months",
    total_assets: "Total assets",
    new_account: "New account",
    new_category: "New category",
    new_expense: "New recurring expense",
    new_daily_expense: "New expense",
    new_income: "New income",
    new_transfer: "New transfer",
    save_changes: "Save changes",
    next_due: "Next due",
    ended: "ended",
    monthly_equivalent: "Monthly",
    yearly_cost: "Yearly",
    need_account_first: "Create an account first: every entry belongs to one.",
    account_in_use_hint: "An account that entries use can only be deleted after moving them.",
    move_entries_to: "Move its entries to",
    delete_and_move: "Move entries and delete",
    merchant_hint: "Known merchant: category pre-selected.",
    in_base: "in",
    from: "From",
    to: "To",
    results: "Results",
    kind_account: "Account",
    kind_category: "Category",
    kind_expense: "Recurring expense",
    kind_daily_expense: "Expense",
    kind_income: "Income",
    kind_transfer: "Transfer",
};

pub static DE: Texts = Texts {
    app_name: "cashkeeper",
    skip_to_content: "Zum Inhalt springen",
    menu: "Menü",
    nav_dashboard: "Übersicht",
    nav_accounts: "Konten",
    nav_expenses: "Fixkosten",
    nav_daily_expenses: "Ausgaben",
    nav_subscriptions: "Abos",
    nav_incomes: "Einnahmen",
    nav_transfers: "Umbuchungen",
    nav_categories: "Kategorien",
    nav_documents: "Belege",
    nav_reserves: "Rücklagen",
    nav_forecasts: "Prognosen",
    nav_insights: "Hinweise",
    nav_import: "Import",
    nav_search: "Suche",
    nav_assistant: "Assistent",
    nav_settings: "Einstellungen",
    logout: "Abmelden",
    language: "Sprache",
    email: "E-Mail",
    password: "Passwort",
    name: "Name",
    login_title: "Anmelden",
    login_button: "Anmelden",
    register_title: "Konto erstellen",
    register_button: "Konto erstellen",
    register_closed: "Die Registrierung ist auf diesem Server geschlossen. Frag den Betreiber nach einem Zugang.",
    no_account: "Noch kein Konto?",
    have_account: "Schon ein Konto?",
    forgot_link: "Passwort vergessen?",
    forgot_title: "Passwort zurücksetzen",
    forgot_intro: "Gib deine E-Mail-Adresse ein, und wir schicken dir einen Link, mit dem du ein neues Passwort wählst.",
    forgot_button: "Link senden",
    forgot_sent: "Falls ein Konto zu dieser Adresse existiert, ist ein Link unterwegs. Er gilt einmal, eine Stunde lang.",
    reset_title: "Neues Passwort wählen",
    reset_button: "Passwort setzen",
    reset_done: "Dein Passwort wurde geändert. Du kannst dich jetzt anmelden.",
    reset_invalid: "Dieser Link ist ungültig, schon benutzt oder abgelaufen. Fordere einen neuen an.",
    new_password: "Neues Passwort",
    password_hint: "Mindestens 8 Zeichen.",
    dashboard_title: "Übersicht",
    dashboard_welcome: "Willkommen",
    dashboard_empty: "Noch nichts erfasst. Leg zuerst ein Konto an, dann deine Einnahmen und Ausgaben.",
    settings_title: "Einstellungen",
    settings_profile: "Profil",
    base_currency: "Basiswährung",
    save: "Speichern",
    saved: "Gespeichert.",
    change_password: "Passwort ändern",
    current_password: "Aktuelles Passwort",
    not_found_title: "Seite nicht gefunden",
    not_found_text: "Unter dieser Adresse gibt es keine Seite.",
    back_home: "Zurück zur Übersicht",
    error_title: "Etwas ist schiefgelaufen",
    error_text: "Der Server konnte diese Anfrage nicht abschließen. Bitte versuch es noch einmal.",
    script_required: "Dieses Formular braucht JavaScript.",
    add: "Hinzufügen",
    edit: "Bearbeiten",
    delete: "Löschen",
    cancel: "Abbrechen",
    confirm_delete: "Diesen Eintrag löschen? Das lässt sich nicht rückgängig machen.",
    actions: "Aktionen",
    amount: "Betrag",
    currency: "Währung",
    date: "Datum",
    start_date: "Startdatum",
    end_date: "Enddatum (optional)",
    frequency: "Rhythmus",
    account: "Konto",
    category: "Kategorie",
    notes: "Notizen",
    note: "Notiz",
    merchant: "Händler",
    kind: "Art",
    balance: "Kontostand",
    uncategorised: "Ohne Kategorie",
    all: "Alle",
    filter: "Filtern",
    month: "Monat",
    is_subscription: "Das ist ein Abo",
    per_month: "pro Monat",
    per_year: "pro Jahr",
    total: "Summe",
    empty_list: "Hier ist noch nichts.",
    from_account: "Von Konto",
    to_account: "Auf Konto",
    freq_once: "einmalig",
    freq_weekly: "wöchentlich",
    freq_monthly: "monatlich",
    freq_quarterly: "vierteljährlich",
    freq_half_yearly: "halbjährlich",
    freq_yearly: "jährlich",
    type_checking: "Girokonto",
    type_savings: "Sparkonto",
    type_etf: "ETF-Depot",
    icon: "Symbol (Emoji)",
    color: "Farbe",
    monthly_limit: "Monatslimit (optional)",
    search_placeholder: "Namen, Notizen, Händler suchen …",
    search_button: "Suchen",
    no_results: "Keine Treffer.",
    prev_month: "Vorheriger Monat",
    next_month: "Nächster Monat",
    cashflow_view: "Cashflow",
    cashflow_hint: "Was in diesem Monat tatsächlich fällig ist.",
    reserve_view: "Rücklagen-Sicht",
    reserve_hint: "Jährliche und vierteljährliche Posten auf die Monate verteilt.",
    income: "Einnahmen",
    expenses: "Ausgaben",
    surplus: "Überschuss",
    vs_last_month: "ggü. Vormonat",
    fixed_costs: "Fixkosten",
    subscriptions: "Abos",
    next_payments: "Nächste Zahlungen",
    nothing_due: "In den nächsten 30 Tagen ist nichts fällig.",
    spending_by_category: "Ausgaben nach Kategorie",
    income_vs_expenses: "Einnahmen und Ausgaben, letzte 12 Monate",
    total_assets: "Gesamtvermögen",
    new_account: "Neues Konto",
    new_category: "Neue Kategorie",
    new_expense: "Neue Fixkosten",
    new_daily_expense: "Neue Ausgabe",
    new_income: "Neue Einnahme",
    new_transfer: "Neue Umbuchung",
    save_changes: "Änderungen speichern",
    next_due: "Nächste Fälligkeit",
    ended: "beendet",
    monthly_equivalent: "Monatlich",
    yearly_cost: "Jährlich",
    need_account_first: "Leg zuerst ein Konto an: Jeder Eintrag gehört zu einem.",
    account_in_use_hint: "Ein Konto mit Einträgen lässt sich erst löschen, wenn sie umgezogen sind.",
    move_entries_to: "Einträge verschieben nach",
    delete_and_move: "Einträge verschieben und löschen",
    merchant_hint: "Bekannter Händler: Kategorie vorausgewählt.",
    in_base: "in",
    from: "Von",
    to: "Bis",
    results: "Ergebnisse",
    kind_account: "Konto",
    kind_category: "Kategorie",
    kind_expense: "Fixkosten",
    kind_daily_expense: "Ausgabe",
    kind_income: "Einnahme",
    kind_transfer: "Umbuchung",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_preferred_language_we_speak() {
        assert_eq!(
            Locale::from_accept_language(Some("de-DE,de;q=0.9,en;q=0.8")),
            Locale::De
        );
        assert_eq!(
            Locale::from_accept_language(Some("fr-FR,en;q=0.5,de;q=0.7")),
            Locale::De
        );
        assert_eq!(
            Locale::from_accept_language(Some("en-US,de;q=0.1")),
            Locale::En
        );
        assert_eq!(Locale::from_accept_language(Some("fr, es")), Locale::En);
        assert_eq!(Locale::from_accept_language(Some("de;q=0")), Locale::En);
        assert_eq!(Locale::from_accept_language(None), Locale::En);
    }
}
