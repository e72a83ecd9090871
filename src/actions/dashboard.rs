//! `getDashboard {year?, month?}`: the dashboard of a month
//! (`app::reports::dashboard`).

use super::{Ctx, Registry, Reply};
use crate::app::reports::{self, dashboard::dashboard};
use crate::error::{Error, Reason, Result};
use chrono::{Datelike, NaiveDate};
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("getDashboard", get);
}

#[derive(Deserialize)]
struct DashboardInput {
    #[serde(default)]
    year: Option<i32>,
    #[serde(default)]
    month: Option<u32>,
}

async fn get(ctx: Ctx, input: DashboardInput) -> Result<Reply> {
    let today = ctx.state.clock.today();
    let year = input.year.unwrap_or(today.year());
    let month = input.month.unwrap_or(if input.year.is_some() {
        1
    } else {
        today.month()
    });
    if !(1900..=2200).contains(&year) {
        return Err(Error::invalid("year", Reason::YearOutOfRange));
    }
    let first = NaiveDate::from_ymd_opt(year, month, 1)
        .ok_or_else(|| Error::invalid("month", Reason::Between(1, 12)))?;
    Reply::data(
        reports::read(&ctx.state, ctx.user()?, move |c, user, rates, today| {
            dashboard(c, user, rates, first, today)
        })
        .await?,
    )
}
