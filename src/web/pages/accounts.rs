//! `/accounts`: list, create, edit, delete.

use super::common::{amount_cell, currency_options, EditQuery, PageResult, Refs};
use super::record_page::{amount_value, Editing, RecordForm, RecordList, Row};
use crate::app::reports::{
    self,
    forecasts::{balance_set_on, since_balance_set},
};
use crate::i18n::format;
use crate::state::AppState;
use crate::store::accounts::TYPES;
use crate::web::components::{form_error, select, Field};
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
    let editing = q.find(&refs.accounts, |a| a.id.as_str());
    let accounts = refs.accounts.clone();
    let since = reports::read(&state, user, move |c, u, rates, today| {
        since_balance_set(c, u, rates, &accounts, today)
    })
    .await?;
    let types: Vec<(String, String)> = TYPES
        .iter()
        .map(|k| (k.to_string(), locale.account_type(k).to_string()))
        .collect();
    let balance = amount_value(editing.map(|a| a.balance), locale);
    let list = RecordList::new(
        t,
        "/accounts?edit=",
        "deleteAccount",
        html! {
            th { (t.name) } th { (t.kind) } th.num { (t.balance) } th { (t.update_balance) }
        },
    )
    .after(html! {
        p.hint { (t.balance_is_yours_hint) }
        p.hint { (t.account_in_use_hint) }
    });
    let form = RecordForm::new(
        t,
        t.new_account,
        "createAccount",
        "updateAccount",
        "/accounts",
    )
    .editing(editing.map(|a| Editing::named(&a.id, &a.name)));
    Ok(page(
        &viewer,
        "/accounts",
        t.nav_accounts,
        html! {
            h1 { (t.nav_accounts) }
            (form.render(html! {
                (Field::new(t.name, "name", "text").value(editing.map(|a| a.name.as_str()).unwrap_or("")).required().render())
                (select(t.kind, "type", &types, Some(editing.map(|a| a.kind.as_str()).unwrap_or("checking")), None))
                (select(t.currency, "currency", &currency_options(),
                    Some(editing.map(|a| a.currency.as_str()).unwrap_or(user.base_currency.as_str())), None))
                (Field::new(t.balance, "balance", "text").value(&balance).signed_amount().render())
            }))
            (list.render(&refs.accounts, |a| Row::new(&a.id, html! {
                td { (a.name) }
                td { (locale.account_type(&a.kind)) }
                td.num { (amount_cell(&state, a.balance, &a.currency, &user.base_currency, locale)) }
                // The balance as the bank shows it today, without opening the edit form.
                td {
                    form.pot data-action="updateAccount" data-reload="" data-flash=(t.saved) novalidate {
                        input type="hidden" name="id" value=(a.id);
                        label.sr-only for={ "bal-" (a.id) } { (t.update_balance) ": " (a.name) }
                        input id={ "bal-" (a.id) } type="text" name="balance" data-type="amount"
                            value=(crate::i18n::amount::input_value(a.balance, locale))
                            aria-describedby={ "bal-" (a.id) "-error" };
                        button type="submit" { (t.update) }
                        span.field-error id={ "bal-" (a.id) "-error" } data-error-for="balance" aria-live="polite" {}
                        (form_error())
                    }
                    @if let Some(day) = balance_set_on(a) {
                        small.hint.balance-since {
                            @match since.get(&a.id).filter(|(n, _)| *n > 0) {
                                Some((n, amount)) => (t.balance_since
                                    .replace("{date}", &format::date(day, locale))
                                    .replace("{n}", &n.to_string())
                                    .replace("{amount}", &format::money(*amount, &user.base_currency, locale))),
                                None => (t.balance_set_on.replace("{date}", &format::date(day, locale))),
                            }
                        }
                    }
                }
            })))
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
