//! Categories: their rules and the set a new user starts with.

use crate::error::{Error, Reason, Result};

/// A category's colour: `#` and six hex digits, stored lower case.
pub fn parse_color(field: &'static str, raw: &str) -> Result<String> {
    let s = raw.trim();
    let ok = s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_hexdigit());
    if ok {
        Ok(s.to_ascii_lowercase())
    } else {
        Err(Error::invalid(field, Reason::NotAColour))
    }
}

/// A category's icon: one emoji (or a short symbol), at most 16 bytes.
pub fn parse_icon(field: &'static str, raw: &str) -> Result<String> {
    let s = raw.trim();
    if s.len() > 16
        || s.chars()
            .any(|c| c.is_ascii_alphanumeric() || c.is_control())
    {
        return Err(Error::invalid(field, Reason::NotAnEmoji));
    }
    Ok(s.to_string())
}

/// The categories a new user gets: (name, icon, colour), with the names in
/// their language (`Locale::default_category_names`).
pub fn defaults(names: [&'static str; 10]) -> Vec<(&'static str, &'static str, &'static str)> {
    let style = [
        ("🏠", "#6366f1"),
        ("🛒", "#16a34a"),
        ("🚗", "#0ea5e9"),
        ("🛡️", "#64748b"),
        ("📺", "#e11d48"),
        ("💊", "#14b8a6"),
        ("🎉", "#f59e0b"),
        ("🍽️", "#f97316"),
        ("🛍️", "#a855f7"),
        ("📦", "#78716c"),
    ];
    names
        .into_iter()
        .zip(style)
        .map(|(n, (i, c))| (n, i, c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_hex() {
        assert_eq!(parse_color("color", "#1E88E5").unwrap(), "#1e88e5");
        for bad in ["1e88e5", "#1e88e", "#1e88e5f", "#gggggg", "red"] {
            assert!(parse_color("color", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn icons_are_short_symbols() {
        assert_eq!(parse_icon("icon", "🛒").unwrap(), "🛒");
        assert_eq!(parse_icon("icon", "").unwrap(), "");
        assert!(parse_icon("icon", "cart").is_err());
        assert!(parse_icon("icon", &"🛒".repeat(5)).is_err());
    }

    #[test]
    fn defaults_exist_in_both_languages_with_valid_styles() {
        for names in [["Wohnen"; 10], ["Housing"; 10]] {
            let d = defaults(names);
            assert_eq!(d.len(), 10);
            for (name, icon, color) in d {
                assert!(!name.is_empty());
                parse_icon("icon", icon).unwrap();
                parse_color("color", color).unwrap();
            }
        }
    }
}
