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
