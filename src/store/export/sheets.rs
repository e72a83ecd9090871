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
use crate::store::users::User;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
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
    let locale = user.locale;
    for (sheet, sql, cells) in SHEETS {
        let (file, headers) = sheet_words(*sheet, locale);
        debug_assert_eq!(headers.len(), cells.len());
        zip.start_file(format!("spreadsheet/{file}.csv"), options)?;
        zip.write_all(BOM)?;
        let mut w = csv::WriterBuilder::new()
            .delimiter(delimiter(locale))
            .from_writer(&mut *zip);
        w.write_record(headers.iter())?;
        let mut s = c.prepare(sql)?;
        let mut q = s.query([&user.id])?;
        while let Some(r) = q.next()? {
            let mut row = Vec::with_capacity(cells.len());
            for (i, cell) in cells.iter().enumerate() {
                row.push(written(r.get_ref(i)?, *cell, locale));
            }
            w.write_record(&row)?;
        }
        w.flush()?;
    }
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
        Date => match (locale, chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d")) {
            (Locale::De, Ok(d)) => d.format("%d.%m.%Y").to_string(),
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

/// Cents as a decimal in the user's style, without grouping, so that every
/// spreadsheet of the language reads it as a number: `-1234,56`, `-1234.56`.
fn amount(cents: i64, locale: Locale) -> String {
    crate::i18n::amount::input_value(crate::domain::money::from_cents(cents), locale)
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
