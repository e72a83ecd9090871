//! SWIFT MT940 reader, including the German DFÜ layout with `?nn`
//! subfields in `:86:`, SWIFT `{1:..}{4:..}` envelopes (several messages,
//! each framed by SOH and ETX as Swiss banks write them), free header lines
//! before the first tag (ABN AMRO), Dutch layouts with the counterparty in
//! `:61:`, and Swiss `:NS:` blocks.
//!
//! Rules (see docs/import-formats.md):
//! - date: the entry (booking) date MMDD of `:61:` with the year of the
//!   value date moved across a year end when needed, else the value date;
//! - amount: `C` and `RD` positive, `D` and `RC` negative;
//! - currency: that of the statement's opening balance `:60F:`/`:60M:`;
//! - structured `:86:` (`GVC?00...`): line breaks are removed first (they
//!   can split words), payee = `?32` + `?33`, memo = `?20`..`?29` then
//!   `?60`..`?63`, each joined without separator;
//! - other `:86:`: payee from the second line of `:61:` or the name padded
//!   into its reference; memo = the `:86:` text (without a first line that
//!   only repeats account and payee); several `:86:` join with a space;
//! - `:NS:` blocks: memo = the non-empty lines 01..16;
//! - payee and memo have whitespace runs collapsed to one space;
//! - closing: the latest `:62F:` per account (`:62M:` and `:64:` are not
//!   booked closing balances).

use super::text::{collapse, digits, parse_decimal, split_lines, SplitLines};
use super::{currency_code, most, Account, Accounts, Balance, Error, Part};
use crate::domain::import::budget::Budget;
use crate::domain::import::row::{Problem, Row};
use chrono::{Datelike, NaiveDate};

/// Recognises MT940: the first non-blank line is a tag or a SWIFT block, or
/// a few short header lines a bank writes before the first tag (`ABNANL2A`,
/// `940`), and `:20:`, `:25:` and `:60F:`/`:60M:`/`:61:` start lines near
/// the start.
pub fn sniff(head: &str) -> bool {
    let lines: Vec<&str> = split_lines(head).map(|(_, l)| strip_envelope(l)).collect();
    let mut header = 0;
    // A lone `-` (the end of a message, which some banks also write
    // before the first one) is no header line but does not stop the file.
    for line in lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && *l != "-")
    {
        if line.starts_with(':') || line.starts_with('{') {
            break;
        }
        header += 1;
        if header > MAX_HEADER_LINES || !is_header_line(line) {
            return false;
        }
    }
    let has = |tag: &str| lines.iter().any(|l| l.starts_with(tag));
    has(":20:") && has(":25:") && (has(":60F:") || has(":60M:") || has(":61:"))
}

/// The most free lines before the first tag of a file.
const MAX_HEADER_LINES: usize = 5;

/// A free header line before the first tag: one short word of letters and
/// digits (a bank's BIC, the message type), nothing a CSV line would hold.
fn is_header_line(line: &str) -> bool {
    line.len() <= 16 && line.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Control characters that stand around messages: Ctrl-Z (DOS end of
/// file), and the SWIFT start and end of a message (SOH and ETX) that Swiss
/// banks write around each `{1:…}` … `-}`.
const FRAME: [char; 3] = ['\u{1a}', '\u{1}', '\u{3}'];

/// Removes what precedes the first tag on a line: the [`FRAME`] characters
/// and SWIFT header blocks up to the text block `{4:`.
fn strip_envelope(line: &str) -> &str {
    let line = line.trim_start_matches(FRAME);
    if line.starts_with('{') {
        if let Some(pos) = line.find("{4:") {
            return line.get(pos + 3..).unwrap_or_default();
        }
    }
    line
}

/// One field: its tag, the line it starts on, and its text lines (the first
/// is the text after the tag).
struct Field<'a> {
    tag: &'a str,
    line: usize,
    lines: Vec<&'a str>,
}

/// Splits the text into fields, one at a time. Lines that do not start a
/// tag continue the field before; SWIFT block ends and `-` separators end
/// it. A field of more than [`most`]`(Part::Lines)` lines is refused.
fn fields<'a>(text: &'a str, budget: &'a Budget) -> Fields<'a> {
    Fields {
        lines: split_lines(text),
        open: None,
        budget,
    }
}

/// The fields of [`fields`].
struct Fields<'a> {
    lines: SplitLines<'a>,
    /// The field being read.
    open: Option<Field<'a>>,
    budget: &'a Budget,
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Err(stop) = self.budget.check() {
                return Some(Err(stop.into()));
            }
            let Some((no, raw)) = self.lines.next() else {
                return self.open.take().map(Ok);
            };
            let line = strip_envelope(raw);
            if let Some((tag, rest)) = tag_of(line) {
                let next = Field {
                    tag,
                    line: no,
                    lines: vec![rest],
                };
                match self.open.replace(next) {
                    Some(done) => return Some(Ok(done)),
                    None => continue,
                }
            }
            let t = line.trim();
            let envelope = raw.trim_start_matches(FRAME).starts_with('{');
            if t == "-" || t.starts_with("-}") || envelope {
                match self.open.take() {
                    Some(done) => return Some(Ok(done)),
                    None => continue,
                }
            }
            if let Some(f) = self.open.as_mut() {
                if f.lines.len() >= most(Part::Lines) {
                    return Some(Err(Error::TooMuch {
                        part: Part::Lines,
                        line: f.line,
                    }));
                }
                f.lines.push(line);
            }
        }
    }
}

/// A line that starts with `:TAG:` gives the tag and the rest of the line.
fn tag_of(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix(':')?;
    let end = rest.find(':')?;
    let tag = rest.get(..end)?;
    if tag.is_empty() || tag.len() > 4 || !tag.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some((tag, rest.get(end + 1..)?))
}

/// A statement line `:61:` with its details.
struct Entry {
    line: usize,
    date: Option<NaiveDate>,
    date_text: String,
    amount: Option<rust_decimal::Decimal>,
    amount_text: String,
    /// Name padded into the reference (old Dutch layout) or the second line.
    payee: String,
    details: Vec<Vec<String>>,
    ns: Vec<String>,
    /// The lines of `details` and `ns`, at most [`most`]`(Part::Lines)`.
    held: usize,
}

impl Entry {
    /// Counts the lines of a field about to be kept with the entry.
    fn hold(&mut self, field: &Field<'_>) -> Result<(), Error> {
        self.held += field.lines.len();
        if self.held > most(Part::Lines) {
            return Err(Error::TooMuch {
                part: Part::Lines,
                line: field.line,
            });
        }
        Ok(())
    }
}

/// Reads an MT940 file: its text, decoded from `encoding` ([`super::decode`]).
pub fn read_text(
    text: &str,
    encoding: &'static str,
    budget: &Budget,
) -> Result<(&'static str, Vec<Account>), Error> {
    let mut accounts = Accounts::default();
    let mut account_raw: Option<String> = None;
    let mut account: Option<String> = None;
    let mut currency: Option<String> = None;
    let mut entry: Option<Entry> = None;
    let mut last_line = 1;

    for field in fields(text, budget) {
        let field = field?;
        last_line = field.line;
        let first = field.lines.first().copied().unwrap_or_default();
        match field.tag {
            "20" => {
                flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
                // A statement without rows or balances still names its account.
                if let Some(id) = &account {
                    accounts.get(id)?;
                }
                account_raw = None;
                account = None;
                currency = None;
            }
            "25" => {
                flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
                let raw = field.lines.join("").trim().to_string();
                account = Some(raw.clone());
                account_raw = Some(raw);
            }
            "60F" | "60M" => {
                flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
                if let Some(b) = parse_balance(first) {
                    currency = b.currency.clone();
                    // Some banks glue the currency onto the account number.
                    if let (Some(raw), Some(ccy)) = (&account_raw, &currency) {
                        if let Some(stripped) = raw.strip_suffix(ccy.as_str()) {
                            let stripped = stripped.trim_end();
                            if !stripped.is_empty() {
                                account = Some(stripped.to_string());
                            }
                        }
                    }
                }
                let id = account.clone().unwrap_or_default();
                accounts.currency(&id, currency.clone())?;
            }
            "61" => {
                flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
                entry = Some(parse_61(&field));
            }
            "86" => {
                if let Some(e) = entry.as_mut() {
                    e.hold(&field)?;
                    e.details
                        .push(field.lines.iter().map(|l| l.to_string()).collect());
                }
            }
            "NS" => {
                if let Some(e) = entry.as_mut() {
                    e.hold(&field)?;
                    e.ns.extend(field.lines.iter().map(|l| l.to_string()));
                }
            }
            "62F" | "62M" | "64" | "65" => {
                flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
                if field.tag == "62F" {
                    if let Some(b) = parse_balance(first) {
                        let id = account.clone().unwrap_or_default();
                        accounts.closing(
                            &id,
                            Balance {
                                date: b.date,
                                amount: b.amount,
                            },
                        )?;
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut entry, account.as_deref(), &currency, &mut accounts)?;
    if let Some(id) = &account {
        accounts.get(id)?;
    }
    if accounts.list.is_empty() {
        return Err(Error::Malformed { line: last_line });
    }
    Ok((encoding, accounts.list))
}

struct StatedBalance {
    date: NaiveDate,
    currency: Option<String>,
    amount: rust_decimal::Decimal,
}

/// Parses `C100217EUR2624,22` (mark, YYMMDD, currency, amount).
fn parse_balance(s: &str) -> Option<StatedBalance> {
    let s = s.trim();
    let debit = match s.get(..1)? {
        "C" => false,
        "D" => true,
        _ => return None,
    };
    let date = yymmdd(s.get(1..7)?)?;
    let currency = currency_code(s.get(7..10)?);
    let amount = parse_decimal(s.get(10..)?)?;
    Some(StatedBalance {
        date,
        currency,
        amount: if debit { -amount } else { amount },
    })
}

/// A six-digit SWIFT date; years 80-99 are 19yy, others 20yy.
fn yymmdd(s: &str) -> Option<NaiveDate> {
    let yy: i32 = digits(s, 0, 2)?;
    let mm: u32 = digits(s, 2, 2)?;
    let dd: u32 = digits(s, 4, 2)?;
    let year = if yy >= 80 { 1900 + yy } else { 2000 + yy };
    NaiveDate::from_ymd_opt(year, mm, dd)
}

/// The entry date MMDD placed in the year closest to the value date, so an
/// entry booked on 12-31 for a value date of 01-02 falls in the year before.
fn entry_date(value: NaiveDate, mmdd: &str) -> Option<NaiveDate> {
    let mm: u32 = digits(mmdd, 0, 2)?;
    let dd: u32 = digits(mmdd, 2, 2)?;
    [value.year() - 1, value.year(), value.year() + 1]
        .into_iter()
        .filter_map(|y| NaiveDate::from_ymd_opt(y, mm, dd))
        .min_by_key(|d| (*d - value).num_days().abs())
}

fn parse_61(field: &Field<'_>) -> Entry {
    let s = field.lines.first().copied().unwrap_or_default().trim_end();
    let value_text = s.get(..6).unwrap_or(s);
    let value = yymmdd(value_text);
    let mut pos = 6;
    let mut date = value;
    let mut date_text = value_text.to_string();
    if let Some(mmdd) = s
        .get(6..10)
        .filter(|m| m.bytes().all(|b| b.is_ascii_digit()))
    {
        pos = 10;
        date_text = format!("{value_text}{mmdd}");
        date = value.and_then(|v| entry_date(v, mmdd));
    }
    let rest = s.get(pos..).unwrap_or_default();
    let (sign, rest) = if let Some(r) = rest.strip_prefix("RC") {
        (Some(-1), r)
    } else if let Some(r) = rest.strip_prefix("RD") {
        (Some(1), r)
    } else if let Some(r) = rest.strip_prefix('C') {
        (Some(1), r)
    } else if let Some(r) = rest.strip_prefix('D') {
        (Some(-1), r)
    } else {
        (None, rest)
    };
    // Optional funds code: the third letter of the currency code.
    let rest = match rest.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => rest.get(1..).unwrap_or_default(),
        _ => rest,
    };
    let amount_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(rest.len());
    let amount_text = rest.get(..amount_len).unwrap_or_default().to_string();
    let amount = match (sign, parse_decimal(&amount_text)) {
        (Some(sign), Some(a)) => Some(if sign < 0 { -a } else { a }),
        _ => None,
    };
    // Transaction type: one letter and three characters, then the reference.
    let after_type = rest.get(amount_len + 4..).unwrap_or_default();
    let reference = after_type.split("//").next().unwrap_or_default();
    let mut payee = String::new();
    // Old Dutch layout: reference padded to 16 characters, then the name.
    let chars: Vec<char> = reference.chars().collect();
    if chars.len() > 16 && chars.get(15).is_some_and(|c| c.is_whitespace()) {
        payee = chars.get(16..).unwrap_or_default().iter().collect();
    }
    // Supplementary details on the next line(s) name the counterparty in
    // layouts that use them that way.
    let second: String = field
        .lines
        .iter()
        .skip(1)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    if payee.trim().is_empty() && !second.trim().is_empty() {
        payee = second;
    }
    Entry {
        line: field.line,
        date,
        date_text,
        amount,
        amount_text: s.get(pos..).unwrap_or_default().to_string(),
        payee: collapse(&payee),
        details: Vec::new(),
        ns: Vec::new(),
        held: 0,
    }
}

/// The `?nn` subfields of a structured `:86:`, or None when it is not one.
fn subfields(text: &str) -> Option<Vec<(u8, String)>> {
    let gvc = text.get(..3).unwrap_or_default();
    let body =
        if gvc.len() == 3 && gvc.bytes().all(|b| b.is_ascii_digit()) && text.get(3..4) == Some("?")
        {
            text.get(4..)?
        } else if text.starts_with('?') && digits::<u8>(text, 1, 2).is_some() {
            // Some banks leave out the transaction code.
            text.get(1..)?
        } else {
            return None;
        };
    let mut out = Vec::new();
    for part in body.split('?') {
        let code: Option<u8> = digits(part, 0, 2);
        match (code, out.last_mut()) {
            (Some(code), _) => out.push((code, part.get(2..).unwrap_or_default().to_string())),
            // A `?` that does not start a subfield belongs to the text.
            (None, Some((_, value))) => {
                let value: &mut String = value;
                value.push('?');
                value.push_str(part);
            }
            (None, None) => {}
        }
    }
    Some(out)
}

fn flush(
    entry: &mut Option<Entry>,
    account: Option<&str>,
    currency: &Option<String>,
    accounts: &mut Accounts,
) -> Result<(), Error> {
    let Some(e) = entry.take() else {
        return Ok(());
    };
    let (payee, memo) = payee_and_memo(&e);
    let problem = if e.date.is_none() {
        Some(Problem::Date { value: e.date_text })
    } else if e.amount.is_none() {
        Some(Problem::Amount {
            value: e.amount_text,
        })
    } else {
        None
    };
    let row = Row {
        line: e.line,
        date: e.date,
        amount: e.amount,
        currency: currency.clone(),
        payee: collapse(&payee),
        memo: collapse(&memo),
        problem,
    };
    accounts.push(account.unwrap_or_default(), row)
}

fn payee_and_memo(e: &Entry) -> (String, String) {
    if let Some(first) = e.details.first() {
        // DFÜ transport lines are cut at fixed widths, even inside words.
        let joined: String = first.concat();
        if let Some(subs) = subfields(&joined) {
            let pick = |range: std::ops::RangeInclusive<u8>| -> String {
                subs.iter()
                    .filter(|(c, _)| range.contains(c))
                    .map(|(_, v)| v.as_str())
                    .collect()
            };
            let payee = pick(32..=33);
            let memo = format!("{}{}", pick(20..=29), pick(60..=63));
            return (payee, memo);
        }
        let memo = e
            .details
            .iter()
            .enumerate()
            .map(|(i, lines)| free_text(lines, if i == 0 { &e.payee } else { "" }))
            .filter(|m| !m.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        return (e.payee.clone(), memo);
    }
    if !e.ns.is_empty() {
        let memo =
            e.ns.iter()
                .filter_map(|l| {
                    let code: u8 = digits(l, 0, 2)?;
                    let text = l.get(2..)?.trim();
                    ((1..=16).contains(&code) && !text.is_empty()).then_some(text)
                })
                .collect::<Vec<_>>()
                .join(" ");
        return (e.payee.clone(), memo);
    }
    (e.payee.clone(), String::new())
}

/// Free `:86:` text. A first line that only repeats the counterparty already
/// named in `:61:` (account and name) is left out. Full-width lines (65
/// characters or more) were wrapped and are joined without a separator;
/// shorter lines ended on purpose and are joined with a space.
fn free_text(lines: &[String], payee: &str) -> String {
    let mut lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    if let Some(first) = lines.first() {
        let f = collapse(first);
        if f.is_empty() || (!payee.is_empty() && f.ends_with(payee) && lines.len() > 1) {
            lines.remove(0);
        }
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 && !out.is_empty() {
            let prev_full = lines.get(i - 1).is_some_and(|p| p.chars().count() >= 65);
            if !prev_full {
                out.push(' ');
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{read_as, Kind};
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn dec(s: &str) -> Option<Decimal> {
        Decimal::from_str(s).ok()
    }

    /// As python-fints' mock bank and some banks send it over FinTS: each
    /// message opens with the end marker `-` too.
    #[test]
    fn a_leading_end_of_message_line_is_read() {
        let file = "\r\n-\r\n:20:STARTUMS\r\n:25:12345678/0000000001\r\n:28C:0\r\n\
:60F:C150101EUR1041,23\r\n:61:150101C182,34NMSCNONREF\r\n:86:051?00UEBERWEISG?20Test\r\n\
:62F:C150101EUR1223,57\r\n-\r\n";
        assert_eq!(
            super::super::sniff(file.as_bytes()),
            Some(super::super::Kind::Mt940)
        );
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        assert_eq!(accounts[0].rows.len(), 1);
        assert_eq!(accounts[0].rows[0].amount, dec("182.34"));
        assert!(!sniff("-\r\nDatum;Betrag\r\n:20:X\r\n:25:Y\r\n:61:Z\r\n"));
    }

    #[test]
    fn structured_86_across_transport_line_breaks() {
        let file = ":20:X\r\n:25:50880050/0194791600888\r\n:28C:1/1\r\n:60F:D070903EUR100,\r\n\
:61:0709040904DR0,08NTRFTFNr 40001//0724\r\n\
:86:159?00RETOURE?100399?20EREF+TFNR 40001 00005?21MTLG:Grund nicht s\r\n\
pezifizie?22rt Reject?32Richter Renate 70 Zeichen B?33eginn\r\n\
:62F:D070904EUR100,08\r\n-\r\n";
        assert!(sniff(file));
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        let row = &accounts[0].rows[0];
        assert_eq!(row.amount, dec("-0.08"));
        assert_eq!(
            row.memo,
            "EREF+TFNR 40001 00005MTLG:Grund nicht spezifiziert Reject"
        );
        assert_eq!(row.payee, "Richter Renate 70 Zeichen Beginn");
        assert_eq!(row.line, 5);
        assert_eq!(
            accounts[0].closing.as_ref().map(|b| b.amount),
            dec("-100.08")
        );
    }

    #[test]
    fn entry_date_crosses_the_year_end() {
        let file = ":20:X\n:25:ACC\n:60F:C191231EUR1,00\n:61:2001021231D1,00NTRFNONREF\n:86:x\n:61:1912310102C2,00NTRFNONREF\n:62F:C200102EUR2,00\n";
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows[0].date, NaiveDate::from_ymd_opt(2019, 12, 31));
        assert_eq!(rows[1].date, NaiveDate::from_ymd_opt(2020, 1, 2));
        assert_eq!(rows[1].amount, dec("2.00"));
    }

    #[test]
    fn swift_blocks_glued_currency_and_bad_amount() {
        let file = "{1:F01X}{2:O940X}{3:}{4:\n:20:1\n:25:1567.50.961EUR\n:28:1\n:60F:C120917EUR10,00\n:61:120918D,,N084P002445588      Belastingdienst Apeldoor\n:86:BETALINGSKENM.  018\n:86:GOOGLE\n:62F:C120918EUR10,00\n-}{5:}\n";
        assert!(sniff(file));
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        assert_eq!(accounts[0].id, "1567.50.961");
        assert_eq!(accounts[0].currency.as_deref(), Some("EUR"));
        let row = &accounts[0].rows[0];
        assert!(matches!(row.problem, Some(Problem::Amount { .. })));
        assert_eq!(row.memo, "BETALINGSKENM. 018 GOOGLE");
    }

    #[test]
    fn second_line_of_61_is_the_payee() {
        let file = ":20:1\n:25:NL81ASNB9999999999\n:28C:1/1\n:60F:C200101EUR444,29\n:61:2001010101D65,00NOVBNL47INGB9999999999\nhr paulissen\n:86:NL47INGB9999999999 hr paulissen\n\nBetaling sieraden\n:62F:C200101EUR379,29\n";
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        let row = &accounts[0].rows[0];
        assert_eq!(row.payee, "hr paulissen");
        assert_eq!(row.memo, "Betaling sieraden");
    }

    #[test]
    fn several_messages_in_swift_envelopes() {
        let file = "\u{1}{1:F01POFICHBEAXXX0000000000}{2:I940POFICHBEXXXXN}{3:{108:190103CH00010001}}{4:\r\n\
:20:100000001\r\n:25:CH0000000000000000001\r\n:28C:1/1\r\n:60F:C190102CHF1000,00\r\n\
:61:1901030103D25,50NTRFNONREF//ZV1\r\n:86:EINKAUF MIGROS ZUERICH\r\n\
:62F:C190103CHF974,50\r\n-}{5:{CHK:ABCDEF012345}}\u{3}\r\n\
\u{1}{1:F01POFICHBEAXXX0000000000}{2:I940POFICHBEXXXXN}{4:\r\n\
:20:100000002\r\n:25:CH0000000000000000001\r\n:28C:2/1\r\n:60F:C190103CHF974,50\r\n\
:61:1901040104C100,NTRFNONREF\r\n:86:GUTSCHRIFT AUFTRAGGEBER: MUSTER AG\r\n\
:62F:C190104CHF1074,50\r\n-}\u{3}";
        assert!(sniff(file));
        assert_eq!(
            super::super::sniff(file.as_bytes()),
            Some(super::super::Kind::Mt940)
        );
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        assert_eq!(accounts.len(), 1);
        let a = &accounts[0];
        assert_eq!(a.id, "CH0000000000000000001");
        assert_eq!(a.currency.as_deref(), Some("CHF"));
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[0].amount, dec("-25.50"));
        assert_eq!(a.rows[0].memo, "EINKAUF MIGROS ZUERICH");
        assert_eq!(a.rows[1].amount, dec("100.00"));
        assert_eq!(a.rows[1].date, NaiveDate::from_ymd_opt(2019, 1, 4));
        assert_eq!(a.closing.as_ref().map(|b| b.amount), dec("1074.50"));
    }

    #[test]
    fn header_lines_before_the_first_tag() {
        let file = "ABNANL2A\r\n940\r\nABNANL2A\r\n:20:ABN AMRO BANK NV\r\n:25:123456789\r\n:28:19001/1\r\n\
:60F:C190520EUR1500,00\r\n:61:1905210521D12,35N426NONREF\r\n\
:86:BEA   NR:AB1234   21.05.19/12.01 ALBERT HEIJN 1234 AMSTERDAM\r\n\
:62F:C190521EUR1487,65\r\n-\r\n";
        assert!(sniff(file));
        let (_, accounts) = read_as(Kind::Mt940, file.as_bytes()).expect("readable");
        let row = &accounts[0].rows[0];
        assert_eq!(accounts[0].id, "123456789");
        assert_eq!(row.amount, dec("-12.35"));
        assert_eq!(
            row.memo,
            "BEA NR:AB1234 21.05.19/12.01 ALBERT HEIJN 1234 AMSTERDAM"
        );
        // A CSV line or a sentence before the tags is no header.
        assert!(!sniff(&format!("Datum;Betrag\n{file}")));
        assert!(!sniff(&format!("Ihre Umsaetze vom Mai\n{file}")));
        assert!(!sniff(&format!("{}{file}", "A\n".repeat(6))));
    }
}
