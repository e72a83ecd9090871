//! `/incomes`: list, create, edit, delete.

use super::common::{
    amount_cell, currency_options, frequency_options, EditQuery, PageResult, Refs,
};
use crate::domain::recurrence::Frequency;
use crate::i18n::format;
use crate::state::AppState;
use crate::store::incomes::Income;
use crate::store::table;
use crate::web::components::{delete_button, form_error, select, textarea, Field};
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let uid = user.id.clone();
    let list = state.db.run(move |c| table::all::<Income>(c, &uid)).await?;
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| list.iter().find(|i| i.id == id));
    let today = state.clock.today();
    let amount = editing
        .map(|i| format!("{:.2}", i.amount))
        .unwrap_or_default();
    let start = editing
        .map(|i| i.start_date.to_string())
        .unwrap_or_default();
    let end = editing
        .filter(|i| i.frequency != Frequency::Once)
        .and_then(|i| i.end_date)
        .map(|d| d.to_string())
        .unwrap_or_default();
    let default_currency = refs
        .accounts
        .first()
        .map(|a| a.currency.clone())
        .unwrap_or(user.base_currency.clone());
    Ok(page(
        &viewer,
        "/incomes",
        t.nav_incomes,
        html! {
            h1 { (t.nav_incomes) }
            section.panel {
                @if list.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.name) } th { (t.frequency) } th { (t.next_due) } th { (t.account) }
                            th.num { (t.amount) } th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for i in &list {
                                tr {
                                    td { (i.name) }
                                    td { (locale.frequency(i.frequency)) }
                                    td { @match i.schedule().next_due(today) {
                                        Some(d) => (format::date(d, locale)),
                                        None => span.muted { (format::date(i.start_date, locale)) },
                                    } }
                                    td { (refs.account_name(&i.account_id)) }
                                    td.num { (amount_cell(&state, i.amount, &i.currency, &user.base_currency, locale)) }
                                    td.row-actions {
                                        a href={ "/incomes?edit=" (i.id) } { (t.edit) }
                                        (delete_button("deleteIncome", &i.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            section.panel {
                h2 { @if let Some(i) = editing { (t.edit) ": " (i.name) } @else { (t.new_income) } }
                @if refs.accounts.is_empty() {
                    p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
                } @else {
                    form.stack data-action=(if editing.is_some() { "updateIncome" } else { "createIncome" })
                        data-redirect="/incomes" novalidate {
                        @if let Some(i) = editing { input type="hidden" name="id" value=(i.id); }
                        (Field::new(t.name, "name", "text").value(editing.map(|i| i.name.as_str()).unwrap_or("")).required().render())
                        div.row {
                            (Field::new(t.amount, "amount", "text").value(&amount).decimal().required().render())
                            (select(t.currency, "currency", &currency_options(),
                                Some(editing.map(|i| i.currency.as_str()).unwrap_or(default_currency.as_str())), None))
                        }
                        (select(t.frequency, "frequency", &frequency_options(locale, true),
                            Some(editing.map(|i| i.frequency.code()).unwrap_or("monthly")), None))
                        div.row {
                            (Field::new(t.start_date, "startDate", "date").value(&start).required().render())
                            (Field::new(t.end_date, "endDate", "date").value(&end).nullable().render())
                        }
                        (select(t.account, "accountId", &refs.account_options(), editing.map(|i| i.account_id.as_str()), None))
                        (textarea(t.notes, "notes", editing.map(|i| i.notes.as_str()).unwrap_or("")))
                        (form_error())
                        div.buttons {
                            button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                            @if editing.is_some() { a.button href="/incomes" { (t.cancel) } }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
