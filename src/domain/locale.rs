//! The two languages cashkeeper speaks, as a plain value the store and the
//! domain can keep. Their texts are in `i18n`.

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

    /// The language's name in English, as the assistant's instructions
    /// ask the model to answer in it.
    pub fn english_name(self) -> &'static str {
        match self {
            Locale::De => "German",
            Locale::En => "English",
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
}
