//! The one place where amounts, numbers and dates become text for people,
//! in German or English style.

use crate::domain::locale::Locale;
use crate::domain::money;
use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

/// Digits with thousands separators and `decimals` decimals, rounded half
/// away from zero: "1,234.56" (en) or "1.234,56" (de). Always unsigned.
fn grouped(amount: Decimal, decimals: u32, locale: Locale) -> String {
    match locale {
        Locale::De => money::grouped(amount, decimals, '.', ','),
        Locale::En => money::grouped(amount, decimals, ',', '.'),
    }
}

/// The sign and digits of `amount`; no minus for what rounds to zero.
fn signed(amount: Decimal, decimals: u32, locale: Locale) -> (&'static str, String) {
    let digits = grouped(amount, decimals, locale);
    let nonzero = digits.chars().any(|c| c.is_ascii_digit() && c != '0');
    (
        if amount.is_sign_negative() && nonzero {
            "-"
        } else {
            ""
        },
        digits,
    )
}

/// A number for people, e.g. a percentage or an axis tick.
pub fn number(amount: Decimal, decimals: u32, locale: Locale) -> String {
    let (sign, digits) = signed(amount, decimals, locale);
    format!("{sign}{digits}")
}

/// A scanned receipt's items as the notes of the expense take them: one
/// line each, its name and its amount in the user's style ("Brot 3,20").
pub fn receipt_items(items: &[crate::domain::receipts::Item], locale: Locale) -> String {
    items
        .iter()
        .map(|i| format!("{} {}", i.name, number(i.amount.0, 2, locale)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file size: "812 B", "14 KB", "2,4 MB" (units of 1024 bytes).
pub fn file_size(bytes: u64, locale: Locale) -> String {
    const KB: u64 = 1024;
    if bytes < KB {
        format!("{bytes}\u{a0}B")
    } else if bytes < KB * KB {
        format!("{}\u{a0}KB", bytes.div_ceil(KB))
    } else {
        let mb = Decimal::from(bytes) / Decimal::from(KB * KB);
        format!("{}\u{a0}MB", number(mb, 1, locale))
    }
}

/// An amount with two decimals and its currency: "€1,234.56", "$5.00",
/// "CHF 12.00" in English; "1.234,56 €", "12,00 CHF" in German. A negative
/// amount starts with a minus.
pub fn money(amount: impl Into<Decimal>, currency: &str, locale: Locale) -> String {
    money_with(amount.into(), 2, currency, locale)
}

/// [`money`] in whole units, for a chart's axis: "€3,000", "3.000 €".
pub fn money_whole(amount: impl Into<Decimal>, currency: &str, locale: Locale) -> String {
    money_with(amount.into(), 0, currency, locale)
}

fn money_with(amount: Decimal, decimals: u32, currency: &str, locale: Locale) -> String {
    let (sign, digits) = signed(amount, decimals, locale);
    match locale {
        Locale::De => {
            let symbol = if currency == "EUR" { "€" } else { currency };
            format!("{sign}{digits}\u{a0}{symbol}")
        }
        Locale::En => match currency {
            "EUR" => format!("{sign}€{digits}"),
            "USD" => format!("{sign}${digits}"),
            "GBP" => format!("{sign}£{digits}"),
            other => format!("{sign}{other}\u{a0}{digits}"),
        },
    }
}

/// Net worth now and its change over the months drawn, in words:
/// "€26,541.88, +€5,499 in 12 months"; the total alone over one month.
pub fn net_worth_trend(
    trend: &crate::domain::net_worth::Trend,
    currency: &str,
    locale: Locale,
) -> String {
    let total = money(trend.total, currency, locale);
    if trend.months < 2 {
        return total;
    }
    let change = trend.change.round();
    let sign = if change > Decimal::ZERO { "+" } else { "" };
    locale
        .texts()
        .net_worth_trend
        .replace("{total}", &total)
        .replace(
            "{change}",
            &format!("{sign}{}", money_whole(change, currency, locale)),
        )
        .replace("{n}", &trend.months.to_string())
}

/// A calendar day: "23.11.2026" (de) or "23 Nov 2026" (en).
pub fn date(d: NaiveDate, locale: Locale) -> String {
    match locale {
        Locale::De => d.format("%d.%m.%Y").to_string(),
        Locale::En => format!(
            "{}\u{a0}{}\u{a0}{}",
            d.day(),
            locale.month_short(d.month()),
            d.year()
        ),
    }
}

/// A stored RFC 3339 timestamp as a day and a time in UTC:
/// "23.11.2026, 14:05 UTC" (de) or "23 Nov 2026, 14:05 UTC" (en); the text
/// as it is when it is not a timestamp.
pub fn date_time(ts: &str, locale: Locale) -> String {
    match chrono::DateTime::parse_from_rfc3339(ts) {
        Ok(t) => {
            let t = t.with_timezone(&chrono::Utc);
            format!(
                "{}, {} UTC",
                date(t.date_naive(), locale),
                t.format("%H:%M")
            )
        }
        Err(_) => ts.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_worth_trend_says_the_total_and_its_change_in_whole_units() {
        use crate::domain::net_worth::Trend;
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let trend = |total, change, months| Trend {
            total: d(total),
            change: d(change),
            months,
        };
        let up = trend("26541.88", "5499.40", 12);
        assert_eq!(
            net_worth_trend(&up, "EUR", Locale::En),
            "€26,541.88, +€5,499 in 12 months"
        );
        assert_eq!(
            net_worth_trend(&up, "EUR", Locale::De),
            "26.541,88\u{a0}€, +5.499\u{a0}€ in 12 Monaten"
        );
        let down = trend("100.00", "-20.60", 3);
        assert_eq!(
            net_worth_trend(&down, "EUR", Locale::En),
            "€100.00, -€21 in 3 months"
        );
        let one = trend("100.00", "0", 1);
        assert_eq!(net_worth_trend(&one, "EUR", Locale::En), "€100.00");
    }

    #[test]
    fn receipt_items_are_one_a_line_in_the_users_number_style() {
        use crate::domain::receipts::Item;
        let items = [
            Item {
                name: "Brot".into(),
                amount: Decimal::new(320, 2).into(),
            },
            Item {
                name: "Pfand".into(),
                amount: Decimal::new(-25, 2).into(),
            },
            Item {
                name: "Rad".into(),
                amount: Decimal::new(123_400, 2).into(),
            },
        ];
        assert_eq!(
            receipt_items(&items, Locale::De),
            "Brot 3,20\nPfand -0,25\nRad 1.234,00"
        );
        assert_eq!(
            receipt_items(&items, Locale::En),
            "Brot 3.20\nPfand -0.25\nRad 1,234.00"
        );
        assert_eq!(receipt_items(&[], Locale::De), "");
    }

    #[test]
    fn timestamps_show_day_and_time_in_utc() {
        assert_eq!(
            date_time("2026-11-23T14:05:09Z", Locale::De),
            "23.11.2026, 14:05 UTC"
        );
        assert_eq!(
            date_time("2026-11-23T14:05:09Z", Locale::En),
            "23\u{a0}Nov\u{a0}2026, 14:05 UTC"
        );
        assert_eq!(date_time("soon", Locale::En), "soon");
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    #[test]
    fn english_money() {
        assert_eq!(money(dec("1234.5"), "EUR", Locale::En), "€1,234.50");
        assert_eq!(money(dec("-12"), "EUR", Locale::En), "-€12.00");
        assert_eq!(money(dec("5"), "USD", Locale::En), "$5.00");
        assert_eq!(
            money(dec("999999999.99"), "CHF", Locale::En),
            "CHF\u{a0}999,999,999.99"
        );
        assert_eq!(money(dec("0"), "GBP", Locale::En), "£0.00");
        assert_eq!(money(dec("0.005"), "EUR", Locale::En), "€0.01");
    }

    #[test]
    fn german_money() {
        assert_eq!(money(dec("1234.56"), "EUR", Locale::De), "1.234,56\u{a0}€");
        assert_eq!(money(dec("-12"), "EUR", Locale::De), "-12,00\u{a0}€");
        assert_eq!(money(dec("100"), "USD", Locale::De), "100,00\u{a0}USD");
        assert_eq!(
            money(dec("1000000"), "EUR", Locale::De),
            "1.000.000,00\u{a0}€"
        );
    }

    #[test]
    fn a_negative_that_rounds_to_zero_has_no_sign() {
        assert_eq!(money(dec("-0.001"), "EUR", Locale::En), "€0.00");
        assert_eq!(number(dec("-0.01"), 1, Locale::En), "0.0");
    }

    #[test]
    fn file_sizes() {
        assert_eq!(file_size(812, Locale::En), "812\u{a0}B");
        assert_eq!(file_size(14 * 1024 - 5, Locale::De), "14\u{a0}KB");
        assert_eq!(file_size(2_516_582, Locale::De), "2,4\u{a0}MB");
        assert_eq!(file_size(500 * 1024 * 1024, Locale::En), "500.0\u{a0}MB");
    }

    #[test]
    fn numbers_and_dates() {
        assert_eq!(number(dec("12.345"), 1, Locale::En), "12.3");
        assert_eq!(number(dec("-3.25"), 1, Locale::De), "-3,3");
        assert_eq!(number(dec("2500"), 0, Locale::De), "2.500");
        assert_eq!(money_whole(dec("2500"), "EUR", Locale::De), "2.500\u{a0}€");
        assert_eq!(money_whole(dec("-2500"), "EUR", Locale::En), "-€2,500");
        assert_eq!(money_whole(dec("300"), "CHF", Locale::En), "CHF\u{a0}300");
        let d = NaiveDate::from_ymd_opt(2026, 3, 5).unwrap();
        assert_eq!(date(d, Locale::De), "05.03.2026");
        assert_eq!(date(d, Locale::En), "5\u{a0}Mar\u{a0}2026");
    }
}
