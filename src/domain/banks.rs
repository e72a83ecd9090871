//! The bundled table of German banks and their FinTS PIN/TAN addresses
//! (`third_party/banks/banks.tsv`; source, licence and refresh in
//! `docs/bank-sync.md`, "The bank table"), and finding a bank in it by bank
//! code, BIC or name.
//!
//! The table is compiled in and parsed on first use, not at start-up.

use serde::Serialize;
use std::sync::LazyLock;

/// One bank of the table. Several rows may share a bank code (and a BIC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bank {
    pub bank_code: &'static str,
    pub bic: &'static str,
    pub name: &'static str,
    pub city: &'static str,
    /// The FinTS PIN/TAN address, always `https://`; `None` when the table
    /// knows none.
    pub url: Option<&'static str>,
}

/// At most this many banks are found.
pub const LIMIT: usize = 20;

/// Abbreviations people type for words of banks' names: a query word that
/// is one also matches its long form ("KSK Köln" finds "Kreissparkasse
/// Köln").
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("ksk", "kreissparkasse"),
    ("ssk", "stadtsparkasse"),
    ("spk", "sparkasse"),
    ("vb", "volksbank"),
    ("rb", "raiffeisenbank"),
    ("vr", "volksbank raiffeisenbank"),
    ("hvb", "hypovereinsbank"),
    ("dkb", "deutsche kreditbank"),
];

const SOURCE: &str = include_str!("../../third_party/banks/banks.tsv");

struct Table {
    banks: Vec<Bank>,
    /// Per bank: its name and city folded ([`fold`]), as `" name | city "`,
    /// so a word can be looked for at a word's start and never across the two.
    keys: Vec<String>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| parse(SOURCE));

/// The table's rows, in its order (by bank code).
pub fn all() -> &'static [Bank] {
    &TABLE.banks
}

/// The bank with this bank code; of several rows with it, the first with a
/// PIN/TAN address.
pub fn by_code(code: &str) -> Option<&'static Bank> {
    by_code_in(&TABLE, code)
}

fn by_code_in<'t>(table: &'t Table, code: &str) -> Option<&'t Bank> {
    let code = code.trim();
    let mut rows = table.banks.iter().filter(|b| b.bank_code == code);
    let first = rows.next()?;
    if first.url.is_some() {
        return Some(first);
    }
    Some(rows.find(|b| b.url.is_some()).unwrap_or(first))
}

/// Up to [`LIMIT`] banks for what a person typed, best first: an exact bank
/// code or BIC (an 8-character BIC also as its `XXX` form), then banks
/// whose code or BIC starts with the query (at least 3 digits or 4
/// characters), then banks with every word of the query in their name or
/// city (case, umlauts and ß folded; a few abbreviations such as "KSK"
/// understood). Within each step banks with a PIN/TAN address come first;
/// names by how well they match, then by length; ties by bank code. Spaces
/// in a bank code are ignored; a query of digits only is a bank code.
pub fn find(query: &str) -> Vec<&'static Bank> {
    find_in(&TABLE, query)
}

fn find_in<'t>(table: &'t Table, query: &str) -> Vec<&'t Bank> {
    let query = query.trim();
    let mut found: Vec<usize> = Vec::new();
    let compact: String = query.chars().filter(|c| !c.is_whitespace()).collect();
    let upper = compact.to_ascii_uppercase();
    let is_code = !compact.is_empty() && compact.chars().all(|c| c.is_ascii_digit());
    let single = !query.contains(char::is_whitespace);
    let is_bic_like =
        single && upper.len() >= 4 && upper.chars().all(|c| c.is_ascii_alphanumeric());
    let no_url = |i: &usize| table.banks[*i].url.is_none();

    // An exact bank code or BIC.
    let mut exact: Vec<usize> = (0..table.banks.len())
        .filter(|&i| {
            let b = &table.banks[i];
            (is_code && b.bank_code == compact)
                || (is_bic_like
                    && (b.bic == upper
                        || (upper.len() == 8
                            && b.bic.len() == 11
                            && b.bic.starts_with(&upper)
                            && b.bic.ends_with("XXX"))))
        })
        .collect();
    exact.sort_by_key(|i| (no_url(i), *i));
    found.extend(exact);

    // A bank code's or BIC's beginning.
    let mut prefix: Vec<usize> = (0..table.banks.len())
        .filter(|i| !found.contains(i))
        .filter(|&i| {
            let b = &table.banks[i];
            (is_code && compact.len() >= 3 && b.bank_code.starts_with(&compact))
                || (is_bic_like && b.bic.starts_with(&upper))
        })
        .collect();
    prefix.sort_by_key(|i| (no_url(i), *i));
    found.extend(prefix.into_iter().take(LIMIT));

    // Words of the name or the city; digits alone are a bank code.
    if found.len() < LIMIT && !is_code {
        let words: Vec<String> = fold(query).split_whitespace().map(str::to_string).collect();
        if !words.is_empty() {
            let mut named: Vec<((bool, usize, usize), usize)> = table
                .keys
                .iter()
                .enumerate()
                .filter(|(i, _)| !found.contains(i))
                .filter_map(|(i, key)| {
                    let mut inside = 0;
                    for word in &words {
                        match matches(key, word) {
                            Match::None => return None,
                            Match::Inside => inside += 1,
                            Match::Start => {}
                        }
                    }
                    Some(((no_url(&i), inside, table.banks[i].name.chars().count()), i))
                })
                .collect();
            named.sort();
            found.extend(named.into_iter().map(|(_, i)| i));
        }
    }

    found.truncate(LIMIT);
    found.into_iter().map(|i| &table.banks[i]).collect()
}

enum Match {
    None,
    /// Inside a word of the name or city.
    Inside,
    /// At a word's start.
    Start,
}

/// How `word` (folded) occurs in a bank's `key`; an abbreviation also as
/// its long form, the better of the two counting.
fn matches(key: &str, word: &str) -> Match {
    let mut best = occurs(key, word);
    if let Some((_, long)) = ABBREVIATIONS.iter().find(|(short, _)| *short == word) {
        best = match (best, occurs(key, long)) {
            (Match::Start, _) | (_, Match::Start) => Match::Start,
            (Match::Inside, _) | (_, Match::Inside) => Match::Inside,
            _ => Match::None,
        };
    }
    best
}

fn occurs(key: &str, word: &str) -> Match {
    if key.contains(&format!(" {word}")) {
        Match::Start
    } else if key.contains(word) {
        Match::Inside
    } else {
        Match::None
    }
}

/// A bank's name, a city or a query as words to compare
/// ([`crate::domain::fold::words`]).
pub fn fold(text: &str) -> String {
    crate::domain::fold::words(text)
}

/// Reads the table's text: `#` comments, `@N<TAB>url` addresses, then
/// `code<TAB>bic<TAB>name<TAB>city<TAB>N or empty` rows. An address not
/// `https://`, or a line that does not read, is a fault of the bundled file
/// that the unit tests catch; it is skipped, never a panic.
fn parse(source: &'static str) -> Table {
    let mut urls: Vec<(&'static str, &'static str)> = Vec::new();
    let mut banks = Vec::new();
    for line in source.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(entry) = line.strip_prefix('@') {
            if let Some((n, url)) = entry.split_once('\t') {
                if url.starts_with("https://") {
                    urls.push((n, url));
                }
            }
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(bank_code), Some(bic), Some(name), Some(city), Some(url), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            continue;
        };
        let url = urls.iter().find(|(n, _)| *n == url).map(|(_, u)| *u);
        banks.push(Bank {
            bank_code,
            bic,
            name,
            city,
            url,
        });
    }
    let keys = banks
        .iter()
        .map(|b| format!(" {} | {} ", fold(b.name), fold(b.city)))
        .collect();
    Table { banks, keys }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# a comment\n\
        @1\thttps://banking-rl6.s-fints-pt-rl.de/fints30\n\
        @2\thttps://banking-rl7.s-fints-pt-rl.de/fints30\n\
        @3\thttp://plain.example/fints\n\
        10000000\tMARKDEF1100\tBundesbank\tBerlin\t\n\
        37040044\tCOBADEFFXXX\tCommerzbank\tKöln\t\n\
        37050198\tCOLSDE33XXX\tSparkasse KölnBonn\tKöln\t2\n\
        37050299\tCOKSDE33XXX\tKreissparkasse Köln\tKöln\t1\n\
        37060000\tGENODEDDXXX\tNo address\tKöln\t\n\
        37060000\tGENODEDDXXX\tWith address\tKöln\t1\n\
        38050000\tPLAINDE1XXX\tPlain Bank\tBonn\t3\n\
        40050000\tSPKXDE33XXX\tStadtsparkasse Düsseldorf-Süd\tDüsseldorf\t1\n\
        broken line\n";

    fn table() -> Table {
        parse(Box::leak(SAMPLE.to_string().into_boxed_str()))
    }

    fn names(found: Vec<&Bank>) -> Vec<&str> {
        found.into_iter().map(|b| b.name).collect()
    }

    #[test]
    fn the_sample_reads_and_only_https_addresses_are_kept() {
        let t = table();
        assert_eq!(t.banks.len(), 8, "the broken line is skipped");
        let plain = t.banks.iter().find(|b| b.name == "Plain Bank").unwrap();
        assert_eq!(plain.url, None);
        let ksk = t.banks.iter().find(|b| b.bic == "COKSDE33XXX").unwrap();
        assert_eq!(
            ksk.url,
            Some("https://banking-rl6.s-fints-pt-rl.de/fints30")
        );
        assert_eq!(ksk.city, "Köln");
    }

    #[test]
    fn an_exact_code_or_bic_comes_first() {
        let t = table();
        assert_eq!(names(find_in(&t, "37050299")), ["Kreissparkasse Köln"]);
        assert_eq!(names(find_in(&t, " 370 502 99 ")), ["Kreissparkasse Köln"]);
        assert_eq!(names(find_in(&t, "colsde33xxx")), ["Sparkasse KölnBonn"]);
        // An 8-character BIC is the XXX one.
        assert_eq!(names(find_in(&t, "COLSDE33")), ["Sparkasse KölnBonn"]);
        // A shared code: the row with an address first.
        assert_eq!(
            names(find_in(&t, "37060000")),
            ["With address", "No address"]
        );
    }

    #[test]
    fn a_code_or_bic_beginning_comes_next_those_with_an_address_first() {
        let t = table();
        assert_eq!(
            names(find_in(&t, "3705")),
            ["Sparkasse KölnBonn", "Kreissparkasse Köln"]
        );
        assert_eq!(
            names(find_in(&t, "370")),
            [
                "Sparkasse KölnBonn",
                "Kreissparkasse Köln",
                "With address",
                "Commerzbank",
                "No address"
            ]
        );
        assert_eq!(names(find_in(&t, "COKS")), ["Kreissparkasse Köln"]);
        // Too short to be a code's or BIC's beginning.
        assert!(find_in(&t, "37").is_empty());
        assert!(find_in(&t, "COK").is_empty());
    }

    #[test]
    fn every_word_in_the_name_or_city_with_umlauts_folded() {
        let t = table();
        let both = ["Sparkasse KölnBonn", "Kreissparkasse Köln"];
        assert_eq!(names(find_in(&t, "sparkasse köln")), both);
        assert_eq!(names(find_in(&t, "KOELN SPARKASSE")), both);
        assert_eq!(names(find_in(&t, "Sparkasse Koeln")), both);
        assert_eq!(
            names(find_in(&t, "kreissparkasse")),
            ["Kreissparkasse Köln"]
        );
        assert_eq!(
            names(find_in(&t, "süd düsseldorf")),
            ["Stadtsparkasse Düsseldorf-Süd"]
        );
        assert_eq!(
            names(find_in(&t, "duesseldorf-sued")),
            ["Stadtsparkasse Düsseldorf-Süd"]
        );
        // The city alone finds the banks there, those with an address first.
        assert_eq!(
            names(find_in(&t, "bonn")),
            ["Sparkasse KölnBonn", "Plain Bank"]
        );
        // Every word must be found.
        assert!(find_in(&t, "sparkasse berlin").is_empty());
        assert!(find_in(&t, "nowhere").is_empty());
        assert!(find_in(&t, "").is_empty());
        assert!(find_in(&t, " - ").is_empty());
    }

    #[test]
    fn abbreviations_find_their_long_form() {
        let t = table();
        assert_eq!(names(find_in(&t, "KSK Köln")), ["Kreissparkasse Köln"]);
        assert_eq!(names(find_in(&t, "ksk")), ["Kreissparkasse Köln"]);
        assert_eq!(
            names(find_in(&t, "ssk düsseldorf")),
            ["Stadtsparkasse Düsseldorf-Süd"]
        );
    }

    #[test]
    fn a_word_at_a_word_start_ranks_before_one_inside_a_word() {
        let t = table();
        // "sparkasse" starts "Sparkasse KölnBonn" but is inside
        // "Kreissparkasse" and "Stadtsparkasse".
        assert_eq!(
            names(find_in(&t, "sparkasse")),
            [
                "Sparkasse KölnBonn",
                "Kreissparkasse Köln",
                "Stadtsparkasse Düsseldorf-Süd"
            ]
        );
    }

    #[test]
    fn by_code_prefers_the_row_with_an_address() {
        let t = table();
        // "No address" is the first row with the code.
        assert_eq!(by_code_in(&t, "37060000").unwrap().name, "With address");
        assert_eq!(by_code_in(&t, "37040044").unwrap().name, "Commerzbank");
        assert_eq!(
            by_code_in(&t, " 37050299 ").unwrap().name,
            "Kreissparkasse Köln"
        );
        assert_eq!(by_code_in(&t, "00000000"), None);
        assert_eq!(by_code_in(&t, "3705"), None, "a whole code only");
    }

    #[test]
    fn fold_writes_umlauts_out_and_drops_other_marks() {
        assert_eq!(fold("Köln"), "koeln");
        assert_eq!(fold("GRÜßE, Düsseldorf-Süd!"), "gruesse duesseldorf sued");
        assert_eq!(fold("Crédit Agricole"), "credit agricole");
        // A decomposed umlaut (o + combining diaeresis) is the same word.
        assert_eq!(fold("Ko\u{308}ln"), "koeln");
        assert_eq!(fold("  "), "");
    }

    /// The bundled table: every row read, every address https, the banks
    /// the recorded dialogs come from there, at most [`LIMIT`] found.
    #[test]
    fn the_bundled_table_reads_whole() {
        let rows = SOURCE
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('@'))
            .count();
        assert!(rows > 3000, "{rows}");
        assert_eq!(all().len(), rows, "every row of banks.tsv reads");
        let addresses = SOURCE.lines().filter(|l| l.starts_with('@')).count();
        let used: std::collections::BTreeSet<_> = all().iter().filter_map(|b| b.url).collect();
        assert_eq!(used.len(), addresses, "every address is https and named");
        assert!(all()
            .iter()
            .all(|b| b.bank_code.len() == 8 && !b.name.is_empty()));
        assert!(all().windows(2).all(|w| w[0].bank_code <= w[1].bank_code));
        let ksk = by_code("37050299").unwrap();
        assert_eq!((ksk.name, ksk.bic), ("Kreissparkasse Köln", "COKSDE33XXX"));
        assert!(ksk.url.unwrap().starts_with("https://"));
        assert_eq!(find("COKSDE33XXX")[0].bank_code, "37050299");
        assert!(find("sparkasse köln")
            .iter()
            .any(|b| b.bank_code == "37050299"));
        assert_eq!(find("KSK Köln")[0].bank_code, "37050299");
        assert_eq!(find("bank").len(), LIMIT);
        assert_eq!(find("3").len(), 0, "one digit is no code's beginning");
        assert_eq!(find("370").len(), LIMIT);
    }
}
