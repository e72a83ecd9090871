//! `listBalanceHistory {accountId}` and `getNetWorth {months?}`: an
//! account's recorded balances and net worth month by month
//! (`app::reports::net_worth`).

use super::{Ctx, Registry, Reply};
use crate::app::input;
use crate::app::reports::{self, net_worth};
use crate::error::{Error, Reason, Result};
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listBalanceHistory", list_history);
    r.session("getNetWorth", get);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryInput {
    #[serde(default)]
    account_id: Option<String>,
}

async fn list_history(ctx: Ctx, input: HistoryInput) -> Result<Reply> {
    let account_id = input::optional_id(input.account_id)
        .ok_or_else(|| Error::invalid("accountId", Reason::Required))?;
    Reply::data(
        reports::read(&ctx.state, ctx.user()?, move |c, user, _, _| {
            net_worth::history(c, user, &account_id)
        })
        .await?,
    )
}

#[derive(Deserialize)]
struct NetWorthInput {
    #[serde(default)]
    months: Value,
}

async fn get(ctx: Ctx, input: NetWorthInput) -> Result<Reply> {
    let months = net_worth::months(&input.months)?;
    Reply::data(
        reports::read(&ctx.state, ctx.user()?, move |c, user, rates, today| {
            net_worth::net_worth(c, user, rates, today, months)
        })
        .await?,
    )
}
