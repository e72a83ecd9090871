//! Reading a bank's CSV export as the bank wrote it: encoding, delimiter,
//! preamble, header, decimal and date formats, sign conventions, and the
//! layouts of common banks recognised without a mapping.

use crate::domain::locale::Locale;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Files with more data rows than this are refused.
pub const MAX_ROWS: usize = 200_000;

/// How a file was read: the batch's `format`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Format {
    /// The id of a recognised layout (`sparkasse-camt`, `dkb`, …), or None.
    pub bank: Option<String>,
    /// `utf-8` or `windows-1252`.
    pub encoding: String,
    pub delimiter: String,
    pub decimal_separator: String,
    /// A chrono pattern such as `%d.%m.%y`.
    pub date_format: String,
    /// The 1-based line of the header, None when the layout has none.
    pub header_line: Option<usize>,
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
    pub memo: Option<Column>,
    pub currency: Option<Column>,
    pub date_format: Option<String>,
    pub decimal_separator: Option<String>,
    /// Absent: detect; `null`: the file has no header; a number: its line.
    #[serde(with = "serde_with_null")]
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

/// Why a row could not be read. Stored with the row; its text is in the
/// user's language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "camelCase")]
pub enum Problem {
    /// The date column holds something that is not a date in the format.
    Date { value: String },
    /// The amount column holds something that is not an amount.
    Amount { value: String },
}

impl Problem {
    pub fn text(&self, locale: Locale) -> String {
        match (self, locale) {
            (Problem::Date { value }, Locale::De) => format!("Kein gültiges Datum: „{value}“"),
            (Problem::Date { value }, Locale::En) => format!("Not a valid date: \"{value}\""),
            (Problem::Amount { value }, Locale::De) => format!("Kein gültiger Betrag: „{value}“"),
            (Problem::Amount { value }, Locale::En) => format!("Not a valid amount: \"{value}\""),
        }
    }
}

/// One data row of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The 1-based line in the file where the row starts.
    pub line: usize,
    pub date: Option<NaiveDate>,
    /// Signed: negative is money out of the account.
    pub amount: Option<Decimal>,
    /// From a currency column, upper case; None when the layout has none.
    pub currency: Option<String>,
    pub payee: String,
    pub memo: String,
    /// Set when the row could not be read; date or amount may then be None.
    pub problem: Option<Problem>,
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
    /// Not text.
    Binary,
    TooManyRows,
    /// Neither a known layout nor a mapping: the columns found.
    UnknownLayout {
        columns: Vec<String>,
    },
    /// The mapping does not fit the file; `field` is the mapping's field.
    Mapping {
        field: String,
        message: String,
    },
}

/// Reads `bytes` with `mapping`, or detects the layout without one.
pub fn read(bytes: &[u8], mapping: Option<&Mapping>) -> Result<Statement, ReadError> {
    let _ = mapping;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ReadError::Empty);
    }
    Err(ReadError::UnknownLayout { columns: vec![] })
}
