//! `/budgets`: the budgets of a month as bars, and the form that sets or
//! changes one from a month on; [`bars`] is also the dashboard's card.

use super::common::{shown_month, PageResult, Refs};
use crate::app::reports::{self, budgets::Budgets};
use crate::domain::budgets::Status;
use crate::domain::locale::Locale;
use crate::domain::recurrence::{add_months, month_end, month_start};
use crate::http::session::SignedIn;
use crate::i18n::budgets::{self, words};
use crate::state::AppState;
use crate::web::components::{checkbox, form_error, form_success, select, Field};
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::{Datelike, NaiveDate};
use maud::{html, Markup};
use rust_decimal::Decimal;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct BudgetQuery {
    month: Option<String>,
    edit: Option<String>,
}

fn month_key(m: NaiveDate) -> String {
    format!("{:04}-{:02}", m.year(), m.month())
}

/// How far the month of `first` is on `today`, in percent of its days;
/// `None` for any other month.
fn month_progress(first: NaiveDate, today: NaiveDate) -> Option<(u32, u32, Decimal)> {
    if month_start(today) != first {
        return None;
    }
    let days = month_end(first).day();
    let pct = Decimal::from(today.day() * 100) / Decimal::from(days);
    Some((today.day(), days, pct.round_dp(1)))
}

/// Partial: the budgets of a month as bars: spent of available, what is
/// left, and the status in words beside its colour; on the current month a
/// marker shows how far the month is. `edit` links each bar to its form.
pub fn bars(b: &Budgets, locale: Locale, first: NaiveDate, today: NaiveDate, edit: bool) -> Markup {
    let w = words(locale);
    let cur = b.currency.as_str();
    let progress = month_progress(first, today);
    html! {
        @if let Some((day, days, _)) = progress {
            p.hint.budget-legend {
                span.budget-today-key aria-hidden="true" {}
                " " (w.today) ": " (budgets::day_of_month(day, days, locale))
            }
        }
        ul.budget-bars {
            @for x in &b.budgets {
                @let fill = x.percent.unwrap_or(100).clamp(0, 100);
                @let label = format!("{} {}", x.icon, x.name).trim().to_string();
                @let spent = budgets::spent_of(x.spent.0, x.available.0, cur, locale);
                li.budget id=(format!("budget-{}", x.category_id)) data-budget=(x.status.as_str()) {
                    div.budget-head {
                        span.budget-name { (label) }
                        span.budget-status {
                            @match x.status {
                                Status::Over => { span aria-hidden="true" { "▲ " } }
                                Status::Near => { span aria-hidden="true" { "● " } }
                                Status::Ok => {}
                            }
                            (budgets::status(x.status, locale))
                        }
                    }
                    div.budget-track role="progressbar" aria-label=(label)
                        aria-valuemin="0" aria-valuemax="100" aria-valuenow=(fill)
                        aria-valuetext=(format!("{spent}, {}", budgets::status(x.status, locale))) {
                        // Drawn as SVG: the page's content security policy
                        // allows no style attributes.
                        svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false" {
                            rect.budget-fill x="0" y="0" width=(fill) height="10" {}
                            @if let Some((_, _, at)) = progress {
                                line.budget-today x1=(at) x2=(at) y1="0" y2="10" vector-effect="non-scaling-stroke" {}
                            }
                        }
                    }
                    p.budget-figures {
                        span { (spent) }
                        @if let Some(p) = x.percent {
                            " · "
                            span.budget-percent { (budgets::percent(p, locale)) }
                        }
                        " · "
                        strong.budget-remaining { (budgets::remaining(x.remaining.0, cur, locale)) }
                        @if !x.carried.is_zero() {
                            " · "
                            span.muted.budget-own { (budgets::own_and_carried(x.amount.0, x.carried.0, cur, locale)) }
                        }
                    }
                    @if edit {
                        div.budget-actions {
                            a href=(format!("/budgets?month={}&edit={}#budget-form", month_key(first), x.category_id))
                                aria-label=(format!("{}: {}", w.edit, x.name)) { (w.edit) }
                            form.inline data-action="deleteBudget" data-confirm=(w.end_confirm) data-reload="" {
                                input type="hidden" name="categoryId" value=(x.category_id);
                                input type="hidden" name="from" value=(month_key(first));
                                button.link.danger type="submit" aria-label=(format!("{}: {}", w.end, x.name)) { (w.end) }
                                (form_error())
                            }
                        }
                    }
                }
            }
        }
    }
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<BudgetQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let w = words(locale);
    let today = state.clock.today();
    let first = shown_month(q.month.as_deref(), today);
    let refs = Refs::load(&state, &user.id).await?;
    let b = reports::budgets::kept(&state, user, first).await?;
    let editing = q.edit.as_deref().and_then(|id| b.of(id));
    let month_link = |m: NaiveDate| format!("/budgets?month={}", month_key(m));
    let amount = editing
        .map(|x| crate::web::pages::record_page::amount_value(Some(x.amount.0), locale))
        .unwrap_or_default();
    Ok(page(
        &viewer,
        "/budgets",
        w.title,
        html! {
            div.page-head {
                h1 { (w.title) }
                nav.month-nav aria-label=(t.month) {
                    a.button href=(month_link(add_months(first, -1))) aria-label=(t.prev_month) { "‹" }
                    strong { (locale.month_year(first.year(), first.month())) }
                    a.button href=(month_link(add_months(first, 1))) aria-label=(t.next_month) { "›" }
                }
            }
            p.muted { (w.intro) }
            section.panel {
                @if b.budgets.is_empty() {
                    p.muted { (w.none) }
                } @else {
                    (bars(&b, locale, first, today, true))
                }
            }
            section.panel #budget-form {
                h2 { (w.set_title) }
                @if refs.categories.is_empty() {
                    p.muted { (w.no_categories) " " a href="/categories" { (t.nav_categories) } }
                } @else {
                    form.stack data-action="setBudget" data-reload="" {
                        (select(w.category, "categoryId", &refs.category_options(), editing.map(|x| x.category_id.as_str()), None))
                        (Field::new(w.amount, "amount", "text").value(&amount).decimal().required().render())
                        (checkbox(w.rollover, "rollover", editing.is_some_and(|x| x.rollover)))
                        p.hint { (w.rollover_hint) }
                        (Field::new(w.from, "from", "month").value(&month_key(first)).hint(w.from_hint).render())
                        (form_error())
                        (form_success(w.saved))
                        button.primary type="submit" { (w.save) }
                    }
                }
            }
        },
    )
    .into_response())
}
