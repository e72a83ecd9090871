//! The spreadsheet files of an export, `spreadsheet/<name>.csv`: the money
//! records as a person reads them in a spreadsheet of their language, beside
//! the machine-readable `data.json` and `csv/` (which stay as they are, and
//! which alone are read back when an export is loaded).
//!
//! For German: `;` between cells, a decimal comma, dates as `14.03.2026`;
//! for English: `,`, a decimal point, dates as `2026-03-14`. Accounts and
//! categories by name, frequencies and account types in words, headers and
//! file names in the user's language, and a UTF-8 byte order mark first, by
//! which Excel knows the encoding.

use super::spreadsheet_text;
use crate::domain::locale::Locale;
use crate::domain::recurrence::Frequency;
use crate::i18n::export::{sheet_words, Sheet};
use crate::store::search::Hit;
use crate::store::users::User;
use chrono::NaiveDate;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ToSql};
use rust_decimal::Decimal;
use std::io::{Seek, Write};
use zip::write::SimpleFileOptions;
use zip::ZipWriter;

/// What a column holds, and so how it is written.
#[derive(Clone, Copy)]
enum Cell {
    Text,
    /// `YYYY-MM-DD` as stored.
    Date,
    /// An amount in cents.
    Cents,
    Frequency,
    AccountType,
    /// 0 or 1.
    YesNo,
}

use Cell::*;

/// Each file: which sheet, the query of its rows (the user is `?1`) and its
/// columns, as many as the headers of [`sheet_words`].
const SHEETS: &[(Sheet, &str, &[Cell])] = &[
    (
        Sheet::Accounts,
        "SELECT name, type, currency, balance_cents FROM accounts
         WHERE user_id = ?1 ORDER BY name, id",
        &[Text, AccountType, Text, Cents],
    ),
    (
        Sheet::DailyExpenses,
        "SELECT d.date, d.name, d.merchant, d.amount_cents, d.currency, a.name, k.name, d.notes
         FROM daily_expenses d JOIN accounts a ON a.id = d.account_id
         LEFT JOIN categories k ON k.id = d.category_id
         WHERE d.user_id = ?1 ORDER BY d.date, d.created_at, d.id",
        &[Date, Text, Text, Cents, Text, Text, Text, Text],
    ),
    (
        Sheet::Expenses,
        "SELECT e.name, e.amount_cents, e.currency, e.frequency, e.start_date, e.end_date,
                a.name, k.name, e.is_subscription, e.notes
         FROM expenses e JOIN accounts a ON a.id = e.account_id
         LEFT JOIN categories k ON k.id = e.category_id
         WHERE e.user_id = ?1 ORDER BY e.name, e.id",
        &[
            Text, Cents, Text, Frequency, Date, Date, Text, Text, YesNo, Text,
        ],
    ),
    (
        Sheet::Incomes,
        "SELECT i.name, i.amount_cents, i.currency, i.frequency, i.start_date, i.end_date,
                a.name, i.notes
         FROM incomes i JOIN accounts a ON a.id = i.account_id
         WHERE i.user_id = ?1 ORDER BY i.start_date, i.name, i.id",
        &[Text, Cents, Text, Frequency, Date, Date, Text, Text],
    ),
    (
        Sheet::Budgets,
        "SELECT k.name, b.month || '-01', b.amount_cents, u.base_currency, b.rollover
         FROM budgets b JOIN categories k ON k.id = b.category_id
         JOIN users u ON u.id = b.user_id
         WHERE b.user_id = ?1 ORDER BY k.name, k.id, b.month",
        &[Text, Date, Cents, Text, YesNo],
    ),
    (
        Sheet::BalanceHistory,
        "SELECT h.date, a.name, h.balance_cents, a.currency
         FROM balance_history h JOIN accounts a ON a.id = h.account_id
         WHERE h.user_id = ?1 ORDER BY h.date, a.name, a.id",
        &[Date, Text, Cents, Text],
    ),
    (
        Sheet::Transfers,
        "SELECT f.name, t.name, x.amount_cents, x.currency, x.frequency, x.start_date,
                x.end_date, x.note
         FROM transfers x JOIN accounts f ON f.id = x.from_account_id
         JOIN accounts t ON t.id = x.to_account_id
         WHERE x.user_id = ?1 ORDER BY x.start_date, x.id",
        &[Text, Text, Cents, Text, Frequency, Date, Date, Text],
    ),
];

/// The byte order mark of UTF-8.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// Writes the files into the archive, each under `spreadsheet/`.
pub fn write<W: Write + Seek>(
    c: &Connection,
    user: &User,
    zip: &mut ZipWriter<W>,
    options: SimpleFileOptions,
) -> anyhow::Result<()> {
    for (sheet, sql, cells) in SHEETS {
        let (file, _) = sheet_words(*sheet, user.locale);
        zip.start_file(format!("spreadsheet/{file}.csv"), options)?;
        rows(c, user.locale, *sheet, sql, &[&user.id], cells, &mut *zip)?;
    }
    Ok(())
}

/// The one-time expenses from `first` to `last` (both included) of the
/// user, in the category `category` (`Some(None)`: those without one), as
/// the export's spreadsheet file of them: the "spreadsheet" link of the
/// one-time expenses page.
pub fn daily_expenses(
    c: &Connection,
    user: &User,
    (first, last): (NaiveDate, NaiveDate),
    category: Option<Option<&str>>,
    out: impl Write,
) -> anyhow::Result<()> {
    let (sheet, _, cells) = SHEETS
        .iter()
        .find(|s| s.0 == Sheet::DailyExpenses)
        .expect("a sheet of one-time expenses");
    let sql =
        "SELECT d.date, d.name, d.merchant, d.amount_cents, d.currency, a.name, k.name, d.notes
         FROM daily_expenses d JOIN accounts a ON a.id = d.account_id
         LEFT JOIN categories k ON k.id = d.category_id
         WHERE d.user_id = ?1 AND d.date BETWEEN ?2 AND ?3
           AND (?4 = 0 OR d.category_id IS ?5)
         ORDER BY d.date, d.created_at, d.id";
    let (filtered, category_id) = match category {
        None => (false, None),
        Some(id) => (true, id),
    };
    let params: [&dyn ToSql; 5] = [&user.id, &first, &last, &filtered, &category_id];
    rows(c, user.locale, *sheet, sql, &params, cells, out)
}

/// Writes one spreadsheet file into `out`: the byte order mark, the
/// headers of `sheet` and the rows of `sql` with `params`.
fn rows(
    c: &Connection,
    locale: Locale,
    sheet: Sheet,
    sql: &str,
    params: &[&dyn ToSql],
    cells: &[Cell],
    mut out: impl Write,
) -> anyhow::Result<()> {
    let (_, headers) = sheet_words(sheet, locale);
    debug_assert_eq!(headers.len(), cells.len());
    out.write_all(BOM)?;
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter(locale))
        .from_writer(out);
    w.write_record(headers.iter())?;
    let mut s = c.prepare(sql)?;
    let mut q = s.query(params)?;
    while let Some(r) = q.next()? {
        let mut row = Vec::with_capacity(cells.len());
        for (i, cell) in cells.iter().enumerate() {
            row.push(written(r.get_ref(i)?, *cell, locale));
        }
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

/// A search's hits as a spreadsheet file, in the order found: the kind,
/// the booking day of a one-time entry, the day a recurring one started,
/// the name, the merchant, the amount (a recurring one's of today), the
/// currency and how often it is due.
pub fn search_hits(hits: &[Hit], locale: Locale, mut out: impl Write) -> anyhow::Result<()> {
    let (_, headers) = sheet_words(Sheet::Search, locale);
    out.write_all(BOM)?;
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter(locale))
        .from_writer(out);
    w.write_record(headers.iter())?;
    let day = |d: Option<NaiveDate>| d.map(|d| date(d, locale)).unwrap_or_default();
    for h in hits {
        let recurring = h.is_recurring();
        let (booked, started) = if recurring {
            (None, h.date)
        } else {
            (h.date, None)
        };
        let amount = if recurring { h.amount_today } else { h.amount };
        w.write_record([
            crate::i18n::export::kind(h.kind, locale).to_string(),
            day(booked),
            day(started),
            spreadsheet_text(&h.name),
            h.merchant
                .as_deref()
                .map(spreadsheet_text)
                .unwrap_or_default(),
            amount
                .map(|a| decimal(a.into(), locale))
                .unwrap_or_default(),
            h.currency.clone().unwrap_or_default(),
            h.frequency
                .map(|f| locale.frequency(f).to_string())
                .unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// The cell separator of a spreadsheet in `locale`: German spreadsheets
/// take `;` (the comma is their decimal separator).
fn delimiter(locale: Locale) -> u8 {
    match locale {
        Locale::De => b';',
        Locale::En => b',',
    }
}

/// One cell as the user's spreadsheet reads it.
fn written(value: ValueRef<'_>, cell: Cell, locale: Locale) -> String {
    let text = match value {
        ValueRef::Null => return String::new(),
        ValueRef::Integer(n) => match cell {
            Cents => return amount(n, locale),
            YesNo => return crate::i18n::export::yes_no(n != 0, locale).to_string(),
            _ => return n.to_string(),
        },
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Real(f) => return f.to_string(),
        ValueRef::Blob(_) => return String::new(),
    };
    match cell {
        Date => match NaiveDate::parse_from_str(&text, "%Y-%m-%d") {
            Ok(d) => date(d, locale),
            _ => text,
        },
        Frequency => Frequency::from_code(&text)
            .map(|f| locale.frequency(f).to_string())
            .unwrap_or(text),
        AccountType => crate::i18n::export::account_type(&text, locale)
            .map(str::to_string)
            .unwrap_or(text),
        _ => spreadsheet_text(&text),
    }
}

/// A day as the language's spreadsheets read it: `14.03.2026`, `2026-03-14`.
fn date(d: NaiveDate, locale: Locale) -> String {
    match locale {
        Locale::De => d.format("%d.%m.%Y").to_string(),
        Locale::En => d.format("%Y-%m-%d").to_string(),
    }
}

/// Cents as a decimal in the user's style, without grouping, so that every
/// spreadsheet of the language reads it as a number: `-1234,56`, `-1234.56`.
fn amount(cents: i64, locale: Locale) -> String {
    decimal(crate::domain::money::from_cents(cents), locale)
}

/// An amount in the user's style, without grouping ([`amount`]).
fn decimal(a: Decimal, locale: Locale) -> String {
    crate::i18n::amount::input_value(a, locale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_written_the_way_the_language_reads_them() {
        let de = |v: ValueRef<'_>, c: Cell| written(v, c, Locale::De);
        let en = |v: ValueRef<'_>, c: Cell| written(v, c, Locale::En);
        assert_eq!(de(ValueRef::Integer(1788), Cents), "17,88");
        assert_eq!(en(ValueRef::Integer(1788), Cents), "17.88");
        assert_eq!(de(ValueRef::Integer(-123456), Cents), "-1234,56");
        assert_eq!(de(ValueRef::Text(b"2026-03-14"), Date), "14.03.2026");
        assert_eq!(en(ValueRef::Text(b"2026-03-14"), Date), "2026-03-14");
        assert_eq!(de(ValueRef::Text(b"monthly"), Frequency), "monatlich");
        assert_eq!(de(ValueRef::Text(b"=1+2"), Text), "'=1+2");
        assert_eq!(de(ValueRef::Null, Date), "");
        assert_eq!(delimiter(Locale::De), b';');
        assert_eq!(delimiter(Locale::En), b',');
    }
}
