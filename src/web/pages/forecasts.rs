//! `/forecasts`: an account's months ahead, with a chart and the lowest
//! expected balance from today on. A checking account's balance is expected
//! with everyday spending taken off (`reports::forecasts::expected`). The
//! chart's line begins with the balances the account had (solid, from its
//! balance history) and goes on with the expected ones (dashed).

use super::common::{PageResult, Refs};
use crate::app::reports::{
    self,
    forecasts::{with_expected, AccountOutlook},
    net_worth::past_balances,
};
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::state::AppState;
use crate::web::charts::{self, Line, Stroke};
use crate::web::components::select;
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::Datelike;
use maud::html;
use rust_decimal::Decimal;
use serde::Deserialize;

/// The most months of the past the chart draws before the forecast: half
/// a year, so that on a phone, where the chart scrolls sideways, today and
/// the first months ahead are still in view.
const PAST_MONTHS: u32 = 6;

#[derive(Deserialize, Default)]
pub struct ForecastQuery {
    account: Option<String>,
    months: Option<u32>,
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<ForecastQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, session.user.clone());
    let refs = Refs::load(&state, &user.id).await?;
    let months = q.months.unwrap_or(12).clamp(1, 24);
    let account_id = q
        .account
        .filter(|id| refs.accounts.iter().any(|a| &a.id == id))
        .or_else(|| refs.default_account().map(|a| a.id.clone()));
    let today = state.clock.today();
    let forecast = match account_id.clone() {
        Some(id) => {
            reports::read(&state, &user, move |c, u, rates, today| {
                let Some((outlook, expected)) = with_expected(c, u, rates, &id, months, today)?
                else {
                    return Ok(None);
                };
                // As much of the past as is drawn ahead, up to half a year.
                let past = past_balances(
                    c,
                    u,
                    rates,
                    today,
                    &outlook.account,
                    months.min(PAST_MONTHS),
                )?;
                Ok(Some((outlook, expected, past)))
            })
            .await?
        }
        None => None,
    };
    let cur = user.base_currency.as_str();
    let month_options: Vec<(String, String)> = [3, 6, 12, 24]
        .iter()
        .map(|m| (m.to_string(), m.to_string()))
        .collect();
    Ok(page(
        &viewer,
        "/forecasts",
        t.nav_forecasts,
        html! {
            h1 { (t.nav_forecasts) }
            @if refs.accounts.is_empty() {
                p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
            } @else {
                form.filters method="get" action="/forecasts" {
                    (select(t.account, "account", &refs.account_options(), account_id.as_deref(), None))
                    (select(t.months, "months", &month_options, Some(months.to_string().as_str()), None))
                    button type="submit" { (t.show) }
                }
            }
            @if let Some((AccountOutlook { account, balance_in_base: in_base, forecast: f }, e, past)) = &forecast {
                @let labels: Vec<String> = past.iter().map(|(m, _)| locale.month_short(m.month()).to_string())
                    .chain(std::iter::once(t.today.to_string()))
                    .chain(f.monthly.iter().map(|m| locale.month_short(m.month).to_string()))
                    .collect();
                // The past: the balances at each month's end, and today's.
                @let before: Vec<Decimal> = past.iter().map(|(_, b)| *b).chain(std::iter::once(*in_base)).collect();
                @let now = past.len();
                // The balance line: from today's, everyday spending taken off
                // for a checking account.
                @let line: Vec<Decimal> = std::iter::once(*in_base).chain(e.with_everyday.iter().copied()).collect();
                @let (low_day, low) = e.lowest;
                p.hint { (t.forecast_intro) }
                div.cards {
                    div.card.stat { span.label { (t.balance) " (" (t.today) ")" } strong.amount { (format::money(*in_base, cur, locale)) } }
                    div.card.stat.warning[low < Decimal::ZERO] {
                        span.label { (t.lowest_balance) }
                        strong.amount { (format::money(low, cur, locale)) }
                        small.muted { @if low_day == today { (t.today) } @else { (format::date(low_day, locale)) } }
                    }
                    @if let Some(end) = line.last().filter(|_| line.len() > 1) {
                        div.card.stat { span.label { (t.projected_balance) } strong.amount { (format::money(*end, cur, locale)) } }
                    }
                    @if let Some(everyday) = e.everyday.as_ref().map(|x| x.total) {
                        div.card.stat { span.label { (t.everyday_spending) " " (t.per_month) } strong.amount { (format::money(everyday, cur, locale)) } }
                    }
                }
                @let lines: Vec<Line> = [
                    (now > 0).then(|| Line::new(t.past_balance, before.clone())),
                    Some(Line::new(t.projected_balance, line.clone()).from(now).stroke(Stroke::Dashed).lowest()),
                    e.everyday.as_ref().map(|_| Line::new(t.without_everyday,
                        std::iter::once(*in_base).chain(e.entries_only.iter().copied()).collect()).from(now).stroke(Stroke::Dotted)),
                ].into_iter().flatten().collect();
                section.card {
                    (charts::balance_lines(&format!("{}: {}", account.name, t.projected_balance), &labels, &lines, cur, locale))
                    @if let Some(x) = &e.everyday {
                        @if x.budgeted.is_empty() {
                            p.hint { (t.everyday_hint.replace("{amount}", &format::money(x.total, cur, locale))) }
                        } @else {
                            @let names: Vec<(String, Decimal)> = x.budgeted.iter().map(|(id, a)| (refs.category_name(id), *a)).collect();
                            p.hint.everyday-budgets { (crate::i18n::budgets::forecast_hint(x.total, &names, x.usual, cur, locale)) }
                        }
                    }
                }
                // Wide on a narrow window: it scrolls, so it takes the focus
                // for the keyboard's arrow keys.
                section.panel tabindex="0" aria-label=(t.months) {
                    table.records {
                        thead { tr {
                            th { (t.month) } th.num { (t.income) } th.num { (t.expenses) } th.num { (t.transfers_in) }
                            th.num { (t.transfers_out) } th.num { (t.net) }
                            @if e.everyday.is_some() { th.num { (t.everyday_spending) } }
                            th.num { (t.projected_balance) }
                        } }
                        tbody {
                            @for (k, m) in f.monthly.iter().enumerate() {
                                tr {
                                    td { (locale.month_year(m.year, m.month)) }
                                    td.num.amount { (format::money(m.income, cur, locale)) }
                                    td.num.amount { (format::money(m.expenses, cur, locale)) }
                                    td.num.amount { (format::money(m.transfers_in, cur, locale)) }
                                    td.num.amount { (format::money(m.transfers_out, cur, locale)) }
                                    td.num.amount { (format::money(m.net, cur, locale)) }
                                    @if let Some(everyday) = e.everyday.as_ref().map(|x| x.total) {
                                        td.num.amount { @if !everyday.is_zero() { "−" } (format::money(everyday, cur, locale)) }
                                    }
                                    td.num.amount { @if let Some(b) = line.get(k + 1) { (format::money(*b, cur, locale)) } }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
