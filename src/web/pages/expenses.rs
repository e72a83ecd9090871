//! `/expenses` (recurring expenses) and `/subscriptions`.

use super::common::{amount_cell, category_chip, EditQuery, PageResult, Refs};
use super::documents::{attach, paperclip};
use super::record_page::{
    amount_and_currency, amount_change, amount_today, next_due_cell, Editing, RecordForm,
    RecordList, Row, SchedulePrefill,
};
use crate::app;
use crate::app::records::ExpenseInput;
use crate::app::reports::{self, subscriptions::subscriptions};
use crate::domain::recurrence::monthly_equivalent;
use crate::i18n::format;
use crate::i18n::Locale;
use crate::state::AppState;
use crate::store::documents::Document;
use crate::store::expenses::Expense;
use crate::store::users::User;
use crate::web::components::{checkbox, select, textarea, Field};
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};

/// Partial: the create/edit panel of a recurring expense; `back` is the page
/// it sits on, `listed` whether it lists records (the new form then waits
/// behind its button), `after` what follows the edited expense's form.
struct ExpenseForm<'a> {
    editing: Option<&'a Expense>,
    back: &'a str,
    subscription_default: bool,
    listed: bool,
    after: Option<Markup>,
    today: chrono::NaiveDate,
}

fn expense_form(locale: Locale, user: &User, refs: &Refs, f: ExpenseForm) -> Markup {
    let ExpenseForm {
        editing,
        back,
        subscription_default,
        listed,
        after,
        today,
    } = f;
    let t = locale.texts();
    let schedule = SchedulePrefill::new(
        editing.map(|e| {
            (
                e.plan.amount,
                e.plan.frequency,
                e.plan.start_date,
                e.plan.end_date,
            )
        }),
        today,
        locale,
    );
    let default_currency = refs.default_currency(&user.base_currency);
    let title = if subscription_default {
        t.new_subscription
    } else {
        t.new_expense
    };
    let mut form = RecordForm::new::<ExpenseInput>(t, title, back)
        .editing(editing.map(|e| Editing::named(&e.id, &e.name)))
        .needs_account(refs.accounts.is_empty())
        .collapsed(listed);
    if let Some(after) = after {
        form = form.after_form(after);
    }
    form.render(html! {
        (Field::new(t.name, "name", "text").value(editing.map(|e| e.name.as_str()).unwrap_or("")).required().render())
        (amount_and_currency(t, &schedule.amount, editing.map_or(default_currency, |e| e.plan.currency.as_str())))
        @if let Some(e) = editing {
            (amount_change(locale, &e.prices(), e.plan.start_date, &e.plan.currency))
        }
        (schedule.fields(locale, false))
        (select(t.account, "accountId", &refs.account_options(), editing.map(|e| e.account_id.as_str()).or(refs.default_account().map(|a| a.id.as_str())), None))
        (select(t.category, "categoryId", &refs.category_options(),
            editing.and_then(|e| e.category_id.as_deref()), Some(t.uncategorised)))
        (checkbox(t.is_subscription, "isSubscription", editing.map(|e| e.is_subscription).unwrap_or(subscription_default)))
        (textarea(t.notes, "notes", editing.map(|e| e.notes.as_str()).unwrap_or("")))
    })
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let (list, docs) = app::records::expenses::with_documents(&state, &user.id).await?;
    let docs_of = |id: &str| -> Vec<&Document> {
        docs.iter()
            .filter(|d| d.expense_id.as_deref() == Some(id))
            .collect()
    };
    let editing = q.find(&list, |e| e.id.as_str());
    let cats = refs.categories_by_id();
    let today = state.clock.today();
    let records = RecordList::new::<ExpenseInput>(
        t,
        "/expenses?edit=",
        html! {
            th { (t.name) } th { (t.frequency) } th { (t.next_due) } th { (t.category) }
            th.num { (t.amount) } th.num.wide-only { (t.monthly_equivalent) }
            th { span.sr-only { (t.doc_of_entry) } }
        },
    );
    Ok(page(
        &viewer,
        "/expenses",
        t.nav_expenses,
        html! {
            h1 { (t.nav_expenses) }
            (expense_form(locale, user, &refs, ExpenseForm {
                editing,
                back: "/expenses",
                subscription_default: false,
                listed: !list.is_empty(),
                today,
                after: editing.map(|e| attach(t, &docs_of(&e.id), "expenseId", &e.id)),
            }))
            (records.render(&list, |e| Row::new(&e.id, html! {
                td { (e.name) @if e.is_subscription { " " span.badge { (t.subscriptions) } } }
                td { (locale.frequency(e.plan.frequency)) }
                td { (next_due_cell(locale, &e.plan.schedule(), today)) }
                td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                @let prices = e.prices();
                td.num { (amount_today(locale, &prices, today, |a| amount_cell(&state, a, &e.plan.currency, &user.base_currency, locale), &e.plan.currency)) }
                td.num.wide-only { (format::money(monthly_equivalent(prices.on(today), e.plan.frequency), &e.plan.currency, locale)) }
                td { (paperclip(t, &docs_of(&e.id), "expenseId", &e.id)) }
            })))
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
    let today = state.clock.today();
    let subs = reports::read(&state, user, subscriptions).await?;
    let editing = q
        .find(&subs.subscriptions, |s| s.expense.id.as_str())
        .map(|s| &s.expense);
    let cats = refs.categories_by_id();
    let records = RecordList::new::<ExpenseInput>(
        t,
        "/subscriptions?edit=",
        html! {
            th { (t.name) } th { (t.frequency) } th { (t.category) } th.num { (t.amount) }
            th.num { (t.monthly_equivalent) } th.num { (t.yearly_cost) }
        },
    );
    Ok(page(
        &viewer,
        "/subscriptions",
        t.nav_subscriptions,
        html! {
            h1 { (t.nav_subscriptions) }
            div.cards {
                div.card.stat { span.label { (t.total) " " (t.per_month) } strong.amount { (format::money(subs.monthly_total, &subs.currency, locale)) } }
                div.card.stat { span.label { (t.total) " " (t.in_next_twelve_months) } strong.amount { (format::money(subs.yearly_total, &subs.currency, locale)) } }
            }
            (expense_form(locale, user, &refs, ExpenseForm {
                editing,
                back: "/subscriptions",
                subscription_default: true,
                listed: !subs.subscriptions.is_empty(),
                today,
                after: None,
            }))
            (records.render(&subs.subscriptions, |s| {
                let e = &s.expense;
                Row::new(&e.id, html! {
                    td { (e.name) @if !s.active { " " span.badge.muted { (t.ended) } } }
                    td { (locale.frequency(e.plan.frequency)) }
                    td { (category_chip(e.category_id.as_deref().and_then(|id| cats.get(id).copied()), locale)) }
                    td.num { (amount_today(locale, &e.prices(), today, |a| amount_cell(&state, a, &e.plan.currency, &user.base_currency, locale), &e.plan.currency)) }
                    td.num { (format::money(s.monthly_amount, &e.plan.currency, locale)) }
                    td.num { (format::money(s.yearly_amount, &e.plan.currency, locale)) }
                })
                .inactive(!s.active)
            }))
        },
    )
    .into_response())
}
