//! `/expenses` (recurring expenses) and `/subscriptions`.

use super::common::{
    amount_cell, category_chip, currency_options, frequency_options, EditQuery, PageResult, Refs,
};
use crate::domain::recurrence::monthly_equivalent;
use crate::i18n::format;
use crate::i18n::Locale;
use crate::reports::subscriptions::subscriptions;
use crate::state::AppState;
use crate::store::expenses::{self, Expense};
use crate::store::users::User;
use crate::web::components::{checkbox, delete_button, form_error, select, textarea, Field};
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};

/// Partial: the create/edit form of a recurring expense.
fn expense_form(
    locale: Locale,
    user: &User,
    refs: &Refs,
    editing: Option<&Expense>,
    back: &str,
    subscription_default: bool,
) -> Markup {
    let t = locale.texts();
    let amount = editing
        .map(|e| format!("{:.2}", e.amount))
        .unwrap_or_default();
    let start = editing
        .map(|e| e.start_date.to_string())
        .unwrap_or_default();
    let end = editing
        .and_then(|e| e.end_date)
        .map(|d| d.to_string())
        .unwrap_or_default();
    let default_currency = refs
        .accounts
        .first()
        .map(|a| a.currency.as_str())
        .unwrap_or(user.base_currency.as_str());
    html! {
        @if refs.accounts.is_empty() {
            p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
        } @else {
            form.stack data-action=(if editing.is_some() { "updateExpense" } else { "createExpense" })
                data-redirect=(back) novalidate {
                @if let Some(e) = editing { input type="hidden" name="id" value=(e.id); }
                (Field::new(t.name, "name", "text").value(editing.map(|e| e.name.as_str()).unwrap_or("")).required().render())
                div.row {
                    (Field::new(t.amount, "amount", "text").value(&amount).decimal().required().render())
                    (select(t.currency, "currency", &currency_options(),
                        Some(editing.map(|e| e.currency.as_str()).unwrap_or(default_currency)), None))
                }
                (select(t.frequency, "frequency", &frequency_options(locale, false),
                    Some(editing.map(|e| e.frequency.code()).unwrap_or("monthly")), None))
                div.row {
                    (Field::new(t.start_date, "startDate", "date").value(&start).required().render())
                    (Field::new(t.end_date, "endDate", "date").value(&end).nullable().render())
                }
                (select(t.account, "accountId", &refs.account_options(), editing.map(|e| e.account_id.as_str()), None))
                (select(t.category, "categoryId", &refs.category_options(),
                    editing.and_then(|e| e.category_id.as_deref()), Some(t.uncategorised)))
                (checkbox(t.is_subscription, "isSubscription", editing.map(|e| e.is_subscription).unwrap_or(subscription_default)))
                (textarea(t.notes, "notes", editing.map(|e| e.notes.as_str()).unwrap_or("")))
                (form_error())
                div.buttons {
                    button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                    @if editing.is_some() { a.button href=(back) { (t.cancel) } }
                }
            }
        }
    }
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let uid = user.id.clone();
    let list = state
        .db
        .run(move |c| expenses::list(c, &uid, false))
        .await?;
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| list.iter().find(|e| e.id == id));
    let cats = refs.categories_by_id();
    let today = state.clock.today();
    Ok(page(
        &viewer,
        "/expenses",
        t.nav_expenses,
        html! {
            h1 { (t.nav_expenses) }
            section.panel {
                @if list.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.name) } th { (t.frequency) } th { (t.next_due) } th { (t.category) }
                            th.num { (t.amount) } th.num { (t.monthly_equivalent) } th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for e in &list {
                                @let next = e.schedule().next_due(today);
                                tr {
                                    td { (e.name) @if e.is_subscription { " " span.badge { (t.subscriptions) } } }
                                    td { (locale.frequency(e.frequency)) }
                                    td { @match next { Some(d) => (format::date(d, locale)), None => span.muted { (t.ended) } } }
                                    td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                                    td.num { (amount_cell(&state, e.amount, &e.currency, &user.base_currency, locale)) }
                                    td.num { (format::money(monthly_equivalent(e.amount, e.frequency), &e.currency, locale)) }
                                    td.row-actions {
                                        a href={ "/expenses?edit=" (e.id) } { (t.edit) }
                                        (delete_button("deleteExpense", &e.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            section.panel {
                h2 { @if let Some(e) = editing { (t.edit) ": " (e.name) } @else { (t.new_expense) } }
                (expense_form(locale, user, &refs, editing, "/expenses", false))
            }
        },
    )
    .into_response())
}

pub async fn subscriptions_page(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let (u, today, st) = (session.user.clone(), state.clock.today(), state.clone());
    let subs = state
        .db
        .run(move |c| subscriptions(c, &u, &st.rates.current(), today))
        .await?;
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| subs.subscriptions.iter().find(|s| s.expense.id == id))
        .map(|s| &s.expense);
    let cats = refs.categories_by_id();
    Ok(page(
        &viewer,
        "/subscriptions",
        t.nav_subscriptions,
        html! {
            h1 { (t.nav_subscriptions) }
            div.cards {
                div.card.stat { span.label { (t.total) " " (t.per_month) } strong.amount { (format::money(subs.monthly_total, &subs.currency, locale)) } }
                div.card.stat { span.label { (t.total) " " (t.per_year) } strong.amount { (format::money(subs.yearly_total, &subs.currency, locale)) } }
            }
            section.panel {
                @if subs.subscriptions.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.name) } th { (t.frequency) } th { (t.category) } th.num { (t.amount) }
                            th.num { (t.monthly_equivalent) } th.num { (t.yearly_cost) } th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for s in &subs.subscriptions {
                                @let e = &s.expense;
                                tr.inactive[!s.active] {
                                    td { (e.name) @if !s.active { " " span.badge.muted { (t.ended) } } }
                                    td { (locale.frequency(e.frequency)) }
                                    td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                                    td.num { (amount_cell(&state, e.amount, &e.currency, &user.base_currency, locale)) }
                                    td.num { (format::money(s.monthly_amount, &e.currency, locale)) }
                                    td.num { (format::money(s.yearly_amount, &e.currency, locale)) }
                                    td.row-actions {
                                        a href={ "/subscriptions?edit=" (e.id) } { (t.edit) }
                                        (delete_button("deleteExpense", &e.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            section.panel {
                h2 { @if let Some(e) = editing { (t.edit) ": " (e.name) } @else { (t.new_expense) } }
                (expense_form(locale, user, &refs, editing, "/subscriptions", true))
            }
        },
    )
    .into_response())
}
