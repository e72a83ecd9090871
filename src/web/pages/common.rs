//! What the record pages share: loading the user's accounts and categories
//! for the forms, the amount cell, the `?edit=` lookup, the month a page
//! shows, and turning store errors into pages. Their list and form skeleton
//! is `record_page`.

use crate::app::records::{self, AccountInput, CategoryInput};
use crate::domain::locale::Locale;
use crate::domain::recurrence::{month_or_current, month_start, Frequency};
use crate::error::Error;
use crate::i18n::format;
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::users::UserId;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use chrono::NaiveDate;
use maud::{html, Markup};
use rust_decimal::Decimal;
use serde::Deserialize;
use std::collections::HashMap;

/// The first day of the month a page's `?month=` (`YYYY-MM`) asks for:
/// this month when it is absent or blank, and also when it cannot be read
/// (a page shows the current month rather than failing).
pub fn shown_month(raw: Option<&str>, today: NaiveDate) -> NaiveDate {
    month_or_current("month", raw, today).unwrap_or_else(|_| month_start(today))
}

/// A page handler's failure: logged, shown as the error page.
pub struct PageError(pub Error);

impl From<Error> for PageError {
    fn from(e: Error) -> Self {
        PageError(e)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        self.0.log();
        if self.0.is_busy() {
            return super::errors::busy();
        }
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            Html(super::errors::panic_page()),
        )
            .into_response()
    }
}

pub type PageResult = Result<Response, PageError>;

/// `?edit=<id>`: which record the page shows in its form.
#[derive(Deserialize, Default)]
pub struct EditQuery {
    pub edit: Option<String>,
}

impl EditQuery {
    /// The record among `records` whose `id` `?edit=` names, if any (another
    /// user's id finds nothing, since `records` are the viewer's own).
    pub fn find<'r, T>(&self, records: &'r [T], id: impl Fn(&T) -> &str) -> Option<&'r T> {
        let wanted = self.edit.as_deref()?;
        records.iter().find(|r| id(r) == wanted)
    }
}

/// The user's accounts and categories, for selects and labels.
pub struct Refs {
    pub accounts: Vec<Account>,
    pub categories: Vec<Category>,
}

impl Refs {
    pub async fn load(state: &AppState, user_id: &UserId) -> Result<Refs, Error> {
        Ok(Refs {
            accounts: records::list::<AccountInput>(state, user_id).await?,
            categories: records::list::<CategoryInput>(state, user_id).await?,
        })
    }

    pub fn account_options(&self) -> Vec<(String, String)> {
        self.accounts
            .iter()
            .map(|a| (a.id.clone(), format!("{} ({})", a.name, a.currency)))
            .collect()
    }

    pub fn category_options(&self) -> Vec<(String, String)> {
        self.categories
            .iter()
            .map(|k| {
                (
                    k.id.clone(),
                    format!("{} {}", k.icon, k.name).trim().to_string(),
                )
            })
            .collect()
    }

    pub fn account_name(&self, id: &str) -> String {
        self.accounts
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.name.clone())
            .unwrap_or_default()
    }

    /// The currency of the account `id` ("" when it is not among them).
    pub fn account_currency(&self, id: &str) -> String {
        self.accounts
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.currency.clone())
            .unwrap_or_default()
    }

    /// The account a new entry's form starts with: the first checking
    /// account (where everyday money goes), else the first. The pages'
    /// script then prefers the account last chosen in that form.
    pub fn default_account(&self) -> Option<&Account> {
        self.accounts
            .iter()
            .find(|a| a.kind == "checking")
            .or(self.accounts.first())
    }

    /// The other side of a new transfer from `from`: the first savings
    /// account, else the first other account.
    pub fn transfer_target(&self, from: Option<&str>) -> Option<&Account> {
        let others = || {
            self.accounts
                .iter()
                .filter(move |a| Some(a.id.as_str()) != from)
        };
        others()
            .find(|a| a.kind == "savings")
            .or_else(|| others().next())
    }

    /// The currency a new record's form starts with: the default account's,
    /// else the user's base currency.
    pub fn default_currency<'a>(&'a self, base: &'a str) -> &'a str {
        self.default_account().map_or(base, |a| a.currency.as_str())
    }

    /// The name of the category `id` ("" when it is not among them).
    pub fn category_name(&self, id: &str) -> String {
        self.categories
            .iter()
            .find(|k| k.id == id)
            .map(|k| k.name.clone())
            .unwrap_or_default()
    }

    pub fn categories_by_id(&self) -> HashMap<&str, &Category> {
        self.categories.iter().map(|k| (k.id.as_str(), k)).collect()
    }
}

/// Partial: a category chip (icon, name, colour dot) or "uncategorised".
pub fn category_chip(category: Option<&Category>, locale: Locale) -> Markup {
    html! {
        @match category {
            Some(k) => span.chip {
                span.dot data-color=(k.color) aria-hidden="true" {
                    svg width="10" height="10" viewBox="0 0 10 10" { circle cx="5" cy="5" r="5" fill=(k.color) {} }
                }
                // The icon keeps to the name's first word when the name wraps.
                (k.icon) "\u{a0}" (k.name)
            },
            None => span.chip.muted { (locale.texts().uncategorised) },
        }
    }
}

/// Partial: an amount in its own currency and, when that differs, the
/// base-currency equivalent below it.
pub fn amount_cell(
    state: &AppState,
    amount: Decimal,
    currency: &str,
    base: &str,
    locale: Locale,
) -> Markup {
    html! {
        span.amount { (format::money(amount, currency, locale)) }
        @if currency != base {
            @if let Some(b) = state.rates.current().convert(amount, currency, base) {
                br; small.muted.amount { "≈ " (format::money(b, base, locale)) }
            }
        }
    }
}

/// Options of a frequency select.
pub fn frequency_options(locale: Locale, with_once: bool) -> Vec<(String, String)> {
    let mut all = vec![Frequency::Once];
    all.extend(Frequency::RECURRING);
    all.into_iter()
        .filter(|f| with_once || *f != Frequency::Once)
        .map(|f| (f.code().to_string(), locale.frequency(f).to_string()))
        .collect()
}

/// Options of a currency select.
pub fn currency_options() -> Vec<(String, String)> {
    crate::domain::currency::KNOWN
        .iter()
        .map(|c| (c.to_string(), c.to_string()))
        .collect()
}
