//! The budget insights: a category near or over its budget this month
//! (`budget_warning`), worked out again whenever an expense is saved, by
//! any door (an action or form, a confirmed assistant proposal, a
//! confirmed import), so that Insights shows an overspent budget at once,
//! as the dashboard does, not only after the next morning's job
//! (`docs/budgets.md`). Also what the morning's job (`app::insights`)
//! shares with it: the month's ledger and category facts, and the storing
//! of found insights. It imports no record use case, so `app::records`
//! calls it after a save.

use crate::app::reports::budgets;
use crate::app::reports::dashboard::{load_ledger, Ledger};
use crate::clock::timestamp;
use crate::domain::insights::{find, CategoryFacts, Facts, Finding, Found};
use crate::domain::locale::Locale;
use crate::domain::recurrence::{add_months, month_end, month_start};
use crate::domain::views;
use crate::error::Result;
use crate::i18n::insights::text;
use crate::services::rates::RateStore;
use crate::state::AppState;
use crate::store::categories::Category;
use crate::store::insights;
use crate::store::table;
use crate::store::users::{User, UserId};
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use rust_decimal::Decimal;

/// What the insights are found from: the ledger of the month of `today`
/// and the three before (`from` is the first of those), and each
/// category's spending in them with its budget this month.
pub struct Basis {
    pub today: NaiveDate,
    pub from: NaiveDate,
    pub ledger: Ledger,
    pub categories: Vec<CategoryFacts>,
}

/// The [`Basis`] of `user` at `now`.
pub fn basis(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    now: DateTime<Utc>,
) -> Result<Basis> {
    let today = now.date_naive();
    let first = month_start(today);
    let from = add_months(first, -3);
    let to = month_end(first).max(today + Duration::days(3));
    let plan = budgets::plan(c, user, first)?;
    let ledger = load_ledger(
        c,
        user,
        &rates.current(),
        from.min(plan.earliest),
        to,
        today,
    )?;
    let budgets = budgets::from_ledger(&plan, &ledger, user, first);
    let per_month: Vec<Vec<(Option<String>, Decimal)>> = (0..4)
        .map(|i| views::expenses_by_category(&ledger.items, add_months(from, i)))
        .collect();
    // The recurring payments due in each month, by category: planned, so
    // never unusual spending.
    let recurring_items: Vec<views::Item> = ledger
        .items
        .iter()
        .filter(|i| i.kind == views::Kind::Expense)
        .cloned()
        .collect();
    let recurring_per_month = views::expenses_by_category_months(&recurring_items, from, 4);
    let categories = table::all::<Category>(c, &user.id)?
        .into_iter()
        .map(|k| {
            let mut spent = [Decimal::ZERO; 4];
            let mut recurring = [Decimal::ZERO; 4];
            let key = Some(k.id.clone());
            for (i, month) in per_month.iter().enumerate() {
                spent[i] = month
                    .iter()
                    .find(|(id, _)| id.as_deref() == Some(k.id.as_str()))
                    .map(|(_, a)| *a)
                    .unwrap_or_default();
                recurring[i] = recurring_per_month[i]
                    .get(&key)
                    .copied()
                    .unwrap_or_default();
            }
            CategoryFacts {
                recurring,
                budget: budgets.of(&k.id).map(|b| (b.available.0, b.status)),
                id: k.id,
                name: k.name,
                spent,
            }
        })
        .collect();
    Ok(Basis {
        today,
        from,
        ledger,
        categories,
    })
}

/// The budget insights of `user` at `now`: a category near or over its
/// budget this month.
pub fn found(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    now: DateTime<Utc>,
) -> Result<Vec<Found>> {
    let basis = basis(c, user, rates, now)?;
    let facts = Facts {
        today: basis.today,
        currency: user.base_currency.clone(),
        income: [Decimal::ZERO; 4],
        expenses: [Decimal::ZERO; 4],
        categories: basis.categories,
        subscriptions: Vec::new(),
        contracts: Vec::new(),
    };
    Ok(find(&facts)
        .into_iter()
        .filter(|f| matches!(f.finding, Finding::OverLimit { .. }))
        .collect())
}

/// Works out and stores the budget insights of one user, those not
/// already current; answers how many are new.
pub fn refresh_in(
    c: &mut rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    now: DateTime<Utc>,
) -> Result<usize> {
    let found = found(c, user, rates, now)?;
    store(c, user, &found, now)
}

/// After an expense is saved: the user's budget insights worked out
/// again. The expense is saved either way; a failure here is logged.
pub async fn refresh(state: &AppState, user: &UserId) {
    let (user, st) = (user.clone(), state.clone());
    let now = state.clock.now();
    let done = state
        .db
        .run(move |c| match crate::store::users::find(c, &user)? {
            Some(user) => refresh_in(c, &user, &st.rates, now),
            None => Ok(0),
        })
        .await;
    if let Err(e) = done {
        e.log();
    }
}

/// Stores the insights `found` not already current, in one transaction;
/// answers how many are new.
pub fn store(
    c: &mut rusqlite::Connection,
    user: &User,
    found: &[Found],
    now: DateTime<Utc>,
) -> Result<usize> {
    let now_s = timestamp(now);
    let tx = crate::store::write_transaction(c)?;
    let mut new = 0;
    for f in found {
        if insights::is_current(&tx, &user.id, &f.dedupe_key, &now_s)? {
            continue;
        }
        // Current through the whole of its last day (UTC).
        let expires = (f.valid_through + Duration::days(1))
            .and_time(NaiveTime::MIN)
            .and_utc();
        // Stored in German (`docs/planning.md`).
        let (title, message) = text(&f.finding, Locale::STORED);
        insights::insert(
            &tx,
            &user.id,
            &insights::NewInsight {
                finding: &f.finding,
                severity: f.severity,
                title: &title,
                message: &message,
                dedupe_key: &f.dedupe_key,
                expires_at: &timestamp(expires),
            },
            &now_s,
        )?;
        new += 1;
    }
    tx.commit()?;
    Ok(new)
}
