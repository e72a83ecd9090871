//! `/transfers`: list, create, edit, delete.

use super::common::{amount_cell, frequency_options, EditQuery, PageResult, Refs};
use crate::domain::recurrence::Frequency;
use crate::i18n::format;
use crate::state::AppState;
use crate::store::table;
use crate::store::transfers::Transfer;
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
    let list = state
        .db
        .run(move |c| table::all::<Transfer>(c, &uid))
        .await?;
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| list.iter().find(|x| x.id == id));
    let today = state.clock.today();
    let amount = editing
        .map(|x| format!("{:.2}", x.amount))
        .unwrap_or_default();
    let start = editing
        .map(|x| x.start_date.to_string())
        .unwrap_or_default();
    let end = editing
        .filter(|x| x.frequency != Frequency::Once)
        .and_then(|x| x.end_date)
        .map(|d| d.to_string())
        .unwrap_or_default();
    Ok(page(
        &viewer,
        "/transfers",
        t.nav_transfers,
        html! {
            h1 { (t.nav_transfers) }
            section.panel {
                @if list.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr {
                            th { (t.from_account) } th { (t.to_account) } th { (t.frequency) } th { (t.next_due) }
                            th.num { (t.amount) } th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for x in &list {
                                tr {
                                    td { (refs.account_name(&x.from_account_id)) }
                                    td { (refs.account_name(&x.to_account_id)) @if !x.note.is_empty() { br; small.muted { (x.note) } } }
                                    td { (locale.frequency(x.frequency)) }
                                    td { @match x.schedule().next_due(today) {
                                        Some(d) => (format::date(d, locale)),
                                        None => span.muted { (format::date(x.start_date, locale)) },
                                    } }
                                    td.num { (amount_cell(&state, x.amount, &x.currency, &user.base_currency, locale)) }
                                    td.row-actions {
                                        a href={ "/transfers?edit=" (x.id) } { (t.edit) }
                                        (delete_button("deleteTransfer", &x.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            section.panel {
                h2 { @if editing.is_some() { (t.edit) } @else { (t.new_transfer) } }
                @if refs.accounts.len() < 2 {
                    p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
                } @else {
                    form.stack data-action=(if editing.is_some() { "updateTransfer" } else { "createTransfer" })
                        data-redirect="/transfers" novalidate {
                        @if let Some(x) = editing { input type="hidden" name="id" value=(x.id); }
                        (select(t.from_account, "fromAccountId", &refs.account_options(), editing.map(|x| x.from_account_id.as_str()), None))
                        (select(t.to_account, "toAccountId", &refs.account_options(),
                            editing.map(|x| x.to_account_id.as_str()).or(refs.accounts.get(1).map(|a| a.id.as_str())), None))
                        (Field::new(t.amount, "amount", "text").value(&amount).decimal().required().render())
                        (select(t.frequency, "frequency", &frequency_options(locale, true),
                            Some(editing.map(|x| x.frequency.code()).unwrap_or("monthly")), None))
                        div.row {
                            (Field::new(t.start_date, "startDate", "date").value(&start).required().render())
                            (Field::new(t.end_date, "endDate", "date").value(&end).nullable().render())
                        }
                        (textarea(t.note, "note", editing.map(|x| x.note.as_str()).unwrap_or("")))
                        (form_error())
                        div.buttons {
                            button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                            @if editing.is_some() { a.button href="/transfers" { (t.cancel) } }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
