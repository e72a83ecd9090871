//! Which column holds what: a known bank's header, a headerless layout
//! known by its rows, any header with a date and an amount, or the user's
//! mapping; then each record read into a row by its layout.

use super::banks::{Amount, Bank, Memo, Payee, BANKS};
use super::text::{header_names, is_note, likely_header, norm, Record};
use super::values::{is_credit_mark, is_pending, parse_amount, DateFormat, Order};
use super::{Column, Columns, Mapping, ReadError};
use crate::domain::import::row::{Problem, Row};
use crate::error::Reason;
use rust_decimal::Decimal;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum AmountCols {
    Signed(usize),
    /// Money out and money in, in two columns (the out column may carry
    /// its own minus sign).
    DebitCredit(usize, usize),
    /// An unsigned amount and a column whose value says it is money out.
    Flag(usize, usize),
    /// An amount less a fee in its own column.
    LessFee(usize, usize),
    /// An unsigned amount that is money out unless the second column
    /// marks it as a credit (`CR`), as card exports write.
    CreditMark(usize, usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum PayeeCol {
    None,
    Col(usize),
    /// The counterparty of money out, and of money in.
    BySign(usize, usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum MemoCol {
    None,
    Col(usize),
    /// This field and all that follow it (text that spills over the delimiter).
    Rest(usize),
    /// A field wrapped in single quotes.
    SingleQuoted(usize),
}

pub(super) struct Layout {
    pub(super) bank: Option<&'static str>,
    /// The header's record, if any.
    pub(super) header: Option<usize>,
    pub(super) first_row: usize,
    pub(super) columns: Vec<String>,
    pub(super) header_len: usize,
    pub(super) date: usize,
    pub(super) amount: AmountCols,
    pub(super) payee: PayeeCol,
    pub(super) memo: MemoCol,
    pub(super) currency: Option<usize>,
    /// Rows shorter than the header lack the fields of the columns just
    /// before this one (as many as they are short): columns from here on
    /// are read from the row's end. Assumed by the layout, then decided by
    /// the rows' content (`guess::align_short_rows`); None: the fields
    /// missing are the last ones.
    pub(super) right_from: Option<usize>,
    /// US layouts write the month first.
    pub(super) month_first: bool,
}

pub(super) fn find(names: &[String], wanted: &str) -> Option<usize> {
    names.iter().position(|n| n == wanted)
}

pub(super) fn find_any(names: &[String], wanted: &[&str]) -> Option<usize> {
    wanted.iter().find_map(|w| find(names, w))
}

pub(super) fn detect_layout(records: &[Record]) -> Option<Layout> {
    let head = records.len().min(60);
    // A known bank's header.
    for (i, rec) in records[..head].iter().enumerate() {
        let names = header_names(&rec.fields);
        if names.len() < 2 {
            continue;
        }
        for k in BANKS {
            if k.signature.iter().all(|s| names.iter().any(|n| n == s)) {
                return known_layout(k, i, names);
            }
        }
    }
    // A known bank's layout without a header.
    if let Some(layout) = headerless(records) {
        return Some(layout);
    }
    None
}

#[allow(clippy::too_many_arguments)]
pub(super) fn with_header(
    bank: Option<&'static str>,
    header: usize,
    names: Vec<String>,
    date: usize,
    amount: AmountCols,
    payee: PayeeCol,
    memo: MemoCol,
    currency: Option<usize>,
) -> Layout {
    // A row that lacks a field in the middle: unless the rows' content
    // says otherwise, the field before the memo, the memo and what follows
    // it being read from the row's end, when the memo follows the date and
    // payee.
    let right_from = match memo {
        MemoCol::Col(m) if m > date && !matches!(payee, PayeeCol::Col(p) if p > m) => Some(m),
        _ => None,
    };
    Layout {
        bank,
        header: Some(header),
        first_row: header + 1,
        header_len: names.len(),
        columns: names,
        date,
        amount,
        payee,
        memo,
        currency,
        right_from,
        month_first: bank == Some("schwab"),
    }
}

pub(super) fn known_layout(k: &Bank, header: usize, names: Vec<String>) -> Option<Layout> {
    let col = |n: &str| find(&names, n);
    let amount = match k.amount {
        Amount::Signed(a) => AmountCols::Signed(col(a)?),
        Amount::DebitCredit(d, c) => AmountCols::DebitCredit(col(d)?, col(c)?),
        Amount::Flag(a, f) => AmountCols::Flag(col(a)?, col(f)?),
        Amount::LessFee(a, f) => AmountCols::LessFee(col(a)?, col(f)?),
    };
    let payee = match k.payee {
        Payee::None => PayeeCol::None,
        Payee::Column(p) => PayeeCol::Col(col(p)?),
        Payee::BySign(o, i) => PayeeCol::BySign(col(o)?, col(i)?),
    };
    let memo = match k.memo {
        Memo::None => MemoCol::None,
        Memo::Column(m) => col(m).map_or(MemoCol::None, MemoCol::Col),
        Memo::Rest(m) => MemoCol::Rest(col(m)?),
    };
    let date = col(k.date)?;
    let currency = k.currency.and_then(col);
    Some(with_header(
        Some(k.id),
        header,
        names,
        date,
        amount,
        payee,
        memo,
        currency,
    ))
}

/// Layouts without a header, recognised by the shape of their first rows.
pub(super) fn headerless(records: &[Record]) -> Option<Layout> {
    let sample: Vec<&Record> = records
        .iter()
        .filter(|r| !is_note(&r.fields))
        .take(5)
        .collect();
    let first = sample.first()?;
    let all = |f: &dyn Fn(&csv::StringRecord) -> bool| sample.iter().all(|r| f(&r.fields));
    let cell = |r: &csv::StringRecord, i: usize| r.get(i).unwrap_or("").trim().to_string();
    let is_date = |s: &str| DateFormat::DETECTED.iter().any(|f| f.parse(s).is_some());
    let is_amount = |s: &str| {
        !s.is_empty() && (parse_amount(s, ',').is_some() || parse_amount(s, '.').is_some())
    };
    let iban = |s: &str| {
        let s = s.trim_matches('\'');
        s.len() >= 15
            && s[..2].chars().all(|c| c.is_ascii_uppercase())
            && s[2..4].chars().all(|c| c.is_ascii_digit())
    };
    let n = first.fields.len();
    let names = |n: usize| (1..=n).map(|i| format!("column {i}")).collect::<Vec<_>>();
    let layout = |bank, date, amount, payee, memo, currency| Layout {
        bank: Some(bank),
        header: None,
        first_row: 0,
        columns: names(n),
        header_len: n,
        date,
        amount,
        payee,
        memo,
        currency,
        right_from: None,
        month_first: false,
    };
    // Targobank: date; text; money out (negative); money in; …; 'own IBAN'.
    if n >= 7
        && all(&|r| {
            is_date(&cell(r, 0))
                && cell(r, 6).starts_with('\'')
                && (is_amount(&cell(r, 2)) || is_amount(&cell(r, 3)))
        })
    {
        return Some(layout(
            "targobank",
            0,
            AmountCols::DebitCredit(2, 3),
            PayeeCol::None,
            MemoCol::Col(1),
            None,
        ));
    }
    // easybank (AT): IBAN; text; booking day; value day; signed amount; currency.
    if n == 6
        && all(&|r| {
            iban(&cell(r, 0))
                && is_date(&cell(r, 2))
                && is_amount(&cell(r, 4))
                && cell(r, 5).len() == 3
        })
    {
        return Some(layout(
            "easybank",
            2,
            AmountCols::Signed(4),
            PayeeCol::None,
            MemoCol::Col(1),
            Some(5),
        ));
    }
    // Raiffeisen (AT) ELBA: booking day; text; value day; amount; currency; timestamp.
    if n >= 6
        && all(&|r| {
            is_date(&cell(r, 0))
                && is_date(&cell(r, 2))
                && is_amount(&cell(r, 3))
                && cell(r, 4).len() == 3
        })
    {
        return Some(layout(
            "raiffeisen-at",
            0,
            AmountCols::Signed(3),
            PayeeCol::None,
            MemoCol::Col(1),
            Some(4),
        ));
    }
    // ASN Bank (NL): 19 fields, booking day, own IBAN, counter IBAN, name, …
    if n == 19
        && all(&|r| {
            is_date(&cell(r, 0))
                && iban(&cell(r, 1))
                && cell(r, 7).len() == 3
                && is_amount(&cell(r, 10))
        })
    {
        return Some(layout(
            "asn",
            0,
            AmountCols::Signed(10),
            PayeeCol::Col(3),
            MemoCol::SingleQuoted(17),
            Some(7),
        ));
    }
    None
}

/// The layout `m` describes; `detect` finds the header when the mapping
/// names columns by position only.
pub(super) fn layout_from_mapping(
    m: &Mapping,
    records: &[Record],
    detect: impl Fn(&[Record]) -> Option<Layout>,
) -> Result<Layout, ReadError> {
    let bad = |field: &str, reason: Reason| ReadError::Mapping {
        field: format!("mapping.{field}"),
        reason,
    };
    if let Some(d) = m.decimal_separator.as_deref() {
        if d != "," && d != "." {
            return Err(bad("decimalSeparator", Reason::DecimalSeparator));
        }
    }
    if let Some(f) = m.date_format.as_deref() {
        if !f.contains('%') {
            return Err(bad("dateFormat", Reason::DatePattern));
        }
    }
    let named = [
        &m.date,
        &m.amount,
        &m.debit,
        &m.credit,
        &m.payee,
        &m.memo,
        &m.currency,
        &m.payee_in,
        &m.direction,
    ]
    .into_iter()
    .flatten()
    .filter_map(|c| match c {
        Column::Name(n) => Some(norm(n)),
        Column::Index(_) => None,
    })
    .collect::<Vec<_>>();
    let header = match m.header_line {
        Some(None) => None,
        Some(Some(line)) => Some(
            records
                .iter()
                .position(|r| r.line == line)
                .ok_or_else(|| bad("headerLine", Reason::NoSuchLine(line)))?,
        ),
        None if named.is_empty() => detect(records).and_then(|l| l.header),
        // The line holding the most of the named columns; one it lacks is
        // named below.
        None => records
            .iter()
            .take(60)
            .enumerate()
            .map(|(i, r)| {
                let names = header_names(&r.fields);
                (named.iter().filter(|n| names.contains(n)).count(), i)
            })
            .filter(|(found, _)| *found > 0)
            .max_by_key(|(found, i)| (*found, std::cmp::Reverse(*i)))
            .map(|(_, i)| i),
    };
    let names: Vec<String> = match header {
        Some(i) => header_names(&records[i].fields),
        None => {
            let n = records.iter().map(|r| r.fields.len()).max().unwrap_or(0);
            (1..=n).map(|i| format!("column {i}")).collect()
        }
    };
    let shown = || {
        if header.is_some() {
            names.clone()
        } else {
            likely_header(records)
        }
    };
    let column = |field: &str, c: &Column| -> Result<usize, ReadError> {
        match c {
            Column::Index(i) if *i < names.len() => Ok(*i),
            Column::Index(i) => Err(bad(
                field,
                Reason::NoSuchIndex {
                    index: *i,
                    count: names.len(),
                },
            )),
            Column::Name(n) => find(&names, &norm(n))
                .filter(|_| header.is_some())
                .ok_or_else(|| {
                    bad(
                        field,
                        Reason::NoSuchColumn {
                            name: n.clone(),
                            found: shown(),
                        },
                    )
                }),
        }
    };
    let opt = |field: &str, c: &Option<Column>| c.as_ref().map(|c| column(field, c)).transpose();
    let date = match &m.date {
        Some(c) => column("date", c)?,
        None => return Err(bad("date", Reason::Required)),
    };
    let amount = match (&m.amount, &m.debit, &m.credit) {
        (Some(a), _, _) => match &m.direction {
            Some(d) => AmountCols::Flag(column("amount", a)?, column("direction", d)?),
            None => AmountCols::Signed(column("amount", a)?),
        },
        (None, Some(d), Some(c)) => {
            AmountCols::DebitCredit(column("debit", d)?, column("credit", c)?)
        }
        (None, Some(_), None) => return Err(bad("credit", Reason::RequiredWithDebit)),
        (None, None, Some(_)) => return Err(bad("debit", Reason::RequiredWithCredit)),
        (None, None, None) => return Err(bad("amount", Reason::AmountOrDebitAndCredit)),
    };
    let payee = match (opt("payee", &m.payee)?, opt("payeeIn", &m.payee_in)?) {
        (Some(out), Some(inn)) => PayeeCol::BySign(out, inn),
        (Some(p), None) => PayeeCol::Col(p),
        (None, Some(_)) => return Err(bad("payee", Reason::Required)),
        (None, None) => PayeeCol::None,
    };
    let memo = opt("memo", &m.memo)?.map_or(MemoCol::None, MemoCol::Col);
    let currency = opt("currency", &m.currency)?;
    let first_row = header.map_or(0, |h| h + 1);
    let mut layout = with_header(
        None,
        first_row.saturating_sub(1),
        names,
        date,
        amount,
        payee,
        memo,
        currency,
    );
    layout.header = header;
    layout.first_row = first_row;
    Ok(layout)
}

// ------------------------------------------------------------------- rows

impl Layout {
    /// The columns read, by their names.
    pub(super) fn chosen(&self) -> Columns {
        let name = |c: usize| self.columns.get(c).cloned().unwrap_or_default();
        let (mut out, mut debit, mut credit, mut direction) = (None, None, None, None);
        match self.amount {
            AmountCols::Signed(a) | AmountCols::LessFee(a, _) => out = Some(name(a)),
            AmountCols::DebitCredit(d, c) => (debit, credit) = (Some(name(d)), Some(name(c))),
            AmountCols::Flag(a, f) | AmountCols::CreditMark(a, f) => {
                (out, direction) = (Some(name(a)), Some(name(f)))
            }
        }
        let (payee, payee_in) = match self.payee {
            PayeeCol::None => (None, None),
            PayeeCol::Col(p) => (Some(name(p)), None),
            PayeeCol::BySign(o, i) => (Some(name(o)), Some(name(i))),
        };
        let memo = match self.memo {
            MemoCol::None => None,
            MemoCol::Col(m) | MemoCol::Rest(m) | MemoCol::SingleQuoted(m) => Some(name(m)),
        };
        Columns {
            date: name(self.date),
            amount: out,
            debit,
            credit,
            direction,
            payee,
            payee_in,
            memo,
            currency: self.currency.map(name),
            found: self.columns.clone(),
        }
    }

    /// The cell of header column `col` in `rec`.
    pub(super) fn cell<'r>(&self, rec: &'r csv::StringRecord, col: usize) -> &'r str {
        let missing = self.header_len.saturating_sub(rec.len());
        aligned(rec, col, missing, self.right_from).unwrap_or("")
    }

    pub(super) fn row(&self, rec: &Record, decimal: char, dates: &DateFormat) -> Row {
        let f = &rec.fields;
        let mut problem = None;
        let raw_date = self.cell(f, self.date).trim();
        let date = dates.parse(raw_date);
        if date.is_none() {
            problem = Some(if is_pending(raw_date) {
                Problem::Pending {
                    value: raw_date.to_string(),
                }
            } else {
                Problem::Date {
                    value: raw_date.to_string(),
                }
            });
        }
        let amount = self.amount(f, decimal);
        if amount.is_none() && problem.is_none() {
            problem = Some(Problem::Amount {
                value: self.amount_text(f),
            });
        }
        let out = amount.is_some_and(|a| a < Decimal::ZERO);
        let payee = match self.payee {
            PayeeCol::None => "",
            PayeeCol::Col(c) => self.cell(f, c),
            PayeeCol::BySign(o, _) if out => self.cell(f, o),
            PayeeCol::BySign(_, i) => self.cell(f, i),
        };
        let memo = match self.memo {
            MemoCol::None => String::new(),
            MemoCol::Col(c) => self.cell(f, c).trim().to_string(),
            MemoCol::SingleQuoted(c) => {
                let m = self.cell(f, c).trim();
                m.strip_prefix('\'')
                    .and_then(|m| m.strip_suffix('\''))
                    .unwrap_or(m)
                    .trim()
                    .to_string()
            }
            MemoCol::Rest(c) => f
                .iter()
                .skip(c)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        };
        let currency = self
            .currency
            .map(|c| self.cell(f, c).trim().to_uppercase())
            .filter(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()));
        Row {
            line: rec.line,
            date,
            amount,
            currency,
            payee: payee.trim().to_string(),
            memo,
            problem,
        }
    }

    pub(super) fn amount(&self, f: &csv::StringRecord, decimal: char) -> Option<Decimal> {
        let num = |c: usize| {
            let s = self.cell(f, c).trim();
            if s.is_empty() {
                Some(None)
            } else {
                parse_amount(s, decimal).map(Some)
            }
        };
        match self.amount {
            AmountCols::Signed(c) => num(c)?,
            AmountCols::DebitCredit(d, c) => match (num(d)?, num(c)?) {
                (None, None) => None,
                (d, c) => {
                    let out = d.unwrap_or_default();
                    let out = if out > Decimal::ZERO { -out } else { out };
                    Some(out + c.unwrap_or_default())
                }
            },
            AmountCols::Flag(a, flag) => {
                let a = num(a)??.abs();
                let flag = self.cell(f, flag).trim().to_lowercase();
                let out = matches!(
                    flag.as_str(),
                    "af" | "d" | "debit" | "debet" | "dr" | "db" | "s" | "soll" | "-"
                );
                Some(if out { -a } else { a })
            }
            AmountCols::CreditMark(a, mark) => {
                let a = num(a)??.abs();
                let credit = is_credit_mark(self.cell(f, mark));
                Some(if credit { a } else { -a })
            }
            AmountCols::LessFee(a, fee) => Some(num(a)?? - num(fee)?.unwrap_or_default()),
        }
    }

    pub(super) fn amount_text(&self, f: &csv::StringRecord) -> String {
        match self.amount {
            AmountCols::Signed(c)
            | AmountCols::Flag(c, _)
            | AmountCols::CreditMark(c, _)
            | AmountCols::LessFee(c, _) => self.cell(f, c).trim().to_string(),
            AmountCols::DebitCredit(d, c) => {
                format!("{} {}", self.cell(f, d).trim(), self.cell(f, c).trim())
                    .trim()
                    .to_string()
            }
        }
    }

    /// Every amount cell of the rows, for the decimal separator.
    pub(super) fn amount_cells<'r>(&self, f: &'r csv::StringRecord) -> Vec<&'r str> {
        self.amount_columns()
            .into_iter()
            .map(|c| self.cell(f, c).trim())
            .collect()
    }

    /// The columns the amount is read from.
    pub(super) fn amount_columns(&self) -> Vec<usize> {
        match self.amount {
            AmountCols::Signed(c) | AmountCols::Flag(c, _) | AmountCols::CreditMark(c, _) => {
                vec![c]
            }
            AmountCols::DebitCredit(a, b) | AmountCols::LessFee(a, b) => vec![a, b],
        }
    }
}

/// The field of `rec` that holds header column `col`, when the `missing`
/// fields it lacks are those of the columns just before `from` (None: the
/// last ones); None for a column whose field is missing.
pub(super) fn aligned(
    rec: &csv::StringRecord,
    col: usize,
    missing: usize,
    from: Option<usize>,
) -> Option<&str> {
    match from {
        Some(f) if missing > 0 && col >= f => col.checked_sub(missing).and_then(|c| rec.get(c)),
        Some(f) if missing > 0 && col + missing >= f => None,
        _ => rec.get(col),
    }
}

/// The decimal separator of the amount columns: the later of `.` and `,`
/// where both occur, else one followed by one or two digits at the end;
/// amounts like `1.000` say nothing, and a `;`-separated file is German.
pub(super) fn detect_decimal(layout: &Layout, data: &[Record], delimiter: u8) -> char {
    let mut comma = 0;
    let mut point = 0;
    for rec in data.iter().filter(|r| !is_note(&r.fields)).take(2000) {
        for cell in layout.amount_cells(&rec.fields) {
            let digits: String = cell
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
                .collect();
            match (digits.rfind(','), digits.rfind('.')) {
                (Some(c), Some(p)) if c > p => comma += 1,
                (Some(_), Some(_)) => point += 1,
                (Some(c), None) if (1..=2).contains(&(digits.len() - c - 1)) => comma += 1,
                (None, Some(p)) if (1..=2).contains(&(digits.len() - p - 1)) => point += 1,
                _ => {}
            }
        }
    }
    match comma.cmp(&point) {
        std::cmp::Ordering::Greater => ',',
        std::cmp::Ordering::Less => '.',
        std::cmp::Ordering::Equal if delimiter == b';' => ',',
        std::cmp::Ordering::Equal => '.',
    }
}

/// The first format that reads every date cell of the sample that looks
/// like a date (pending markers aside); a US layout tries month first.
pub(super) fn detect_date_format(layout: &Layout, data: &[Record]) -> DateFormat {
    let cells: Vec<&str> = data
        .iter()
        .filter(|r| !is_note(&r.fields))
        .take(500)
        .map(|r| layout.cell(&r.fields, layout.date).trim())
        .filter(|c| !c.is_empty() && !is_pending(c))
        .collect();
    let mut candidates = DateFormat::DETECTED.to_vec();
    if layout.month_first {
        candidates.retain(|f| {
            matches!(
                f,
                DateFormat::Fixed {
                    order: Order::Mdy,
                    ..
                }
            )
        });
    }
    let best = candidates
        .iter()
        .map(|f| (cells.iter().filter(|c| f.parse(c).is_some()).count(), f))
        .max_by_key(|(n, f)| {
            (
                *n,
                std::cmp::Reverse(DateFormat::DETECTED.iter().position(|d| d == *f)),
            )
        })
        .map(|(_, f)| f.clone());
    best.unwrap_or_else(|| DateFormat::DETECTED[0].clone())
}
