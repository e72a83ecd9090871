//! Merchant names as they appear on receipts and bank statements, reduced to
//! the part that identifies the merchant: "REWE Markt 1234 Berlin" and
//! "rewe  markt" are the same merchant.

use std::collections::HashMap;

/// Words that end a merchant name but say nothing about who it is: legal
/// forms, country codes, and the cities that most often follow a store number.
const NOISE: &[&str] = &[
    "fil",
    "filiale",
    "nr",
    "gmbh",
    "ag",
    "kg",
    "ohg",
    "ug",
    "se",
    "ek",
    "e.k",
    "co",
    "inc",
    "ltd",
    "llc",
    "sarl",
    "bv",
    "de",
    "at",
    "ch",
    "berlin",
    "hamburg",
    "muenchen",
    "münchen",
    "munich",
    "koeln",
    "köln",
    "cologne",
    "frankfurt",
    "stuttgart",
    "duesseldorf",
    "düsseldorf",
    "dortmund",
    "essen",
    "leipzig",
    "bremen",
    "dresden",
    "hannover",
    "nuernberg",
    "nürnberg",
    "duisburg",
    "bochum",
    "wuppertal",
    "bielefeld",
    "bonn",
    "muenster",
    "münster",
    "mannheim",
    "karlsruhe",
    "augsburg",
    "wiesbaden",
    "aachen",
    "kiel",
    "freiburg",
    "mainz",
    "potsdam",
    "heidelberg",
    "regensburg",
    "wien",
    "vienna",
    "graz",
    "linz",
    "salzburg",
    "zuerich",
    "zürich",
    "zurich",
    "basel",
    "bern",
    "genf",
    "geneva",
    "london",
    "paris",
    "amsterdam",
];

/// The normalised key of a merchant name: lower case, punctuation as
/// spaces, single spaces, and trailing store numbers, cities and legal forms
/// removed. Empty when the input has no letters at all.
pub fn normalize(raw: &str) -> String {
    let lowered = raw.to_lowercase();
    let cleaned: String = lowered
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    let all = words.clone();
    while let Some(last) = words.last() {
        let numeric = last.chars().any(|c| c.is_ascii_digit());
        if words.len() > 1 && (numeric || NOISE.contains(last)) {
            words.pop();
        } else {
            break;
        }
    }
    // A name that is only a number keeps it ("7-Eleven" stays "7 eleven").
    if words.len() == 1 && words[0].chars().all(|c| c.is_ascii_digit()) {
        return all.join(" ");
    }
    words.join(" ")
}

/// The learned merchant most like `key` when none is exactly it: the same
/// merchant written longer or shorter ("rewe" and "rewe markt": one's words
/// start the other's), or with a typo ("rewe makrt": a word differs by at
/// most one edit in five letters, past its first letter; "bahn" and "bank"
/// are too short to tell). Closer first, then the one used more. Short keys
/// (under four letters) match only exactly: "dm" is not "dmv".
pub fn closest<'a>(key: &str, known: impl IntoIterator<Item = (&'a str, i64)>) -> Option<&'a str> {
    if key.chars().count() < 4 {
        return None;
    }
    known
        .into_iter()
        .filter(|(k, _)| *k != key && k.len() >= 4)
        .filter_map(|(k, uses)| Some((likeness(key, k)?, -uses, k)))
        .min()
        .map(|(_, _, k)| k)
}

/// Learned keys grouped by what [`closest`] needs two keys of one merchant
/// to share: the first word (one name continues the other) or the first
/// letter of every word (a typo keeps each word's first letter). A lookup
/// compares a key with at most [`INDEX_SCAN`] keys of each group, not with
/// every key learned.
pub struct KeyIndex<'a> {
    by_first_word: HashMap<&'a str, Vec<&'a str>>,
    by_initials: HashMap<String, Vec<&'a str>>,
}

/// How many keys of a group a [`KeyIndex`] lookup compares at most.
pub const INDEX_SCAN: usize = 2_048;

fn first_word(key: &str) -> &str {
    key.split(' ').next().unwrap_or_default()
}

/// The first letter of every word, `_` for an empty one.
fn initials(key: &str) -> String {
    key.split(' ')
        .map(|w| w.chars().next().unwrap_or('_'))
        .collect()
}

impl<'a> KeyIndex<'a> {
    pub fn new(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let mut index = KeyIndex {
            by_first_word: HashMap::new(),
            by_initials: HashMap::new(),
        };
        for k in keys {
            index
                .by_first_word
                .entry(first_word(k))
                .or_default()
                .push(k);
            index.by_initials.entry(initials(k)).or_default().push(k);
        }
        index
    }

    /// [`closest`] among the learned keys, all used alike.
    pub fn closest(&self, key: &str) -> Option<&'a str> {
        let first = self.by_first_word.get(first_word(key));
        let same_initials = self.by_initials.get(&initials(key));
        let candidates = [first, same_initials]
            .into_iter()
            .flatten()
            .flat_map(|group| group.iter().take(INDEX_SCAN))
            .map(|k| (*k, 0));
        closest(key, candidates)
    }
}

/// How far apart two different keys of the same merchant are (see
/// [`closest`]); `None` for two merchants.
fn likeness(a: &str, b: &str) -> Option<usize> {
    if a.split(' ').zip(b.split(' ')).all(|(x, y)| x == y) {
        // One name continues the other: as close as one edit.
        return Some(1);
    }
    if a.split(' ').count() != b.split(' ').count() {
        return None;
    }
    let mut edits = 0;
    for (x, y) in a.split(' ').zip(b.split(' ')) {
        if x == y {
            continue;
        }
        let (lx, ly) = (x.chars().count(), y.chars().count());
        let allowed = lx.max(ly) / 5;
        // Cheap checks first: an import compares many names.
        if allowed == 0 || lx.abs_diff(ly) > allowed || x.chars().next() != y.chars().next() {
            return None;
        }
        let d = strsim::damerau_levenshtein(x, y);
        if d > allowed {
            return None;
        }
        edits += d;
    }
    Some(edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_spacing_store_numbers_and_cities_do_not_matter() {
        let key = normalize("REWE Markt");
        for variant in [
            "rewe  markt",
            "REWE Markt 1234",
            "REWE Markt 1234 Berlin",
            "Rewe-Markt GmbH",
            "REWE MARKT 0815 München",
            "  rewe markt fil. 12 ",
        ] {
            assert_eq!(normalize(variant), key, "{variant}");
        }
        assert_eq!(key, "rewe markt");
    }

    #[test]
    fn different_merchants_stay_different() {
        assert_ne!(normalize("Lidl 123"), normalize("Aldi 123"));
        assert_eq!(normalize("dm-drogerie markt 1234"), "dm drogerie markt");
    }

    #[test]
    fn a_merchant_written_otherwise_finds_the_learned_one() {
        let known = [
            ("rewe markt", 5),
            ("edeka center", 2),
            ("dm drogerie markt", 3),
        ];
        assert_eq!(closest("rewe", known), Some("rewe markt"));
        assert_eq!(closest("rewe makrt", known), Some("rewe markt"));
        assert_eq!(closest("rewe markt city", known), Some("rewe markt"));
        assert_eq!(closest("edeka", known), Some("edeka center"));
        assert_eq!(
            closest(&normalize("REWE Markt"), known),
            None,
            "exact is not fuzzy"
        );
        assert_eq!(closest("aldi sued", known), None);
        assert_eq!(closest("dm", known), None, "too short to guess");
        assert_eq!(
            closest("lidl", [("lida", 1)]),
            None,
            "too short to tell a typo"
        );
        assert_eq!(
            closest("deutsche bahn", [("deutsche bank", 1)]),
            None,
            "one letter apart, two merchants"
        );
        assert_eq!(closest("edeka centre", known), Some("edeka center"));
        // The closer wins, then the more used.
        assert_eq!(
            closest("rewe makrt", [("rewe markt", 1), ("rewe marktt", 9)]),
            Some("rewe markt")
        );
        assert_eq!(
            closest("rewe", [("rewe markt", 1), ("rewe city", 4)]),
            Some("rewe city")
        );
    }

    #[test]
    fn a_name_is_never_reduced_to_nothing() {
        assert_eq!(normalize("Berlin"), "berlin");
        assert_eq!(normalize("7-Eleven 0042"), "7 eleven");
        assert_eq!(normalize("1234"), "1234");
        assert_eq!(normalize("  "), "");
    }

    proptest::proptest! {
        #[test]
        fn the_key_index_finds_what_comparing_every_key_finds(
            known in proptest::collection::vec(proptest::sample::select(WORDS.to_vec()), 0..30),
            key in proptest::sample::select(WORDS.to_vec()),
        ) {
            let index = KeyIndex::new(known.iter().copied());
            proptest::prop_assert_eq!(
                index.closest(key),
                closest(key, known.iter().map(|k| (*k, 0)))
            );
        }
    }

    const WORDS: [&str; 12] = [
        "rewe",
        "rewe markt",
        "rewe makrt",
        "rewe city",
        "aldi",
        "aldi sued",
        "aldi nord",
        "edeka",
        "edeka center",
        "edekka center",
        "bahn",
        "bank",
    ];
}
