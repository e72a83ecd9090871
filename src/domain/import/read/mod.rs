//! Reading a bank's file as the bank wrote it. A statement format (CAMT,
//! MT940, OFX, QIF) is recognised by its content and read by
//! [`super::statement`]; anything else is read as CSV: encoding, delimiter,
//! preamble, header, decimal and date formats, sign conventions, and the
//! layouts of common banks recognised without a mapping.

mod banks;
mod guess;
mod layout;
mod text;
mod values;

pub use super::row::{Problem, Row};
use super::statement::{self, Kind};
use crate::domain::money::Money;

pub use banks::label;
pub use statement::most;
pub use values::parse_amount;

use layout::{detect_date_format, detect_decimal, detect_layout, layout_from_mapping};
use text::{
    decode, detect_delimiter, file_kind, header_names, is_note, likely_header, long_field,
    looks_binary, looks_numeric, preamble_balance, Record, Records, HEAD_RECORDS,
};
use values::DateFormat;

use super::budget::{Budget, Stop};
use crate::error::{FileKind, Part, Reason};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Files with more data rows than this are refused.
pub const MAX_ROWS: usize = 200_000;

/// The longest field a file may have, in bytes: far above any booking
/// text, and small enough that a file with an unterminated quote (whose
/// last field would run to its end) is refused before it is parsed.
pub const FIELD_MAX: usize = 64 * 1024;

/// How a file was read: the batch's `format`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Format {
    /// `csv`, `camt.053`, `camt.052`, `mt940`, `ofx` or `qif`.
    #[serde(default = "csv")]
    pub kind: String,
    /// The id of a recognised CSV layout (`sparkasse-camt`, `dkb`, …), or None.
    pub bank: Option<String>,
    /// `utf-8`, `windows-1252`, …
    pub encoding: String,
    /// CSV only, like the three fields after it.
    pub delimiter: Option<String>,
    pub decimal_separator: Option<String>,
    /// A chrono pattern such as `%d.%m.%y`.
    pub date_format: Option<String>,
    /// The 1-based line of the header, None when the layout has none.
    pub header_line: Option<usize>,
    /// The booked closing balance the file states, if it states one.
    #[serde(default)]
    pub closing_balance: Option<ClosingBalance>,
    /// The account the file's statements are of (an IBAN, or the account
    /// number as the file writes it), when it names one.
    #[serde(default)]
    pub account_iban: Option<String>,
    /// The columns a CSV file of no known bank was read from, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Columns>,
}

/// Which columns were read as what (a header's names, or `column 3`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Columns {
    pub date: String,
    /// A signed amount, or one signed by `direction`.
    pub amount: Option<String>,
    pub debit: Option<String>,
    pub credit: Option<String>,
    /// The column saying whether an amount is money out or in.
    pub direction: Option<String>,
    /// The payee; of money out only when `payee_in` is there too.
    pub payee: Option<String>,
    pub payee_in: Option<String>,
    pub memo: Option<String>,
    pub currency: Option<String>,
    /// Every column of the header, in order.
    pub found: Vec<String>,
}

fn csv() -> String {
    "csv".to_string()
}

/// A balance the file states as booked at the end of a day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClosingBalance {
    pub date: NaiveDate,
    /// Signed: negative is an overdrawn account.
    pub amount: Money,
    /// The statement's currency, when the file states it.
    #[serde(default)]
    pub currency: Option<String>,
}

impl ClosingBalance {
    /// Whether to offer it ticked: it is of a day on or after the one the
    /// account's balance was last set (`None`: never).
    pub fn is_newer_than(&self, balance_set: Option<NaiveDate>) -> bool {
        balance_set.is_none_or(|set| self.date >= set)
    }
}

/// Which account of a file with statements of several accounts to read.
#[derive(Clone, Debug, Default)]
pub struct Choice {
    /// The one asked for (`accountIban`).
    pub given: Option<String>,
    /// The ones earlier files of the import account were read from.
    pub known: Vec<String>,
}

/// A column, by header name or 0-based index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Column {
    Index(usize),
    Name(String),
}

/// The user's description of a layout that is not recognised.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Mapping {
    pub date: Option<Column>,
    pub amount: Option<Column>,
    pub debit: Option<Column>,
    pub credit: Option<Column>,
    pub payee: Option<Column>,
    /// With `payee`: the payer of money in, `payee` being the recipient of
    /// money out.
    pub payee_in: Option<Column>,
    /// With `amount`: the column saying whether it is money out or in.
    pub direction: Option<Column>,
    pub memo: Option<Column>,
    pub currency: Option<Column>,
    pub date_format: Option<String>,
    pub decimal_separator: Option<String>,
    /// Absent: detect; `null`: the file has no header; a number: its line.
    #[serde(with = "serde_with_null", skip_serializing_if = "Option::is_none")]
    pub header_line: Option<Option<usize>>,
}

mod serde_with_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub fn serialize<S: Serializer>(v: &Option<Option<usize>>, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<usize>>, D::Error> {
        Option::<usize>::deserialize(d).map(Some)
    }
}

/// A file read.
#[derive(Clone, Debug)]
pub struct Statement {
    pub format: Format,
    /// The header's names (or `column 1`, … without a header).
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// Why a whole file is refused. Each names the input field at fault.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadError {
    /// No bytes, or no data rows.
    Empty,
    /// Data rows, this many, none of them with a readable date or amount.
    Unreadable {
        rows: usize,
    },
    /// Not text; what it is when that is known.
    Binary(Option<FileKind>),
    TooManyRows,
    /// A field longer than [`FIELD_MAX`], starting on this 1-based line
    /// (most often a quote that is never closed).
    FieldTooLong {
        line: usize,
    },
    /// More of `part` than a bank's file has ([`most`]), found by this
    /// 1-based line; refused as the file is read, before it takes memory.
    TooMuch {
        part: Part,
        line: usize,
    },
    /// Statements of more than [`statement::MAX_ACCOUNTS`] accounts.
    TooManyAccounts,
    /// Reading ran out of its time or was called off ([`Budget`]).
    Stopped(Stop),
    /// Neither a known layout nor a mapping: the columns found.
    UnknownLayout {
        columns: Vec<String>,
    },
    /// The mapping does not fit the file; `field` is the mapping's field.
    Mapping {
        field: String,
        reason: Reason,
    },
    /// A statement file that cannot be read from this 1-based line on.
    Statement {
        kind: &'static str,
        line: usize,
    },
    /// Statements of several accounts, and none chosen: their identifiers.
    SeveralAccounts {
        accounts: Vec<String>,
    },
    /// The account asked for is not in the file, which holds these.
    NoSuchAccount {
        given: String,
        accounts: Vec<String>,
    },
}

/// Reads `bytes`: a statement format by its reader (one account of it, as
/// `choice` says), anything else as CSV with `mapping`, or detecting the
/// layout without one.
pub fn read(
    bytes: &[u8],
    mapping: Option<&Mapping>,
    choice: &Choice,
) -> Result<Statement, ReadError> {
    read_within(bytes, mapping, choice, &Budget::unlimited())
}

/// [`read`] within `budget`: refused with [`ReadError::Stopped`] once its
/// time is up or it is called off.
pub fn read_within(
    bytes: &[u8],
    mapping: Option<&Mapping>,
    choice: &Choice,
    budget: &Budget,
) -> Result<Statement, ReadError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ReadError::Empty);
    }
    match statement::sniff(bytes) {
        Some(kind) => read_statement(bytes, kind, choice, budget),
        None => read_csv(bytes, mapping, budget),
    }
}

/// A known bank's layout, or else any header read by the words of its
/// names and the rows below it.
fn detect(records: &[Record]) -> Option<layout::Layout> {
    detect_layout(records)
        .or_else(|| (0..records.len().min(60)).find_map(|i| guess::unknown_header(records, i)))
}

/// One account of a statement file.
fn read_statement(
    bytes: &[u8],
    kind: Kind,
    choice: &Choice,
    budget: &Budget,
) -> Result<Statement, ReadError> {
    // No value of these formats runs longer than a CSV cell may without a
    // tag or a line break: refused before the file is decoded and parsed.
    if let Some(line) = long_text(bytes, FIELD_MAX) {
        return Err(ReadError::FieldTooLong { line });
    }
    statement_of(statement::read_within(bytes, budget), kind, choice)
}

/// One account of a statement file of `kind` as read.
fn statement_of(
    parsed: Result<statement::Parsed, statement::Error>,
    kind: Kind,
    choice: &Choice,
) -> Result<Statement, ReadError> {
    let parsed = parsed.map_err(|e| match e {
        statement::Error::Empty => ReadError::Empty,
        statement::Error::TooManyRows => ReadError::TooManyRows,
        statement::Error::TooMuch { part, line } => ReadError::TooMuch { part, line },
        statement::Error::TooManyAccounts => ReadError::TooManyAccounts,
        statement::Error::Stopped(stop) => ReadError::Stopped(stop),
        statement::Error::Malformed { line } => ReadError::Statement {
            kind: kind.code(),
            line,
        },
    })?;
    let account = choose(parsed.accounts, choice)?;
    if account.rows.is_empty() {
        return Err(ReadError::Empty);
    }
    // The bound a CSV cell has holds for a statement's texts too.
    if let Some(long) = account
        .rows
        .iter()
        .find(|r| r.payee.len() > FIELD_MAX || r.memo.len() > FIELD_MAX)
    {
        return Err(ReadError::FieldTooLong { line: long.line });
    }
    let currency = account.currency.clone();
    Ok(Statement {
        format: Format {
            kind: kind.code().to_string(),
            bank: None,
            encoding: parsed.encoding.to_string(),
            delimiter: None,
            decimal_separator: None,
            date_format: None,
            header_line: None,
            columns: None,
            closing_balance: account.closing.map(|b| ClosingBalance {
                date: b.date,
                amount: b.amount.into(),
                currency,
            }),
            account_iban: Some(account.id).filter(|id| !id.is_empty()),
        },
        columns: Vec::new(),
        rows: account.rows,
    })
}

/// The 1-based line on which a run of more than `max` bytes without a line
/// break or a tag's `<` or `>` starts.
fn long_text(bytes: &[u8], max: usize) -> Option<usize> {
    let (mut run, mut line, mut run_line) = (0usize, 1usize, 1usize);
    for &b in bytes {
        match b {
            b'\n' | b'\r' | b'<' | b'>' => {
                if b == b'\n' {
                    line += 1;
                }
                run = 0;
                run_line = line;
            }
            _ => {
                run += 1;
                if run > max {
                    return Some(run_line);
                }
            }
        }
    }
    None
}

/// An account identifier as compared: without spaces, upper case.
fn account_key(id: &str) -> String {
    id.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_uppercase()
}

/// The account of the file that `choice` asks for; the only one when none
/// is asked for; else the one earlier files of the import account were
/// read from; else a refusal listing them.
fn choose(
    accounts: Vec<statement::Account>,
    choice: &Choice,
) -> Result<statement::Account, ReadError> {
    let ids = || accounts.iter().map(|a| a.id.clone()).collect::<Vec<_>>();
    let position = |wanted: &str| {
        let wanted = account_key(wanted);
        accounts.iter().position(|a| account_key(&a.id) == wanted)
    };
    let at = match choice.given.as_deref().map(str::trim) {
        Some(given) if !given.is_empty() => {
            position(given).ok_or_else(|| ReadError::NoSuchAccount {
                given: given.to_string(),
                accounts: ids(),
            })?
        }
        _ if accounts.len() == 1 => 0,
        _ => choice
            .known
            .iter()
            .find_map(|k| position(k))
            .ok_or_else(|| ReadError::SeveralAccounts { accounts: ids() })?,
    };
    accounts.into_iter().nth(at).ok_or(ReadError::Empty)
}

/// An uploaded file, held once: a file in a single-byte encoding (most
/// German banks' Windows-1252 CSV, MT940 or OFX) is decoded as it arrives
/// and its bytes are let go, so that the file is not held twice, as bytes
/// and as text, while its rows are read (`docs/performance.md`). It may be
/// read more than once ([`Upload::read`], with another mapping).
pub struct Upload {
    file: File,
    /// The statement format of a file held as text; None for CSV.
    kind: Option<Kind>,
}

/// How an [`Upload`] holds its file.
#[derive(Debug, PartialEq)]
enum File {
    /// The bytes as sent, when no text is read from them here: a blank or
    /// binary file, or a statement [`read_within`] refuses for a long text.
    Bytes(Vec<u8>),
    /// A UTF-8 file, checked as it arrived: its own text, which starts at
    /// `start` (after a byte-order mark), so that it is not scanned again.
    Utf8 { text: String, start: usize },
    /// A file in another encoding, decoded as it arrived, its bytes let go.
    Decoded {
        text: String,
        encoding: &'static str,
    },
}

impl Upload {
    pub fn new(bytes: Vec<u8>) -> Upload {
        let bytes_only = |bytes| Upload {
            file: File::Bytes(bytes),
            kind: None,
        };
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return bytes_only(bytes);
        }
        let kind = statement::sniff(&bytes);
        let refused = match kind {
            // A file refused for a long text is refused from its bytes.
            Some(_) => long_text(&bytes, FIELD_MAX).is_some(),
            None => looks_binary(&bytes),
        };
        if refused {
            return bytes_only(bytes);
        }
        // Both decoders take a file that is UTF-8 (after a byte-order mark)
        // as it is.
        let file = match String::from_utf8(bytes) {
            Ok(text) => File::Utf8 {
                start: text
                    .strip_prefix('\u{feff}')
                    .map_or(0, |_| '\u{feff}'.len_utf8()),
                text,
            },
            Err(e) => {
                let bytes = e.into_bytes();
                let (text, encoding) = match kind {
                    Some(kind) => statement::decode(&bytes, kind),
                    None => decode(&bytes),
                };
                File::Decoded {
                    text: text.into_owned(),
                    encoding,
                }
            }
        };
        Upload { file, kind }
    }

    /// [`read_within`] of the file.
    pub fn read(
        &self,
        mapping: Option<&Mapping>,
        choice: &Choice,
        budget: &Budget,
    ) -> Result<Statement, ReadError> {
        let (text, encoding) = match &self.file {
            File::Bytes(bytes) => return read_within(bytes, mapping, choice, budget),
            File::Utf8 { text, start } => (&text[*start..], "utf-8"),
            File::Decoded { text, encoding } => (text.as_str(), *encoding),
        };
        match self.kind {
            Some(kind) => statement_of(
                statement::read_text_within(text, encoding, kind, budget),
                kind,
                choice,
            ),
            None => read_text(text, encoding, mapping, budget),
        }
    }
}

/// Reads CSV text with `mapping`, or detects the layout without one.
fn read_csv(
    bytes: &[u8],
    mapping: Option<&Mapping>,
    budget: &Budget,
) -> Result<Statement, ReadError> {
    if looks_binary(bytes) {
        return Err(ReadError::Binary(file_kind(bytes)));
    }
    let (text, encoding) = decode(bytes);
    read_text(&text, encoding, mapping, budget)
}

/// [`read_csv`] of the file's text, decoded from `encoding`.
fn read_text(
    text: &str,
    encoding: &str,
    mapping: Option<&Mapping>,
    budget: &Budget,
) -> Result<Statement, ReadError> {
    let delimiter = detect_delimiter(text);
    if let Some(refused) = long_field(text.as_bytes(), delimiter, FIELD_MAX, most(Part::Fields)) {
        return Err(refused);
    }
    // The first records decide the layout; the rest are read one by one,
    // so a large file is never held twice.
    let mut records = Records::new(text, delimiter);
    let head: Vec<Record> = records.by_ref().take(HEAD_RECORDS).collect();
    let mut layout = match mapping {
        Some(m) => layout_from_mapping(m, &head, detect)?,
        None => detect(&head).ok_or_else(|| ReadError::UnknownLayout {
            columns: likely_header(&head),
        })?,
    };
    let data = head.get(layout.first_row..).unwrap_or(&[]);
    guess::align_short_rows(&mut layout, data);
    let decimal = match mapping.and_then(|m| m.decimal_separator.as_deref()) {
        Some(d) => d.chars().next().unwrap_or(','),
        None => detect_decimal(&layout, data, delimiter),
    };
    let dates = match mapping.and_then(|m| m.date_format.as_deref()) {
        Some(f) => DateFormat::given(f),
        None => detect_date_format(&layout, data),
    };
    let header_line = layout.header.map(|i| head[i].line);
    let columns = layout.bank.is_none().then(|| layout.chosen());
    let stated = layout
        .header
        .and_then(|h| preamble_balance(&head[..h], decimal));
    let mut rows = Vec::new();
    let rest = head.into_iter().skip(layout.first_row).chain(records);
    for rec in rest {
        budget.check().map_err(ReadError::Stopped)?;
        if is_note(&rec.fields) {
            continue;
        }
        if rows.len() == MAX_ROWS {
            return Err(ReadError::TooManyRows);
        }
        rows.push(layout.row(&rec, decimal, &dates));
    }
    let read = rows.len();
    // A footer (a total, a disclaimer) holds neither a date nor an amount.
    while rows
        .last()
        .is_some_and(|r: &Row| r.date.is_none() && r.amount.is_none())
    {
        rows.pop();
    }
    if rows.is_empty() {
        // Rows were there, but not one reads as a booking: not "empty".
        return Err(match read {
            0 => ReadError::Empty,
            rows => ReadError::Unreadable { rows },
        });
    }
    // A balance line without its day is the balance after the last booking.
    let closing_balance = stated.and_then(|(date, amount, currency)| {
        let date = date.or_else(|| rows.iter().filter_map(|r| r.date).max())?;
        Some(ClosingBalance {
            date,
            amount: amount.into(),
            currency,
        })
    });
    Ok(Statement {
        format: Format {
            kind: csv(),
            bank: layout.bank.map(str::to_string),
            encoding: encoding.to_lowercase(),
            delimiter: Some((delimiter as char).to_string()),
            decimal_separator: Some(decimal.to_string()),
            date_format: Some(dates.pattern()),
            header_line,
            closing_balance,
            account_iban: None,
            columns,
        },
        columns: layout.columns,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    fn read_ok(bytes: &[u8]) -> Statement {
        read(bytes, None, &Choice::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn amounts(s: &Statement) -> Vec<String> {
        s.rows
            .iter()
            .map(|r| r.amount.map_or("-".into(), |a| format!("{a:.2}")))
            .collect()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    const CAMT_HEAD: &str = "\"Auftragskonto\";\"Buchungstag\";\"Valutadatum\";\"Buchungstext\";\"Verwendungszweck\";\"Glaeubiger ID\";\"Mandatsreferenz\";\"Kundenreferenz (End-to-End)\";\"Sammlerreferenz\";\"Lastschrift Ursprungsbetrag\";\"Auslagenersatz Ruecklastschrift\";\"Beguenstigter/Zahlungspflichtiger\";\"Kontonummer/IBAN\";\"BIC (SWIFT-Code)\";\"Betrag\";\"Waehrung\";\"Info\"";

    fn camt_line(day: &str, amount: &str, payee: &str, memo: &str) -> String {
        format!("\"DE1\";\"{day}\";\"{day}\";\"KARTENZAHLUNG\";\"{memo}\";;;;;;;\"{payee}\";\"DE2\";\"BIC\";\"{amount}\";\"EUR\";\"Umsatz gebucht\"")
    }

    #[test]
    fn a_sparkasse_file_in_windows_1252_with_two_digit_years() {
        let text = format!(
            "{CAMT_HEAD}\r\n{}\r\n{}\r\n",
            camt_line("03.04.18", "-62,59", "EDEKA DÜBEL", "Karte1 "),
            camt_line("04.04.18", "1.234,56", "Arbeitgeber", "Lohn"),
        );
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
        let s = read_ok(&bytes);
        assert_eq!(s.format.bank.as_deref(), Some("sparkasse-camt"));
        assert_eq!(s.format.encoding, "windows-1252");
        assert_eq!(s.format.delimiter.as_deref(), Some(";"));
        assert_eq!(s.format.decimal_separator.as_deref(), Some(","));
        assert_eq!(s.format.date_format.as_deref(), Some("%d.%m.%y"));
        assert_eq!(s.format.header_line, Some(1));
        assert_eq!(amounts(&s), ["-62.59", "1234.56"]);
        assert_eq!(s.rows[0].date, Some(day("2018-04-03")));
        assert_eq!(s.rows[0].payee, "EDEKA DÜBEL");
        assert_eq!(s.rows[0].memo, "Karte1", "outer spaces are trimmed");
        assert_eq!(s.rows[0].currency.as_deref(), Some("EUR"));
        assert_eq!((s.rows[0].line, s.rows[1].line), (2, 3));
    }

    /// An upload of a CSV file in Windows-1252 holds its text only, not
    /// its bytes beside it, and reads as the bytes do; a UTF-8 file is its
    /// own text.
    #[test]
    fn an_upload_in_a_legacy_encoding_is_held_once_as_its_text() {
        let text = format!(
            "{CAMT_HEAD}\r\n{}\r\n",
            camt_line("03.04.18", "-62,59", "EDEKA DÜBEL", "Karte1 "),
        );
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
        let upload = Upload::new(bytes.to_vec());
        assert_eq!(
            upload.file,
            File::Decoded {
                text: text.clone(),
                encoding: "windows-1252"
            }
        );
        let budget = Budget::unlimited();
        let read = upload.read(None, &Choice::default(), &budget).unwrap();
        let direct = read_ok(&bytes);
        assert_eq!((read.format, read.rows), (direct.format, direct.rows));
        let utf8 = Upload::new(text.clone().into_bytes());
        assert_eq!(utf8.file, File::Utf8 { text, start: 0 });
    }

    /// A UTF-8 upload, with or without a byte-order mark, is checked once
    /// as it arrives (binary or not, a run of text too long, valid UTF-8)
    /// and then read as its own text, where it starts; it reads as its
    /// bytes do.
    #[test]
    fn a_utf8_upload_is_checked_once_and_read_as_its_own_text() {
        let csv = format!(
            "{CAMT_HEAD}\r\n{}\r\n",
            camt_line("03.04.18", "-62,59", "EDEKA DÜBEL", "Karte1 "),
        );
        let ofx = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nCHARSET:NONE\r\n\r\n\
            <OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR\r\n\
            <BANKACCTFROM><ACCTID>DE89370400440532013000</BANKACCTFROM>\r\n\
            <BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250103\r\n\
            <TRNAMT>-12.50<NAME>Bäckerei Müller<MEMO>Brötchen</STMTTRN>\r\n\
            </BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";
        let budget = Budget::unlimited();
        for (text, kind) in [(csv.as_str(), None), (ofx, Some(Kind::Ofx))] {
            for bom in ["", "\u{feff}"] {
                let bytes = format!("{bom}{text}").into_bytes();
                let upload = Upload::new(bytes.clone());
                let own = File::Utf8 {
                    text: format!("{bom}{text}"),
                    start: bom.len(),
                };
                assert_eq!((&upload.file, upload.kind), (&own, kind), "{bom:?}");
                let read = upload.read(None, &Choice::default(), &budget).unwrap();
                let direct = read_ok(&bytes);
                assert!(read.rows[0].payee.contains('Ü') || read.rows[0].payee.contains('ü'));
                assert_eq!((read.format, read.rows), (direct.format, direct.rows));
            }
        }
    }

    /// An OFX or MT940 upload in Windows-1252 holds its text only, not its
    /// bytes beside it, and reads as its bytes do; a UTF-8 statement is its
    /// own text, and one refused for a long text is refused from its bytes.
    #[test]
    fn a_statement_in_a_legacy_encoding_is_held_once_as_its_text() {
        let ofx = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nCHARSET:1252\r\n\r\n\
            <OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR\r\n\
            <BANKACCTFROM><ACCTID>DE89370400440532013000</BANKACCTFROM>\r\n\
            <BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250103\r\n\
            <TRNAMT>-12.50<NAME>Bäckerei Müller<MEMO>Brötchen</STMTTRN>\r\n\
            </BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";
        let mt940 = ":20:STARTUMSE\r\n:25:37040044/0532013000\r\n:28C:1\r\n\
            :60F:C250102EUR100,00\r\n:61:2501030103DR12,50NMSCNONREF\r\n\
            :86:005?00KARTENZAHLUNG?20Brötchen?32Bäckerei Müller\r\n\
            :62F:C250103EUR87,50\r\n-\r\n";
        let budget = Budget::unlimited();
        for (text, kind) in [(ofx, "ofx"), (mt940, "mt940")] {
            let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(text);
            let upload = Upload::new(bytes.to_vec());
            let decoded = File::Decoded {
                text: text.to_owned(),
                encoding: "windows-1252",
            };
            assert_eq!(upload.file, decoded, "{kind}");
            let read = upload.read(None, &Choice::default(), &budget).unwrap();
            let direct = read_ok(&bytes);
            assert_eq!(read.format.kind, kind);
            assert_eq!(read.format.encoding, "windows-1252");
            assert_eq!(read.rows[0].payee, direct.rows[0].payee);
            assert!(read.rows[0].payee.contains("Müller"), "{kind}");
            assert_eq!((read.format, read.rows), (direct.format, direct.rows));
            let utf8 = Upload::new(text.as_bytes().to_vec());
            let own = File::Utf8 {
                text: text.to_owned(),
                start: 0,
            };
            assert_eq!(utf8.file, own, "{kind}");
        }
        let long = ofx.replace("Brötchen", &"ö".repeat(FIELD_MAX + 1));
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&long);
        let upload = Upload::new(bytes.to_vec());
        assert_eq!(upload.file, File::Bytes(bytes.to_vec()));
        let refused = upload.read(None, &Choice::default(), &budget).unwrap_err();
        assert!(
            matches!(refused, ReadError::FieldTooLong { line: 9 }),
            "{refused:?}"
        );
    }

    #[test]
    fn a_byte_order_mark_and_a_preamble_come_before_the_header() {
        let file = "\u{feff}\"Girokonto\";\"DE12345678901234567890\"\n\n\"Kontostand vom 30.12.2024:\";\"3.600,00 €\"\n\"\"\n\"Buchungsdatum\";\"Wertstellung\";\"Status\";\"Zahlungspflichtige*r\";\"Zahlungsempfänger*in\";\"Verwendungszweck\";\"Umsatztyp\";\"IBAN\";\"Betrag (€)\"\n\"10.12.24\";\"11.12.24\";\"Gebucht\";\"Anna\";\"Ich\";\"Geschenk\";\"Eingang\";\"DE1\";\"1.000\"\n\"30.09.24\";\"30.09.24\";\"Gebucht\";\"Ich\";\"Vermieter\";\"Miete\";\"Ausgang\";\"DE1\";\"-2.000\"\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("dkb"));
        assert_eq!(s.format.encoding, "utf-8");
        assert_eq!(s.format.header_line, Some(5));
        // `.` as a thousands separator without decimals is not a decimal point.
        assert_eq!(amounts(&s), ["1000.00", "-2000.00"]);
        // The counterparty is the side that is not the account holder.
        assert_eq!(
            (s.rows[0].payee.as_str(), s.rows[1].payee.as_str()),
            ("Anna", "Vermieter")
        );
    }

    #[test]
    fn files_without_a_header_are_known_by_their_rows() {
        let targo = "03.11.2025;Lastschrift   BANK AG   DE35;-24,00;;;;'DE67000000000000000000'\r\n04.11.2025;Gutschrift;;1.200,00;;;'DE67000000000000000000'\r\n\r\n";
        let s = read_ok(targo.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("targobank"));
        assert_eq!(s.format.header_line, None);
        assert_eq!(amounts(&s), ["-24.00", "1200.00"]);
        assert_eq!(s.rows[0].memo, "Lastschrift   BANK AG   DE35");

        let easy = "AT123456789012345678;Zinsen HABEN      BG/000000002     ;01.01.2014;31.12.2013;+1,23;EUR\r\nAT123456789012345678;Miete ;19.01.2014;19.01.2014;-1.001,00;EUR\r\n";
        let s = read_ok(easy.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("easybank"));
        assert_eq!(amounts(&s), ["1.23", "-1001.00"]);
    }

    #[test]
    fn ragged_rows_are_read_by_their_meaning() {
        // Longer than the header: the text spills over the delimiter.
        let live = "Kontonummer;Auszugsnummer;Buchungsdatum;Valutadatum;Umsatzzeit;Zahlungsreferenz;Waehrung;Betrag;Buchungstext;Umsatztext\n1;1;2013-07-03;2013-07-03;x;\"\";EUR;150,00;\"Gutschrift\";A name;\"A text\";\"REF: 1\"\n";
        let s = read_ok(live.as_bytes());
        assert_eq!(s.rows[0].memo, "A name A text REF: 1");
        // Shorter: a field in the middle is missing, the amount is still last but one.
        let ing = "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Betrag;Währung\n28.11.2025;28.11.2025;Rentenservice;Gutschrift;RV-RENTE;2.647,74;EUR\n27.11.2025;27.11.2025;Rentenservice;RV-RENTE 11.2025;2.647,74;EUR\n";
        let s = read_ok(ing.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("ing"));
        assert_eq!(amounts(&s), ["2647.74", "2647.74"]);
        assert_eq!(s.rows[1].memo, "RV-RENTE 11.2025");
        // A header ending in a delimiter has no extra column.
        let lloyds = "Transaction Date,Transaction Type,Sort Code,Account Number,Transaction Description,Debit Amount,Credit Amount,Balance,\n25/05/2017,BGC,'12-34-56,9,EMPLOYER INC,,903.52,4058.83\n15/05/2017,BP,'12-34-56,9,OASIS COFFEE ,2.76,,3155.31\n";
        let s = read_ok(lloyds.as_bytes());
        assert_eq!(amounts(&s), ["903.52", "-2.76"]);
        assert_eq!(s.rows[1].payee, "OASIS COFFEE");
    }

    #[test]
    fn a_header_with_a_name_twice_takes_the_amount_by_its_own_name() {
        let ing = "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Saldo;Währung;Betrag;Währung\n28.12.2018;28.12.2018;PayDude;Lastschrift;Blumen;150,00;EUR;-5,50;EUR\n";
        assert_eq!(amounts(&read_ok(ing.as_bytes())), ["-5.50"]);
    }

    #[test]
    fn amounts_in_every_notation() {
        for (raw, decimal, want) in [
            ("1.234,56-", ',', "-1234.56"),
            ("+1,23", ',', "1.23"),
            ("-$7,971.39", '.', "-7971.39"),
            ("11'373.94", '.', "11373.94"),
            ("3.600,00 €", ',', "3600.00"),
            ("£12.50", '.', "12.50"),
            ("1.000", ',', "1000.00"),
            ("-10,7", ',', "-10.70"),
            ("100", '.', "100.00"),
            ("(12.00)", '.', "-12.00"),
        ] {
            let got = parse_amount(raw, decimal).map(|d| format!("{d:.2}"));
            assert_eq!(got.as_deref(), Some(want), "{raw}");
        }
        for raw in ["", "EUR", "1,2,3", "12.50.1", "zwölf"] {
            assert_eq!(parse_amount(raw, ','), None, "{raw:?}");
        }
    }

    #[test]
    fn a_decimal_comma_inside_a_comma_separated_file_and_a_direction_flag() {
        let file = "\"Datum\",\"Naam / Omschrijving\",\"Rekening\",\"Tegenrekening\",\"Code\",\"Af Bij\",\"Bedrag (EUR)\",\"MutatieSoort\",\"Mededelingen\"\n\"20200213\",\"Kosten\",\"NL99\",\"\",\"DV\",\"Af\",\"1,25\",\"Diversen\",\"jan\"\n\"20200214\",\"Terug\",\"NL99\",\"\",\"VZ\",\"Bij\",\"1.001,25\",\"Diversen\",\"\"\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.format.delimiter.as_deref(), Some(","));
        assert_eq!(s.format.decimal_separator.as_deref(), Some(","));
        assert_eq!(s.format.date_format.as_deref(), Some("%Y%m%d"));
        assert_eq!(amounts(&s), ["-1.25", "1001.25"]);
    }

    #[test]
    fn date_formats_are_found_from_all_their_cells() {
        for (cells, pattern, first) in [
            (["31.12.2024", "01.01.2025"], "%d.%m.%Y", "2024-12-31"),
            (["31.12.24", "01.01.25"], "%d.%m.%y", "2024-12-31"),
            (["2024-12-31", "2025-01-01"], "%Y-%m-%d", "2024-12-31"),
            (["31/12/2024", "01/01/2025"], "%d/%m/%Y", "2024-12-31"),
            (["12/31/2024", "01/02/2025"], "%m/%d/%Y", "2024-12-31"),
            (["31-12-2024", "01-01-2025"], "%d-%m-%Y", "2024-12-31"),
            (["20241231", "20250101"], "%Y%m%d", "2024-12-31"),
            (
                ["2024-12-31 6:11:59", "2025-01-01 18:00:00"],
                "%Y-%m-%d",
                "2024-12-31",
            ),
            (
                ["2024-12-31T17:43:43", "2025-01-01T08:00:00"],
                "%Y-%m-%d",
                "2024-12-31",
            ),
            (["12-Dec-2019", "03-Mär-2020"], "%d-%b-%Y", "2019-12-12"),
            (["01-Okt-24", "12-dez-24"], "%d-%b-%y", "2024-10-01"),
            (["30-MAY-2024", "1-Mrz-2025"], "%d-%b-%Y", "2024-05-30"),
        ] {
            let file = format!("Datum;Betrag\n{};-1,00\n{};2,00\n", cells[0], cells[1]);
            let s = read_ok(file.as_bytes());
            assert_eq!(s.format.date_format.as_deref(), Some(pattern), "{cells:?}");
            assert_eq!(s.rows[0].date, Some(day(first)), "{cells:?}");
        }
    }

    #[test]
    fn month_names_are_english_or_german_and_nothing_else() {
        use values::month_named;
        for (word, month) in [
            ("Dec", 12),
            ("dez", 12),
            ("Mär", 3),
            ("MRZ", 3),
            ("May", 5),
            ("Mai", 5),
            ("Okt.", 10),
            ("Sept", 9),
            ("Oktober", 10),
        ] {
            assert_eq!(month_named(word), Some(month), "{word}");
        }
        for word in ["", "De", "Decke", "Maid", "12", "Ja1"] {
            assert_eq!(month_named(word), None, "{word}");
        }
        let f = DateFormat::DETECTED
            .iter()
            .find(|f| f.pattern() == "%d-%b-%Y")
            .unwrap();
        assert_eq!(f.parse("12-Dec-2019"), Some(day("2019-12-12")));
        assert_eq!(f.parse("31-Feb-2019"), None);
        assert_eq!(f.parse("12-Dec-19"), None);
        // A mapping's `%d-%b-%Y` reads German months too.
        let mapped = DateFormat::given("%d-%b-%Y");
        assert_eq!(mapped.parse("24-Dez-2024"), Some(day("2024-12-24")));
        assert_eq!(
            DateFormat::given("%d %B %Y"),
            DateFormat::Custom("%d %B %Y".into())
        );
    }

    #[test]
    fn rows_shorter_than_the_header_are_aligned_by_their_content() {
        // The last field is missing, not one before the memo: the memo is
        // the purpose, not the BIC before it.
        let file = "BOOKING_DATE;VALUE_DATE;TRANSACTION_TYPE;AMOUNT;CURRENCY;PAYEE;PAYEE_IBAN;PAYEE_BIC;PURPOSE;MANDATE_ID\n\
            03.11.2025;03.11.2025;Kartenzahlung;-23,99;EUR;REWE Markt GmbH;DE12500105170648489890;INGDDEFFXXX;REWE SAGT DANKE\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.rows[0].memo, "REWE SAGT DANKE");
        assert_eq!(s.rows[0].payee, "REWE Markt GmbH");
        assert_eq!(
            s.format.columns.as_ref().unwrap().memo.as_deref(),
            Some("purpose")
        );
        // A field in the middle missing: still read from the row's end.
        let middle = "BOOKING_DATE;PAYEE;PAYEE_IBAN;PAYEE_BIC;PURPOSE;AMOUNT;CURRENCY\n\
            03.11.2025;REWE Markt GmbH;DE12500105170648489890;REWE SAGT DANKE;-23,99;EUR\n";
        let s = read_ok(middle.as_bytes());
        assert_eq!(amounts(&s), ["-23.99"]);
        assert_eq!(s.rows[0].memo, "REWE SAGT DANKE");
    }

    #[test]
    fn unreadable_and_pending_rows_stay_rows_with_their_problem() {
        let file = "\n\"Umsätze Girokonto\";\"Zeitraum: 01.09.2023 - 06.10.2023\";\n\n\"Buchungstag\";\"Wertstellung (Valuta)\";\"Vorgang\";\"Buchungstext\";\"Umsatz in EUR\";\n\"offen\";\"--\";\"Karte\";\"Text\";\"-23,86\";\n\"31.02.2023\";\"06.10.2023\";\"Lastschrift\";\"Text\";\"-40,01\";\n\"06.10.2023\";\"06.10.2023\";\"Lastschrift\";\"Text\";\"zwölf\";\n\"06.10.2023\";\"06.10.2023\";\"Lastschrift\";\"Text\";\"0,00\";\n\n\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("comdirect"));
        let problems: Vec<_> = s.rows.iter().map(|r| r.problem.clone()).collect();
        assert_eq!(
            problems,
            [
                Some(Problem::Pending {
                    value: "offen".into()
                }),
                Some(Problem::Date {
                    value: "31.02.2023".into()
                }),
                Some(Problem::Amount {
                    value: "zwölf".into()
                }),
                None,
            ]
        );
        // A zero amount is read; whether to book it is not the reader's call.
        assert_eq!(s.rows[3].amount, Some(Decimal::ZERO));
        assert_eq!(
            s.rows[0].amount.map(|a| a.to_string()).as_deref(),
            Some("-23.86")
        );
    }

    #[test]
    fn footnotes_and_a_header_like_preamble_are_not_bookings() {
        let file = "\"Kontoumsätze SpardaGiro Online\"\n\n\"Umsätze ab\";\"Enddatum\";\"Kontonummer\";\"Saldo\";\"Währung\"\n\"01.01.2024\";\"15.02.2024\";\"1234567\";\"12.345,67\";\"EUR\"\n\n\"Buchungstag\";\"Wertstellungstag\";\"Verwendungszweck\";\"Umsatz\";\"Währung\"\n\"20.01.2024\";\"20.01.2024\";\"MCDONALDS\";\"-11,99\";\"EUR\";\"\"\n\"* noch nicht ausgeführte Umsätze\"\n";
        let s = read_ok(file.as_bytes());
        assert_eq!(s.format.bank.as_deref(), Some("sparda"));
        assert_eq!(s.format.header_line, Some(6));
        assert_eq!(amounts(&s), ["-11.99"]);
    }

    #[test]
    fn fees_are_taken_off_and_payees_follow_the_direction() {
        let revolut = "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\nCARD_PAYMENT,Current,2021-09-03 6:13:48,2021-09-05 18:22:20,company äöå,-9.5,0.5,EUR,COMPLETED,156.02\n";
        let s = read_ok(revolut.as_bytes());
        assert_eq!(amounts(&s), ["-10.00"]);
        assert_eq!(s.rows[0].date, Some(day("2021-09-03")));
        assert_eq!(s.rows[0].payee, "company äöå");
    }

    #[test]
    fn rows_none_of_which_reads_as_a_booking_are_unreadable_not_empty() {
        // A bank's own header, known by its words, over rows of nonsense.
        let file = "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;\
                    Verwendungszweck;Betrag;Währung\n\
                    irgendwann;bald;Bäcker;x;y;viel;EUR\nmorgen;heute;Kiosk;x;y;wenig;EUR\n";
        assert_eq!(
            read(file.as_bytes(), None, &Choice::default()).unwrap_err(),
            ReadError::Unreadable { rows: 2 }
        );
        // A header alone has no rows: empty.
        assert_eq!(
            read(
                "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;\
                 Verwendungszweck;Betrag;Währung\n"
                    .as_bytes(),
                None,
                &Choice::default()
            )
            .unwrap_err(),
            ReadError::Empty
        );
    }

    #[test]
    fn empty_binary_and_unknown_files_are_refused() {
        assert_eq!(
            read(b"", None, &Choice::default()).unwrap_err(),
            ReadError::Empty
        );
        assert_eq!(
            read(b" \r\n\n", None, &Choice::default()).unwrap_err(),
            ReadError::Empty
        );
        assert_eq!(
            read(
                format!("{CAMT_HEAD}\n").as_bytes(),
                None,
                &Choice::default()
            )
            .unwrap_err(),
            ReadError::Empty
        );
        assert_eq!(
            read(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", None, &Choice::default()).unwrap_err(),
            ReadError::Binary(Some(FileKind::Image))
        );
        assert_eq!(
            read(b"a;b\0;c\n", None, &Choice::default()).unwrap_err(),
            ReadError::Binary(None)
        );
        match read(
            b"Wann;Wieviel;Wer\nheute;12;Anna\n",
            None,
            &Choice::default(),
        )
        .unwrap_err()
        {
            ReadError::UnknownLayout { columns } => assert_eq!(columns, ["Wann", "Wieviel", "Wer"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_mapping_reads_what_detection_cannot_and_names_its_mistakes() {
        let file = "Wann;Wieviel;Wer\n24.12.2025;-12,50;Anna\n";
        let m = |v: serde_json::Value| serde_json::from_value::<Mapping>(v).unwrap();
        let s = read(
            file.as_bytes(),
            Some(&m(
                serde_json::json!({"date": "Wann", "amount": "Wieviel", "payee": "wer"}),
            )),
            &Choice::default(),
        )
        .unwrap();
        assert_eq!(s.format.header_line, Some(1));
        assert_eq!(
            (amounts(&s)[0].as_str(), s.rows[0].payee.as_str()),
            ("-12.50", "Anna")
        );

        let headerless = "24.12.2025;-12,50;Anna\n25.12.2025;3,00;Ben\n";
        let s = read(
            headerless.as_bytes(),
            Some(&m(
                serde_json::json!({"date": 0, "amount": 1, "memo": 2, "headerLine": null}),
            )),
            &Choice::default(),
        )
        .unwrap();
        assert_eq!(s.format.header_line, None);
        assert_eq!(amounts(&s), ["-12.50", "3.00"]);

        let err = read(
            file.as_bytes(),
            Some(&m(
                serde_json::json!({"date": "Wann", "amount": "Betrag X"}),
            )),
            &Choice::default(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            ReadError::Mapping {
                field: "mapping.amount".into(),
                reason: Reason::NoSuchColumn {
                    name: "Betrag X".into(),
                    found: vec!["wann".into(), "wieviel".into(), "wer".into()]
                }
            }
        );
        let err = read(
            file.as_bytes(),
            Some(&m(serde_json::json!({"date": 0, "amount": 7}))),
            &Choice::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err, ReadError::Mapping { ref field, .. } if field == "mapping.amount"),
            "{err:?}"
        );
        let err = read(
            file.as_bytes(),
            Some(&m(serde_json::json!({"amount": 1}))),
            &Choice::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err, ReadError::Mapping { ref field, .. } if field == "mapping.date"),
            "{err:?}"
        );
        let err = read(
            file.as_bytes(),
            Some(&m(serde_json::json!({"date": 0, "debit": 1}))),
            &Choice::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err, ReadError::Mapping { ref field, .. } if field == "mapping.credit"),
            "{err:?}"
        );
        assert!(serde_json::from_value::<Mapping>(serde_json::json!({"datum": 0})).is_err());
    }

    #[test]
    fn a_field_longer_than_the_most_is_refused_with_its_line() {
        let header = "Datum;Betrag;Empfänger\n";
        let fine = format!("{header}01.02.2026;-1,00;\"a;\"\"b\"\"\nc\"\n02.02.2026;-2,00;x\n");
        assert_eq!(long_field(fine.as_bytes(), b';', 16, 10), None);
        // A quote never closed: the field runs to the end of the file.
        let open = format!("{header}01.02.2026;-1,00;\"Laden\n02.02.2026;-2,00;x\n");
        assert_eq!(
            long_field(open.as_bytes(), b';', 20, 10),
            Some(ReadError::FieldTooLong { line: 2 })
        );
        // A quote inside an unquoted field is a character like any other.
        let inner = format!("{header}01.02.2026;-1,00;5\" Bildschirm\n02.02.2026;-2,00;x\n");
        assert_eq!(long_field(inner.as_bytes(), b';', 20, 10), None);
        let mut big = format!("{header}01.02.2026;-1,00;\"");
        big.push_str(&"x".repeat(FIELD_MAX));
        big.push_str("\n02.02.2026;-2,00;y\n");
        assert_eq!(
            read(big.as_bytes(), None, &Choice::default()).unwrap_err(),
            ReadError::FieldTooLong { line: 2 }
        );
    }

    #[test]
    fn a_line_of_more_fields_than_the_most_is_refused_with_its_line() {
        let header = "Datum;Betrag;Empfänger\n";
        // Three fields, one of them quoted over two lines: one record.
        let fine = format!("{header}01.02.2026;-1,00;\"a;\nb\"\n");
        assert_eq!(long_field(fine.as_bytes(), b';', 100, 3), None);
        let wide = format!("{header}01.02.2026;-1,00;x;\n");
        assert_eq!(
            long_field(wide.as_bytes(), b';', 100, 3),
            Some(ReadError::TooMuch {
                part: Part::Fields,
                line: 2
            })
        );
        let empty = format!("{header}{}\n", ";".repeat(most(Part::Fields)));
        assert_eq!(
            read(empty.as_bytes(), None, &Choice::default()).unwrap_err(),
            ReadError::TooMuch {
                part: Part::Fields,
                line: 2
            }
        );
    }

    #[test]
    fn a_read_past_its_budget_stops() {
        let mut file = String::from("Datum;Betrag\n");
        for _ in 0..1_000 {
            file.push_str("01.01.2025;1,00\n");
        }
        let spent = Budget::new(
            std::time::Duration::ZERO,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
        assert_eq!(
            read_within(file.as_bytes(), None, &Choice::default(), &spent).unwrap_err(),
            ReadError::Stopped(Stop::TimeUp)
        );
    }

    #[test]
    fn more_than_the_most_rows_is_refused() {
        let mut file = String::from("Datum;Betrag\n");
        for _ in 0..=MAX_ROWS {
            file.push_str("01.01.2025;1,00\n");
        }
        assert_eq!(
            read(file.as_bytes(), None, &Choice::default()).unwrap_err(),
            ReadError::TooManyRows
        );
    }

    /// A mapping kept with a batch reads back as it was given: "detect the
    /// header" stays that, and is not taken for "no header".
    #[test]
    fn a_stored_mapping_reads_back_as_given() {
        for given in [
            serde_json::json!({"date": "Wann", "amount": 1}),
            serde_json::json!({"date": 0, "amount": 1, "headerLine": null}),
            serde_json::json!({"date": 0, "amount": 1, "headerLine": 3}),
        ] {
            let m: Mapping = serde_json::from_value(given).unwrap();
            let back: Mapping = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
            assert_eq!(back, m);
        }
    }

    #[test]
    fn a_closing_balance_is_newer_from_the_day_the_balance_was_set() {
        let closing = ClosingBalance {
            date: day("2024-12-30"),
            amount: Money::from(Decimal::ONE),
            currency: None,
        };
        assert!(closing.is_newer_than(None));
        assert!(closing.is_newer_than(Some(day("2024-12-30"))));
        assert!(closing.is_newer_than(Some(day("2024-12-01"))));
        assert!(!closing.is_newer_than(Some(day("2024-12-31"))));
    }
}
