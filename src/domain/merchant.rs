//! Merchant names as they appear on receipts and bank statements, reduced to
//! the part that identifies the merchant: "REWE Markt 1234 Berlin" and
//! "rewe  markt" are the same merchant.

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
    fn a_name_is_never_reduced_to_nothing() {
        assert_eq!(normalize("Berlin"), "berlin");
        assert_eq!(normalize("7-Eleven 0042"), "7 eleven");
        assert_eq!(normalize("1234"), "1234");
        assert_eq!(normalize("  "), "");
    }
}
