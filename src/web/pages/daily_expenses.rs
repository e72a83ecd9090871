//! `/daily-expenses`: one-time expenses, filtered by month and category.

use super::common::{amount_cell, category_chip, PageResult, Refs};
use super::documents::paperclip;
use super::record_page::{amount_and_currency, amount_value, Editing, RecordForm, RecordList, Row};
use crate::app::records::daily_expenses::{self, Month};
use crate::domain::recurrence::parse_month;
use crate::domain::recurrence::{add_months, month_start};
use crate::i18n::format;
use crate::state::AppState;
use crate::store::daily_expenses::Filter;
use crate::store::documents::Document;
use crate::web::components::{select, textarea, Field};
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
        uncategorised: category.as_deref() == Some("none"),
        category_id: category.clone().filter(|c| c != "none"),
        ..Filter::default()
    };
    let Month {
        entries: list,
        editing,
        documents: docs,
    } = daily_expenses::month(&state, &user.id, (first, last), filter, q.edit.clone()).await?;
    let docs_of = |id: &str| -> Vec<&Document> {
        docs.iter()
            .filter(|d| d.daily_expense_id.as_deref() == Some(id))
            .collect()
    };
    let cats = refs.categories_by_id();
    // Whether any category has a budget: then the form says, once a
    // category is chosen, what is left of it this month (the script asks
    // `listBudgets` then, so the page itself costs no more).
    let has_budgets = crate::app::budgets::any(&state, &user.id).await?;
    let (left, over) = crate::i18n::budgets::left_templates(locale);
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
    let amount = amount_value(editing.as_ref().map(|e| e.amount), viewer.locale);
    let date = editing.as_ref().map_or(today, |e| e.date).to_string();
    let default_currency = refs.default_currency(&user.base_currency);
    let back = nav(first);
    let edit_href = format!("{back}&edit=");
    let records = RecordList::new(t, &edit_href, "deleteDailyExpense", html! {
        th { (t.date) } th { (t.name) } th { (t.category) } th.num { (t.amount) }
        th { span.sr-only { (t.doc_of_entry) } }
    })
    .foot(html! {
        th colspan="3" { (t.total) } td.num.amount { (format::money(total, &user.base_currency, locale)) } td {} td {}
    });
    let form = RecordForm::new(
        t,
        t.new_daily_expense,
        "createDailyExpense",
        "updateDailyExpense",
        &back,
    )
    .editing(editing.as_ref().map(|e| Editing::named(&e.id, &e.name)))
    .needs_account(refs.accounts.is_empty())
    .merchant_hint()
    .add_another();
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
            (form.render(html! {
                @if state.ai.is_some() && editing.is_none() {
                    div.scan data-scan="/api/receipt-scan" data-reading=(t.scan_reading) data-attach="dailyExpenseId" {
                        label.button {
                            (t.scan_receipt)
                            input.sr-only type="file" accept="image/*" capture="environment";
                        }
                        span.scan-status.muted hidden aria-live="polite" {}
                        p.hint { (t.scan_hint) }
                    }
                }
                (Field::new(t.name, "name", "text").value(editing.as_ref().map(|e| e.name.as_str()).unwrap_or("")).hint(t.name_or_merchant_hint).render())
                (Field::new(t.merchant, "merchant", "text").value(editing.as_ref().map(|e| e.merchant.as_str()).unwrap_or("")).render())
                (amount_and_currency(t, &amount, editing.as_ref().map_or(default_currency, |e| e.currency.as_str())))
                (Field::new(t.date, "date", "date").value(&date).required().render())
                (select(t.account, "accountId", &refs.account_options(), editing.as_ref().map(|e| e.account_id.as_str()).or(refs.default_account().map(|a| a.id.as_str())), None))
                (select(t.category, "categoryId", &refs.category_options(),
                    editing.as_ref().and_then(|e| e.category_id.as_deref()), Some(t.uncategorised)))
                @if has_budgets {
                    p.hint.budget-hint hidden aria-live="polite" data-left=(left) data-over=(over) {}
                }
                // Always in the page and empty until a merchant is known, so
                // that screen readers announce the words when they appear.
                p.hint.merchant-hint aria-live="polite" data-text=(t.merchant_hint) {}
                (textarea(t.notes, "notes", editing.as_ref().map(|e| e.notes.as_str()).unwrap_or("")))
            }))
            (records.render(&list, |e| Row::new(&e.id, html! {
                td { (format::date(e.date, locale)) }
                td { (e.name) @if !e.merchant.is_empty() { br; small.muted { (e.merchant) } } }
                td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                td.num { (amount_cell(&state, e.amount, &e.currency, &user.base_currency, locale)) }
                td { (paperclip(t, &docs_of(&e.id), "dailyExpenseId", &e.id)) }
            })))
        },
    )
    .into_response())
}
