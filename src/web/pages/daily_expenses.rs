//! `/daily-expenses`: one-time expenses, filtered by month and category.

use super::common::{amount_cell, category_chip, PageResult, Refs};
use super::documents::{attach, paperclip};
use super::record_page::{amount_and_currency, amount_value, Editing, RecordForm, RecordList, Row};
use crate::app::records::daily_expenses::{self, Month, MonthFilter, MONTH_PAGE};
use crate::app::records::DailyInput;
use crate::domain::recurrence::add_months;
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::state::AppState;
use crate::store::documents::Document;
use crate::web::components::{page_links, pager, query_value, select, textarea, Field, Pages};
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::Datelike;
use maud::html;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct DailyQuery {
    month: Option<String>,
    category: Option<String>,
    /// The page of the month's entries, from 1 (50 a page, newest first).
    page: Option<u32>,
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
    let shown = MonthFilter::parse_or_this_month(q.month.as_deref(), q.category.as_deref(), today);
    let first = shown.first;
    let month_value = format!("{:04}-{:02}", first.year(), first.month());
    let category = shown.category.as_query();
    let month = daily_expenses::month(
        &state,
        &user.id,
        &shown,
        q.page.unwrap_or(1),
        q.edit.clone(),
    )
    .await?;
    let pages = month.pages();
    let total = month.total(&state.rates.current(), &user.base_currency);
    let day_pages = month.day_pages();
    let Month {
        entries: list,
        editing,
        documents: docs,
        page: shown_page,
        count,
        ..
    } = month;
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
    let mut category_filter = vec![("none".to_string(), t.uncategorised.to_string())];
    category_filter.extend(refs.category_options());
    let nav = |m: chrono::NaiveDate| {
        let mut href = format!("/daily-expenses?month={:04}-{:02}", m.year(), m.month());
        if let Some(c) = &category {
            href.push_str(&format!("&category={c}"));
        }
        href
    };
    let amount = amount_value(editing.as_ref().map(|e| *e.entry.amount), viewer.locale);
    let date = editing.as_ref().map_or(today, |e| e.entry.date).to_string();
    let default_currency = refs.default_currency(&user.base_currency);
    let at_page = |page: u32| {
        let mut href = nav(first);
        if page > 1 {
            href.push_str(&format!("&page={page}"));
        }
        href
    };
    let back = at_page(shown_page);
    let mut sheet_href = format!("/api/export/daily-expenses?month={month_value}");
    if let Some(c) = &category {
        sheet_href.push_str(&format!("&category={}", query_value(c)));
    }
    let edit_href = format!("{back}&edit=");
    let number = |n: u32| format::number(rust_decimal::Decimal::from(n), 0, locale);
    let from = (shown_page - 1) * MONTH_PAGE;
    // Above and below the list: the page before and after, every page by
    // number and every day with entries, so that a phone reaches the last
    // page without scrolling through the others.
    let paging = (pages > 1).then(|| Pages {
        label: t.entry_pages,
        shown: t
            .entries_of
            .replace("{from}", &number(from + 1))
            .replace("{to}", &number(from + list.len() as u32))
            .replace("{n}", &number(count)),
        prev: (shown_page > 1).then(|| (at_page(shown_page - 1), t.newer_entries)),
        next: (shown_page < pages).then(|| (at_page(shown_page + 1), t.older_entries)),
        jumps: Some(html! {
            (page_links(t.page_word, shown_page, &(1..=pages).map(at_page).collect::<Vec<_>>()))
            // The days fold away, so that on a phone they do not push the
            // list a screen down.
            details.jump-days {
                summary { (t.jump_to_day) }
                p.jump {
                    @for (day, on) in day_pages.iter().rev() {
                        a href={ (at_page(*on)) "#" (day_anchor(*day)) } aria-label=(format::date(*day, locale)) { (day.day()) }
                    }
                }
            }
        }),
    });
    // Each day's first row on the page is where its link in the pager leads.
    let anchored = std::cell::RefCell::new(std::collections::HashSet::new());
    let total_line = if count == 1 {
        t.month_total_one.to_string()
    } else {
        t.month_total.replace("{n}", &number(count))
    }
    .replace("{month}", locale.month_name(first.month()));
    let records = RecordList::new::<DailyInput>(t, &edit_href, html! {
        th { (t.date) } th { (t.name) } th { (t.category) } th.num { (t.amount) }
        th { span.sr-only { (t.doc_of_entry) } }
    })
    .foot(html! {
        th colspan="3" { (total_line) } td.num.amount { (format::money(total, &user.base_currency, locale)) } td {} td {}
    });
    let mut form = RecordForm::new::<DailyInput>(t, t.new_daily_expense, &back)
        .editing(
            editing
                .as_ref()
                .map(|e| Editing::named(&e.id, &e.entry.name)),
        )
        .needs_account(refs.accounts.is_empty())
        .merchant_hint()
        .add_another()
        .collapsed(!list.is_empty());
    if let Some(e) = &editing {
        form = form.after_form(attach(t, &docs_of(&e.id), "dailyExpenseId", &e.id));
    }
    Ok(page(
        &viewer,
        "/daily-expenses",
        t.nav_daily_expenses,
        html! {
            h1 { (t.nav_daily_expenses) }
            form.filters method="get" action="/daily-expenses" {
                // The month and its steps stay together on one line.
                div.month-step {
                    a.button href=(nav(add_months(first, -1))) aria-label=(t.prev_month) { "‹" }
                    div.field {
                        label for="filter-month" { (t.month) }
                        input #filter-month type="month" name="month" value=(month_value);
                    }
                    a.button href=(nav(add_months(first, 1))) aria-label=(t.next_month) { "›" }
                }
                (select(t.category, "category", &category_filter, category, Some(t.all)))
                button type="submit" { (t.filter) }
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
                (Field::new(t.name, "name", "text").value(editing.as_ref().map(|e| e.entry.name.as_str()).unwrap_or("")).hint(t.name_or_merchant_hint).render())
                (Field::new(t.merchant, "merchant", "text").value(editing.as_ref().map(|e| e.entry.merchant.as_str()).unwrap_or("")).render())
                (amount_and_currency(t, &amount, editing.as_ref().map_or(default_currency, |e| e.entry.currency.as_str())))
                (Field::new(t.date, "date", "date").value(&date).required().render())
                (select(t.account, "accountId", &refs.account_options(), editing.as_ref().map(|e| e.entry.account_id.as_str()).or(refs.default_account().map(|a| a.id.as_str())), None))
                (select(t.category, "categoryId", &refs.category_options(),
                    editing.as_ref().and_then(|e| e.entry.category_id.as_deref()), Some(t.uncategorised)))
                @if has_budgets {
                    p.hint.budget-hint hidden aria-live="polite" data-left=(left) data-over=(over) {}
                }
                // Always in the page and empty until a merchant is known, so
                // that screen readers announce the words when they appear.
                p.hint.merchant-hint aria-live="polite" data-text=(t.merchant_hint) {}
                (textarea(t.notes, "notes", editing.as_ref().map(|e| e.entry.notes.as_str()).unwrap_or("")))
            }))
            @if let Some(p) = &paging { (pager(p)) }
            (records.render(&list, |e| Row::new(&e.id, html! {
                @if anchored.borrow_mut().insert(e.entry.date) {
                    td id=(day_anchor(e.entry.date)) { (format::date(e.entry.date, locale)) }
                } @else {
                    td { (format::date(e.entry.date, locale)) }
                }
                td { (e.entry.name) @if !e.entry.merchant.is_empty() { br; small.muted { (e.entry.merchant) } } }
                td { (category_chip(e.entry.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                td.num { (amount_cell(&state, *e.entry.amount, &e.entry.currency, &user.base_currency, locale)) }
                td { (paperclip(t, &docs_of(&e.id), "dailyExpenseId", &e.id)) }
            })))
            @if let Some(p) = &paging { (pager(&Pages { label: t.entry_pages_end, ..p.clone() })) }
            @if count > 0 {
                p.sheet-link { a href=(sheet_href) download { (t.as_spreadsheet) } }
            }
        },
    )
    .into_response())
}

/// The id of a day's first row on a page of entries: `day-2026-11-05`.
fn day_anchor(day: chrono::NaiveDate) -> String {
    format!("day-{day}")
}
