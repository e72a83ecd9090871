//! `/`: the dashboard: this month in the cashflow and reserve views, fixed
//! costs and subscriptions, what is due next, and two charts; for a new
//! user a welcome, then the next steps; and a quick "+ Expense".

use super::common::{shown_month, PageResult};
use crate::app::repeats::{self, Offer};
use crate::app::reports::{
    budgets::{dashboard_kept, Budgets},
    dashboard::{Dashboard, MonthView},
};
use crate::app::settings;
use crate::domain::locale::Locale;
use crate::domain::money;
use crate::domain::money::is_much_more;
use crate::domain::recurrence::{add_months, month_start};
use crate::domain::repeats::Kind;
use crate::http::session::SignedIn;
use crate::i18n::{format, guide};
use crate::state::AppState;
use crate::store::users::NextSteps;
use crate::web::charts::{self, CategorySlice};
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::{Datelike, NaiveDate};
use maud::{html, Markup};
use rust_decimal::Decimal;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct MonthQuery {
    month: Option<String>,
}

/// Partial: one view of the month (income, expenses, surplus, change; a
/// month more than ten times the one before says "much more" instead).
fn month_card(title: &str, hint: &str, v: &MonthView, currency: &str, locale: Locale) -> Markup {
    let t = locale.texts();
    let change = |pct: Option<Decimal>| -> Markup {
        html! {
            @if let Some(p) = pct {
                small.change.up[p > Decimal::ZERO].down[p < Decimal::ZERO] {
                    @if is_much_more(p) {
                        (t.much_more_than_last_month)
                    } @else {
                        (if p > Decimal::ZERO { "+" } else { "" }) (format::number(p, 1, locale)) " % " (t.vs_last_month)
                    }
                }
            }
        }
    };
    html! {
        section.card {
            h2 { (title) }
            p.hint { (hint) }
            dl.figures {
                div { dt { (t.income) } dd { span.amount { (format::money(v.income, currency, locale)) } (change(v.income_change_pct)) } }
                div { dt { (t.expenses) } dd { span.amount { (format::money(v.expenses, currency, locale)) } (change(v.expenses_change_pct)) } }
                div.surplus.negative[v.surplus < Decimal::ZERO] {
                    dt { (t.surplus) } dd { span.amount { (format::money(v.surplus, currency, locale)) } }
                }
            }
        }
    }
}

/// Partial: after the first account, the next steps of a new user (a
/// recurring income, a recurring expense, a bank import), each a link to
/// its form, the done ones ticked; one-time entries repeated every month,
/// each with "Make it recurring"; and a button that hides the steps.
fn next_steps(s: &NextSteps, offers: &[Offer], locale: Locale) -> Markup {
    let g = guide::words(locale);
    let offer = |o: &Offer| {
        let r = &o.repeat;
        let line = g
            .repeat_line
            .replace("{name}", &r.name)
            .replace(
                "{amount}",
                &format::money(money::from_cents(r.cents), &r.currency, locale),
            )
            .replace("{count}", &r.ids.len().to_string())
            .replace("{first}", &format::date(r.first, locale));
        let what = match o.kind {
            Kind::Income => g.repeat_income,
            Kind::Expense => g.repeat_expense,
        };
        html! {
            li.repeat {
                span.muted { (what) } " " (line) " "
                form.inline data-action="makeRecurring" data-reload="" data-flash=(g.repeat_made) {
                    input type="hidden" name="kind" value=(o.kind.code());
                    input type="hidden" name="id" value=(r.ids[0]);
                    button type="submit" { (g.repeat_make) }
                }
            }
        }
    };
    let step = |done: bool, href: &str, what: &str, hint: &str| {
        html! {
            li.done[done] {
                @if done {
                    span.tick aria-hidden="true" { "✓ " }
                    s { (what) } " " span.sr-only { "(" (g.next_done) ")" }
                } @else {
                    a href=(href) { (what) }
                }
                " " span.muted { (hint) }
            }
        }
    };
    html! {
        section.panel.welcome.next-steps aria-labelledby="next-steps-title" {
            h2 #next-steps-title { (g.next_title) }
            p.muted { (g.next_intro) }
            ul.steps {
                (step(s.income, "/incomes?focus=name#record-form", g.next_income, g.next_income_hint))
                (step(s.recurring_expense, "/expenses?focus=name#record-form", g.next_expense, g.next_expense_hint))
                (step(s.import, "/import", g.next_import, g.next_import_hint))
            }
            @if !offers.is_empty() {
                h3 { (g.repeat_title) }
                p.muted { (g.repeat_intro) }
                ul.steps.repeats {
                    @for o in offers { (offer(o)) }
                }
            }
            form data-action="dismissNextSteps" data-reload {
                button type="submit" { (g.next_dismiss) }
            }
        }
    }
}

fn body(
    d: &Dashboard,
    b: &Budgets,
    locale: Locale,
    (first, today): (NaiveDate, NaiveDate),
    (quick, intro): (bool, Markup),
) -> Markup {
    let t = locale.texts();
    // Assets and the next payments are today's, whichever month is shown:
    // another month says so.
    let other_month = first != month_start(today);
    let cur = d.currency.as_str();
    let month_link = |m: NaiveDate| format!("/?month={:04}-{:02}", m.year(), m.month());
    let slices: Vec<CategorySlice> = d
        .by_category
        .iter()
        .map(|c| CategorySlice {
            label: match &c.category {
                Some(k) => format!("{} {}", k.icon, k.name).trim().to_string(),
                None => t.uncategorised.to_string(),
            },
            amount: c.amount.0,
            color: c
                .category
                .as_ref()
                .map(|k| k.color.clone())
                .unwrap_or_else(|| "#94a3b8".into()),
        })
        .collect();
    let bars: Vec<charts::MonthBars> = d
        .months
        .iter()
        .map(|m| charts::MonthBars {
            label: locale.month_short(m.month).to_string(),
            income: m.income.0,
            expenses: m.expenses.0,
        })
        .collect();
    html! {
        div.page-head {
            h1 { (t.dashboard_title) }
            @if quick {
                @let g = guide::words(locale);
                a.button.primary.quick-add href="/daily-expenses?focus=amount#record-form" title=(g.quick_expense_label) { (g.quick_expense) }
            }
            nav.month-nav aria-label=(t.month) {
                a.button href=(month_link(add_months(first, -1))) aria-label=(t.prev_month) { "‹" }
                strong { (locale.month_year(d.year, d.month)) }
                a.button href=(month_link(add_months(first, 1))) aria-label=(t.next_month) { "›" }
            }
        }
        (intro)
        div.cards {
            div.card.stat { span.label { (t.total_assets) @if other_month { " " (t.as_of_today) } } strong.amount { (format::money(d.total_assets, cur, locale)) } }
            div.card.stat {
                span.label { (t.fixed_costs) " " (t.per_month) }
                strong.amount { (format::money(d.recurring.fixed_costs_monthly, cur, locale)) }
                small.muted { (d.recurring.fixed_costs_count) " × " a href="/expenses" { (t.nav_expenses) } }
            }
            div.card.stat {
                span.label { (t.subscriptions) " " (t.per_month) }
                strong.amount { (format::money(d.recurring.subscriptions_monthly, cur, locale)) }
                small.muted { (d.recurring.subscriptions_count) " × " a href="/subscriptions" { (t.nav_subscriptions) } }
            }
        }
        section.card.budgets-card {
            @let w = crate::i18n::budgets::words(locale);
            h2 { (w.this_month) }
            @if b.budgets.is_empty() {
                p.muted { (w.none_dashboard) " " a href="/budgets" { (w.set_title) } }
            } @else {
                (super::budgets::bars(b, locale, first, today, false))
                p { a href=(format!("/budgets?month={:04}-{:02}", first.year(), first.month())) { (w.all) } }
            }
        }
        div.grid2 {
            (month_card(t.cashflow_view, t.cashflow_hint, &d.cashflow, cur, locale))
            (month_card(t.reserve_view, t.reserve_hint, &d.reserve, cur, locale))
        }
        div.grid2 {
            section.card {
                h2 { (t.next_payments) @if other_month { " " (t.from_today) } }
                @if d.upcoming.is_empty() {
                    p.muted { (t.nothing_due) }
                } @else {
                    ul.payments {
                        @for p in &d.upcoming {
                            li {
                                span.when { (format::date(p.date, locale)) }
                                span.what {
                                    @if let Some(k) = &p.category { (k.icon) " " }
                                    (p.name)
                                    @if p.is_subscription { " " span.badge { (t.subscriptions) } }
                                }
                                span.amount { (format::money(p.amount, cur, locale)) }
                            }
                        }
                    }
                }
            }
            section.card {
                (charts::spending_by_category(t.spending_by_category, &slices, cur, locale))
            }
        }
        section.card {
            (charts::income_vs_expenses(t.income_vs_expenses, &bars, cur, locale))
        }
    }
}

/// Partial: the contracts whose last day to cancel is within 60 days,
/// nearest first ("Kündigungsfristen", `docs/planning.md`); nothing when
/// there are none.
fn deadlines_card(
    deadlines: &[crate::domain::insights::ContractFacts],
    locale: Locale,
    today: NaiveDate,
) -> Markup {
    let w = crate::i18n::contracts::words(locale);
    html! {
        @if !deadlines.is_empty() {
            section.card.deadlines-card {
                h2 { (w.deadlines) }
                ul.payments {
                    @for c in deadlines {
                        @let days = (c.deadline.cancel_by - today).num_days();
                        li {
                            span.when { (format::date(c.deadline.cancel_by, locale)) }
                            span.what {
                                a href=(format!("/expenses?edit={}", c.id)) { (c.name) }
                                small.muted { (crate::i18n::contracts::days_left(locale, days)) }
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
    Query(q): Query<MonthQuery>,
) -> PageResult {
    let t = viewer.t();
    let today = state.clock.today();
    let first = shown_month(q.month.as_deref(), today);
    let report = dashboard_kept(&state, &session.user, first).await?;
    let (d, b) = (&report.0, &report.1);
    let user = &session.user;
    let greeting = if user.name.is_empty() {
        &user.email
    } else {
        &user.name
    };
    let steps = settings::next_steps(&state, &user.id).await?;
    let offers = if settings::next_steps_open(&steps) {
        repeats::offers(&state, &user.id).await?
    } else {
        Vec::new()
    };
    let deadlines = crate::app::records::expenses::upcoming_deadlines(&state, &user.id).await?;
    let intro = html! {
        (deadlines_card(&deadlines, viewer.locale, today))
        @if !steps.account {
            section.panel.welcome {
                h2 { (t.dashboard_welcome) ", " (greeting) }
                p.muted { (t.dashboard_empty) }
                p { a.button.primary href="/accounts" { (t.new_account) } }
            }
        } @else if settings::next_steps_open(&steps) {
            (next_steps(&steps, &offers, viewer.locale))
        }
    };
    Ok(page(
        &viewer,
        "/",
        t.dashboard_title,
        body(d, b, viewer.locale, (first, today), (steps.account, intro)),
    )
    .into_response())
}
