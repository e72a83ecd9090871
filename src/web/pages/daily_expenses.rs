//! `/daily-expenses`: one-time expenses, filtered by month and category.

use super::common::{amount_cell, category_chip, currency_options, PageResult, Refs};
use crate::domain::recurrence::parse_month;
use crate::domain::recurrence::{add_months, month_start};
use crate::i18n::format;
use crate::state::AppState;
use crate::store::daily_expenses::DailyExpense;
use crate::store::daily_expenses::{self, Filter};
use crate::store::table;
use crate::web::components::{delete_button, form_error, select, textarea, Field};
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::Datelike;
use maud::html;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct DailyQuery {
    month: Option<String>,
    category: Option<String>,
    edit: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<DailyQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let today = state.clock.today();
    let (first, last) = q
        .month
        .as_deref()
        .and_then(|m| parse_month("month", m).ok())
        .unwrap_or_else(|| {
            (
                month_start(today),
                crate::domain::recurrence::month_end(today),
            )
        });
    let month_value = format!("{:04}-{:02}", first.year(), first.month());
    let category = q.category.clone().filter(|c| !c.is_empty());
    let filter = Filter {
        from: Some(first),
        to: Some(last),
        uncategorised: category.as_deref() == Some("none"),
        category_id: category.clone().filter(|c| c != "none"),
        limit: None,
    };
    let uid = user.id.clone();
    let edit_id = q.edit.clone();
    let (list, editing) = state
        .db
        .run(move |c| {
            let list = daily_expenses::list(c, &uid, &filter)?;
            let editing = match edit_id {
                Some(id) => table::find::<DailyExpense>(c, &uid, &id)?,
                None => None,
            };
            Ok((list, editing))
        })
        .await?;
    let cats = refs.categories_by_id();
    let total: rust_decimal::Decimal = list
        .iter()
        .map(|e| {
            state
                .rates
                .current()
                .to_base(e.amount, &e.currency, &user.base_currency)
        })
        .sum();
    let mut category_filter = vec![("none".to_string(), t.uncategorised.to_string())];
    category_filter.extend(refs.category_options());
    let nav = |m: chrono::NaiveDate| {
        let mut href = format!("/daily-expenses?month={:04}-{:02}", m.year(), m.month());
        if let Some(c) = &category {
            href.push_str(&format!("&category={c}"));
        }
        href
    };
    let amount = editing
        .as_ref()
        .map(|e| format!("{:.2}", e.amount))
        .unwrap_or_default();
    let date = editing
        .as_ref()
        .map(|e| e.date.to_string())
        .unwrap_or_else(|| today.to_string());
    let default_currency = refs
        .accounts
        .first()
        .map(|a| a.currency.clone())
        .unwrap_or(user.base_currency.clone());
    Ok(page(
        &viewer,
        "/daily-expenses",
        t.nav_daily_expenses,
        html! {
            h1 { (t.nav_daily_expenses) }
            form.filters method="get" action="/daily-expenses" {
                a.button href=(nav(add_months(first, -1))) aria-label=(t.prev_month) { "‹" }
                div.field {
                    label for="filter-month" { (t.month) }
                    input #filter-month type="month" name="month" value=(month_value);
                }
                (select(t.category, "category", &category_filter, category.as_deref(), Some(t.all)))
                button type="submit" { (t.filter) }
                a.button href=(nav(add_months(first, 1))) aria-label=(t.next_month) { "›" }
            }
            section.panel {
                @if list.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.date) } th { (t.name) } th { (t.category) } th.num { (t.amount) }
                            th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for e in &list {
                                tr {
                                    td { (format::date(e.date, locale)) }
                                    td { (e.name) @if !e.merchant.is_empty() { br; small.muted { (e.merchant) } } }
                                    td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                                    td.num { (amount_cell(&state, e.amount, &e.currency, &user.base_currency, locale)) }
                                    td.row-actions {
                                        a href={ (nav(first)) "&edit=" (e.id) } { (t.edit) }
                                        (delete_button("deleteDailyExpense", &e.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                        tfoot { tr { th colspan="3" { (t.total) } td.num.amount { (format::money(total, &user.base_currency, locale)) } td {} } }
                    }
                }
            }
            section.panel {
                h2 { @if let Some(e) = &editing { (t.edit) ": " (e.name) } @else { (t.new_daily_expense) } }
                @if refs.accounts.is_empty() {
                    p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
                } @else {
                    form.stack data-action=(if editing.is_some() { "updateDailyExpense" } else { "createDailyExpense" })
                        data-redirect=(nav(first)) data-merchant-hint novalidate {
                        @if let Some(e) = &editing { input type="hidden" name="id" value=(e.id); }
                        (Field::new(t.name, "name", "text").value(editing.as_ref().map(|e| e.name.as_str()).unwrap_or("")).required().render())
                        (Field::new(t.merchant, "merchant", "text").value(editing.as_ref().map(|e| e.merchant.as_str()).unwrap_or("")).render())
                        div.row {
                            (Field::new(t.amount, "amount", "text").value(&amount).decimal().required().render())
                            (select(t.currency, "currency", &currency_options(),
                                Some(editing.as_ref().map(|e| e.currency.as_str()).unwrap_or(default_currency.as_str())), None))
                        }
                        (Field::new(t.date, "date", "date").value(&date).required().render())
                        (select(t.account, "accountId", &refs.account_options(), editing.as_ref().map(|e| e.account_id.as_str()), None))
                        (select(t.category, "categoryId", &refs.category_options(),
                            editing.as_ref().and_then(|e| e.category_id.as_deref()), Some(t.uncategorised)))
                        p.hint.merchant-hint hidden { (t.merchant_hint) }
                        (textarea(t.notes, "notes", editing.as_ref().map(|e| e.notes.as_str()).unwrap_or("")))
                        (form_error())
                        div.buttons {
                            button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                            @if editing.is_some() { a.button href=(nav(first)) { (t.cancel) } }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
