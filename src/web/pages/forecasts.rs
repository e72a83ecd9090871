//! `/forecasts`: an account's months ahead, with a chart and the lowest
//! projected balance (or, for checking accounts, the tightest month).

use super::common::{PageResult, Refs};
use crate::i18n::format;
use crate::reports::forecasts::{for_account, AccountOutlook};
use crate::state::AppState;
use crate::web::charts::{self, MonthBars};
use crate::web::components::select;
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::html;
use serde::Deserialize;

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
            let (st, u) = (state.clone(), user.clone());
            state
                .db
                .run(move |c| for_account(c, &u, &st.rates.current(), &id, months, today))
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
            @if let Some(AccountOutlook { account, balance_in_base: in_base, forecast: f }) = &forecast {
                p.hint { (t.forecast_intro) }
                div.cards {
                    div.card.stat { span.label { (t.balance) } strong.amount { (format::money(*in_base, cur, locale)) } }
                    @if f.is_cumulative {
                        @if let Some(low) = f.monthly.iter().filter_map(|m| m.balance.map(|b| (m, b))).min_by_key(|(_, b)| *b) {
                            div.card.stat.warning[low.1 < rust_decimal::Decimal::ZERO] {
                                span.label { (t.lowest_balance) }
                                strong.amount { (format::money(low.1, cur, locale)) }
                                small.muted { (locale.month_year(low.0.year, low.0.month)) }
                            }
                        }
                        @if let Some(p) = f.projected_balance {
                            div.card.stat { span.label { (t.projected_balance) } strong.amount { (format::money(p, cur, locale)) } }
                        }
                    } @else {
                        @if let Some(low) = f.monthly.iter().min_by_key(|m| m.net) {
                            div.card.stat {
                                span.label { (t.tightest_month) }
                                strong.amount { (format::money(low.net, cur, locale)) }
                                small.muted { (locale.month_year(low.year, low.month)) }
                            }
                        }
                    }
                }
                section.card {
                    @if f.is_cumulative {
                        (charts::balance_line(&format!("{}: {}", account.name, t.projected_balance),
                            &f.monthly.iter().map(|m| (locale.month_short(m.month).to_string(), m.balance.unwrap_or_default())).collect::<Vec<_>>(),
                            cur, locale))
                    } @else {
                        (charts::income_vs_expenses(&account.name,
                            &f.monthly.iter().map(|m| MonthBars {
                                label: locale.month_short(m.month).to_string(),
                                income: m.income + m.transfers_in,
                                expenses: m.expenses + m.transfers_out,
                            }).collect::<Vec<_>>(),
                            cur, locale))
                        p.hint { (t.checking_no_balance) }
                    }
                }
                section.panel {
                    table.records {
                        thead { tr {
                            th { (t.month) } th.num { (t.income) } th.num { (t.expenses) } th.num { (t.transfers_in) }
                            th.num { (t.transfers_out) } th.num { (t.net) }
                            @if f.is_cumulative { th.num { (t.balance) } }
                        } }
                        tbody {
                            @for m in &f.monthly {
                                tr {
                                    td { (locale.month_year(m.year, m.month)) }
                                    td.num.amount { (format::money(m.income, cur, locale)) }
                                    td.num.amount { (format::money(m.expenses, cur, locale)) }
                                    td.num.amount { (format::money(m.transfers_in, cur, locale)) }
                                    td.num.amount { (format::money(m.transfers_out, cur, locale)) }
                                    td.num.amount { (format::money(m.net, cur, locale)) }
                                    @if let Some(b) = m.balance { td.num.amount { (format::money(b, cur, locale)) } }
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
