//! Demo data: a year of a German household, so a newcomer sees a living
//! dashboard (and a year of balances, for net worth) at once; and the heavy benchmark user (ten years, 300
//! recurring items, 50,000 one-time expenses, four currencies).
//!
//! Generated from a fixed seed, so two runs on the same day write the same
//! records. Everything lands in one transaction.
//!
//! Amounts are written in cents with the cents as the last digit group:
//! `2_450_37` is 2,450.37.
#![allow(clippy::inconsistent_digit_grouping)]

use crate::clock::timestamp;
use crate::domain::money;
use crate::domain::recurrence::{add_months, month_end, month_start, Frequency, Schedule};
use crate::error::Result;
use crate::store::accounts::Account;
use crate::store::accounts::NewAccount;
use crate::store::categories::Category;
use crate::store::expenses::Expense;
use crate::store::incomes::Income;
use crate::store::recurring::{NewRecurring, Planned};
use crate::store::table;
use crate::store::transfers::NewTransfer;
use crate::store::transfers::Transfer;
use crate::store::users::UserId;
use crate::store::{balance_history, export, merchants, new_id};
use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rusqlite::{params, Connection};
use rust_decimal::Decimal;

/// What was written.
#[derive(Debug, Default)]
pub struct Summary {
    pub accounts: usize,
    pub recurring: usize,
    pub incomes: usize,
    pub transfers: usize,
    pub daily: usize,
    pub budgets: usize,
}

/// The tables a user's archive carries that a demo refill keeps: the
/// assistant's conversations are the person's, not the household's.
const KEPT: &[&str] = &[
    "conversations",
    "conversation_messages",
    "assistant_proposals",
];

/// Deletes every record of the user that an archive carries
/// ([`export::TABLES`]: accounts, entries, budgets, learned merchants,
/// insights, imports, documents' rows), children first, but the
/// conversations ([`KEPT`]); categories are then written anew as the
/// defaults.
pub fn clear(c: &Connection, user_id: &UserId) -> Result<()> {
    for (table, _) in export::TABLES.iter().rev() {
        if !KEPT.contains(table) {
            c.execute(
                &format!("DELETE FROM {table} WHERE user_id = ?1"),
                [user_id],
            )?;
        }
    }
    Ok(())
}

fn dec(cents: i64) -> Decimal {
    money::from_cents(cents)
}

fn category<'a>(cats: &'a [Category], names: &[&str]) -> Option<&'a Category> {
    cats.iter().find(|k| names.contains(&k.name.as_str()))
}

/// The household year ending `today`.
pub fn fill_household(
    c: &Connection,
    user_id: &UserId,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<Summary> {
    let now_s = timestamp(now);
    let mut rng = StdRng::seed_from_u64(20_261_123);
    let cats = table::all::<Category>(c, user_id)?;
    let cat = |names: &[&str]| category(&cats, names).map(|k| k.id.clone());
    let housing = cat(&["Wohnen", "Housing"]);
    let groceries = cat(&["Lebensmittel", "Groceries"]);
    let transport = cat(&["Mobilität", "Transport"]);
    let insurance = cat(&["Versicherungen", "Insurance"]);
    let subs = cat(&["Abos & Streaming", "Subscriptions"]);
    let health = cat(&["Gesundheit", "Health"]);
    let leisure = cat(&["Freizeit", "Leisure"]);
    let restaurants = cat(&["Restaurants"]);
    let shopping = cat(&["Einkäufe", "Shopping"]);

    let mut summary = Summary::default();
    let mut account = |name: &str, kind: &str, currency: &str, balance: i64| -> Result<String> {
        summary.accounts += 1;
        Ok(table::insert::<Account>(
            c,
            user_id,
            &NewAccount {
                name: name.into(),
                kind: kind.into(),
                currency: currency.into(),
                balance: dec(balance),
            },
            &now_s,
        )?
        .id)
    };
    let giro = account("Girokonto", "checking", "EUR", 2_450_37)?;
    let tagesgeld = account("Tagesgeld", "savings", "EUR", 8_200_00)?;
    let depot = account("ETF-Depot", "etf", "EUR", 15_340_12)?;
    let usd = account("Reisekasse USD", "checking", "USD", 640_00)?;
    // A generator of its own, so the records below stay as they were.
    let mut history_rng = StdRng::seed_from_u64(20_260_401);
    for (id, kind, balance) in [
        (&giro, "checking", 2_450_37),
        (&tagesgeld, "savings", 8_200_00),
        (&depot, "etf", 15_340_12),
        (&usd, "checking", 640_00),
    ] {
        balance_year(
            c,
            user_id,
            id,
            kind,
            balance,
            today,
            &now_s,
            &mut history_rng,
        )?;
    }

    let year_ago = add_months(today, -12);
    let start_on = |day: u32| {
        NaiveDate::from_ymd_opt(year_ago.year(), year_ago.month(), day).unwrap_or(year_ago)
    };

    // (name, cents, currency, frequency, day of month, category, subscription)
    type Recurring<'a> = (
        &'a str,
        i64,
        &'a str,
        Frequency,
        u32,
        &'a Option<String>,
        bool,
    );
    let recurring: Vec<Recurring> = vec![
        (
            "Miete",
            1_150_00,
            "EUR",
            Frequency::Monthly,
            1,
            &housing,
            false,
        ),
        (
            "Strom (Stadtwerke)",
            84_00,
            "EUR",
            Frequency::Monthly,
            15,
            &housing,
            false,
        ),
        (
            "Internet & Festnetz",
            39_99,
            "EUR",
            Frequency::Monthly,
            5,
            &housing,
            false,
        ),
        (
            "Handyvertrag",
            19_99,
            "EUR",
            Frequency::Monthly,
            20,
            &housing,
            false,
        ),
        (
            "Rundfunkbeitrag",
            55_08,
            "EUR",
            Frequency::Quarterly,
            15,
            &housing,
            false,
        ),
        (
            "Haftpflichtversicherung",
            64_90,
            "EUR",
            Frequency::Yearly,
            1,
            &insurance,
            false,
        ),
        (
            "Hausratversicherung",
            89_00,
            "EUR",
            Frequency::Yearly,
            10,
            &insurance,
            false,
        ),
        (
            "Kfz-Versicherung",
            412_30,
            "EUR",
            Frequency::HalfYearly,
            1,
            &insurance,
            false,
        ),
        (
            "Deutschlandticket",
            58_00,
            "EUR",
            Frequency::Monthly,
            1,
            &transport,
            false,
        ),
        (
            "Fitnessstudio",
            29_90,
            "EUR",
            Frequency::Monthly,
            3,
            &leisure,
            false,
        ),
        ("Netflix", 13_99, "EUR", Frequency::Monthly, 12, &subs, true),
        (
            "Spotify Family",
            17_99,
            "EUR",
            Frequency::Monthly,
            8,
            &subs,
            true,
        ),
        ("Disney+", 8_99, "EUR", Frequency::Monthly, 22, &subs, true),
        (
            "Amazon Prime",
            89_90,
            "EUR",
            Frequency::Yearly,
            18,
            &subs,
            true,
        ),
        (
            "Zeitung digital",
            14_99,
            "EUR",
            Frequency::Monthly,
            1,
            &subs,
            true,
        ),
        ("iCloud+", 2_99, "USD", Frequency::Monthly, 9, &subs, true),
    ];
    for (name, cents, currency, frequency, day, category_id, is_subscription) in recurring {
        table::insert::<Expense>(
            c,
            user_id,
            &NewRecurring {
                name: name.into(),
                plan: Planned::new(
                    dec(cents),
                    currency.into(),
                    Schedule::new(frequency, start_on(day), None)?,
                ),
                account_id: if currency == "USD" {
                    usd.clone()
                } else {
                    giro.clone()
                },
                category_id: category_id.clone(),
                is_subscription,
                notes: String::new(),
                amount_from: None,
                terms: demo_terms(name, today),
            },
            &now_s,
        )?;
        summary.recurring += 1;
    }

    for (name, cents, frequency, start) in [
        ("Gehalt", 3_480_00, Frequency::Monthly, start_on(27)),
        ("Kindergeld", 255_00, Frequency::Monthly, start_on(10)),
        (
            "Steuererstattung",
            482_17,
            Frequency::Once,
            add_months(today, -5) + Duration::days(11),
        ),
        (
            "Weihnachtsgeld",
            1_200_00,
            Frequency::Yearly,
            NaiveDate::from_ymd_opt(year_ago.year(), 11, 27).unwrap_or(year_ago),
        ),
    ] {
        table::insert::<Income>(
            c,
            user_id,
            &NewRecurring {
                name: name.into(),
                plan: Planned::new(
                    dec(cents),
                    "EUR".into(),
                    match frequency {
                        Frequency::Once => Schedule::once(start),
                        f => Schedule::new(f, start, None)?,
                    },
                ),
                account_id: giro.clone(),
                category_id: None,
                is_subscription: false,
                notes: String::new(),
                amount_from: None,
                terms: Default::default(),
            },
            &now_s,
        )?;
        summary.incomes += 1;
    }

    for (to, cents, note) in [
        (&tagesgeld, 300_00, "Sparrate"),
        (&depot, 250_00, "ETF-Sparplan"),
    ] {
        table::insert::<Transfer>(
            c,
            user_id,
            &NewTransfer {
                from_account_id: giro.clone(),
                to_account_id: to.clone(),
                plan: Planned::new(
                    dec(cents),
                    "EUR".into(),
                    Schedule::new(Frequency::Monthly, start_on(2), None)?,
                ),
                note: note.into(),
            },
            &now_s,
        )?;
        summary.transfers += 1;
    }

    // Everyday spending: merchants with their category, price range and
    // how often a week they are visited.
    // (name, merchant, category, cents range, visits per week)
    type Everyday<'a> = (&'a str, &'a str, &'a Option<String>, (i64, i64), f64);
    let everyday: Vec<Everyday> = vec![
        (
            "Wocheneinkauf",
            "REWE Markt",
            &groceries,
            (35_00, 95_00),
            1.2,
        ),
        ("Einkauf", "Lidl", &groceries, (12_00, 45_00), 1.0),
        ("Einkauf", "ALDI SÜD", &groceries, (10_00, 40_00), 0.6),
        ("Bäcker", "Bäckerei Schmidt", &groceries, (3_20, 9_80), 1.5),
        ("Drogerie", "dm-drogerie markt", &health, (8_00, 35_00), 0.4),
        ("Apotheke", "Stern-Apotheke", &health, (6_00, 28_00), 0.15),
        ("Tanken", "Aral", &transport, (45_00, 78_00), 0.5),
        ("Mittagessen", "Vapiano", &restaurants, (12_00, 24_00), 0.4),
        (
            "Pizza",
            "Pizzeria Da Mario",
            &restaurants,
            (18_00, 46_00),
            0.25,
        ),
        ("Kino", "CinemaxX", &leisure, (11_00, 32_00), 0.1),
        ("Bestellung", "Amazon", &shopping, (9_00, 80_00), 0.35),
        ("Kleidung", "Zalando", &shopping, (25_00, 120_00), 0.1),
    ];
    let mut day = year_ago;
    while day <= today {
        for (name, merchant, category_id, (lo, hi), per_week) in &everyday {
            if rng.random_bool((per_week / 7.0).min(1.0)) {
                insert_daily(
                    c,
                    user_id,
                    name,
                    merchant,
                    rng.random_range(*lo..=*hi),
                    "EUR",
                    day,
                    &giro,
                    category_id.as_deref(),
                    &now_s,
                )?;
                summary.daily += 1;
            }
        }
        day += Duration::days(1);
    }
    // A trip to New York, paid in dollars, four months ago.
    let trip = add_months(today, -4) + Duration::days(9);
    for (i, (name, merchant, cents, category_id)) in [
        ("Hotel", "Pod Hotel Times Square", 612_40, &leisure),
        ("Abendessen", "Joe's Pizza", 38_50, &restaurants),
        ("Museum", "MoMA", 60_00, &leisure),
        ("Frühstück", "Russ & Daughters", 42_75, &restaurants),
        ("Souvenirs", "Macy's", 88_20, &shopping),
    ]
    .into_iter()
    .enumerate()
    {
        insert_daily(
            c,
            user_id,
            name,
            merchant,
            cents,
            "USD",
            trip + Duration::days(i as i64),
            &usd,
            category_id.as_deref(),
            &now_s,
        )?;
        summary.daily += 1;
    }
    // The merchants are known, so new entries get their category pre-selected.
    for (_, merchant, category_id, _, _) in &everyday {
        if let Some(k) = category_id {
            merchants::learn(
                c,
                user_id,
                &crate::domain::merchant::normalize(merchant),
                k,
                &now_s,
            )?;
        }
    }
    // Budgets from three months ago: what this month's spending so far
    // makes near for groceries, over for restaurants, and well within for
    // leisure (which carries what is left over) and shopping.
    let first = month_start(today);
    let since = add_months(first, -3);
    let spent = |category: &Option<String>| -> Result<i64> {
        Ok(c.query_row(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM daily_expenses
             WHERE user_id = ?1 AND category_id = ?2 AND currency = 'EUR' AND date >= ?3 AND date <= ?4",
            rusqlite::params![user_id, category, first.to_string(), today.to_string()],
            |r| r.get(0),
        )?)
    };
    for (category, share, floor, rollover) in [
        (&groceries, 85, 100_00, false),
        (&restaurants, 115, 20_00, false),
        (&leisure, 45, 120_00, true),
        (&shopping, 50, 150_00, false),
    ] {
        let Some(id) = category else { continue };
        let used = spent(category)?;
        // Whole euros: `used / share` is what makes the share come out.
        let cents = (used * 100 / share / 100 * 100).max(floor);
        let amount = Some(Decimal::new(cents, 2));
        let changes = crate::domain::budgets::apply(&[], since, amount, rollover);
        crate::store::budgets::replace(c, user_id, id, since, &changes, &now_s)?;
        summary.budgets += 1;
    }
    Ok(summary)
}

/// A year of balances of a demo account that has `balance` (cents) today:
/// the account counts as opened on the first of the month a year ago, with
/// a balance then, one near the end of each month since and today's.
/// Savings grow by what is put aside, the ETF with the market's ups and
/// downs, and a checking account wobbles with salary and rent around
/// where it is now.
#[allow(clippy::too_many_arguments)]
fn balance_year(
    c: &Connection,
    user_id: &UserId,
    account_id: &str,
    kind: &str,
    balance: i64,
    today: NaiveDate,
    now: &str,
    rng: &mut StdRng,
) -> Result<()> {
    let opened = add_months(today, -12);
    let at = |months_ago: i64, rng: &mut StdRng| -> i64 {
        match kind {
            "savings" => balance - months_ago * (balance / 30) + rng.random_range(-40_00..40_00),
            "etf" => {
                let trend = balance - months_ago * (balance / 55);
                trend + trend * rng.random_range(-30..30) / 1000
            }
            _ => balance + balance * rng.random_range(-250..250) / 1000,
        }
    };
    let mut points = vec![(opened, at(13, rng))];
    for j in 0..12 {
        let month = add_months(opened, j);
        let day = month_end(month) - Duration::days(rng.random_range(0..4));
        points.push((day, at(12 - i64::from(j), rng)));
    }
    points.push((today, balance));
    for (day, cents) in points {
        balance_history::record(c, user_id, account_id, day, dec(cents), now)?;
    }
    let created = opened.and_hms_opt(9, 0, 0).unwrap_or_default().and_utc();
    c.execute(
        "UPDATE accounts SET created_at = ?1 WHERE id = ?2 AND user_id = ?3",
        params![timestamp(created), account_id, user_id],
    )?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn insert_daily(
    c: &Connection,
    user_id: &UserId,
    name: &str,
    merchant: &str,
    cents: i64,
    currency: &str,
    date: NaiveDate,
    account_id: &str,
    category_id: Option<&str>,
    now: &str,
) -> Result<()> {
    let mut s = c.prepare_cached(
        "INSERT INTO daily_expenses (id, user_id, name, amount_cents, currency, date, account_id, category_id,
                                     merchant, notes, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, '', ?10, ?10)",
    )?;
    s.execute(params![
        new_id(),
        user_id,
        name,
        cents,
        currency,
        date,
        account_id,
        category_id,
        merchant,
        now
    ])?;
    Ok(())
}

/// The benchmark user: ten years of history, 300 recurring items, 50,000
/// one-time expenses, four currencies.
pub fn fill_heavy(
    c: &Connection,
    user_id: &UserId,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<Summary> {
    let now_s = timestamp(now);
    let mut rng = StdRng::seed_from_u64(42);
    let mut history_rng = StdRng::seed_from_u64(43);
    let cats = table::all::<Category>(c, user_id)?;
    let mut summary = Summary::default();
    let mut account_ids = Vec::new();
    for (i, (kind, currency)) in [
        ("checking", "EUR"),
        ("savings", "EUR"),
        ("etf", "EUR"),
        ("checking", "USD"),
        ("checking", "CHF"),
        ("savings", "GBP"),
    ]
    .into_iter()
    .enumerate()
    {
        let a = table::insert::<Account>(
            c,
            user_id,
            &NewAccount {
                name: format!("Konto {} ({currency})", i + 1),
                kind: kind.into(),
                currency: currency.into(),
                balance: dec(rng.random_range(100_00..50_000_00)),
            },
            &now_s,
        )?;
        balance_year(
            c,
            user_id,
            &a.id,
            kind,
            money::to_cents(a.balance),
            today,
            &now_s,
            &mut history_rng,
        )?;
        account_ids.push((a.id, currency));
        summary.accounts += 1;
    }
    let ten_years_ago = add_months(today, -120);
    let span_days = (today - ten_years_ago).num_days();
    let frequencies = Frequency::RECURRING;
    for i in 0..300 {
        let (account_id, currency) = &account_ids[i % account_ids.len()];
        let start = ten_years_ago + Duration::days(rng.random_range(0..span_days));
        // A third have ended, some end in the future.
        let end = match i % 3 {
            0 => Some(start + Duration::days(rng.random_range(30..2000))),
            _ => None,
        };
        table::insert::<Expense>(
            c,
            user_id,
            &NewRecurring {
                name: format!("Vertrag {i:03}"),
                plan: Planned::new(
                    dec(rng.random_range(1_00..900_00)),
                    currency.to_string(),
                    Schedule::new(frequencies[i % frequencies.len()], start, end)?,
                ),
                account_id: account_id.clone(),
                category_id: cats.get(i % cats.len().max(1)).map(|k| k.id.clone()),
                is_subscription: i % 4 == 0,
                notes: if i % 10 == 0 {
                    "Kündigungsfrist 3 Monate".into()
                } else {
                    String::new()
                },
                amount_from: None,
                terms: Default::default(),
            },
            &now_s,
        )?;
        summary.recurring += 1;
    }
    for i in 0..6 {
        let (account_id, currency) = &account_ids[i % 3];
        table::insert::<Income>(
            c,
            user_id,
            &NewRecurring {
                name: format!("Einkommen {i}"),
                plan: Planned::new(
                    dec(rng.random_range(500_00..4_000_00)),
                    currency.to_string(),
                    Schedule::new(
                        Frequency::Monthly,
                        ten_years_ago + Duration::days(i as i64 * 3),
                        None,
                    )?,
                ),
                account_id: account_id.clone(),
                category_id: None,
                is_subscription: false,
                notes: String::new(),
                amount_from: None,
                terms: Default::default(),
            },
            &now_s,
        )?;
        summary.incomes += 1;
    }
    for i in 0..4 {
        table::insert::<Transfer>(
            c,
            user_id,
            &NewTransfer {
                from_account_id: account_ids[0].0.clone(),
                to_account_id: account_ids[1 + i % 2].0.clone(),
                plan: Planned::new(
                    dec(rng.random_range(50_00..500_00)),
                    "EUR".into(),
                    Schedule::new(Frequency::Monthly, ten_years_ago, None)?,
                ),
                note: format!("Sparplan {i}"),
            },
            &now_s,
        )?;
        summary.transfers += 1;
    }
    let merchants = [
        "REWE",
        "Lidl",
        "Aldi",
        "Edeka",
        "dm",
        "Aral",
        "Shell",
        "Amazon",
        "Zalando",
        "IKEA",
        "MediaMarkt",
        "Deutsche Bahn",
    ];
    for i in 0..50_000 {
        let (account_id, currency) = &account_ids[if i % 10 == 0 { 3 + i % 3 } else { 0 }];
        let merchant = merchants[i % merchants.len()];
        insert_daily(
            c,
            user_id,
            &format!("Einkauf {merchant}"),
            &format!("{merchant} {}", 1000 + i % 500),
            rng.random_range(1_00..250_00),
            currency,
            ten_years_ago + Duration::days(rng.random_range(0..=span_days)),
            account_id,
            cats.get(i % cats.len().max(1)).map(|k| k.id.as_str()),
            &now_s,
        )?;
        summary.daily += 1;
    }
    // A budget on every category from two years ago, each changed once a
    // year later, half of them carrying what is left over: the dashboard
    // counts two years of a category's months for those.
    let two_years_ago = month_start(add_months(today, -24));
    for (i, k) in cats.iter().enumerate() {
        let first = Some(dec(rng.random_range(200_00..2_000_00)));
        let later = Some(dec(rng.random_range(200_00..2_000_00)));
        let changes = crate::domain::budgets::apply(&[], two_years_ago, first, i % 2 == 0);
        let changes = crate::domain::budgets::apply(
            &changes,
            add_months(two_years_ago, 12),
            later,
            i % 2 == 0,
        );
        crate::store::budgets::replace(c, user_id, &k.id, two_years_ago, &changes, &now_s)?;
        summary.budgets += 1;
    }
    Ok(summary)
}

/// The contract terms of the demo's contracts: the digital newspaper's
/// term ends next month with two weeks' notice (a deadline on the
/// dashboard), the gym's in five months with three months' notice.
fn demo_terms(name: &str, today: NaiveDate) -> crate::store::recurring::ContractTerms {
    use crate::domain::recurrence::month_end;
    let (end, months, days) = match name {
        "Zeitung digital" => (month_end(add_months(today, 1)), None, Some(14)),
        "Fitnessstudio" => (month_end(add_months(today, 5)), Some(3), None),
        _ => return Default::default(),
    };
    crate::store::recurring::ContractTerms {
        term_end: Some(end),
        notice_months: months,
        notice_days: days,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::locale::Locale;
    use crate::store::{categories, conversations, users};

    /// A refill starts from nothing of what an archive carries, the
    /// conversations aside: the reset list is the archive's, so a table
    /// added to the archive is cleared too.
    #[test]
    fn a_refill_clears_every_table_an_archive_carries_but_the_conversations() {
        let mut c = Connection::open_in_memory().unwrap();
        c.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        crate::store::migrate(&mut c).unwrap();
        let now = DateTime::parse_from_rfc3339("2026-11-28T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let now_s = timestamp(now);
        let user = users::insert(
            &c,
            &users::NewUser {
                email: "demo@example.org",
                name: "Demo",
                password_hash: "",
                locale: Locale::De,
                now: &now_s,
            },
        )
        .unwrap();
        categories::insert_defaults(&c, &user.id, user.locale, &now_s).unwrap();
        fill_household(&c, &user.id, now.date_naive(), now).unwrap();
        conversations::create(&c, &user.id, "Miete", &now_s).unwrap();
        let rows = |table: &str| -> i64 {
            c.query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE user_id = ?1"),
                [&user.id],
                |r| r.get(0),
            )
            .unwrap()
        };
        for table in [
            "accounts",
            "categories",
            "expenses",
            "daily_expenses",
            "budgets",
        ] {
            assert!(rows(table) > 0, "the household has no {table}");
        }
        clear(&c, &user.id).unwrap();
        for (table, _) in export::TABLES {
            if !KEPT.contains(table) {
                assert_eq!(rows(table), 0, "{table} kept rows");
            }
        }
        assert_eq!(rows("conversations"), 1);
    }
}
