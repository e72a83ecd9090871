//! The banks whose exports are recognised: each one's header signature,
//! its columns and its name for people; then the column names the generic
//! detection looks for in a file of any other bank.

/// Where a bank's amount is, by column name.
pub(super) enum Amount {
    /// One signed amount.
    Signed(&'static str),
    /// Money out and money in.
    DebitCredit(&'static str, &'static str),
    /// An unsigned amount, and the column that says it is money out.
    Flag(&'static str, &'static str),
    /// An amount less the fee in the second column.
    LessFee(&'static str, &'static str),
}

/// Where a bank's payee is, by column name.
pub(super) enum Payee {
    None,
    Column(&'static str),
    /// The counterparty of money out, and of money in.
    BySign(&'static str, &'static str),
}

/// Where a bank's memo is, by column name.
pub(super) enum Memo {
    None,
    Column(&'static str),
    /// This column and all that follow it (text that spills over the delimiter).
    Rest(&'static str),
}

/// A bank's layout with a header: the names that identify it (`signature`,
/// all of them present, lower case) and the columns taken.
pub(super) struct Bank {
    /// The id a staged batch keeps (`format.bank`).
    pub(super) id: &'static str,
    /// How people name the bank and its export.
    pub(super) label: &'static str,
    pub(super) signature: &'static [&'static str],
    pub(super) date: &'static str,
    pub(super) amount: Amount,
    pub(super) payee: Payee,
    pub(super) memo: Memo,
    pub(super) currency: Option<&'static str>,
}

/// The banks recognised by their header, German banks first. A new layout
/// is one more entry here (and a test file in `tests/fixtures/banks/`).
pub(super) const BANKS: &[Bank] = &[
    Bank {
        id: "sparkasse-camt",
        label: "Sparkasse CSV-CAMT",
        signature: &[
            "auftragskonto",
            "buchungstag",
            "glaeubiger id",
            "beguenstigter/zahlungspflichtiger",
            "betrag",
        ],
        date: "buchungstag",
        amount: Amount::Signed("betrag"),
        payee: Payee::Column("beguenstigter/zahlungspflichtiger"),
        memo: Memo::Column("verwendungszweck"),
        currency: Some("waehrung"),
    },
    Bank {
        id: "sparkasse-mt940",
        label: "Sparkasse CSV-MT940",
        signature: &[
            "auftragskonto",
            "buchungstag",
            "beguenstigter/zahlungspflichtiger",
            "blz",
            "betrag",
        ],
        date: "buchungstag",
        amount: Amount::Signed("betrag"),
        payee: Payee::Column("beguenstigter/zahlungspflichtiger"),
        memo: Memo::Column("verwendungszweck"),
        currency: Some("waehrung"),
    },
    Bank {
        id: "sparkasse-creditcard",
        label: "Sparkasse Creditcard",
        signature: &[
            "umsatz getätigt von",
            "buchungsdatum",
            "buchungsbetrag",
            "transaktionsbeschreibung",
        ],
        date: "buchungsdatum",
        amount: Amount::Signed("buchungsbetrag"),
        payee: Payee::Column("transaktionsbeschreibung"),
        memo: Memo::Column("transaktionsbeschreibung zusatz"),
        currency: Some("buchungswährung"),
    },
    Bank {
        id: "dkb",
        label: "DKB",
        signature: &[
            "buchungsdatum",
            "zahlungspflichtige*r",
            "zahlungsempfänger*in",
            "betrag (€)",
        ],
        date: "buchungsdatum",
        amount: Amount::Signed("betrag (€)"),
        payee: Payee::BySign("zahlungsempfänger*in", "zahlungspflichtige*r"),
        memo: Memo::Column("verwendungszweck"),
        currency: None,
    },
    Bank {
        id: "dkb-legacy",
        label: "DKB (before 2023)",
        signature: &[
            "buchungstag",
            "auftraggeber / begünstigter",
            "verwendungszweck",
            "betrag (eur)",
        ],
        date: "buchungstag",
        amount: Amount::Signed("betrag (eur)"),
        payee: Payee::Column("auftraggeber / begünstigter"),
        memo: Memo::Column("verwendungszweck"),
        currency: None,
    },
    Bank {
        id: "ing",
        label: "ING",
        signature: &[
            "buchung",
            "auftraggeber/empfänger",
            "verwendungszweck",
            "betrag",
        ],
        date: "buchung",
        amount: Amount::Signed("betrag"),
        payee: Payee::Column("auftraggeber/empfänger"),
        memo: Memo::Column("verwendungszweck"),
        currency: None,
    },
    Bank {
        id: "comdirect",
        label: "comdirect",
        signature: &[
            "buchungstag",
            "wertstellung (valuta)",
            "vorgang",
            "buchungstext",
            "umsatz in eur",
        ],
        date: "buchungstag",
        amount: Amount::Signed("umsatz in eur"),
        payee: Payee::None,
        memo: Memo::Column("buchungstext"),
        currency: None,
    },
    Bank {
        id: "commerzbank",
        label: "Commerzbank",
        signature: &[
            "buchungstag",
            "wertstellung",
            "umsatzart",
            "buchungstext",
            "betrag",
            "iban kontoinhaber",
        ],
        date: "buchungstag",
        amount: Amount::Signed("betrag"),
        payee: Payee::None,
        memo: Memo::Column("buchungstext"),
        currency: Some("währung"),
    },
    Bank {
        id: "volksbank-atruvia",
        label: "Volksbank Atruvia",
        signature: &[
            "bezeichnung auftragskonto",
            "iban auftragskonto",
            "buchungstag",
            "name zahlungsbeteiligter",
            "betrag",
        ],
        date: "buchungstag",
        amount: Amount::Signed("betrag"),
        payee: Payee::Column("name zahlungsbeteiligter"),
        memo: Memo::Column("verwendungszweck"),
        currency: Some("waehrung"),
    },
    Bank {
        id: "n26",
        label: "N26",
        signature: &["booking date", "partner name", "amount (eur)"],
        date: "booking date",
        amount: Amount::Signed("amount (eur)"),
        payee: Payee::Column("partner name"),
        memo: Memo::Column("payment reference"),
        currency: None,
    },
    Bank {
        id: "paypal",
        label: "PayPal",
        signature: &["datum", "uhrzeit", "zeitzone", "name", "typ", "netto"],
        date: "datum",
        amount: Amount::Signed("netto"),
        payee: Payee::Column("name"),
        memo: Memo::Column("typ"),
        currency: Some("währung"),
    },
    Bank {
        id: "sparda",
        label: "Sparda-Bank",
        signature: &[
            "buchungstag",
            "wertstellungstag",
            "verwendungszweck",
            "umsatz",
        ],
        date: "buchungstag",
        amount: Amount::Signed("umsatz"),
        payee: Payee::None,
        memo: Memo::Column("verwendungszweck"),
        currency: Some("währung"),
    },
    Bank {
        id: "revolut",
        label: "Revolut",
        signature: &[
            "type",
            "product",
            "started date",
            "description",
            "amount",
            "fee",
            "currency",
            "state",
        ],
        date: "started date",
        amount: Amount::LessFee("amount", "fee"),
        payee: Payee::Column("description"),
        memo: Memo::None,
        currency: Some("currency"),
    },
    Bank {
        id: "wise",
        label: "Wise",
        signature: &[
            "transferwise id",
            "date",
            "amount",
            "currency",
            "description",
            "payer name",
            "payee name",
        ],
        date: "date",
        amount: Amount::Signed("amount"),
        payee: Payee::BySign("payee name", "payer name"),
        memo: Memo::Column("description"),
        currency: Some("currency"),
    },
    Bank {
        id: "lloyds",
        label: "Lloyds",
        signature: &[
            "transaction date",
            "transaction type",
            "sort code",
            "transaction description",
            "debit amount",
            "credit amount",
        ],
        date: "transaction date",
        amount: Amount::DebitCredit("debit amount", "credit amount"),
        payee: Payee::Column("transaction description"),
        memo: Memo::None,
        currency: None,
    },
    Bank {
        id: "monzo",
        label: "Monzo",
        signature: &[
            "id",
            "created",
            "amount",
            "currency",
            "description",
            "notes",
        ],
        date: "created",
        amount: Amount::Signed("amount"),
        payee: Payee::Column("description"),
        memo: Memo::Column("notes"),
        currency: Some("currency"),
    },
    Bank {
        id: "schwab",
        label: "Charles Schwab",
        signature: &[
            "date",
            "status",
            "type",
            "checknumber",
            "description",
            "withdrawal",
            "deposit",
        ],
        date: "date",
        amount: Amount::DebitCredit("withdrawal", "deposit"),
        payee: Payee::Column("description"),
        memo: Memo::None,
        currency: None,
    },
    Bank {
        id: "ing-nl",
        label: "ING NL",
        signature: &[
            "datum",
            "naam / omschrijving",
            "af bij",
            "bedrag (eur)",
            "mededelingen",
        ],
        date: "datum",
        amount: Amount::Flag("bedrag (eur)", "af bij"),
        payee: Payee::Column("naam / omschrijving"),
        memo: Memo::Column("mededelingen"),
        currency: None,
    },
    Bank {
        id: "kbc",
        label: "KBC",
        signature: &[
            "rekeningnummer",
            "rubrieknaam",
            "datum",
            "omschrijving",
            "bedrag",
            "naam tegenpartij",
        ],
        date: "datum",
        amount: Amount::Signed("bedrag"),
        payee: Payee::Column("naam tegenpartij"),
        memo: Memo::Column("omschrijving"),
        currency: Some("munt"),
    },
    Bank {
        id: "neon",
        label: "neon",
        signature: &[
            "date",
            "amount",
            "original amount",
            "description",
            "subject",
        ],
        date: "date",
        amount: Amount::Signed("amount"),
        payee: Payee::Column("description"),
        memo: Memo::Column("subject"),
        currency: None,
    },
    Bank {
        id: "ubs",
        label: "UBS",
        signature: &[
            "produit",
            "date de valeur",
            "description 1",
            "description 2",
            "description 3",
            "débit",
            "crédit",
        ],
        date: "date de valeur",
        amount: Amount::DebitCredit("débit", "crédit"),
        payee: Payee::BySign("description 3", "description 2"),
        memo: Memo::Column("description 1"),
        currency: Some("monn."),
    },
    Bank {
        id: "zkb",
        label: "ZKB",
        signature: &["date", "booking text", "debit chf", "credit chf"],
        date: "date",
        amount: Amount::DebitCredit("debit chf", "credit chf"),
        payee: Payee::None,
        memo: Memo::Column("booking text"),
        currency: None,
    },
    Bank {
        id: "livebank",
        label: "Livebank",
        signature: &[
            "kontonummer",
            "auszugsnummer",
            "buchungsdatum",
            "betrag",
            "umsatztext",
        ],
        date: "buchungsdatum",
        amount: Amount::Signed("betrag"),
        payee: Payee::None,
        memo: Memo::Rest("umsatztext"),
        currency: Some("waehrung"),
    },
];

/// Names of the generic detection, for banks not in [`BANKS`].
pub(super) const DATE_NAMES: &[&str] = &[
    "buchungstag",
    "buchungsdatum",
    "buchung",
    "booking date",
    "transaction date",
    "date",
    "datum",
    "valutadatum",
    "wertstellung",
    "value date",
    "date de valeur",
    "fecha",
    "data",
];
pub(super) const AMOUNT_NAMES: &[&str] = &[
    "betrag",
    "betrag (eur)",
    "betrag (€)",
    "umsatz",
    "umsatz in eur",
    "amount",
    "amount (eur)",
    "bedrag",
    "bedrag (eur)",
    "montant",
    "importe",
    "importo",
    "summe",
];
pub(super) const PAYEE_NAMES: &[&str] = &[
    "beguenstigter/zahlungspflichtiger",
    "begünstigter/zahlungspflichtiger",
    "auftraggeber/empfänger",
    "empfänger",
    "auftraggeber",
    "zahlungsbeteiligter",
    "name zahlungsbeteiligter",
    "payee",
    "payee name",
    "counterparty",
    "partner name",
    "merchant",
    "name",
];
pub(super) const MEMO_NAMES: &[&str] = &[
    "verwendungszweck",
    "memo",
    "purpose",
    "reference",
    "payment reference",
    "description",
    "buchungstext",
    "beschreibung",
    "notes",
    "details",
];
pub(super) const CURRENCY_NAMES: &[&str] = &[
    "währung", "waehrung", "currency", "curr", "devise", "monnaie",
];

/// The banks recognised by the shape of their rows, without a header
/// (`layout::headerless`): id and name for people.
pub(super) const HEADERLESS: &[(&str, &str)] = &[
    ("targobank", "Targobank"),
    ("easybank", "easybank"),
    ("raiffeisen-at", "Raiffeisen AT"),
    ("asn", "ASN"),
];

/// How people name the bank of a recognised layout: `sparkasse-camt` →
/// "Sparkasse CSV-CAMT". `None` for an id this version does not know.
pub fn label(id: &str) -> Option<&'static str> {
    BANKS
        .iter()
        .map(|b| (b.id, b.label))
        .chain(HEADERLESS.iter().copied())
        .find(|(known, _)| *known == id)
        .map(|(_, label)| label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bank_has_one_id_and_a_label() {
        let mut ids: Vec<&str> = BANKS.iter().map(|b| b.id).collect();
        ids.extend(HEADERLESS.iter().map(|(id, _)| *id));
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "an id twice");
        for id in ids {
            assert!(label(id).is_some_and(|l| !l.is_empty()), "{id}");
        }
        assert_eq!(label("sparkasse-camt"), Some("Sparkasse CSV-CAMT"));
        assert_eq!(label("dkb"), Some("DKB"));
        assert_eq!(label("paypal"), Some("PayPal"));
        assert_eq!(label("volksbank-atruvia"), Some("Volksbank Atruvia"));
        assert_eq!(label("gone-bank"), None);
    }

    #[test]
    fn every_signature_names_the_columns_it_takes() {
        for b in BANKS {
            let has = |n: &str| b.signature.contains(&n);
            assert!(has(b.date), "{}: the date column is in the signature", b.id);
            if let Amount::Signed(a) = b.amount {
                assert!(has(a), "{}: the amount column is in the signature", b.id);
            }
        }
    }
}
