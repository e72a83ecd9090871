//! `/reserves`: what to set aside each month for the non-monthly expenses,
//! what should be saved by today, and the pots.

use super::common::PageResult;
use crate::app::reports::{self, reserves::plan};
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::state::AppState;
use crate::web::components::form_error;
use crate::web::layout::page;
use axum::extract::State;
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let (t, locale) = (viewer.t(), viewer.locale);
    let plan = reports::read(&state, &session.user, plan).await?;
    let cur = plan.currency.as_str();
    Ok(page(
        &viewer,
        "/reserves",
        t.nav_reserves,
        html! {
            h1 { (t.nav_reserves) }
            p.hint { (t.reserves_intro) }
            div.cards {
                div.card.stat { span.label { (t.set_aside_monthly) } strong.amount { (format::money(plan.monthly_total, cur, locale)) } }
                div.card.stat { span.label { (t.target_today) } strong.amount { (format::money(plan.target_total, cur, locale)) } }
                div.card.stat { span.label { (t.pots_total) } strong.amount { (format::money(plan.pots_total, cur, locale)) } }
                div.card.stat { span.label { (t.gap) } strong.amount { (format::money(plan.gap_total, cur, locale)) } }
                @if !plan.ahead_total.is_zero() {
                    div.card.stat { span.label { (t.ahead) } strong.amount { (format::money(plan.ahead_total, cur, locale)) } }
                }
            }
            @if !plan.ahead_total.is_zero() {
                p.hint { (t.reserves_totals_hint) }
            }
            section.panel {
                @if plan.entries.is_empty() {
                    p.muted { (t.no_reserves) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.name) } th { (t.next_due) } th.num { (t.amount) } th.num { (t.monthly_equivalent) }
                            th.num { (t.target_short) } th.num { (t.gap) } th { (t.pot) }
                        } }
                        tbody {
                            @for e in &plan.entries {
                                tr {
                                    td { (e.name) br; small.muted { (locale.frequency(e.frequency)) } }
                                    td { (format::date(e.next_due_date, locale)) }
                                    td.num.amount { (format::money(e.amount_in_base, cur, locale)) }
                                    td.num.amount { (format::money(e.monthly_amount, cur, locale)) }
                                    td.num.amount { (format::money(e.target_today, cur, locale)) }
                                    td.num.amount.negative[!e.gap.is_zero()] {
                                        (format::money(e.gap, cur, locale))
                                        @if !e.ahead.is_zero() { br; small.muted { (t.ahead) ": " (format::money(e.ahead, cur, locale)) } }
                                    }
                                    td {
                                        form.pot data-action="setReservePot" data-reload="" novalidate {
                                            input type="hidden" name="expenseId" value=(e.expense_id);
                                            label.sr-only for={ "pot-" (e.expense_id) } { (t.pot) ": " (e.name) }
                                            input id={ "pot-" (e.expense_id) } type="text" inputmode="decimal" name="amount" data-type="amount"
                                                value=(crate::i18n::amount::input_value(e.pot, locale)) aria-describedby={ "pot-" (e.expense_id) "-error" };
                                            button type="submit" { (t.update_pot) }
                                            span.field-error id={ "pot-" (e.expense_id) "-error" } data-error-for="amount" aria-live="polite" {}
                                            (form_error())
                                        }
                                    }
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
