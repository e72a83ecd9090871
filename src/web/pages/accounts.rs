//! `/accounts`: list, create, edit, delete.

use super::common::{amount_cell, currency_options, EditQuery, PageResult, Refs};
use crate::state::AppState;
use crate::store::accounts::TYPES;
use crate::web::components::{delete_button, form_error, select, Field};
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
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| refs.accounts.iter().find(|a| a.id == id));
    let types: Vec<(String, String)> = TYPES
        .iter()
        .map(|k| (k.to_string(), locale.account_type(k).to_string()))
        .collect();
    let balance = editing
        .map(|a| format!("{:.2}", a.balance))
        .unwrap_or_default();
    Ok(page(
        &viewer,
        "/accounts",
        t.nav_accounts,
        html! {
            h1 { (t.nav_accounts) }
            section.panel {
                @if refs.accounts.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr { th { (t.name) } th { (t.kind) } th.num { (t.balance) } th { span.sr-only { (t.actions) } } } }
                        tbody {
                            @for a in &refs.accounts {
                                tr {
                                    td { (a.name) }
                                    td { (locale.account_type(&a.kind)) }
                                    td.num { (amount_cell(&state, a.balance, &a.currency, &user.base_currency, locale)) }
                                    td.row-actions {
                                        a href={ "/accounts?edit=" (a.id) } { (t.edit) }
                                        (delete_button("deleteAccount", &a.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                    p.hint { (t.account_in_use_hint) }
                }
            }
            section.panel {
                h2 { @if let Some(a) = editing { (t.edit) ": " (a.name) } @else { (t.new_account) } }
                form.stack data-action=(if editing.is_some() { "updateAccount" } else { "createAccount" })
                    data-redirect="/accounts" novalidate {
                    @if let Some(a) = editing { input type="hidden" name="id" value=(a.id); }
                    (Field::new(t.name, "name", "text").value(editing.map(|a| a.name.as_str()).unwrap_or("")).required().render())
                    (select(t.kind, "type", &types, Some(editing.map(|a| a.kind.as_str()).unwrap_or("checking")), None))
                    (select(t.currency, "currency", &currency_options(),
                        Some(editing.map(|a| a.currency.as_str()).unwrap_or(user.base_currency.as_str())), None))
                    (Field::new(t.balance, "balance", "text").value(&balance).render())
                    (form_error())
                    div.buttons {
                        button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                        @if editing.is_some() { a.button href="/accounts" { (t.cancel) } }
                    }
                }
            }
            @if let Some(a) = editing {
                @if refs.accounts.len() > 1 {
                    section.panel {
                        h2 { (t.delete_and_move) }
                        form.stack data-action="deleteAccount" data-confirm=(t.confirm_delete) data-redirect="/accounts" {
                            input type="hidden" name="id" value=(a.id);
                            (select(t.move_entries_to, "moveTo",
                                &refs.account_options().into_iter().filter(|(id, _)| *id != a.id).collect::<Vec<_>>(), None, None))
                            (form_error())
                            button.danger type="submit" { (t.delete_and_move) }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
