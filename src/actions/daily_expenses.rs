//! One-time expenses: `listDailyExpenses`, `createDailyExpense`,
//! `updateDailyExpense`, `deleteDailyExpense`. Saving one with a category
//! teaches cashkeeper its merchant's category.

use super::entries::{self, check_category, Record, Written};
use super::{Ctx, Registry, Reply};
use crate::app::input::{self, Patch, NAME_MAX, NOTES_MAX};
use crate::domain::merchant;
use crate::error::{Error, Result};
use crate::store::daily_expenses::{self, DailyExpense, Filter, NewDailyExpense};
use crate::store::merchants;
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listDailyExpenses", list);
    r.session("createDailyExpense", entries::create::<DailyInput>);
    r.session("updateDailyExpense", entries::update::<DailyInput>);
    r.session("deleteDailyExpense", entries::delete::<DailyInput>);
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct DailyInput {
    id: Option<String>,
    name: Patch<String>,
    amount: Patch<Value>,
    currency: Patch<String>,
    date: Patch<String>,
    account_id: Patch<String>,
    category_id: Patch<String>,
    merchant: Patch<String>,
    notes: Patch<String>,
}

impl Record for DailyInput {
    type Stored = DailyExpense;
    const CAP: Cap = Cap::DailyExpenses;

    fn take_id(&mut self) -> Option<String> {
        self.id.take()
    }

    fn validate(
        self,
        c: &Connection,
        user: &UserId,
        stored: Option<&DailyExpense>,
    ) -> Result<NewDailyExpense> {
        // Every field is checked, so that a form hears of all its errors at once.
        let mut checks = input::Checks::default();
        let merchant = checks.take(input::optional_text(
            "merchant",
            self.merchant.or(stored.map(|e| e.merchant.clone())),
            NAME_MAX,
        ))?;
        // A merchant alone names the entry ("Bäckerei Schmidt").
        let given_merchant = merchant.clone().unwrap_or_default();
        let name = self
            .name
            .or(stored.map(|e| e.name.clone()))
            .filter(|n| !n.trim().is_empty())
            .or_else(|| (!given_merchant.is_empty()).then(|| given_merchant.clone()));
        let name = checks.take(input::text("name", name, NAME_MAX))?;
        let amount = checks.take(input::positive_amount(
            self.amount,
            stored.map(|e| e.amount),
        ))?;
        let date = checks.take(input::date(
            "date",
            self.date.or(stored.map(|e| e.date.to_string())),
        ))?;
        let account = checks.take(entries::account_and_currency(
            c,
            user,
            self.account_id,
            self.currency,
            stored.map(|e| (e.account_id.as_str(), e.currency.as_str())),
        ))?;
        let category_id = input::optional_id(
            self.category_id
                .or(stored.and_then(|e| e.category_id.clone())),
        );
        checks.take(check_category(c, user, category_id.as_deref()))?;
        let notes = checks.take(input::optional_text(
            "notes",
            self.notes.or(stored.map(|e| e.notes.clone())),
            NOTES_MAX,
        ))?;
        let (merchant, name, amount, date, account, notes) =
            checks.finish(|| Some((merchant?, name?, amount?, date?, account?, notes?)))?;
        let (account_id, currency) = account;
        Ok(NewDailyExpense {
            name,
            amount,
            currency,
            date,
            account_id,
            category_id,
            merchant,
            notes,
        })
    }

    /// Remembers the merchant's category when the entry has both.
    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, DailyExpense>) -> Result<()> {
        let e = w.new;
        let source = if e.merchant.is_empty() {
            &e.name
        } else {
            &e.merchant
        };
        let key = merchant::normalize(source);
        if let (false, Some(category)) = (key.is_empty(), &e.category_id) {
            merchants::learn(c, user, &key, category, w.now)?;
        }
        Ok(())
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ListInput {
    from: Option<String>,
    to: Option<String>,
    /// A month `YYYY-MM`: shorthand for from/to.
    month: Option<String>,
    category_id: Option<String>,
    /// How many to answer (default [`PAGE_DEFAULT`], at most [`PAGE_MAX`])
    /// and how many to pass over first.
    limit: Option<i64>,
    offset: Option<i64>,
}

/// `listDailyExpenses`' page size: by default and at most. A user may keep
/// a million entries; no reply holds them all.
const PAGE_DEFAULT: u32 = 200;
const PAGE_MAX: u32 = 1_000;

async fn list(ctx: Ctx, input: ListInput) -> Result<Reply> {
    let limit = match input.limit {
        None => PAGE_DEFAULT,
        Some(n) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=PAGE_MAX).contains(n))
            .ok_or_else(|| Error::invalid("limit", format!("must be between 1 and {PAGE_MAX}")))?,
    };
    let offset = match input.offset {
        None => 0,
        Some(n) => {
            u32::try_from(n).map_err(|_| Error::invalid("offset", "must not be negative"))?
        }
    };
    let mut filter = Filter {
        from: input::optional_date("from", input.from)?,
        to: input::optional_date("to", input.to)?,
        category_id: input::optional_id(input.category_id),
        limit: Some(limit),
        ..Filter::default()
    };
    if let Some(m) = input.month.filter(|m| !m.trim().is_empty()) {
        let (first, last) = crate::domain::recurrence::parse_month("month", &m)?;
        filter.from = Some(first);
        filter.to = Some(last);
    }
    if filter.category_id.as_deref() == Some("none") {
        filter.category_id = None;
        filter.uncategorised = true;
    }
    if let (Some(f), Some(t)) = (filter.from, filter.to) {
        if t < f {
            return Err(Error::invalid("to", "must not be before from"));
        }
    }
    let user = ctx.user_id()?;
    Reply::data(
        ctx.state
            .db
            .run(move |c| daily_expenses::page(c, &user, &filter, offset))
            .await?,
    )
}
