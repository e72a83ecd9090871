//! The record actions: `list…`, `create…`, `update…` and `delete…` of
//! accounts, categories, recurring expenses, one-time expenses, incomes and
//! transfers, each over [`crate::app::records`]; plus `listSubscriptions`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{self, IdInput};
use crate::app::records::{
    self, accounts, daily_expenses, expenses, AccountInput, CategoryInput, DailyInput,
    ExpenseInput, IncomeInput, Record, TransferInput,
};
use crate::error::{Error, Reason, Result};
use crate::store::daily_expenses::Filter;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("listAccounts", list::<AccountInput>);
    crud::<AccountInput>(r, ["createAccount", "updateAccount"]);
    r.session("deleteAccount", delete_account);
    r.session("listCategories", list::<CategoryInput>);
    crud::<CategoryInput>(r, ["createCategory", "updateCategory"]);
    r.session("deleteCategory", delete::<CategoryInput>);
    r.session("listExpenses", list_expenses);
    crud::<ExpenseInput>(r, ["createExpense", "updateExpense"]);
    r.session("deleteExpense", delete::<ExpenseInput>);
    r.session("listSubscriptions", list_subscriptions);
    r.session("listDailyExpenses", list_daily_expenses);
    crud::<DailyInput>(r, ["createDailyExpense", "updateDailyExpense"]);
    r.session("deleteDailyExpense", delete::<DailyInput>);
    r.session("listIncomes", list::<IncomeInput>);
    crud::<IncomeInput>(r, ["createIncome", "updateIncome"]);
    r.session("deleteIncome", delete::<IncomeInput>);
    r.session("listTransfers", list::<TransferInput>);
    crud::<TransferInput>(r, ["createTransfer", "updateTransfer"]);
    r.session("deleteTransfer", delete::<TransferInput>);
}

/// Registers a kind's create and update actions.
fn crud<R: Record + Sync>(r: &mut Registry, [create_name, update_name]: [&'static str; 2])
where
    R::Stored: Sync,
{
    r.session(create_name, create::<R>);
    r.session(update_name, update::<R>);
}

async fn list<R: Record>(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(records::list::<R>(&ctx.state, &ctx.user_id()?).await?)
}

async fn create<R: Record>(ctx: Ctx, input: R) -> Result<Reply> {
    Reply::data(records::create(&ctx.state, &ctx.user_id()?, input).await?)
}

async fn update<R: Record>(ctx: Ctx, input: R) -> Result<Reply> {
    Reply::data(records::update(&ctx.state, &ctx.user_id()?, input).await?)
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

async fn list_expenses(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(expenses::list(&ctx.state, &ctx.user_id()?).await?)
}

async fn list_subscriptions(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(expenses::subscriptions(&ctx.state, ctx.user()?).await?)
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

async fn list_daily_expenses(ctx: Ctx, input: ListInput) -> Result<Reply> {
    let limit = match input.limit {
        None => PAGE_DEFAULT,
        Some(n) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=PAGE_MAX).contains(n))
            .ok_or_else(|| Error::invalid("limit", Reason::Between(1, PAGE_MAX.into())))?,
    };
    let offset = match input.offset {
        None => 0,
        Some(n) => u32::try_from(n).map_err(|_| Error::invalid("offset", Reason::NotNegative))?,
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
            return Err(Error::invalid("to", Reason::NotBefore("from")));
        }
    }
    Reply::data(daily_expenses::page(&ctx.state, &ctx.user_id()?, filter, offset).await?)
}
