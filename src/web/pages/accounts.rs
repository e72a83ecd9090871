//! `/accounts`: list, create, edit, delete; and net worth month by month
//! (`?months=12`, `24`, `60` or `all`), as links that work without script.

use super::common::{amount_cell, currency_options, EditQuery, PageResult, Refs};
use super::record_page::{amount_value, Editing, RecordForm, RecordList, Row};
use crate::app::records::{AccountInput, Verb};
use crate::app::reports::{
    self,
    forecasts::{balance_set_on, since_balance_set},
    net_worth::{chart, Chart, Span},
};
use crate::domain::locale::Locale;
use crate::http::names::record;
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::state::AppState;
use crate::store::accounts::TYPES;
use crate::web::charts::{self, WorthMonth};
use crate::web::components::{form_error, select, Field};
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use chrono::Datelike;
use maud::{html, Markup};
use serde::Deserialize;

/// `?edit=<id>` and `?months=`: the spans the net-worth chart offers.
#[derive(Deserialize, Default)]
pub struct AccountsQuery {
    edit: Option<String>,
    months: Option<String>,
}

/// The spans of the net-worth chart, as `?months=` takes them.
const SPANS: [&str; 4] = ["12", "24", "60", "all"];

impl AccountsQuery {
    /// The chosen span; anything unknown is the last twelve months.
    fn span(&self) -> (&'static str, Span) {
        match self.months.as_deref().map(str::trim) {
            Some("all") => ("all", Span::All),
            Some("24") => ("24", Span::Months(24)),
            Some("60") => ("60", Span::Months(60)),
            _ => ("12", Span::Months(12)),
        }
    }
}

/// Partial: net worth month by month from the first month with data on,
/// now and its change in words above it, the span's links, and the line
/// saying that history starts now while no balance has changed yet.
fn net_worth_section(c: &Chart, chosen: &str, locale: Locale) -> Markup {
    let t = locale.texts();
    let cur = c.net_worth.currency.as_str();
    let long = c.net_worth.points.len() > 12;
    let months: Vec<WorthMonth> = c
        .net_worth
        .points
        .iter()
        .map(|p| {
            let (y, m) = (p.month.year(), p.month.month());
            WorthMonth {
                label: if long {
                    format!("{} {:02}", locale.month_short(m), y.rem_euclid(100))
                } else {
                    locale.month_short(m).to_string()
                },
                name: locale.month_year(y, m),
                checking: p.by_type.checking.0,
                savings: p.by_type.savings.0,
                etf: p.by_type.etf.0,
                total: p.total.0,
            }
        })
        .collect();
    let summary = c.trend.map(|tr| format::net_worth_trend(&tr, cur, locale));
    html! {
        section.card #net-worth {
            (charts::net_worth(t.net_worth, summary.as_deref(), &months, cur, locale))
            nav.chart-span aria-label=(t.net_worth_span) {
                @for span in SPANS {
                    a href={ "/accounts?months=" (span) "#net-worth" } aria-current=[(span == chosen).then_some("page")] {
                        @if span == "all" { (t.all) } @else { (t.net_worth_months.replace("{n}", span)) }
                    }
                }
            }
            @if c.only_begun {
                p.notice.history-starts { (t.net_worth_starts_now) }
            }
            p.hint { (t.net_worth_intro.replace("{currency}", cur)) }
        }
    }
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<AccountsQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let edit = EditQuery {
        edit: q.edit.clone(),
    };
    let editing = edit.find(&refs.accounts, |a| a.id.as_str());
    let accounts = refs.accounts.clone();
    let (chosen, span) = q.span();
    let (since, worth, in_use) = reports::read(&state, user, move |c, u, rates, today| {
        Ok((
            since_balance_set(c, u, rates, &accounts, today)?,
            chart(c, u, rates, today, span)?,
            crate::app::records::accounts::in_use(c, &u.id, &accounts)?,
        ))
    })
    .await?;
    let types: Vec<(String, String)> = TYPES
        .iter()
        .map(|k| (k.to_string(), locale.account_type(k).to_string()))
        .collect();
    let balance = amount_value(editing.map(|a| a.balance).map(|m| m.0), locale);
    let list = RecordList::new::<AccountInput>(
        t,
        "/accounts?edit=",
        html! {
            th { (t.name) } th { (t.kind) } th.num { (t.balance) } th { (t.update_balance) }
        },
    )
    .after(html! {
        p.hint { (t.balance_is_yours_hint) }
        p.hint { (t.account_in_use_hint) }
    });
    let form = RecordForm::new::<AccountInput>(t, t.new_account, "/accounts")
        .editing(editing.map(|a| Editing::named(&a.id, &a.name)))
        .collapsed(!refs.accounts.is_empty());
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
                td.num { (amount_cell(&state, a.balance.0, &a.currency, &user.base_currency, locale)) }
                // The balance as the bank shows it today, without opening the edit form.
                td {
                    form.pot data-action=(record::<AccountInput>(Verb::Update)) data-reload="" data-flash=(t.saved) novalidate {
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
            }).undeletable(in_use.contains(&a.id).then_some(t.account_has_entries))))
            @if worth.has_accounts {
                (net_worth_section(&worth, chosen, locale))
            }
            @if let Some(a) = editing {
                @if refs.accounts.len() > 1 {
                    section.panel {
                        h2 { (t.delete_and_move) }
                        form.stack data-action=(record::<AccountInput>(Verb::Delete)) data-confirm=(t.confirm_delete) data-redirect="/accounts" {
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
