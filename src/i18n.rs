//! The two languages of the UI. Each text is a field of [`Texts`], so a
//! missing translation is a compile error, not a blank on a page; amounts,
//! numbers and dates become text in [`format`], insights in [`insights`].

pub mod amount;
pub mod assistant;
mod bank;
pub mod bank_pages;
pub mod budgets;
pub mod contracts;
mod de;
mod en;
pub mod export;
pub mod format;
pub mod guide;
pub mod import;
pub mod insights;
pub mod mail;
mod reasons;
mod texts;

pub use de::DE;
pub use en::EN;
pub use texts::Texts;

use crate::domain::locale::Locale;

/// What a language says: its texts and names.
impl Locale {
    /// The language stored words are kept in (an insight's title and
    /// message); other languages are written from the stored finding.
    pub const STORED: Locale = Locale::De;

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

    /// A month's full name (1 = January): "November".
    pub fn month_name(self, month: u32) -> &'static str {
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
        match self {
            Locale::De => DE[i],
            Locale::En => EN[i],
        }
    }

    /// A month's full name with its year: "November 2026".
    pub fn month_year(self, year: i32, month: u32) -> String {
        format!("{} {year}", self.month_name(month))
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

    /// The names of the categories a new user starts with
    /// (`domain::categories::defaults`).
    pub fn default_category_names(self) -> [&'static str; 10] {
        match self {
            Locale::De => [
                "Wohnen",
                "Lebensmittel",
                "Mobilität",
                "Versicherungen",
                "Abos & Streaming",
                "Gesundheit",
                "Freizeit",
                "Restaurants",
                "Einkäufe",
                "Sonstiges",
            ],
            Locale::En => [
                "Housing",
                "Groceries",
                "Transport",
                "Insurance",
                "Subscriptions",
                "Health",
                "Leisure",
                "Restaurants",
                "Shopping",
                "Other",
            ],
        }
    }

    pub fn texts(self) -> &'static Texts {
        match self {
            Locale::De => &DE,
            Locale::En => &EN,
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn default_categories_are_named_in_both_languages() {
        assert_eq!(Locale::De.default_category_names()[1], "Lebensmittel");
        assert_eq!(Locale::En.default_category_names()[1], "Groceries");
        for locale in [Locale::De, Locale::En] {
            let d = crate::domain::categories::defaults(locale.default_category_names());
            assert!(d.iter().all(|(name, _, _)| !name.is_empty()));
        }
    }
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
