//! An insight's title and message, in German or English, made from its
//! [`Finding`]: the one place insights become text. The insights job stores
//! the German ones and the page `/insights` shows the English ones
//! (`docs/planning.md`).

use super::format;
use crate::domain::insights::{Direction, Finding};
use crate::domain::locale::Locale;
use crate::domain::money;
use rust_decimal::Decimal;

/// An amount as the stored German texts have always had it: "1.234,56 €",
/// with a plain space (not the no-break space of [`format::money`]), since
/// the stored titles and messages are returned by the REST API and
/// `listInsights` as they are.
fn stored_de(amount: Decimal, currency: &str) -> String {
    let sign = if amount.is_sign_negative() && !money::round(amount).is_zero() {
        "-"
    } else {
        ""
    };
    let symbol = if currency == "EUR" { "€" } else { currency };
    format!("{sign}{} {symbol}", money::grouped(amount, 2, '.', ','))
}

/// The title and message of `finding` in `locale`.
pub fn text(finding: &Finding, locale: Locale) -> (String, String) {
    let en = |amount: Decimal, currency: &str| format::money(amount, currency, Locale::En);
    match finding {
        Finding::SpendingAnomaly {
            amount,
            average,
            category_name: name,
            currency: cur,
            percent,
            ..
        } => {
            // Against an average of next to nothing a percent says nothing
            // a person can use: the dashboard's rule (`is_much_more`).
            let much = crate::domain::money::is_much_more(*percent);
            let pct = format::number(*percent, 0, locale);
            match locale {
                Locale::De => (
                    format!("Ungewöhnlich hohe Ausgaben: {name}"),
                    format!(
                        "In diesem Monat hast du für {name} bisher {} an Einzelausgaben ausgegeben, {} als im Schnitt der letzten drei Monate ({}).",
                        stored_de(*amount, cur),
                        if much { "viel mehr".to_string() } else { format!("{pct} % mehr") },
                        stored_de(*average, cur)
                    ),
                ),
                Locale::En => (
                    format!("Unusually high spending: {name}"),
                    format!(
                        "You have spent {} in one-time expenses on {name} this month so far, {} than the average of the last three months ({}).",
                        en(*amount, cur),
                        if much { "much more".to_string() } else { format!("{pct} % more") },
                        en(*average, cur)
                    ),
                ),
            }
        }
        Finding::OverLimit {
            amount,
            category_name: name,
            currency: cur,
            limit,
            ..
        } => {
            let over = amount > limit;
            match locale {
                Locale::De => (
                    if over {
                        format!("Budget überschritten: {name}")
                    } else {
                        format!("Budget fast aufgebraucht: {name}")
                    },
                    format!(
                        "Für {name} hast du in diesem Monat {} von {} ausgegeben.",
                        stored_de(*amount, cur),
                        stored_de(*limit, cur)
                    ),
                ),
                Locale::En => (
                    if over {
                        format!("Over budget: {name}")
                    } else {
                        format!("Budget nearly used: {name}")
                    },
                    format!(
                        "You have spent {} of {} on {name} this month.",
                        en(*amount, cur),
                        en(*limit, cur)
                    ),
                ),
            }
        }
        Finding::OverIncome {
            currency: cur,
            expenses,
            income,
            shortfall,
        } => match locale {
            Locale::De => (
                "Mehr Ausgaben als Einnahmen".to_string(),
                format!(
                    "In diesem Monat stehen {} Ausgaben nur {} Einnahmen gegenüber: {} mehr als hereinkommt.",
                    stored_de(*expenses, cur),
                    stored_de(*income, cur),
                    stored_de(*shortfall, cur)
                ),
            ),
            Locale::En => (
                "More expenses than income".to_string(),
                format!(
                    "This month {} of expenses face {} of income: {} more than comes in.",
                    en(*expenses, cur),
                    en(*income, cur),
                    en(*shortfall, cur)
                ),
            ),
        },
        Finding::DuplicateSubscriptions {
            category_name: name,
            count,
            currency: cur,
            monthly_total: total,
            subscriptions,
            ..
        } => {
            let names = subscriptions.join(", ");
            match locale {
                Locale::De => (
                    format!("{count} Abos in {name}"),
                    format!(
                        "Du zahlst für {count} Abos in {name} zusammen {} im Monat ({names}). Brauchst du alle?",
                        stored_de(*total, cur)
                    ),
                ),
                Locale::En => (
                    format!("{count} subscriptions in {name}"),
                    format!(
                        "You pay {} a month for {count} subscriptions in {name} ({names}). Do you need them all?",
                        en(*total, cur)
                    ),
                ),
            }
        }
        Finding::ExpensiveSubscription {
            category_name,
            currency: cur,
            monthly,
            name,
            others_average: average,
            ..
        } => match locale {
            Locale::De => (
                format!("{name} kostet mehr als vergleichbare Abos"),
                format!(
                    "{name} kostet {} im Monat, die anderen Abos in {category_name} im Schnitt {}.",
                    stored_de(*monthly, cur),
                    stored_de(*average, cur)
                ),
            ),
            Locale::En => (
                format!("{name} costs more than similar subscriptions"),
                format!(
                    "{name} costs {} a month; the other subscriptions in {category_name} average {}.",
                    en(*monthly, cur),
                    en(*average, cur)
                ),
            ),
        },
        Finding::DueSoon {
            amount,
            currency: cur,
            date,
            name,
            ..
        } => match locale {
            Locale::De => (
                format!("{name} wird bald abgebucht"),
                format!(
                    "Am {} wird {} für {name} fällig.",
                    format::date(*date, Locale::De),
                    stored_de(*amount, cur)
                ),
            ),
            Locale::En => (
                format!("{name} is due soon"),
                format!("{} for {name} is due on {date}.", en(*amount, cur)),
            ),
        },
        Finding::CancelBy {
            cancel_by,
            name,
            term_end,
            ..
        } => {
            let (by, end) = (format::date(*cancel_by, locale), format::date(*term_end, locale));
            match locale {
                Locale::De => (
                    format!("{name}: kündbar bis {by}"),
                    format!("Wenn du {name} bis {by} kündigst, endet der Vertrag am {end}; sonst verlängert er sich."),
                ),
                Locale::En => (
                    format!("{name}: cancel by {by}"),
                    format!("Cancel {name} by {by} and the contract ends on {end}; otherwise it renews."),
                ),
            }
        }
        Finding::PriceChange {
            amount,
            change,
            currency: cur,
            name,
            percent,
            previous_amount: before,
            since,
            ..
        } => {
            let (up, sign) = match change {
                Direction::Up => (true, "+"),
                Direction::Down => (false, "−"),
            };
            match locale {
                Locale::De => (
                    if up {
                        format!("{name} wird teurer")
                    } else {
                        format!("{name} wird günstiger")
                    },
                    format!(
                        "{name} kostet seit dem {} {} statt {} ({sign} {percent} %).",
                        format::date(*since, Locale::De),
                        stored_de(*amount, cur),
                        stored_de(*before, cur)
                    ),
                ),
                Locale::En => (
                    format!(
                        "{name} {}",
                        if up { "gets more expensive" } else { "gets cheaper" }
                    ),
                    format!(
                        "{name} costs {} instead of {} since {since} ({sign}{percent} %).",
                        en(*amount, cur),
                        en(*before, cur)
                    ),
                ),
            }
        }
        Finding::Trend {
            currency: cur,
            direction,
            from,
            months,
        } => {
            let up = *direction == Direction::Up;
            let from = from.format("%Y-%m");
            match locale {
                Locale::De => (
                    if up { "Ausgaben steigen" } else { "Ausgaben sinken" }.to_string(),
                    format!(
                        "Deine Ausgaben sind drei Monate in Folge {}: von {} im {from} auf {} im Vormonat.",
                        if up { "gestiegen" } else { "gesunken" },
                        stored_de(months[0], cur),
                        stored_de(months[2], cur)
                    ),
                ),
                Locale::En => (
                    if up {
                        "Expenses are rising"
                    } else {
                        "Expenses are falling"
                    }
                    .to_string(),
                    format!(
                        "Your expenses have {} three months in a row, since {from}.",
                        if up { "risen" } else { "fallen" }
                    ),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::insights::fixtures::*;
    use crate::domain::insights::{find, CategoryFacts, Facts};

    /// Title and message in German, then in English, as the code before
    /// typed findings stored (German) and showed on the page (English).
    type Texts = (&'static str, &'static str, &'static str, &'static str);

    const TEXTS_EUR: [Texts; 8] = [
        (
            "Ungewöhnlich hohe Ausgaben: Lebensmittel",
            "In diesem Monat hast du für Lebensmittel bisher 1.620,56 € an Einzelausgaben ausgegeben, 440 % mehr als im Schnitt der letzten drei Monate (300,00 €).",
            "Unusually high spending: Lebensmittel",
            "You have spent €1,620.56 in one-time expenses on Lebensmittel this month so far, 440 % more than the average of the last three months (€300.00).",
        ),
        (
            "Budget überschritten: Lebensmittel",
            "Für Lebensmittel hast du in diesem Monat 1.620,56 € von 500,00 € ausgegeben.",
            "Over budget: Lebensmittel",
            "You have spent €1,620.56 of €500.00 on Lebensmittel this month.",
        ),
        (
            "Mehr Ausgaben als Einnahmen",
            "In diesem Monat stehen 3.700,00 € Ausgaben nur 3.000,00 € Einnahmen gegenüber: 700,00 € mehr als hereinkommt.",
            "More expenses than income",
            "This month €3,700.00 of expenses face €3,000.00 of income: €700.00 more than comes in.",
        ),
        (
            "3 Abos in Streaming",
            "Du zahlst für 3 Abos in Streaming zusammen 57,98 € im Monat (Netflix, Disney, Sky). Brauchst du alle?",
            "3 subscriptions in Streaming",
            "You pay €57.98 a month for 3 subscriptions in Streaming (Netflix, Disney, Sky). Do you need them all?",
        ),
        (
            "Sky kostet mehr als vergleichbare Abos",
            "Sky kostet 35,00 € im Monat, die anderen Abos in Streaming im Schnitt 11,49 €.",
            "Sky costs more than similar subscriptions",
            "Sky costs €35.00 a month; the other subscriptions in Streaming average €11.49.",
        ),
        (
            "Netflix wird bald abgebucht",
            "Am 23.06.2025 wird 13,99 € für Netflix fällig.",
            "Netflix is due soon",
            "€13.99 for Netflix is due on 2025-06-23.",
        ),
        (
            "Spotify wird teurer",
            "Spotify kostet seit dem 01.06.2025 12,99 € statt 10,99 € (+ 18 %).",
            "Spotify gets more expensive",
            "Spotify costs €12.99 instead of €10.99 since 2025-06-01 (+18 %).",
        ),
        (
            "Ausgaben steigen",
            "Deine Ausgaben sind drei Monate in Folge gestiegen: von 2.000,00 € im 2025-03 auf 2.420,00 € im Vormonat.",
            "Expenses are rising",
            "Your expenses have risen three months in a row, since 2025-03.",
        ),
    ];

    const TEXTS_CHF: [Texts; 7] = [
        (
            "Ungewöhnlich hohe Ausgaben: Lebensmittel",
            "In diesem Monat hast du für Lebensmittel bisher 170,00 CHF an Einzelausgaben ausgegeben, 70 % mehr als im Schnitt der letzten drei Monate (100,00 CHF).",
            "Unusually high spending: Lebensmittel",
            "You have spent CHF\u{a0}170.00 in one-time expenses on Lebensmittel this month so far, 70 % more than the average of the last three months (CHF\u{a0}100.00).",
        ),
        (
            "Mehr Ausgaben als Einnahmen",
            "In diesem Monat stehen 3.000,00 CHF Ausgaben nur 0,00 CHF Einnahmen gegenüber: 3.000,00 CHF mehr als hereinkommt.",
            "More expenses than income",
            "This month CHF\u{a0}3,000.00 of expenses face CHF\u{a0}0.00 of income: CHF\u{a0}3,000.00 more than comes in.",
        ),
        (
            "3 Abos in Streaming",
            "Du zahlst für 3 Abos in Streaming zusammen 57,98 CHF im Monat (Netflix, Disney, Sky). Brauchst du alle?",
            "3 subscriptions in Streaming",
            "You pay CHF\u{a0}57.98 a month for 3 subscriptions in Streaming (Netflix, Disney, Sky). Do you need them all?",
        ),
        (
            "Sky kostet mehr als vergleichbare Abos",
            "Sky kostet 35,00 CHF im Monat, die anderen Abos in Streaming im Schnitt 11,49 CHF.",
            "Sky costs more than similar subscriptions",
            "Sky costs CHF\u{a0}35.00 a month; the other subscriptions in Streaming average CHF\u{a0}11.49.",
        ),
        (
            "Netflix wird bald abgebucht",
            "Am 23.06.2025 wird 13,99 CHF für Netflix fällig.",
            "Netflix is due soon",
            "CHF\u{a0}13.99 for Netflix is due on 2025-06-23.",
        ),
        (
            "Spotify wird günstiger",
            "Spotify kostet seit dem 01.06.2025 9,99 CHF statt 10,99 CHF (− 9 %).",
            "Spotify gets cheaper",
            "Spotify costs CHF\u{a0}9.99 instead of CHF\u{a0}10.99 since 2025-06-01 (−9 %).",
        ),
        (
            "Ausgaben sinken",
            "Deine Ausgaben sind drei Monate in Folge gesunken: von 2.400,00 CHF im 2025-03 auf 2.000,00 CHF im Vormonat.",
            "Expenses are falling",
            "Your expenses have fallen three months in a row, since 2025-03.",
        ),
    ];

    #[test]
    fn every_finding_reads_as_it_always_has_in_both_languages() {
        for (facts, stored, texts) in [
            (everything(), &STORED_EUR[..], &TEXTS_EUR[..]),
            (everything_else(), &STORED_CHF[..], &TEXTS_CHF[..]),
        ] {
            let found = find(&facts);
            assert_eq!(found.len(), texts.len());
            for ((f, (kind, .., metadata)), (de_title, de_message, en_title, en_message)) in
                found.iter().zip(stored).zip(texts)
            {
                let read = Finding::from_stored(kind, &serde_json::from_str(metadata).unwrap())
                    .expect(metadata);
                for finding in [&f.finding, &read] {
                    assert_eq!(
                        text(finding, Locale::De),
                        (de_title.to_string(), de_message.to_string())
                    );
                    assert_eq!(
                        text(finding, Locale::En),
                        (en_title.to_string(), en_message.to_string())
                    );
                }
            }
        }
    }

    #[test]
    fn spending_far_above_an_average_of_next_to_nothing_is_much_more_not_a_percent() {
        let anomaly = |amount: &str, average: &str, percent: &str| Finding::SpendingAnomaly {
            amount: amount.parse().unwrap(),
            average: average.parse().unwrap(),
            category_id: "food".into(),
            category_name: "Lebensmittel".into(),
            currency: "EUR".into(),
            percent: percent.parse().unwrap(),
        };
        let tiny = anomaly("1415.33", "10.00", "14053");
        let (de, en) = (text(&tiny, Locale::De).1, text(&tiny, Locale::En).1);
        assert!(de.contains(", viel mehr als im Schnitt"), "{de}");
        assert!(en.contains(", much more than the average"), "{en}");
        assert!(!de.contains('%'), "{de}");
        assert!(!en.contains('%'), "{en}");
        // Over ten times the average: words; up to it, a percent.
        let big = anomaly("1100.00", "100.00", "1000");
        assert!(text(&big, Locale::De).1.contains("viel mehr"));
        let ordinary = anomaly("1000.00", "100.00", "900");
        assert!(text(&ordinary, Locale::De).1.contains(", 900 % mehr als"));
    }

    #[test]
    fn the_german_message_has_the_amounts_and_days_in_german_style() {
        let message = |f: &Facts| text(&find(f)[0].finding, Locale::De).1;
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "food".into(),
            name: "Lebensmittel".into(),
            budget: None,
            spent: [dec("300"), dec("320"), dec("280"), dec("620")],
            recurring: [Decimal::ZERO; 4],
        });
        let m = message(&f);
        assert!(m.contains("620,00 €"), "{m}");

        let mut f = facts();
        f.subscriptions = vec![
            sub("Netflix", "tv", "13.99", Some("2025-06-23")),
            sub("Spotify", "music", "9.99", Some("2025-06-24")),
        ];
        assert!(message(&f).contains("23.06.2025"));

        let mut f = facts();
        let mut s = sub("Spotify", "music", "12.99", None);
        s.previous_amount = Some((dec("10.99"), d("2025-06-01")));
        f.subscriptions = vec![s];
        let m = message(&f);
        assert!(m.contains("12,99 €") && m.contains("10,99 €"));
    }
}
