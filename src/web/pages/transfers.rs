//! `/transfers`: list, create, edit, delete.

use super::common::{amount_cell, EditQuery, PageResult, Refs};
use super::record_page::{
    amount_field, next_due_cell, Editing, RecordForm, RecordList, Row, SchedulePrefill,
};
use crate::app::records::{self, TransferInput};
use crate::http::session::SignedIn;
use crate::state::AppState;
use crate::web::components::{select, textarea};
use crate::web::layout::page;
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
    let list = records::list::<TransferInput>(&state, &user.id).await?;
    let editing = q.find(&list, |x| x.id.as_str());
    let today = state.clock.today();
    // A new transfer goes from the everyday account to savings.
    let from = editing
        .map(|x| x.from_account_id.as_str())
        .or(refs.default_account().map(|a| a.id.as_str()))
        .unwrap_or("");
    let schedule = SchedulePrefill::new(editing.map(|x| &x.plan), today, viewer.locale);
    let records = RecordList::new::<TransferInput>(
        t,
        "/transfers?edit=",
        html! {
            th { (t.from_account) } th { (t.to_account) } th { (t.frequency) } th { (t.next_due) }
            th.num { (t.amount) }
        },
    );
    let form = RecordForm::new::<TransferInput>(t, t.new_transfer, "/transfers")
        .editing(editing.map(|x| Editing::unnamed(&x.id)))
        .needs_account(refs.accounts.len() < 2)
        .collapsed(!list.is_empty());
    Ok(page(
        &viewer,
        "/transfers",
        t.nav_transfers,
        html! {
            h1 { (t.nav_transfers) }
            (form.render(html! {
                (select(t.from_account, "fromAccountId", &refs.account_options(), Some(from).filter(|f| !f.is_empty()), None))
                (select(t.to_account, "toAccountId", &refs.account_options(),
                    editing.map(|x| x.to_account_id.as_str())
                        .or(refs.transfer_target(Some(from)).map(|a| a.id.as_str())), None))
                (amount_field(t, &schedule.amount))
                (schedule.fields(locale, true))
                (textarea(t.note, "note", editing.map(|x| x.note.as_str()).unwrap_or("")))
            }))
            (records.render(&list, |x| Row::new(&x.id, html! {
                td { (refs.account_name(&x.from_account_id)) }
                td { (refs.account_name(&x.to_account_id)) @if !x.note.is_empty() { br; small.muted { (x.note) } } }
                td { (locale.frequency(x.plan.frequency)) }
                td { (next_due_cell(locale, &x.plan.schedule(), today)) }
                td.num { (amount_cell(&state, *x.plan.amount, &x.plan.currency, &user.base_currency, locale)) }
            })))
        },
    )
    .into_response())
}
