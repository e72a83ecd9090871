//! Quicken Interchange Format reader.
//!
//! Records of the bank-like sections (`!Type:Bank`, `Cash`, `CCard`,
//! `Oth A`, `Oth L`) become rows: date `D`, amount `T` (or `U`), payee `P`,
//! memo `M`; split lines, addresses and categories are ignored. A record ends
//! at `^`, at the next `!` header or at the end of the file (the last `^` is
//! often missing). `!Account` blocks (also inside an `!Option:AutoSwitch`
//! account list) name the account the following records belong to.
//!
//! QIF states no currency and no balance. Day/month order is decided from
//! all dates of the file: a first number above 12 means day first, a second
//! number above 12 means month first; month first when nothing decides.

use super::text::split_lines;
use super::{Account, Accounts, Error};
use crate::domain::import::budget::Budget;
use crate::domain::import::row::{Problem, Row};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::str::FromStr;

/// Recognises QIF by its first non-blank line.
pub fn sniff(head: &str) -> bool {
    let first = split_lines(head)
        .map(|(_, l)| l.trim())
        .find(|l| !l.is_empty());
    let Some(first) = first else { return false };
    let lower = first.to_ascii_lowercase();
    lower.starts_with("!type:") || lower.starts_with("!account") || lower.starts_with("!option")
}

/// What the lines under the current header are.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    /// Transactions of a bank-like account.
    Transactions,
    /// Account list records (`N` names the account).
    Accounts,
    /// Anything else (categories, classes, securities, investments, ...).
    Other,
}

/// A record being read.
#[derive(Default)]
struct Record {
    line: usize,
    date: Option<String>,
    amount: Option<String>,
    payee: Option<String>,
    memo: Option<String>,
    name: Option<String>,
}

impl Record {
    fn is_empty(&self) -> bool {
        self.line == 0
    }
}

/// Reads a QIF file: its text, decoded from `encoding` ([`super::decode`]).
pub fn read_text(
    text: &str,
    encoding: &'static str,
    budget: &Budget,
) -> Result<(&'static str, Vec<Account>), Error> {
    let day_first = decide_day_first(text, budget)?;

    let mut accounts = Accounts::default();
    let mut section = Section::Other;
    let mut current: Option<String> = None;
    let mut record = Record::default();

    for (no, raw) in split_lines(text) {
        budget.check()?;
        let line = raw.trim_end().trim_start_matches('\u{1a}');
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('!') {
            finish(&mut record, section, &mut current, &mut accounts, day_first)?;
            let header = line.trim().to_ascii_lowercase();
            section = if header.starts_with("!account") {
                Section::Accounts
            } else if let Some(kind) = header.strip_prefix("!type:") {
                match kind.trim() {
                    "bank" | "cash" | "ccard" | "oth a" | "oth l" => Section::Transactions,
                    _ => Section::Other,
                }
            } else {
                // !Option:AutoSwitch and !Clear:AutoSwitch change no section
                // of their own; the account list follows as !Account.
                section
            };
            continue;
        }
        if line.starts_with('^') {
            finish(&mut record, section, &mut current, &mut accounts, day_first)?;
            continue;
        }
        let mut chars = line.chars();
        let code = chars.next().unwrap_or(' ');
        let value = chars.as_str().trim().to_string();
        if record.is_empty() {
            record.line = no;
        }
        match (section, code) {
            (Section::Accounts, 'N') => record.name = Some(value),
            (Section::Transactions, 'D') => record.date = Some(value),
            (Section::Transactions, 'T') => record.amount = Some(value),
            (Section::Transactions, 'U') if record.amount.is_none() => {
                record.amount = Some(value);
            }
            (Section::Transactions, 'P') => record.payee = Some(value),
            (Section::Transactions, 'M') => record.memo = Some(value),
            _ => {}
        }
    }
    finish(&mut record, section, &mut current, &mut accounts, day_first)?;
    if accounts.list.is_empty() {
        accounts.get("")?;
    }
    Ok((encoding, accounts.list))
}

fn finish(
    record: &mut Record,
    section: Section,
    current: &mut Option<String>,
    accounts: &mut Accounts,
    day_first: bool,
) -> Result<(), Error> {
    let r = std::mem::take(record);
    if r.is_empty() {
        return Ok(());
    }
    match section {
        Section::Accounts => {
            if let Some(name) = r.name {
                accounts.get(&name)?;
                *current = Some(name);
            }
        }
        Section::Transactions => {
            let date_text = r.date.unwrap_or_default();
            let amount_text = r.amount.unwrap_or_default();
            let date = parse_date(&date_text, day_first);
            let amount = parse_amount(&amount_text);
            let problem = if date.is_none() {
                Some(Problem::Date { value: date_text })
            } else if amount.is_none() {
                Some(Problem::Amount { value: amount_text })
            } else {
                None
            };
            let row = Row {
                line: r.line,
                date,
                amount,
                currency: None,
                payee: r.payee.unwrap_or_default(),
                memo: r.memo.unwrap_or_default(),
                problem,
            };
            accounts.push(current.as_deref().unwrap_or_default(), row)?;
        }
        Section::Other => {}
    }
    Ok(())
}

/// An amount with optional thousands separators: `-1,000.00`, `1.000,00`,
/// `100`.
fn parse_amount(s: &str) -> Option<Decimal> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if t.is_empty() || t.len() > 40 {
        return None;
    }
    let last_dot = t.rfind('.');
    let last_comma = t.rfind(',');
    let normal = match (last_dot, last_comma) {
        // Comma as the decimal mark: `1.000,00` or `12,50`.
        (Some(d), Some(c)) if c > d => t.replace('.', "").replace(',', "."),
        (None, Some(c)) if t.len() - c == 3 && t.matches(',').count() == 1 => t.replace(',', "."),
        _ => t.replace(',', ""),
    };
    let body = normal.strip_prefix(['-', '+']).unwrap_or(&normal);
    if body.is_empty() || !body.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let normal = normal.strip_prefix('+').unwrap_or(&normal);
    Decimal::from_str(normal)
        .ok()
        .map(super::text::at_least_cents)
}

/// The three numbers of a QIF date: `6/ 1/94`, `1/ 5'98`, `12.31.2004`,
/// `2004-12-31`.
fn date_parts(s: &str) -> Option<[u32; 3]> {
    let cleaned: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let parts: Vec<&str> = cleaned.split(['/', '-', '.', '\'']).collect();
    if parts.len() != 3 {
        return None;
    }
    let mut out = [0u32; 3];
    for (slot, part) in out.iter_mut().zip(&parts) {
        if part.is_empty() || part.len() > 4 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = part.parse().ok()?;
    }
    // Year first (ISO): mark it by a four-digit first part.
    if parts.first().is_some_and(|p| p.len() == 4) {
        return Some([out[1], out[2], out[0] + 10_000]);
    }
    Some(out)
}

/// Whether the file writes the day before the month.
fn decide_day_first(text: &str, budget: &Budget) -> Result<bool, Error> {
    let mut day_first = false;
    let mut month_first = false;
    for (_, line) in split_lines(text) {
        budget.check()?;
        let Some(value) = line.trim_start().strip_prefix('D') else {
            continue;
        };
        if let Some([a, b, y]) = date_parts(value) {
            if y >= 10_000 {
                continue;
            }
            day_first |= a > 12 && b <= 12;
            month_first |= b > 12 && a <= 12;
        }
    }
    Ok(day_first && !month_first)
}

fn parse_date(s: &str, day_first: bool) -> Option<NaiveDate> {
    let [a, b, y] = date_parts(s)?;
    if y >= 10_000 {
        return NaiveDate::from_ymd_opt(i32::try_from(y - 10_000).ok()?, a, b);
    }
    let (month, day) = if day_first { (b, a) } else { (a, b) };
    let year = match y {
        0..=69 => 2000 + y,
        70..=99 => 1900 + y,
        _ => y,
    };
    NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)
}

#[cfg(test)]
mod tests {
    use super::super::{read_as, Kind};
    use super::*;

    fn dec(s: &str) -> Option<Decimal> {
        Decimal::from_str(s).ok()
    }

    #[test]
    fn day_month_order_is_decided_by_the_whole_file() {
        let file = "!Type:Bank\nD03/04/2020\nT1.00\n^\nD25/04/2020\nT2.00\n^\n";
        let (_, accounts) = read_as(Kind::Qif, file.as_bytes()).expect("readable");
        assert_eq!(accounts[0].id, "");
        let rows = &accounts[0].rows;
        assert_eq!(rows[0].date, NaiveDate::from_ymd_opt(2020, 4, 3));
        assert_eq!(rows[1].date, NaiveDate::from_ymd_opt(2020, 4, 25));

        let file = "!Type:Bank\nD03/04/2020\nT1.00\n^\nD04/25/2020\nT2.00\n^\n";
        let (_, accounts) = read_as(Kind::Qif, file.as_bytes()).expect("readable");
        assert_eq!(
            accounts[0].rows[0].date,
            NaiveDate::from_ymd_opt(2020, 3, 4)
        );
    }

    #[test]
    fn cr_line_ends_accounts_and_short_years() {
        let file = "\r!Option:AutoSwitch\r!Account\rNChecking\rTBank\r^\rNSavings\rTBank\r^\r!Clear:AutoSwitch\r!Account\rNChecking\r^\r!Type:Bank\rD8/17/09\rPTransfer\rM\rT5.00\r^\r!Account\rNSavings\r^\r!Type:Bank\rD1/ 5'98\rT-1,000.50\rPX\r";
        assert!(sniff(file));
        let (_, accounts) = read_as(Kind::Qif, file.as_bytes()).expect("readable");
        let ids: Vec<&str> = accounts.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["Checking", "Savings"]);
        let a = &accounts[0].rows[0];
        assert_eq!(a.line, 15);
        assert_eq!(a.date, NaiveDate::from_ymd_opt(2009, 8, 17));
        assert_eq!(a.amount, dec("5.00"));
        assert_eq!(a.payee, "Transfer");
        let b = &accounts[1].rows[0];
        assert_eq!(b.date, NaiveDate::from_ymd_opt(1998, 1, 5));
        assert_eq!(b.amount, dec("-1000.50"));
        assert_eq!(b.currency, None);
    }

    #[test]
    fn unreadable_values_are_kept_as_problems() {
        let file = "!Type:CCard\nDnot a date\nT1\n^\nD1/2/03\nTabc\n^\n";
        let (_, accounts) = read_as(Kind::Qif, file.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows.len(), 2);
        assert!(matches!(rows[0].problem, Some(Problem::Date { .. })));
        assert!(matches!(rows[1].problem, Some(Problem::Amount { .. })));
        assert_eq!(parse_amount("1.000,00"), dec("1000.00"));
        assert_eq!(parse_amount("12,50"), dec("12.50"));
    }
}
