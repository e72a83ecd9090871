//! The values of a cell: amounts in every notation, and dates, with the
//! format and the day/month order decided from all of a column's cells.

use chrono::NaiveDate;
use rust_decimal::Decimal;

/// An amount as banks write it: a sign before or after (`-12,50`,
/// `12,50-`, `+1,23`), thousands separators (`1.234,56`, `1,234.56`,
/// `11'373.94`), currency signs and codes around it (`-$7,971.39`,
/// `3.600,00 €`). `decimal` is the file's decimal separator.
pub fn parse_amount(raw: &str, decimal: char) -> Option<Decimal> {
    let s = raw.trim();
    let mut negative = false;
    let mut number = String::with_capacity(s.len());
    let mut seen_digit = false;
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '0'..='9' => {
                number.push(c);
                seen_digit = true;
            }
            '.' | ',' | '\'' | '’' if c != decimal => {
                // A thousands separator stands before a group of three digits.
                let group = chars.get(i + 1..i + 4).unwrap_or(&[]);
                let next = chars.get(i + 4);
                if !seen_digit
                    || group.len() < 3
                    || !group.iter().all(char::is_ascii_digit)
                    || next.is_some_and(char::is_ascii_digit)
                {
                    return None;
                }
            }
            '-' | '−' => negative = true,
            '+' => {}
            '(' | ')' if !seen_digit || c == ')' => negative = true,
            c if c == decimal => number.push('.'),
            ' ' | '\u{a0}' | '\u{202f}' => {}
            c if c.is_alphabetic() || "€$£¥".contains(c) => {}
            _ => return None,
        }
    }
    if !seen_digit || number.matches('.').count() > 1 {
        return None;
    }
    let value: Decimal = number.parse().ok()?;
    Some(if negative { -value } else { value })
}

// ------------------------------------------------------------------ dates

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Order {
    Dmy,
    Mdy,
    Ymd,
}

/// A date format: detected (order, separator, digits of the year), a day,
/// a month's abbreviated name and a year (`12-Dec-2019`, `03-Mär-2020`), or
/// the mapping's chrono pattern.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum DateFormat {
    Fixed {
        order: Order,
        sep: Option<char>,
        long_year: bool,
    },
    /// Day, month name (English or German, [`month_named`]), year.
    Named {
        sep: char,
        long_year: bool,
    },
    Custom(String),
}

/// The month an English or German abbreviation (or full name) names:
/// `Dec`, `Dez`, `Mär`, `Mrz`, `Sept`, `Oktober`; case and a final `.`
/// set aside.
pub(super) fn month_named(word: &str) -> Option<u32> {
    const MONTHS: &[(&str, u32)] = &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("mär", 3),
        ("mrz", 3),
        ("apr", 4),
        ("may", 5),
        ("mai", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("okt", 10),
        ("nov", 11),
        ("dec", 12),
        ("dez", 12),
    ];
    let word = word.trim_end_matches('.').to_lowercase();
    if word.chars().count() < 3 || !word.chars().all(char::is_alphabetic) {
        return None;
    }
    let head: String = word.chars().take(3).collect();
    let (_, month) = MONTHS.iter().find(|(m, _)| *m == head)?;
    // A longer word must be the month's name, not any word beginning so.
    const FULL: &[&str] = &[
        "january",
        "januar",
        "jänner",
        "february",
        "februar",
        "march",
        "märz",
        "april",
        "mai",
        "may",
        "june",
        "juni",
        "july",
        "juli",
        "august",
        "september",
        "sept",
        "october",
        "oktober",
        "november",
        "december",
        "dezember",
    ];
    (word.chars().count() == 3 || FULL.contains(&word.as_str())).then_some(*month)
}

impl DateFormat {
    pub(super) const DETECTED: [DateFormat; 11] = [
        DateFormat::Fixed {
            order: Order::Dmy,
            sep: Some('.'),
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Dmy,
            sep: Some('.'),
            long_year: false,
        },
        DateFormat::Fixed {
            order: Order::Ymd,
            sep: Some('-'),
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Dmy,
            sep: Some('/'),
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Mdy,
            sep: Some('/'),
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Dmy,
            sep: Some('-'),
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Ymd,
            sep: None,
            long_year: true,
        },
        DateFormat::Fixed {
            order: Order::Dmy,
            sep: Some('/'),
            long_year: false,
        },
        DateFormat::Fixed {
            order: Order::Ymd,
            sep: Some('/'),
            long_year: true,
        },
        DateFormat::Named {
            sep: '-',
            long_year: true,
        },
        DateFormat::Named {
            sep: '-',
            long_year: false,
        },
    ];

    /// The format of a mapping's chrono pattern: a detected one where it
    /// is one of theirs (so `%d-%b-%Y` reads German months too), else the
    /// pattern as chrono reads it.
    pub(super) fn given(pattern: &str) -> DateFormat {
        DateFormat::DETECTED
            .iter()
            .find(|f| f.pattern() == pattern)
            .cloned()
            .unwrap_or_else(|| DateFormat::Custom(pattern.to_string()))
    }

    /// The chrono pattern, as the batch's `format.dateFormat` says it.
    pub(super) fn pattern(&self) -> String {
        match self {
            DateFormat::Custom(p) => p.clone(),
            DateFormat::Named { sep, long_year } => {
                format!("%d{sep}%b{sep}{}", if *long_year { "%Y" } else { "%y" })
            }
            DateFormat::Fixed {
                order,
                sep,
                long_year,
            } => {
                let y = if *long_year { "%Y" } else { "%y" };
                let parts = match order {
                    Order::Dmy => ["%d", "%m", y],
                    Order::Mdy => ["%m", "%d", y],
                    Order::Ymd => [y, "%m", "%d"],
                };
                parts.join(&sep.map(String::from).unwrap_or_default())
            }
        }
    }

    /// The calendar day of a cell; a time after the day is ignored.
    pub(super) fn parse(&self, raw: &str) -> Option<NaiveDate> {
        let s = raw.trim();
        match self {
            DateFormat::Custom(p) => NaiveDate::parse_from_str(s, p)
                .ok()
                .or_else(|| NaiveDate::parse_from_str(day_part(s), p).ok()),
            DateFormat::Named { sep, long_year } => {
                let mut it = day_part(s).split(*sep);
                let (d, m, y) = (it.next()?, it.next()?, it.next()?);
                let year_len = if *long_year { 4 } else { 2 };
                if it.next().is_some()
                    || !(1..=2).contains(&d.len())
                    || y.len() != year_len
                    || !format!("{d}{y}").bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let year: i32 = y.parse().ok()?;
                let year = if *long_year { year } else { 2000 + year };
                NaiveDate::from_ymd_opt(year, month_named(m)?, d.parse().ok()?)
            }
            DateFormat::Fixed {
                order,
                sep,
                long_year,
            } => {
                let s = day_part(s);
                let (a, b, c) = match sep {
                    Some(sep) => {
                        let mut it = s.split(*sep);
                        let parts = (it.next()?, it.next()?, it.next()?);
                        if it.next().is_some() {
                            return None;
                        }
                        parts
                    }
                    None if s.len() == 8 && s.is_ascii() => (&s[..4], &s[4..6], &s[6..]),
                    None => return None,
                };
                let (y, m, d) = match order {
                    Order::Dmy => (c, b, a),
                    Order::Mdy => (c, a, b),
                    Order::Ymd => (a, b, c),
                };
                let digits = |t: &str, n: std::ops::RangeInclusive<usize>| {
                    n.contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit())
                };
                let year_len = if *long_year { 4..=4 } else { 2..=2 };
                if !digits(y, year_len) || !digits(m, 1..=2) || !digits(d, 1..=2) {
                    return None;
                }
                let mut year: i32 = y.parse().ok()?;
                if !long_year {
                    year += 2000;
                }
                NaiveDate::from_ymd_opt(year, m.parse().ok()?, d.parse().ok()?)
            }
        }
    }
}

/// `2021-09-05 11:32:41` and `2023-10-05T18:54:23` are days with a time.
pub(super) fn day_part(s: &str) -> &str {
    let s = s.split_whitespace().next().unwrap_or(s);
    match s.find('T') {
        Some(i) if i >= 8 => &s[..i],
        _ => s,
    }
}

pub(super) fn is_pending(s: &str) -> bool {
    matches!(
        s.to_lowercase().as_str(),
        "offen" | "vorgemerkt" | "pending" | "ausstehend" | "in bearbeitung" | "--" | "-"
    )
}

/// A card export's mark of a credit (`CR`) beside an unsigned amount.
pub(super) fn is_credit_mark(cell: &str) -> bool {
    cell.trim().eq_ignore_ascii_case("cr")
}
