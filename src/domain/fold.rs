//! Text folded for matching what people type against names and headers:
//! the one place that knows how umlauts, ß and other accents compare.

use std::borrow::Cow;
use unicode_normalization::char::decompose_canonical;
use unicode_normalization::UnicodeNormalization;

/// Lower case with umlauts and ß written out (`ä` → `ae`, `ß` → `ss`) and
/// other accents dropped (`é` → `e`, `ł` → `l`); every other character is
/// kept. Composed and decomposed spellings fold alike.
pub fn letters(text: &str) -> String {
    let composed: Cow<str> = if text.is_ascii() {
        text.into()
    } else {
        text.nfc().collect::<String>().into()
    };
    let mut out = String::with_capacity(text.len());
    for c in composed.chars().flat_map(char::to_lowercase) {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            // Letters with a stroke have no decomposition.
            'ł' => out.push('l'),
            'đ' => out.push('d'),
            'ø' => out.push('o'),
            c if c.is_ascii() || !c.is_alphanumeric() => out.push(c),
            c => {
                let mut base = None;
                decompose_canonical(c, |d| {
                    if base.is_none() && d.is_alphanumeric() {
                        base = Some(d);
                    }
                });
                out.push(base.unwrap_or(c));
            }
        }
    }
    out
}

/// [`letters`], with every run of characters that are neither letters nor
/// digits one space, and none at either end: "Köln", "KOELN" and "koeln"
/// are the same word.
pub fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in letters(text).chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_write_umlauts_out_drop_accents_and_keep_the_rest() {
        assert_eq!(letters("Währung:"), "waehrung:");
        assert_eq!(letters("Částka"), "castka");
        assert_eq!(letters("Kwota złotych"), "kwota zlotych");
        assert_eq!(letters("STRAẞE"), "strasse");
        assert_eq!(letters("Ko\u{308}ln"), "koeln");
        assert_eq!(letters("Buchungs-Datum"), "buchungs-datum");
    }

    #[test]
    fn words_are_letters_with_one_space_between() {
        assert_eq!(words("Köln"), "koeln");
        assert_eq!(words("GRÜßE, Düsseldorf-Süd!"), "gruesse duesseldorf sued");
        assert_eq!(words("Crédit Agricole"), "credit agricole");
        assert_eq!(words("  "), "");
    }
}
