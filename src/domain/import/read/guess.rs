//! The columns of a header that no bank of the table has, read as a person
//! reads them: by the words of their names in the languages our users'
//! banks write (German, English, French, Dutch, Italian, Spanish, Czech,
//! Polish), checked against what the rows hold: a name counts where the
//! cells fit it, a name beats a number, text beats an empty column, and
//! where the names say nothing the rows decide (`docs/import-formats.md`,
//! "Any other header").

use super::banks::{AMOUNT_NAMES, CURRENCY_NAMES, DATE_NAMES, MEMO_NAMES, PAYEE_NAMES};
use super::layout::{aligned, find_any, with_header, AmountCols, Layout, MemoCol, PayeeCol};
use super::values::{is_credit_mark, DateFormat};
use super::{header_names, is_note, looks_numeric, parse_amount, Record};

/// What a column's name says it holds; the number ranks columns of the
/// same kind (lower is better).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Date(u8),
    Amount(u8),
    Debit,
    Credit,
    /// A debit/credit indicator (`S`/`H`, `D`/`C`, `Af`/`Bij`).
    Indicator,
    Currency,
    Payee(u8),
    /// The recipient of money out (`Empfänger`), beside a payer column.
    PayeeOut,
    /// The payer of money in (`Auftraggeber`), beside a recipient column.
    PayeeIn,
    Memo(u8),
    /// An identifier, the account's own name, a balance, a type: never a
    /// payee or a memo.
    Known,
    /// The name says nothing.
    Unknown,
}

/// Lower case with the accents of the languages above taken off, so that
/// the word lists can be plain ASCII (`Währung` → `waehrung`, `Částka` →
/// `castka`; [`crate::domain::fold::letters`]), and a trailing colon
/// dropped.
fn fold(name: &str) -> String {
    crate::domain::fold::letters(name.trim().trim_end_matches(':').trim())
}

/// Numbers and references, whatever else the name says.
const ID_WORDS: &[&str] = &[
    "iban",
    "bic",
    "swift",
    "blz",
    "bankleitzahl",
    "kontonummer",
    "konto-nr",
    "account number",
    "account no",
    "rekeningnummer",
    "tegenrekening",
    "cislo uctu",
    "numer rachunku",
    "nr rachunku",
    "mandat",
    "glaeubiger",
    "creditor id",
    "kundenreferenz",
    "end-to-end",
    "sammlerreferenz",
    "referenznummer",
    "transaction id",
    "volgnr",
    "card number",
    "kartennummer",
    "reference number",
];
/// The account the file is of, not the counterparty.
const OWN_WORDS: &[&str] = &[
    "auftragskonto",
    "account name",
    "kontoname",
    "kontobezeichnung",
    "kontoinhaber",
    "account holder",
    "eigenes konto",
    "own account",
];
const BALANCE_WORDS: &[&str] = &["saldo", "balance", "kontostand", "solde", "zustatek"];
const CURRENCY_WORDS: &[&str] = &[
    "waehrung",
    "currency",
    "valutacode",
    "munt",
    "mena",
    "waluta",
    "divisa",
    "devise",
    "monnaie",
];
const TYPE_WORDS: &[&str] = &[
    "umsatzart",
    "buchungsart",
    "transaktionstyp",
    "transaction type",
    "mutatiesoort",
    "type",
    "typ",
    "kategorie",
    "category",
    "categorie",
    "code",
    "status",
];
const INDICATOR_WORDS: &[&str] = &[
    "af bij",
    "af/bij",
    "creditdebet",
    "credit/debit",
    "debit/credit",
    "debet/credit",
    "soll/haben",
    "s/h",
    "cr/dr",
    "dr/cr",
    "d/c",
    "c/d",
    "debit or credit",
    "credit or debit",
    "kennzeichen",
    "vorzeichen",
];
const DATE_WORDS: &[&str] = &["datum", "date", "fecha", "data", "wertstellung"];
/// Words of a booking date, the date a bank's statement sorts by.
const BOOKING_WORDS: &[&str] = &[
    "buchung",
    "boek",
    "booking",
    "book",
    "posted",
    "posting",
    "processed",
    "zauctovani",
    "ksiegowania",
    "contabil",
    "contable",
    "comptab",
];
const TRANSACTION_WORDS: &[&str] = &[
    "transa",
    "umsatz",
    "operac",
    "auftrag",
    "purchase",
    "kauf",
    "provedeni",
    "uskutecneni",
];
const VALUE_WORDS: &[&str] = &[
    "valuta",
    "wert",
    "value",
    "valeur",
    "rente",
    "splatnost",
    "waluty",
    "valor",
];
const DEBIT_WORDS: &[&str] = &[
    "soll",
    "debit",
    "debet",
    "lastschrift",
    "belastung",
    "ausgang",
    "ausgabe",
    "withdrawal",
    "paid out",
    "money out",
    "uscite",
    "addebit",
    "cargo",
    "debe",
    "vydaj",
    "wydatki",
    "obciazenia",
];
const CREDIT_WORDS: &[&str] = &[
    "haben",
    "credit",
    "gutschrift",
    "eingang",
    "einnahme",
    "deposit",
    "paid in",
    "money in",
    "entrate",
    "accredit",
    "abono",
    "haber",
    "prijem",
    "wplywy",
    "uznania",
];
const AMOUNT_WORDS: &[&str] = &[
    "betrag", "amount", "bedrag", "montant", "importe", "importo", "castka", "kwota", "umsatz",
    "summe",
];
/// Amounts that are not the booked one.
const OTHER_AMOUNT_WORDS: &[&str] = &[
    "ursprung", "original", "fremd", "foreign", "gebuehr", "fee", "charge", "auslagen",
];
const RECIPIENT_WORDS: &[&str] = &["empfaenger", "recipient", "beneficiary", "beguenstigt"];
const PAYER_WORDS: &[&str] = &["auftraggeber", "zahler", "payer", "remitter", "sender"];
const PAYEE_WORDS: &[&str] = &[
    "zahlungsbeteiligter",
    "zahlungspflichtig",
    "gegenpartei",
    "gegenseite",
    "payee",
    "counterparty",
    "counter party",
    "merchant",
    "haendler",
    "partner",
    "tegenpartij",
    "tegenrekening naam",
    "tegenrekeninghouder",
    "naam",
    "name",
    "nom",
    "beneficiaire",
    "destinatario",
    "beneficiario",
    "ordenante",
    "protiuct",
    "protistrana",
    "nazev",
    "kontrahent",
    "odbiorca",
    "nadawca",
    "nazwa",
];
/// Memo words, the most telling first.
const MEMO_WORDS: &[&str] = &[
    "verwendungszweck",
    "zweck",
    "memo",
    "purpose",
    "omschrijving",
    "mededeling",
    "description",
    "beschreibung",
    "details",
    "libelle",
    "communication",
    "causale",
    "descrizione",
    "concepto",
    "descripcion",
    "zprava",
    "poznamka",
    "tytul",
    "opis",
    "narrative",
    "particulars",
    "payment reference",
    "reference",
    "referenz",
    "buchungstext",
    "text",
    "notes",
    "notiz",
    "bemerkung",
    "info",
];
/// Memo words of exports whose description is the merchant (card and US
/// or UK bank exports): without a payee column, it is the payee too.
const DESCRIBES_MERCHANT: &[&str] = &[
    "description",
    "omschrijving",
    "libelle",
    "descrizione",
    "descripcion",
    "concepto",
    "narrative",
    "particulars",
    "details",
];

fn any(name: &str, words: &[&str]) -> bool {
    words.iter().any(|w| name.contains(w))
}

/// The rank of the first of `words` that `name` holds.
fn rank(name: &str, words: &[&str]) -> Option<u8> {
    words
        .iter()
        .position(|w| name.contains(w))
        .map(|i| i.min(250) as u8)
}

/// What a column's name says: the bank table's exact names first, then the
/// words above in an order that lets the more telling win (`IBAN
/// Zahlungsbeteiligter` is a number, `Name Zahlungsbeteiligter` the payee,
/// `Buchungstext` a memo although it names the booking).
fn role(raw: &str) -> Role {
    let exact = |names: &[&str]| find_any(&[raw.to_string()], names).is_some();
    if exact(DATE_NAMES) {
        return Role::Date(date_rank(&fold(raw)));
    }
    if exact(AMOUNT_NAMES) {
        return Role::Amount(0);
    }
    if exact(CURRENCY_NAMES) {
        return Role::Currency;
    }
    if exact(PAYEE_NAMES) {
        return Role::Payee(0);
    }
    if exact(MEMO_NAMES) {
        return Role::Memo(rank(&fold(raw), MEMO_WORDS).unwrap_or(0));
    }
    let name = fold(raw);
    let names_someone = any(&name, &["naam", "name", "nom", "nazev", "nazwa", "houder"]);
    if name.is_empty() {
        Role::Unknown
    } else if any(&name, INDICATOR_WORDS) {
        Role::Indicator
    } else if (any(&name, ID_WORDS) && !names_someone)
        || any(&name, OWN_WORDS)
        || any(&name, BALANCE_WORDS)
    {
        Role::Known
    } else if any(&name, CURRENCY_WORDS) && !any(&name, OTHER_AMOUNT_WORDS) {
        Role::Currency
    } else if is_date_name(&name) {
        Role::Date(date_rank(&name))
    } else if any(&name, TYPE_WORDS) {
        Role::Known
    } else if any(&name, DEBIT_WORDS) && !any(&name, CREDIT_WORDS) && !any(&name, MEMO_WORDS) {
        Role::Debit
    } else if any(&name, CREDIT_WORDS) && !any(&name, DEBIT_WORDS) && !any(&name, MEMO_WORDS) {
        Role::Credit
    } else if any(&name, AMOUNT_WORDS) {
        Role::Amount(if any(&name, OTHER_AMOUNT_WORDS) { 9 } else { 1 })
    } else if any(&name, RECIPIENT_WORDS) && !any(&name, PAYER_WORDS) {
        Role::PayeeOut
    } else if any(&name, PAYER_WORDS) && !any(&name, RECIPIENT_WORDS) {
        Role::PayeeIn
    } else if let Some(r) = rank(&name, PAYEE_WORDS) {
        Role::Payee(1 + r)
    } else if let Some(r) = rank(&name, MEMO_WORDS) {
        Role::Memo(r)
    } else {
        Role::Unknown
    }
}

fn is_date_name(name: &str) -> bool {
    any(name, DATE_WORDS) || name.ends_with("tag") || name == "day" || name.ends_with(" day")
}

/// Booking dates first, then the day of the purchase, any date, and the
/// value date last.
fn date_rank(name: &str) -> u8 {
    if any(name, BOOKING_WORDS) {
        0
    } else if any(name, TRANSACTION_WORDS) {
        1
    } else if any(name, VALUE_WORDS) {
        3
    } else {
        2
    }
}

/// The indicator pairs: what a cell says for money out, and for money in.
const INDICATORS: &[(&str, &str)] = &[
    ("s", "h"),
    ("d", "c"),
    ("af", "bij"),
    ("soll", "haben"),
    ("debit", "credit"),
    ("debet", "credit"),
    ("dr", "cr"),
    ("db", "cr"),
];

/// The column (other than `taken`) whose cells are all one of an
/// indicator pair.
fn indicator_by_content(rows: &[&Record], width: usize, taken: &[usize]) -> Option<usize> {
    (0..width).filter(|c| !taken.contains(c)).find(|&c| {
        let cells: Vec<String> = rows
            .iter()
            .map(|r| r.fields.get(c).unwrap_or("").trim().to_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        cells.len() >= 2
            && INDICATORS.iter().any(|(out, inn)| {
                cells.iter().all(|s| s == out || s == inn) && cells.iter().any(|s| s == out)
            })
    })
}

/// Whether the cells of column `c` are free text: mostly with letters, and
/// not dates, amounts, IBANs or single-word references.
fn holds_text(rows: &[&Record], c: usize) -> bool {
    let cells: Vec<&str> = rows
        .iter()
        .map(|r| r.fields.get(c).unwrap_or("").trim())
        .filter(|s| !s.is_empty())
        .collect();
    let texts = cells.iter().filter(|s| is_text(s)).count();
    !cells.is_empty() && texts * 2 > cells.len()
}

/// A cell of free text: with letters, and not a date, an amount, an IBAN
/// or a single-word reference.
fn is_text(s: &str) -> bool {
    let reference = s.len() >= 10 && !s.contains(' ') && s.chars().any(|c| c.is_ascii_digit());
    s.chars().any(char::is_alphabetic) && !looks_numeric(s) && !is_date(s) && !reference
}

fn is_date(s: &str) -> bool {
    DateFormat::DETECTED.iter().any(|f| f.parse(s).is_some())
}

/// Whether column `c` holds nothing in any row.
fn is_empty(rows: &[&Record], c: usize) -> bool {
    rows.iter()
        .all(|r| r.fields.get(c).unwrap_or("").trim().is_empty())
}

/// The column (other than `taken`, up to `width`) that marks some rows as
/// credits (`CR`) and leaves the others empty, beside an amount column
/// `amount` without a sign in any row: money out unless marked.
fn credit_mark(rows: &[&Record], width: usize, amount: usize, taken: &[usize]) -> Option<usize> {
    let unsigned = rows.iter().all(|r| {
        let a = r.fields.get(amount).unwrap_or("");
        !a.contains(['-', '−', '('])
    });
    if !unsigned {
        return None;
    }
    (0..width).filter(|c| !taken.contains(c)).find(|&c| {
        let cells: Vec<&str> = rows
            .iter()
            .map(|r| r.fields.get(c).unwrap_or("").trim())
            .collect();
        cells.iter().any(|s| is_credit_mark(s))
            && cells.iter().any(|s| s.is_empty())
            && cells.iter().all(|s| s.is_empty() || is_credit_mark(s))
    })
}

/// What a column's cells should look like, by its name and the layout:
/// used to find where rows shorter than the header lack their fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Holds {
    Date,
    Amount,
    Currency,
    Iban,
    Bic,
    /// A name or a text (a payee, a memo).
    Text,
    /// Anything: the name says nothing checkable.
    Any,
}

impl Holds {
    /// -1 for a cell that contradicts what its column holds, else 0 (an
    /// empty cell contradicts nothing).
    pub(super) fn fit(self, cell: &str) -> i64 {
        let s = cell.trim();
        if s.is_empty() {
            return 0;
        }
        let amount = || {
            s.chars().filter(|c| c.is_alphabetic()).count() <= 3
                && (parse_amount(s, ',').is_some() || parse_amount(s, '.').is_some())
        };
        let fits = match self {
            Holds::Date => is_date(s),
            Holds::Amount => amount(),
            Holds::Currency => s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase()),
            Holds::Iban => looks_iban(s),
            Holds::Bic => looks_bic(s),
            Holds::Text => !(is_date(s) || looks_numeric(s) || looks_iban(s) || looks_bic(s)),
            Holds::Any => true,
        };
        if fits {
            0
        } else {
            -1
        }
    }
}

fn looks_iban(s: &str) -> bool {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let b = s.as_bytes();
    (15..=34).contains(&b.len())
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..4].iter().all(u8::is_ascii_digit)
        && b.iter().all(u8::is_ascii_alphanumeric)
}

fn looks_bic(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() == 8 || b.len() == 11)
        && b[..6].iter().all(u8::is_ascii_uppercase)
        && b.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// What a column named `name` holds, as far as its cells can show it.
pub(super) fn holds(name: &str) -> Holds {
    let folded = fold(name);
    if any(&folded, &["iban"]) {
        return Holds::Iban;
    }
    if any(&folded, &["bic", "swift"]) {
        return Holds::Bic;
    }
    match role(name) {
        Role::Date(_) => Holds::Date,
        Role::Amount(_) | Role::Debit | Role::Credit => Holds::Amount,
        Role::Currency => Holds::Currency,
        Role::Payee(_) | Role::PayeeOut | Role::PayeeIn | Role::Memo(_) => Holds::Text,
        Role::Indicator | Role::Known | Role::Unknown => Holds::Any,
    }
}

/// The role of a column whose name says date or amount but whose cells
/// are text in most rows: what its name says of text, if anything (a
/// person's name in the header cell, `Habermann`, is not a credit column).
fn text_role(name: &str) -> Role {
    let name = fold(name);
    if let Some(r) = rank(&name, PAYEE_WORDS) {
        Role::Payee(1 + r)
    } else if let Some(r) = rank(&name, MEMO_WORDS) {
        Role::Memo(r)
    } else {
        Role::Unknown
    }
}

/// The layout of the header on record `i`, if its columns name a date and
/// an amount (or debit and credit columns). A name counts where the cells
/// fit it; of two columns for the payee, a name beats a number, and of
/// two memo columns, one with text beats an empty one.
pub(super) fn unknown_header(records: &[Record], i: usize) -> Option<Layout> {
    let mut names = header_names(&records[i].fields);
    if names.len() < 2 || records[i].fields.iter().any(looks_numeric) {
        return None;
    }
    let rows: Vec<&Record> = records[i + 1..]
        .iter()
        .filter(|r| !is_note(&r.fields))
        .take(50)
        .collect();
    // The cells of a column are those of rows as long as the header (a
    // shorter row's fields may stand elsewhere), if there are any.
    let full: Vec<&Record> = rows
        .iter()
        .copied()
        .filter(|r| r.fields.len() >= names.len())
        .collect();
    let roles: Vec<Role> = names
        .iter()
        .enumerate()
        .map(|(c, n)| match role(n) {
            Role::Date(_) | Role::Amount(_) | Role::Debit | Role::Credit
                if holds_text(&full, c) =>
            {
                text_role(n)
            }
            r => r,
        })
        .collect();
    let rows = if full.is_empty() { rows } else { full };
    let best = |pick: &dyn Fn(Role) -> Option<u8>| {
        roles
            .iter()
            .enumerate()
            .filter_map(|(c, r)| pick(*r).map(|rank| (rank, c)))
            .min()
            .map(|(_, c)| c)
    };
    let date = best(&|r| match r {
        Role::Date(n) => Some(n),
        _ => None,
    })?;
    let signed = best(&|r| match r {
        Role::Amount(n) => Some(n),
        _ => None,
    });
    let first = |wanted: Role| roles.iter().position(|r| *r == wanted);
    let mut amount = match (signed, first(Role::Debit), first(Role::Credit)) {
        (_, Some(d), Some(c)) if signed.is_none_or(|a| roles[a] != Role::Amount(0)) => {
            AmountCols::DebitCredit(d, c)
        }
        (Some(a), _, _) => AmountCols::Signed(a),
        _ => return None,
    };
    // A mark may stand in a column the header does not name.
    let width = rows
        .iter()
        .map(|r| r.fields.len())
        .max()
        .unwrap_or(0)
        .max(names.len());
    let mut flag = None;
    if let AmountCols::Signed(a) = amount {
        let taken = [date, a];
        let named = first(Role::Indicator);
        if let Some(f) = named.or_else(|| indicator_by_content(&rows, names.len(), &taken)) {
            amount = AmountCols::Flag(a, f);
            flag = Some(f);
        } else if let Some(f) = credit_mark(&rows, width, a, &taken) {
            amount = AmountCols::CreditMark(a, f);
            flag = Some(f);
            while names.len() <= f {
                names.push(format!("column {}", names.len() + 1));
            }
        }
    }
    // Of the columns a name gives the payee, those with names in their
    // rows first; of the memo's, those with anything in their rows.
    let text = |c: usize| u8::from(!holds_text(&rows, c));
    let payee = match (first(Role::PayeeOut), first(Role::PayeeIn)) {
        (Some(out), Some(inn)) => PayeeCol::BySign(out, inn),
        (out, inn) => roles
            .iter()
            .enumerate()
            .filter_map(|(c, r)| match r {
                Role::Payee(n) => Some(((text(c), *n), c)),
                _ => None,
            })
            .min()
            .map(|(_, c)| c)
            .or(out)
            .or(inn)
            .map_or(PayeeCol::None, PayeeCol::Col),
    };
    let memo = roles
        .iter()
        .enumerate()
        .filter_map(|(c, r)| match r {
            Role::Memo(n) => Some(((u8::from(is_empty(&rows, c)), *n), c)),
            _ => None,
        })
        .min()
        .map(|(_, c)| c)
        .filter(|m| PayeeCol::Col(*m) != payee);
    // No name says payee, or the one it names holds no names: the first
    // column of free text no name explains, or a description that names
    // the merchant.
    let unknown_text = (0..roles.len())
        .find(|&c| roles[c] == Role::Unknown && Some(c) != flag && holds_text(&rows, c));
    let payee = match payee {
        PayeeCol::None => unknown_text
            .or_else(|| memo.filter(|&m| any(&fold(&names[m]), DESCRIBES_MERCHANT)))
            .map_or(PayeeCol::None, PayeeCol::Col),
        PayeeCol::Col(p) if !holds_text(&rows, p) => PayeeCol::Col(unknown_text.unwrap_or(p)),
        p => p,
    };
    let currency = first(Role::Currency);
    Some(with_header(
        None,
        i,
        names,
        date,
        amount,
        payee,
        memo.map_or(MemoCol::None, MemoCol::Col),
        currency,
    ))
}

/// Where rows shorter than the header lack their fields, read from
/// their content: of every place the missing fields could be, the one
/// where the most cells of the sample fit what their column's name
/// says they hold (a date, an amount, a currency, an IBAN, a BIC, a
/// name or text) and the fewest do not; a tie keeps the place the
/// layout assumed (`docs/import-formats.md`, step 6).
pub(super) fn align_short_rows(layout: &mut Layout, data: &[Record]) {
    let short: Vec<&Record> = data
        .iter()
        .filter(|r| !is_note(&r.fields) && r.fields.len() < layout.header_len)
        .take(200)
        .collect();
    if short.is_empty() {
        return;
    }
    let expected: Vec<Holds> = layout
        .columns
        .iter()
        .enumerate()
        .map(|(c, name)| column_holds(layout, c, name))
        .collect();
    let score = |from: Option<usize>| -> i64 {
        short
            .iter()
            .map(|r| {
                let missing = layout.header_len - r.fields.len();
                expected
                    .iter()
                    .enumerate()
                    .map(|(c, holds)| {
                        aligned(&r.fields, c, missing, from).map_or(0, |cell| holds.fit(cell))
                    })
                    .sum::<i64>()
            })
            .sum()
    };
    let assumed = score(layout.right_from);
    let best = (1..=layout.header_len)
        .map(|from| (score(Some(from)), from))
        .max_by_key(|(s, from)| (*s, *from));
    if let Some((s, from)) = best {
        if s > assumed {
            layout.right_from = Some(from);
        }
    }
}

/// What column `c` (named `name`) holds, by the layout and the name.
fn column_holds(layout: &Layout, c: usize, name: &str) -> Holds {
    if c == layout.date {
        Holds::Date
    } else if layout.amount_columns().contains(&c) {
        Holds::Amount
    } else if layout.currency == Some(c) {
        Holds::Currency
    } else {
        holds(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_what_a_column_holds_in_many_languages() {
        for (name, want) in [
            ("Buchungsdatum", Role::Date(0)),
            ("Date Processed", Role::Date(0)),
            ("Transactiedatum", Role::Date(1)),
            ("Valutadatum", Role::Date(3)),
            ("Datum zaúčtování", Role::Date(0)),
            ("Data księgowania", Role::Date(0)),
            ("Lastschrift in CHF", Role::Debit),
            ("Gutschrift in CHF", Role::Credit),
            ("Částka", Role::Amount(1)),
            ("Ursprungsbetrag", Role::Amount(9)),
            ("CreditDebet", Role::Indicator),
            ("Af Bij", Role::Indicator),
            ("Zahlungsempfänger", Role::PayeeOut),
            ("Auftraggebername", Role::PayeeIn),
            ("Name Zahlungsbeteiligter", Role::Payee(0)),
            ("IBAN Zahlungsbeteiligter", Role::Known),
            ("Tegenrekening naam", Role::Payee(16)),
            ("Tegenrekening", Role::Known),
            ("Bezeichnung Auftragskonto", Role::Known),
            ("Saldo na trn", Role::Known),
            ("Omschrijving", Role::Memo(4)),
            ("Název protiúčtu", Role::Payee(24)),
            ("Währung", Role::Currency),
            ("Valutacode", Role::Currency),
            ("", Role::Unknown),
        ] {
            let got = role(&name.to_lowercase());
            match want {
                Role::Date(_) | Role::Amount(_) => assert_eq!(got, want, "{name}"),
                _ => assert_eq!(
                    std::mem::discriminant(&got),
                    std::mem::discriminant(&want),
                    "{name}: {got:?}"
                ),
            }
        }
    }

    use super::super::{read, Choice, Statement};

    fn read_ok(bytes: &[u8]) -> Statement {
        read(bytes, None, &Choice::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// (date, amount, payee, memo) of every row.
    fn rows(s: &Statement) -> Vec<(String, String, String, String)> {
        s.rows
            .iter()
            .map(|r| {
                (
                    r.date.map_or("-".into(), |d| d.to_string()),
                    r.amount.map_or("-".into(), |a| format!("{a:.2}")),
                    r.payee.clone(),
                    r.memo.clone(),
                )
            })
            .collect()
    }

    fn row(date: &str, amount: &str, payee: &str, memo: &str) -> (String, String, String, String) {
        (date.into(), amount.into(), payee.into(), memo.into())
    }

    #[test]
    fn a_german_direct_banks_comma_export_keeps_its_payees() {
        let file = "\"Datum\",\"Zahlungsempfänger\",\"Kontonummer\",\"Transaktionstyp\",\"Verwendungszweck\",\"Betrag (EUR)\",\"Betrag (Fremdwährung)\",\"Fremdwährung\",\"Wechselkurs\"\n\
            \"2024-11-02\",\"REWE Markt\",\"\",\"MasterCard Zahlung\",\"\",\"-23.99\",\"-23.99\",\"USD\",\"1.0\"\n\
            \"2024-11-03\",\"Anna Schmidt\",\"DE89370400440532013000\",\"Gutschrift\",\"Miete November\",\"650.0\",\"\",\"\",\"\"\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s),
            [
                row("2024-11-02", "-23.99", "REWE Markt", ""),
                row("2024-11-03", "650.00", "Anna Schmidt", "Miete November"),
            ]
        );
        // The foreign currency column is not the booking's currency.
        assert_eq!(s.rows[0].currency, None);
    }

    #[test]
    fn an_atruvia_export_names_its_counterparty() {
        let file = "Bezeichnung Auftragskonto;IBAN Auftragskonto;BIC Auftragskonto;Bankname Auftragskonto;Buchungstag;Valutadatum;Name Zahlungsbeteiligter;IBAN Zahlungsbeteiligter;BIC (SWIFT-Code) Zahlungsbeteiligter;Buchungstext;Verwendungszweck;Betrag;Waehrung;Saldo nach Buchung;Bemerkung;Kategorie;Steuerrelevant;Glaeubiger ID;Mandatsreferenz\n\
            Girokonto;DE02120300000000202051;BYLADEM1001;Sparda-Bank;04.11.2024;02.11.2024;REWE Markt GmbH;DE12500105170648489890;INGDDEFFXXX;Kartenzahlung;REWE SAGT DANKE;-23,99;EUR;1.000,00;;;;;\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s),
            [row(
                "2024-11-04",
                "-23.99",
                "REWE Markt GmbH",
                "REWE SAGT DANKE"
            )]
        );
    }

    #[test]
    fn a_us_credit_unions_description_is_the_payee() {
        let file = "Date,Description,Amount,Balance\n\
            11/02/2024,\"AMAZON.COM*2K3 SEATTLE WA\",-23.99,1000.00\n\
            11/15/2024,\"PAYROLL ACME INC\",2500.00,3500.00\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s)[0],
            row(
                "2024-11-02",
                "-23.99",
                "AMAZON.COM*2K3 SEATTLE WA",
                "AMAZON.COM*2K3 SEATTLE WA"
            )
        );
    }

    #[test]
    fn a_dutch_credit_debit_column_signs_the_amount_and_the_booking_day_counts() {
        let file = "\"Rekeningnummer\";\"Transactiedatum\";\"Valutacode\";\"CreditDebet\";\"Bedrag\";\"Tegenrekeningnummer\";\"Tegenrekeninghouder\";\"Valutadatum\";\"Betaalwijze\";\"Omschrijving\";\"Type betaling\";\"Machtigingsnummer\";\"Incassant ID\";\"Adres\";\"Referentie\";\"Boekdatum\"\n\
            \"NL01KNAB0123456789\";\"02-11-2024\";\"EUR\";\"D\";\"23,99\";\"NL02INGB0001234567\";\"Albert Heijn\";\"04-11-2024\";\"Betaalautomaat\";\"AH 1234 Amsterdam\";\"\";\"\";\"\";\"\";\"\";\"03-11-2024\"\n\
            \"NL01KNAB0123456789\";\"05-11-2024\";\"EUR\";\"C\";\"650,00\";\"NL03RABO0123456789\";\"J. de Vries\";\"05-11-2024\";\"Overboeking\";\"Huur november\";\"\";\"\";\"\";\"\";\"\";\"05-11-2024\"\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s),
            [
                row("2024-11-03", "-23.99", "Albert Heijn", "AH 1234 Amsterdam"),
                row("2024-11-05", "650.00", "J. de Vries", "Huur november"),
            ]
        );
    }

    #[test]
    fn separate_payer_and_recipient_columns_give_the_counterparty_by_sign() {
        let file = "Buchungsdatum;Valutadatum;Betrag;Währung;Auftraggebername;Auftraggeber IBAN;Empfängername;Empfänger IBAN;Verwendungszweck\n\
            02.11.2024;02.11.2024;-23,99;EUR;Max Muster;AT611904300234573201;BILLA AG;AT021100000012345678;BILLA DANKT\n\
            03.11.2024;03.11.2024;2.500,00;EUR;ACME GmbH;AT031200000012345678;Max Muster;AT611904300234573201;Gehalt November\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s),
            [
                row("2024-11-02", "-23.99", "BILLA AG", "BILLA DANKT"),
                row("2024-11-03", "2500.00", "ACME GmbH", "Gehalt November"),
            ]
        );
    }

    #[test]
    fn key_value_lines_before_and_a_disclaimer_after_are_not_bookings() {
        let file = "Datum von:;01.11.2024\nDatum bis:;30.11.2024\nKontotyp:;Privatkonto\nKonto:;CH5609000000123456789\nWährung:;CHF\nBuchungsart:;Alle Buchungen\n\
            Buchungsdatum;Avisierungstext;Gutschrift in CHF;Lastschrift in CHF;Valuta;Saldo in CHF\n\
            02.11.2024;\"KAUF/DIENSTLEISTUNG VOM 01.11.2024 COOP-1234 ZUERICH\";;-23.95;02.11.2024;1000.00\n\
            05.11.2024;\"GIRO AUS KONTO ACME AG\";2500.00;;05.11.2024;3500.00\n\
            \nDisclaimer:;\nDies ist kein durch PostFinance AG erstelltes Dokument.;Es gilt der Kontoauszug.\n";
        let s = read_ok(file.as_bytes());
        let got: Vec<_> = rows(&s).into_iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(
            got,
            [
                ("2024-11-02".to_string(), "-23.95".to_string()),
                ("2024-11-05".to_string(), "2500.00".to_string())
            ]
        );
        assert_eq!(s.format.header_line, Some(7));
    }

    #[test]
    fn a_czech_windows_1250_file_is_found_out_and_read() {
        let text = "Datum zaúčtování;Částka;Měna;Název protiúčtu;Zpráva pro příjemce\n\
            02.11.2024;-23,99;CZK;Albert Česká republika;Nákup potravin\n\
            03.11.2024;-120,00;CZK;Lékárna Dr. Max;Léky pro děti\n";
        let (bytes, _, unmappable) = encoding_rs::WINDOWS_1250.encode(text);
        assert!(!unmappable);
        let s = read_ok(&bytes);
        assert_eq!(s.format.encoding, "windows-1250");
        assert_eq!(
            rows(&s)[0],
            row(
                "2024-11-02",
                "-23.99",
                "Albert Česká republika",
                "Nákup potravin"
            )
        );
        assert_eq!(s.rows[0].currency.as_deref(), Some("CZK"));
    }

    #[test]
    fn a_header_ending_in_an_empty_cell_is_read() {
        let file = "Date Processed, Description, Amount,\n02/11/2024, TESCO STORES 1234, -23.99,\n15/11/2024, SALARY ACME LTD, 2500.00,\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s)[0],
            row(
                "2024-11-02",
                "-23.99",
                "TESCO STORES 1234",
                "TESCO STORES 1234"
            )
        );
    }

    #[test]
    fn a_balance_line_before_the_header_is_the_closing_balance() {
        let file = "\"Girokonto\";\"DE02120300000000202051\"\n\"\"\n\"Kontostand vom 30.12.2024:\";\"3.600,00 €\"\n\"\"\n\
            \"Buchungsdatum\";\"Zahlungsempfänger*in\";\"Verwendungszweck\";\"Betrag (€)\"\n\
            \"30.12.24\";\"REWE\";\"Einkauf\";\"-23,99\"\n";
        let s = read_ok(file.as_bytes());
        let closing = s.format.closing_balance.expect("the balance line");
        assert_eq!(closing.date.to_string(), "2024-12-30");
        assert_eq!(format!("{:.2}", closing.amount), "3600.00");
        assert_eq!(closing.currency.as_deref(), Some("EUR"));
        // An opening balance is not the closing one; a balance without a
        // day is the balance after the last booking.
        let opening = file.replace("Kontostand vom 30.12.2024:", "Anfangssaldo");
        assert!(read_ok(opening.as_bytes()).format.closing_balance.is_none());
        let undated = file.replace("Kontostand vom 30.12.2024:", "Saldo");
        let closing = read_ok(undated.as_bytes()).format.closing_balance.unwrap();
        assert_eq!(closing.date.to_string(), "2024-12-30");
    }

    #[test]
    fn a_card_exports_cr_mark_in_an_unnamed_column_makes_a_credit() {
        let file = "Date,Description,Amount,\n\
            12-Dec-2019,TESCO STORES 3297,23.45,\n\
            16-Dec-2019,PAYMENT RECEIVED - THANK YOU,500.00,CR\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.format.date_format.as_deref(), Some("%d-%b-%Y"));
        assert_eq!(
            rows(&s),
            [
                row(
                    "2019-12-12",
                    "-23.45",
                    "TESCO STORES 3297",
                    "TESCO STORES 3297"
                ),
                row(
                    "2019-12-16",
                    "500.00",
                    "PAYMENT RECEIVED - THANK YOU",
                    "PAYMENT RECEIVED - THANK YOU"
                ),
            ]
        );
        let columns = s.format.columns.unwrap();
        assert_eq!(columns.direction.as_deref(), Some("column 4"));
        // Signed amounts are taken as signed, whatever a CR column says.
        let signed = file.replace(",23.45,", ",-23.45,");
        assert_eq!(rows(&read_ok(signed.as_bytes()))[1].1, "500.00");
        assert_eq!(rows(&read_ok(signed.as_bytes()))[0].1, "-23.45");
    }

    #[test]
    fn a_name_beats_a_number_for_the_payee() {
        let file = "Datum zaúčtování;Číslo protiúčtu;Název protiúčtu;Částka;Měna\n\
            02.11.2024;19-2000145399/0800;Albert Česká republika;-23,99;CZK\n\
            03.11.2024;2501234567/2010;Jana Nováková;-120,00;CZK\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.rows[0].payee, "Albert Česká republika");
        assert_eq!(s.rows[1].payee, "Jana Nováková");
    }

    #[test]
    fn a_memo_column_with_text_beats_an_empty_one() {
        let file = "DATE,DESCRIPTION,MEMO,AMOUNT\n\
            11/04/2024,AMAZON.COM*2K3 SEATTLE WA,,-23.99\n\
            11/15/2024,PAYROLL ACME INC,,2500.00\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(
            rows(&s)[0],
            row(
                "2024-11-04",
                "-23.99",
                "AMAZON.COM*2K3 SEATTLE WA",
                "AMAZON.COM*2K3 SEATTLE WA"
            )
        );
        // With a memo in some row, the memo column is read as named.
        let memo = file.replace(",PAYROLL ACME INC,,", ",PAYROLL ACME INC,November,");
        let s = read_ok(memo.as_bytes());
        assert_eq!(s.rows[1].memo, "November");
    }

    #[test]
    fn a_column_of_names_under_a_name_that_says_otherwise_is_the_payee() {
        // `Habermann` holds the Spanish `haber` (credit): the cells, names
        // in every row, decide.
        for person in ["Elke Habermann", "Jens Mustermann"] {
            let file = format!(
                "Buchungstag;Buchungstext;{person};Verwendungszweck;Betrag\n\
                 04.11.2024;Kartenzahlung;REWE Markt GmbH;REWE SAGT DANKE;-23,99\n\
                 29.11.2024;Gutschrift;ACME GmbH;Gehalt November;2.450,00\n"
            );
            let s = read_ok(file.as_bytes());
            assert_eq!(
                rows(&s),
                [
                    row("2024-11-04", "-23.99", "REWE Markt GmbH", "REWE SAGT DANKE"),
                    row("2024-11-29", "2450.00", "ACME GmbH", "Gehalt November"),
                ],
                "{person}"
            );
        }
    }

    #[test]
    fn cells_contradict_their_column_or_not() {
        for (name, cell, fit) in [
            ("PAYEE_BIC", "INGDDEFFXXX", 0),
            ("PURPOSE", "INGDDEFFXXX", -1),
            ("PURPOSE", "Miete November", 0),
            ("PAYEE_IBAN", "DE12 5001 0517 0648 4898 90", 0),
            ("PAYEE_IBAN", "REWE Markt", -1),
            ("Betrag", "-1.234,56", 0),
            ("Betrag", "Gehalt November 2024", -1),
            ("Währung", "EUR", 0),
            ("Währung", "-23,99", -1),
            ("Buchungstag", "12-Dec-2019", 0),
            ("Mandat", "anything", 0),
            ("PURPOSE", "", 0),
        ] {
            assert_eq!(holds(name).fit(cell), fit, "{name}: {cell}");
        }
    }
}
