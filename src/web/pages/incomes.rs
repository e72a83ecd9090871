//! `/incomes`: list, create, edit, delete.

use super::common::{amount_cell, EditQuery, PageResult, Refs};
use super::record_page::{
    amount_and_currency, amount_change, amount_today, next_due_cell, Editing, RecordForm,
    RecordList, Row, SchedulePrefill,
};
use crate::app::records::{self, IncomeInput};
use crate::domain::recurrence::Frequency;
use crate::http::session::SignedIn;
use crate::state::AppState;
use crate::web::components::{select, textarea, Field};
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
    let list = records::list::<IncomeInput>(&state, &user.id).await?;
    let editing = q.find(&list, |i| i.id.as_str());
    let today = state.clock.today();
    let schedule = SchedulePrefill::new(editing.map(|i| &i.plan), today, viewer.locale);
    let default_currency = refs.default_currency(&user.base_currency);
    let records = RecordList::new::<IncomeInput>(
        t,
        "/incomes?edit=",
        html! {
            th { (t.name) } th { (t.frequency) } th { (t.next_due) } th { (t.account) }
            th.num { (t.amount) }
        },
    );
    let form = RecordForm::new::<IncomeInput>(t, t.new_income, "/incomes")
        .editing(editing.map(|i| Editing::named(&i.id, &i.name)))
        .needs_account(refs.accounts.is_empty())
        .collapsed(!list.is_empty());
    Ok(page(
        &viewer,
        "/incomes",
        t.nav_incomes,
        html! {
            h1 { (t.nav_incomes) }
            (form.render(html! {
                (Field::new(t.name, "name", "text").value(editing.map(|i| i.name.as_str()).unwrap_or("")).required().render())
                (amount_and_currency(t, &schedule.amount, editing.map_or(default_currency, |i| i.plan.currency.as_str())))
                @if let Some(i) = editing.filter(|i| i.plan.frequency != Frequency::Once) {
                    (amount_change(locale, &i.prices(), i.plan.start_date, &i.plan.currency))
                }
                (schedule.fields(locale, true))
                (select(t.account, "accountId", &refs.account_options(), editing.map(|i| i.account_id.as_str()).or(refs.default_account().map(|a| a.id.as_str())), None))
                (textarea(t.notes, "notes", editing.map(|i| i.notes.as_str()).unwrap_or("")))
            }))
            (records.render(&list, |i| Row::new(&i.id, html! {
                td { (i.name) }
                td { (locale.frequency(i.plan.frequency)) }
                td { (next_due_cell(locale, &i.plan.schedule(), today)) }
                td { (refs.account_name(&i.account_id)) }
                td.num { (amount_today(locale, &i.prices(), today, |a| amount_cell(&state, a, &i.plan.currency, &user.base_currency, locale), &i.plan.currency)) }
            })))
        },
    )
    .into_response())
}
