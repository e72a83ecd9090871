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
use crate::domain::locale::Locale;
use crate::domain::recurrence::monthly_equivalent;
use crate::http::session::SignedIn;
use crate::i18n::{contracts, format};
use crate::state::AppState;
use crate::store::documents::Document;
use crate::store::expenses::Expense;
use crate::store::users::User;
use crate::web::components::{checkbox, form_error, select, textarea, Field};
use crate::web::layout::page;
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
    let schedule = SchedulePrefill::new(editing.map(|e| &e.plan), today, locale);
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
        (contract_fields(locale, editing))
    })
}

/// Partial: the contract's fields of the expense form (`docs/planning.md`,
/// Cancellation deadlines), each sent as `null` when left empty; an edit
/// shows the current term.
fn contract_fields(locale: Locale, editing: Option<&Expense>) -> Markup {
    let w = contracts::words(locale);
    let number = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
    let term_end = editing
        .and_then(|e| e.term_end)
        .map(|d| d.to_string())
        .unwrap_or_default();
    let renewal = number(editing.map(|e| e.renewal_months));
    let months = number(editing.and_then(|e| e.notice_months));
    let days = number(editing.and_then(|e| e.notice_days));
    html! {
        fieldset.contract {
            legend { (w.legend) }
            p.hint { (w.legend_hint) }
            div.row {
                (Field::new(w.term_end, "termEnd", "date").value(&term_end).nullable().render())
                (Field::new(w.renewal_months, "renewalMonths", "text").whole_number().value(&renewal).nullable().hint(w.renewal_hint).render())
            }
            div.row {
                (Field::new(w.notice_months, "noticeMonths", "text").whole_number().value(&months).nullable().render())
                (Field::new(w.notice_days, "noticeDays", "text").whole_number().value(&days).nullable().render())
            }
        }
    }
}

/// Partial: what an item's contract says today ("kündbar bis 31.08.2027"),
/// under its name in the lists; nothing without terms.
fn contract_note(locale: Locale, e: &Expense, today: chrono::NaiveDate) -> Markup {
    let state = contracts::state(locale, e.deadline(today).as_ref(), e.cancelled_to);
    html! {
        @if let Some(state) = state {
            br;
            small.deadline.muted[e.cancelled_to.is_some()] { (state) }
        }
    }
}

/// Partial: below the edited item's form, its contract's state with
/// "Kündigen" (`cancelContract`), or once cancelled the button that takes
/// the cancellation back (`updateExpense {cancelledTo: null}`).
fn contract_panel(locale: Locale, e: &Expense, today: chrono::NaiveDate) -> Markup {
    let w = contracts::words(locale);
    let deadline = e.deadline(today);
    let Some(state) = contracts::state(locale, deadline.as_ref(), e.cancelled_to) else {
        return html! {};
    };
    html! {
        section.panel.contract-panel aria-label=(w.legend) {
            p { strong { (state) } }
            @if e.cancelled_to.is_some() {
                form.inline data-action="updateExpense" data-reload="" {
                    input type="hidden" name="id" value=(e.id);
                    input type="hidden" name="cancelledTo" value="" data-nullable;
                    button type="submit" { (w.take_back) }
                    (form_error())
                }
            } @else if let Some(d) = deadline {
                form.inline data-action="cancelContract" data-reload=""
                    data-confirm=(contracts::cancel_question(locale, &e.name, d.term_end)) {
                    input type="hidden" name="id" value=(e.id);
                    button type="submit" { (w.cancel) }
                    small.hint { " " (w.cancel_hint) }
                    (form_error())
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
                after: editing.map(|e| html! {
                    (contract_panel(locale, e, today))
                    (attach(t, &docs_of(&e.id), "expenseId", &e.id))
                }),
            }))
            (records.render(&list, |e| Row::new(&e.id, html! {
                td { (e.name) @if e.is_subscription { " " span.badge { (t.subscriptions) } } (contract_note(locale, e, today)) }
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
                after: editing.map(|e| contract_panel(locale, e, today)),
            }))
            (records.render(&subs.subscriptions, |s| {
                let e = &s.expense;
                Row::new(&e.id, html! {
                    td { (e.name) @if !s.active { " " span.badge.muted { (t.ended) } } (contract_note(locale, e, today)) }
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
