//! "Make it recurring": one-time expenses and incomes that repeat every
//! month with the same payee and amount (a bank import's salary and rent)
//! are offered on the dashboard's next steps, and become one recurring
//! expense or income from the first of them (`docs/import.md`).

use crate::app::input;
use crate::app::records::{create_in, ExpenseInput, IncomeInput};
use crate::domain::money;
use crate::domain::recurrence::add_months;
use crate::domain::repeats::{self, Kind, Repeat};
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::daily_expenses::DailyExpense;
use crate::store::incomes::Income;
use crate::store::repeats::candidates;
use crate::store::table::{self, Table};
use crate::store::users::UserId;
use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Serialize;
use serde_json::json;

/// How far back repeats are looked for.
const MONTHS_BACK: i32 = 13;

/// A repeat of one kind, as offered.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    pub kind: Kind,
    pub repeat: Repeat,
}

/// What `makeRecurring` made: the new recurring record's id and how many
/// one-time entries it replaced.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Made {
    pub kind: &'static str,
    pub id: String,
    pub replaced: usize,
}

fn offers_in(c: &Connection, user: &UserId, kind: Kind, today: NaiveDate) -> Result<Vec<Repeat>> {
    let since = add_months(today, -MONTHS_BACK);
    Ok(repeats::monthly(&candidates(c, user, kind, since)?))
}

/// The user's one-time expenses and incomes of the last months that repeat
/// monthly, incomes first.
pub async fn offers(state: &AppState, user: &UserId) -> Result<Vec<Offer>> {
    let (user, today) = (user.clone(), state.clock.today());
    state
        .db
        .read(move |c| {
            let mut all = Vec::new();
            for kind in [Kind::Income, Kind::Expense] {
                all.extend(
                    offers_in(c, &user, kind, today)?
                        .into_iter()
                        .map(|repeat| Offer { kind, repeat }),
                );
            }
            Ok(all)
        })
        .await
}

/// `makeRecurring {kind, id}`: the monthly repeat of one-time entries of
/// `kind` (`expense` or `income`) that the entry `id` belongs to becomes a
/// monthly recurring expense or income from its first day, with its name,
/// amount, account and category; the one-time entries go, in the same
/// transaction. An entry of no repeat is refused naming `id`.
pub async fn make_recurring(
    state: &AppState,
    user: &UserId,
    kind: Option<String>,
    id: Option<String>,
) -> Result<Made> {
    let kind = kind
        .as_deref()
        .map(str::trim)
        .and_then(Kind::from_code)
        .ok_or_else(|| {
            Error::invalid(
                "kind",
                Reason::OneOf(vec!["expense".into(), "income".into()]),
            )
        })?;
    let id = input::required_id(id)?;
    let (user, now, today) = (
        user.clone(),
        crate::clock::timestamp(state.clock.now()),
        state.clock.today(),
    );
    state
        .db
        .transaction(move |tx| {
            let repeat = offers_in(tx, &user, kind, today)?
                .into_iter()
                .find(|r| r.ids.contains(&id))
                .ok_or_else(|| Error::invalid("id", Reason::NotARepeat))?;
            let mut record = json!({
                "name": repeat.name,
                "amount": money::from_cents(repeat.cents).to_string(),
                "currency": repeat.currency,
                "frequency": "monthly",
                "startDate": repeat.first.to_string(),
                "accountId": repeat.account_id,
            });
            let made = match kind {
                Kind::Expense => {
                    record["categoryId"] = json!(repeat.category_id);
                    let input: ExpenseInput = input::decode(record)?;
                    let made = create_in(tx, &user, input, &now, today)?;
                    for one in &repeat.ids {
                        table::delete::<DailyExpense>(tx, &user, one)?;
                    }
                    made.id().to_string()
                }
                Kind::Income => {
                    let input: IncomeInput = input::decode(record)?;
                    let made = create_in(tx, &user, input, &now, today)?;
                    for one in &repeat.ids {
                        table::delete::<Income>(tx, &user, one)?;
                    }
                    made.id().to_string()
                }
            };
            Ok(Made {
                kind: kind.code(),
                id: made,
                replaced: repeat.ids.len(),
            })
        })
        .await
}
