//! Recurring expenses and incomes share their input, its validation and
//! the price history a changed amount follows: [`RecurringInput`], written
//! once. What tells the two kinds apart is a [`Kind`]: an expense has a
//! category and may be a subscription; an income may happen once.

use super::{account_and_currency, check_category, Record, Written};
use crate::app::input::{self, Patch, NAME_MAX, NOTES_MAX};
use crate::domain::contracts::{NOTICE_DAYS_MAX, NOTICE_MONTHS_MAX, RENEWAL_DEFAULT, RENEWAL_MAX};
use crate::domain::prices::{Earlier, Update};
use crate::error::Result;
use crate::error::{Error, Reason};
use crate::store::prices::{self, Owner};
use crate::store::recurring::{ContractTerms, NewRecurring, Planned};
use crate::store::table::Table;
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::Connection;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use serde_json::Value;
use std::marker::PhantomData;

/// What tells a recurring expense from an income, implemented by each
/// stored record.
pub trait Kind: Table<New = NewRecurring> + serde::Serialize + Send + Sync + 'static {
    /// The kind's noun in its actions ([`Record::NOUN`]).
    const NOUN: [&'static str; 2];
    /// Whether `frequency` may be `once`.
    const ONCE: bool;
    /// Whose price history a changed amount follows.
    const OWNER: Owner;
    /// Whether it carries contract terms (`termEnd` and its kin); a kind
    /// without passes them over like any field it does not know.
    const TERMS: bool = false;

    /// What an update keeps of the stored record.
    fn kept(&self) -> Kept<'_>;
}

/// A field only some kinds have, read as `T` over the kept value; as
/// [`IgnoredAny`] it is always `None`.
pub trait Over<T>: DeserializeOwned + Default + Send + Sync + 'static {
    fn over(given: Patch<Self>, kept: Option<T>) -> Option<T>;
}

impl<T: DeserializeOwned + Default + Send + Sync + 'static> Over<T> for T {
    fn over(given: Patch<T>, kept: Option<T>) -> Option<T> {
        given.or(kept)
    }
}

impl Over<String> for IgnoredAny {
    fn over(_: Patch<IgnoredAny>, _: Option<String>) -> Option<String> {
        None
    }
}

impl Over<bool> for IgnoredAny {
    fn over(_: Patch<IgnoredAny>, _: Option<bool>) -> Option<bool> {
        None
    }
}

/// A stored recurring expense or income as an update reads it: the values
/// a field the input leaves out keeps.
pub struct Kept<'a> {
    pub name: &'a str,
    pub plan: &'a Planned,
    pub earlier: &'a [Earlier],
    pub account_id: &'a str,
    pub category_id: Option<&'a str>,
    pub is_subscription: bool,
    pub notes: &'a str,
    pub terms: ContractTerms,
}

/// A [`Kept`] of the fields every recurring record has, for `$record` of
/// any kind (no category, no subscription).
macro_rules! kept {
    ($record:expr) => {
        $crate::app::records::recurring::Kept {
            name: &$record.name,
            plan: &$record.plan,
            earlier: &$record.earlier_amounts,
            account_id: &$record.account_id,
            category_id: None,
            is_subscription: false,
            notes: &$record.notes,
            terms: Default::default(),
        }
    };
}
pub(super) use kept;

/// The input of a recurring expense or an income (`S`): `createExpense`,
/// `updateIncome` and their kin (`docs/actions.md`). `categoryId` and
/// `isSubscription` are read as `C` and `F`: a text and a yes/no for an
/// expense; for an income, which has neither, [`IgnoredAny`], passed over
/// like any field it does not know.
#[derive(Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RecurringInput<S, C = String, F = bool> {
    name: Patch<String>,
    amount: Patch<Value>,
    currency: Patch<String>,
    frequency: Patch<String>,
    start_date: Patch<String>,
    end_date: Patch<String>,
    account_id: Patch<String>,
    category_id: Patch<C>,
    is_subscription: Patch<F>,
    notes: Patch<String>,
    /// The day a changed amount applies from (`docs/actions.md`, Price changes).
    amount_from: Patch<String>,
    /// Contract terms (`docs/planning.md`, Cancellation deadlines), for a
    /// kind with [`Kind::TERMS`].
    term_end: Patch<String>,
    renewal_months: Patch<Value>,
    notice_months: Patch<Value>,
    notice_days: Patch<Value>,
    cancelled_to: Patch<String>,
    #[serde(skip)]
    kind: PhantomData<fn() -> S>,
}

/// Every field left out (`#[derive(Default)]` would ask `S: Default`).
impl<S, C, F> Default for RecurringInput<S, C, F> {
    fn default() -> Self {
        RecurringInput {
            name: Patch::Absent,
            amount: Patch::Absent,
            currency: Patch::Absent,
            frequency: Patch::Absent,
            start_date: Patch::Absent,
            end_date: Patch::Absent,
            account_id: Patch::Absent,
            category_id: Patch::Absent,
            is_subscription: Patch::Absent,
            notes: Patch::Absent,
            amount_from: Patch::Absent,
            term_end: Patch::Absent,
            renewal_months: Patch::Absent,
            notice_months: Patch::Absent,
            notice_days: Patch::Absent,
            cancelled_to: Patch::Absent,
            kind: PhantomData,
        }
    }
}

impl<S: Kind, C: Over<String>, F: Over<bool>> Record for RecurringInput<S, C, F> {
    type Stored = S;
    const NOUN: [&'static str; 2] = S::NOUN;
    const CAP: Cap = Cap::Recurring;
    const SPENDS: bool = matches!(S::OWNER, Owner::Expense);

    fn validate(
        mut self,
        c: &Connection,
        user: &UserId,
        stored: Option<&S>,
    ) -> Result<NewRecurring> {
        let kept = stored.map(S::kept);
        let kept = kept.as_ref();
        let mut checks = input::Checks::default();
        let terms = if S::TERMS {
            let given = Given {
                term_end: std::mem::take(&mut self.term_end),
                renewal_months: std::mem::take(&mut self.renewal_months),
                notice_months: std::mem::take(&mut self.notice_months),
                notice_days: std::mem::take(&mut self.notice_days),
                cancelled_to: std::mem::take(&mut self.cancelled_to),
            };
            let terms = checks.take(contract_terms(given, kept.map(|k| &k.terms)))?;
            // A cancellation taken back gives the item its end date again.
            if let (Some(t), Some(k)) = (&terms, kept) {
                if k.terms.cancelled_to.is_some()
                    && t.cancelled_to.is_none()
                    && matches!(self.end_date, Patch::Absent)
                {
                    self.end_date = match k.terms.end_date_before_cancel {
                        Some(d) => Patch::Value(d.to_string()),
                        None => Patch::Null,
                    };
                }
            }
            terms
        } else {
            Some(ContractTerms::default())
        };
        let name = checks.take(input::text(
            "name",
            self.name.or(kept.map(|k| k.name.to_string())),
            NAME_MAX,
        ))?;
        let amount = checks.take(input::positive_amount(
            self.amount,
            kept.map(|k| *k.plan.amount),
        ))?;
        let amount_from = checks.take(input::optional_date(
            "amountFrom",
            self.amount_from.or(None),
        ))?;
        let schedule = checks.take(input::schedule(
            self.frequency,
            self.start_date,
            self.end_date,
            kept.map(|k| k.plan.schedule()).as_ref(),
            S::ONCE,
        ))?;
        let account = checks.take(account_and_currency(
            c,
            user,
            self.account_id,
            self.currency,
            kept.map(|k| (k.account_id, k.plan.currency.as_str())),
        ))?;
        let category_id = input::optional_id(C::over(
            self.category_id,
            kept.and_then(|k| k.category_id.map(str::to_string)),
        ));
        checks.take(check_category(c, user, category_id.as_deref()))?;
        let notes = checks.take(input::optional_text(
            "notes",
            self.notes.or(kept.map(|k| k.notes.to_string())),
            NOTES_MAX,
        ))?;
        let (name, amount, amount_from, schedule, account, notes, terms) = checks.finish(|| {
            Some((
                name?,
                amount?,
                amount_from?,
                schedule?,
                account?,
                notes?,
                terms?,
            ))
        })?;
        let (account_id, currency) = account;
        Ok(NewRecurring {
            name,
            plan: Planned::new(amount, currency, schedule),
            account_id,
            category_id,
            is_subscription: F::over(self.is_subscription, kept.map(|k| k.is_subscription))
                .unwrap_or(false),
            notes,
            amount_from,
            terms,
        })
    }

    /// After an update, the price history follows a changed amount.
    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, S>) -> Result<()> {
        let Some((id, stored)) = w.stored else {
            return Ok(());
        };
        let (kept, new) = (stored.kept(), w.new);
        let before = kept.plan.prices(kept.earlier);
        let update = Update::of(
            *new.plan.amount,
            &new.plan.currency,
            new.amount_from,
            &new.plan.schedule(),
        );
        prices::follow(
            c,
            user,
            (S::OWNER, id),
            (&before, &kept.plan.currency),
            &update,
            w.today,
        )
    }
}

/// What an input gives of an expense's contract terms.
struct Given {
    term_end: Patch<String>,
    renewal_months: Patch<Value>,
    notice_months: Patch<Value>,
    notice_days: Patch<Value>,
    cancelled_to: Patch<String>,
}

/// A count of months or days, `None` when given as null.
fn count(field: &'static str, given: Patch<Value>, max: u32) -> Result<Option<u32>> {
    match given {
        Patch::Value(v) => input::whole_number(field, &v, 0, 0, max).map(Some),
        _ => Ok(None),
    }
}

/// The contract terms given over the stored ones (`docs/planning.md`,
/// Cancellation deadlines): a term's end needs a notice; a notice needs a
/// term's end unless the contract renews by 0 months; the notice is in
/// months or in days; a recorded cancellation is only taken back (null),
/// never set here.
fn contract_terms(given: Given, kept: Option<&ContractTerms>) -> Result<ContractTerms> {
    let base = kept.cloned().unwrap_or_default();
    let term_end = input::optional_date(
        "termEnd",
        given.term_end.or(base.term_end.map(|d| d.to_string())),
    )?;
    let renewal_months = match given.renewal_months {
        Patch::Absent => base.renewal_months,
        Patch::Null => RENEWAL_DEFAULT,
        Patch::Value(v) => {
            input::whole_number("renewalMonths", &v, RENEWAL_DEFAULT, 0, RENEWAL_MAX)?
        }
    };
    let (notice_months, notice_days) = match (given.notice_months, given.notice_days) {
        (Patch::Value(_), Patch::Value(_)) => {
            return Err(Error::invalid("noticeDays", Reason::OneNotice))
        }
        (Patch::Absent, Patch::Absent) => (base.notice_months, base.notice_days),
        (Patch::Absent, days) => {
            let d = count("noticeDays", days, NOTICE_DAYS_MAX)?;
            (
                if d.is_some() {
                    None
                } else {
                    base.notice_months
                },
                d,
            )
        }
        (months, Patch::Absent) => {
            let m = count("noticeMonths", months, NOTICE_MONTHS_MAX)?;
            (m, if m.is_some() { None } else { base.notice_days })
        }
        (months, days) => (
            count("noticeMonths", months, NOTICE_MONTHS_MAX)?,
            count("noticeDays", days, NOTICE_DAYS_MAX)?,
        ),
    };
    let has_notice = notice_months.is_some() || notice_days.is_some();
    if term_end.is_some() && !has_notice {
        return Err(Error::invalid("noticeMonths", Reason::NoticeNeeded));
    }
    if has_notice && term_end.is_none() && renewal_months != 0 {
        return Err(Error::invalid("termEnd", Reason::TermEndNeeded));
    }
    let cancelled_to = match given.cancelled_to {
        Patch::Absent => base.cancelled_to,
        Patch::Null => None,
        Patch::Value(s) if s.trim().is_empty() => None,
        Patch::Value(s) => {
            let day = input::optional_date("cancelledTo", Some(s))?;
            if day != base.cancelled_to {
                return Err(Error::invalid("cancelledTo", Reason::CancelledByAction));
            }
            day
        }
    };
    Ok(ContractTerms {
        term_end,
        renewal_months,
        notice_months,
        notice_days,
        end_date_before_cancel: cancelled_to.and(base.end_date_before_cancel),
        cancelled_to,
    })
}
