//! The record actions: `list…`, `create…`, `update…` and `delete…` of
//! every kind of record ([`crate::app::records::each_kind`]: accounts,
//! categories, recurring expenses, one-time expenses, incomes and
//! transfers), named by the kind's [`Record::NOUN`]; plus
//! `listSubscriptions`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{self, IdInput};
use crate::app::records::{
    self, accounts, daily_expenses, expenses, EachKind, Record, Update, Verb,
};
use crate::error::{Error, Reason, Result};
use crate::http::paging::Paging;
use crate::store::daily_expenses::Filter;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    // The actions a kind answers in its own way come first; every kind's
    // other actions are the generic ones.
    r.session("deleteAccount", delete_account);
    r.session("listDailyExpenses", list_daily_expenses);
    r.session("listSubscriptions", list_subscriptions);
    r.session("cancelContract", cancel_contract);
    records::each_kind(&mut Generic(r));
}

/// Registers a kind's four actions, but for a name already taken.
struct Generic<'a>(&'a mut Registry);

impl EachKind for Generic<'_> {
    fn kind<R: Record>(&mut self) {
        let r = &mut *self.0;
        for verb in Verb::ALL {
            let name = crate::http::names::record::<R>(verb);
            if r.get(&name).is_some() {
                continue;
            }
            // The catalogue is built once; its names live as long as the process.
            let name: &'static str = Box::leak(name.into_boxed_str());
            match verb {
                Verb::List => r.session(name, list::<R>),
                Verb::Create => r.session(name, create::<R>),
                Verb::Update => r.session_read(name, Update::<R>::decode, update::<R>),
                Verb::Delete => r.session(name, delete::<R>),
            }
        }
    }
}

async fn list<R: Record>(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(records::list::<R>(&ctx.state, &ctx.user_id()?).await?)
}

async fn create<R: Record>(ctx: Ctx, input: R) -> Result<Reply> {
    let saved = records::create(&ctx.state, &ctx.user_id()?, input).await?;
    Reply::data(saved)
}

async fn update<R: Record>(ctx: Ctx, input: Update<R>) -> Result<Reply> {
    let saved = records::update(&ctx.state, &ctx.user_id()?, input).await?;
    Reply::data(saved)
}

async fn delete<R: Record>(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    records::delete::<R>(&ctx.state, &ctx.user_id()?, id).await?;
    Reply::data(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeleteAccountInput {
    #[serde(default)]
    id: Option<String>,
    /// Move the account's entries to this account first.
    #[serde(default)]
    move_to: Option<String>,
}

/// `deleteAccount`: one that entries still use is refused, unless `moveTo`
/// names another account to move them to.
async fn delete_account(ctx: Ctx, input: DeleteAccountInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let move_to = input::optional_id(input.move_to);
    accounts::delete(&ctx.state, &ctx.user_id()?, id, move_to).await?;
    Reply::data(())
}

async fn list_subscriptions(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(expenses::subscriptions(&ctx.state, ctx.user()?).await?)
}

#[derive(Deserialize)]
struct CancelInput {
    #[serde(default)]
    id: Option<String>,
    /// The day the cancellation was made; default today.
    #[serde(default)]
    on: Option<String>,
}

/// `cancelContract {id, on?}` (`docs/actions.md`).
async fn cancel_contract(ctx: Ctx, input: CancelInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let on = input::optional_date("on", input.on)?;
    Reply::data(expenses::cancel_contract(&ctx.state, &ctx.user_id()?, id, on).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ListInput {
    from: Option<String>,
    to: Option<String>,
    /// A month `YYYY-MM`: shorthand for from/to.
    month: Option<String>,
    category_id: Option<String>,
    /// The page ([`Paging`]): default [`PAGE_DEFAULT`], at most [`PAGE_MAX`].
    limit: Option<i64>,
    offset: Option<i64>,
    after: Option<String>,
}

/// `listDailyExpenses`' page size: by default and at most. A user may keep
/// a million entries; no reply holds them all.
const PAGE_DEFAULT: u32 = 200;
const PAGE_MAX: u32 = 1_000;

async fn list_daily_expenses(ctx: Ctx, input: ListInput) -> Result<Reply> {
    let page = Paging {
        limit: input.limit,
        offset: input.offset,
        after: input.after,
    }
    .check(PAGE_DEFAULT.into(), PAGE_MAX.into())?;
    // Both fit: the limit is at most `PAGE_MAX`, an offset past `u32` is
    // past any user's entries.
    let limit = u32::try_from(page.limit).unwrap_or(PAGE_MAX);
    let offset =
        u32::try_from(page.offset).map_err(|_| Error::invalid("offset", Reason::NotNegative))?;
    let mut filter = Filter {
        from: input::optional_date("from", input.from)?,
        to: input::optional_date("to", input.to)?,
        limit: Some(limit),
        ..daily_expenses::CategoryFilter::parse(input.category_id.as_deref()).filter()
    };
    if let Some(m) = input.month.filter(|m| !m.trim().is_empty()) {
        let (first, last) = crate::domain::recurrence::parse_month("month", &m)?;
        filter.from = Some(first);
        filter.to = Some(last);
    }
    if let (Some(f), Some(t)) = (filter.from, filter.to) {
        if t < f {
            return Err(Error::invalid("to", Reason::NotBefore("from")));
        }
    }
    Reply::data(
        daily_expenses::page(&ctx.state, &ctx.user_id()?, filter, page.after, offset).await?,
    )
}

#[cfg(test)]
mod tests {
    /// The record actions' names are a public contract (`docs/actions.md`):
    /// each kind's [`crate::app::records::Record::NOUN`] gives exactly these.
    #[test]
    fn every_kind_has_its_documented_actions() {
        let r = super::super::catalogue();
        let docs = include_str!("../../docs/actions.md");
        for kind in [
            ["Account", "Accounts"],
            ["Category", "Categories"],
            ["Expense", "Expenses"],
            ["DailyExpense", "DailyExpenses"],
            ["Income", "Incomes"],
            ["Transfer", "Transfers"],
        ] {
            let [one, many] = kind;
            for name in [
                format!("list{many}"),
                format!("create{one}"),
                format!("update{one}"),
                format!("delete{one}"),
            ] {
                let action = r
                    .get(&name)
                    .unwrap_or_else(|| panic!("{name} is not registered"));
                assert!(!action.public, "{name}");
                assert!(
                    docs.contains(&format!("`{name}`")),
                    "{name} is not in docs/actions.md"
                );
            }
        }
    }
}
