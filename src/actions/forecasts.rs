//! `getAccountForecast {accountId, months?}`: an account's forecast
//! (`app::reports::forecasts`).

use super::{Ctx, Registry, Reply};
use crate::app::input;
use crate::app::reports::{self, forecasts::for_account};
use crate::error::{Error, Reason, Result};
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("getAccountForecast", get);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ForecastInput {
    #[serde(default)]
    account_id: Option<String>,
    #[serde(default)]
    months: Value,
}

/// Months of a forecast: 1 to 24, 12 when not given.
pub fn parse_months(value: &Value) -> Result<u32> {
    input::whole_number("months", value, 12, 1, 24)
}

async fn get(ctx: Ctx, input: ForecastInput) -> Result<Reply> {
    let account_id = input::optional_id(input.account_id)
        .ok_or_else(|| Error::invalid("accountId", Reason::Required))?;
    let months = parse_months(&input.months)?;
    let forecast = reports::read(&ctx.state, ctx.user()?, move |c, user, rates, today| {
        for_account(c, user, rates, &account_id, months, today)
    })
    .await?
    .ok_or_else(|| Error::unknown("accountId"))?;
    Reply::data(forecast.forecast)
}
