//! One-time expenses: their input and validation. Saving one with a
//! category teaches cashkeeper its merchant's category.

use super::{account_and_currency, check_category, Record, Written};
use crate::app::input::{self, Patch, NAME_MAX, NOTES_MAX};
use crate::domain::merchant;
use crate::domain::money::Money;
use crate::domain::recurrence::{month_end, month_or_current, month_start};
use crate::error::Result;
use crate::state::AppState;
use crate::store::daily_expenses::{DailyEntry, DailyExpense, Filter};
use crate::store::documents::{self, Attached, Document};
use crate::store::merchants;
use crate::store::table;
use crate::store::users::UserId;
use crate::store::Cap;
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct DailyInput {
    name: Patch<String>,
    amount: Patch<Value>,
    currency: Patch<String>,
    date: Patch<String>,
    account_id: Patch<String>,
    category_id: Patch<String>,
    merchant: Patch<String>,
    notes: Patch<String>,
}

impl Record for DailyInput {
    type Stored = DailyExpense;
    const NOUN: [&'static str; 2] = ["DailyExpense", "DailyExpenses"];
    const CAP: Cap = Cap::DailyExpenses;
    const SPENDS: bool = true;

    fn validate(
        self,
        c: &Connection,
        user: &UserId,
        stored: Option<&DailyExpense>,
    ) -> Result<DailyEntry> {
        let mut checks = input::Checks::default();
        let merchant = checks.take(input::optional_text(
            "merchant",
            self.merchant.or(stored.map(|e| e.entry.merchant.clone())),
            NAME_MAX,
        ))?;
        // A merchant alone names the entry ("Bäckerei Schmidt").
        let given_merchant = merchant.clone().unwrap_or_default();
        let name = self
            .name
            .or(stored.map(|e| e.entry.name.clone()))
            .filter(|n| !n.trim().is_empty())
            .or_else(|| (!given_merchant.is_empty()).then(|| given_merchant.clone()));
        let name = checks.take(input::text("name", name, NAME_MAX))?;
        let amount = checks.take(input::positive_amount(
            self.amount,
            stored.map(|e| *e.entry.amount),
        ))?;
        let date = checks.take(input::date(
            "date",
            self.date.or(stored.map(|e| e.entry.date.to_string())),
        ))?;
        let account = checks.take(account_and_currency(
            c,
            user,
            self.account_id,
            self.currency,
            stored.map(|e| (e.entry.account_id.as_str(), e.entry.currency.as_str())),
        ))?;
        let category_id = input::optional_id(
            self.category_id
                .or(stored.and_then(|e| e.entry.category_id.clone())),
        );
        checks.take(check_category(c, user, category_id.as_deref()))?;
        let notes = checks.take(input::optional_text(
            "notes",
            self.notes.or(stored.map(|e| e.entry.notes.clone())),
            NOTES_MAX,
        ))?;
        let (merchant, name, amount, date, account, notes) =
            checks.finish(|| Some((merchant?, name?, amount?, date?, account?, notes?)))?;
        let (account_id, currency) = account;
        Ok(DailyEntry {
            name,
            amount: Money(amount),
            currency,
            date,
            account_id,
            category_id,
            merchant,
            notes,
        })
    }

    /// Remembers the merchant's category when the entry has both.
    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, DailyExpense>) -> Result<()> {
        let e = w.new;
        let source = if e.merchant.is_empty() {
            &e.name
        } else {
            &e.merchant
        };
        let key = merchant::normalize(source);
        if let (false, Some(category)) = (key.is_empty(), &e.category_id) {
            merchants::learn(c, user, &key, category, w.now)?;
        }
        Ok(())
    }
}

/// A page of the user's one-time expenses, newest first: after the user's
/// entry `after` when given (an unknown or another user's id is refused,
/// naming `after`), after `offset` more. A read within the read budget
/// ([`crate::store::Db::read`]).
pub async fn page(
    state: &AppState,
    user: &UserId,
    mut filter: Filter,
    after: Option<String>,
    offset: u32,
) -> Result<Vec<DailyExpense>> {
    let user = user.clone();
    state
        .db
        .read(move |c| {
            if let Some(id) = after {
                filter.after = Some(crate::store::daily_expenses::cursor(
                    c, &user, "after", &id,
                )?);
            }
            crate::store::daily_expenses::page(c, &user, &filter, offset)
        })
        .await
}

/// How many one-time expenses a page of a month shows.
pub const MONTH_PAGE: u32 = 50;

/// Which of a month's one-time expenses its page and its spreadsheet
/// file show: the month (`?month=YYYY-MM`) and the category
/// (`?category=ID`, `none` for those without one), read once for both
/// by [`MonthFilter::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonthFilter {
    /// The month's first day.
    pub first: NaiveDate,
    /// The month's last day.
    pub last: NaiveDate,
    pub category: CategoryFilter,
}

/// The category part of a [`MonthFilter`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CategoryFilter {
    /// Every category, and none.
    All,
    /// Only the entries without a category (`none`).
    Uncategorised,
    /// Only the entries of the category with this id.
    Only(String),
}

impl MonthFilter {
    /// Reads `month` (`YYYY-MM`; the month of `today` when absent or
    /// blank; anything else refused naming `month`, [`Reason::NotAMonth`])
    /// and `category` ([`CategoryFilter::parse`]).
    ///
    /// [`Reason::NotAMonth`]: crate::error::Reason::NotAMonth
    pub fn parse(
        month: Option<&str>,
        category: Option<&str>,
        today: NaiveDate,
    ) -> Result<MonthFilter> {
        Ok(Self::of(month_or_current("month", month, today)?, category))
    }

    /// As [`MonthFilter::parse`], a month that is none read as the month
    /// of `today`: a page shows a month whatever its address says.
    pub fn parse_or_this_month(
        month: Option<&str>,
        category: Option<&str>,
        today: NaiveDate,
    ) -> MonthFilter {
        Self::parse(month, category, today)
            .unwrap_or_else(|_| Self::of(month_start(today), category))
    }

    /// The month that begins on `first`, and `category`.
    fn of(first: NaiveDate, category: Option<&str>) -> MonthFilter {
        MonthFilter {
            first,
            last: month_end(first),
            category: CategoryFilter::parse(category),
        }
    }

    /// The store's filter of the month's entries.
    pub fn filter(&self) -> Filter {
        Filter {
            from: Some(self.first),
            to: Some(self.last),
            ..self.category.filter()
        }
    }
}

impl CategoryFilter {
    /// Reads a `category`: absent or blank is every category, `none` the
    /// entries without one, anything else a category's id (an id that is
    /// not the user's selects nothing).
    pub fn parse(raw: Option<&str>) -> CategoryFilter {
        match raw.map(str::trim) {
            None | Some("") => CategoryFilter::All,
            Some("none") => CategoryFilter::Uncategorised,
            Some(id) => CategoryFilter::Only(id.to_string()),
        }
    }

    /// What [`CategoryFilter::parse`] reads it back from: `none` or the
    /// id; `None` for every category.
    pub fn as_query(&self) -> Option<&str> {
        match self {
            CategoryFilter::All => None,
            CategoryFilter::Uncategorised => Some("none"),
            CategoryFilter::Only(id) => Some(id),
        }
    }

    /// The store's filter of it, of every date.
    pub fn filter(&self) -> Filter {
        Filter {
            category: match self {
                CategoryFilter::All => None,
                CategoryFilter::Uncategorised => Some(String::new()),
                CategoryFilter::Only(id) => Some(id.clone()),
            },
            ..Filter::default()
        }
    }
}

/// One page of a month of one-time expenses as their page shows it.
pub struct Month {
    /// The page's entries of those the filter selects, newest first.
    pub entries: Vec<DailyExpense>,
    /// The page shown, from 1 (a page past the last is the last).
    pub page: u32,
    /// How many entries the filter selects in the whole month.
    pub count: u32,
    /// What they add up to per currency, all pages together.
    pub sums: Vec<(String, Decimal)>,
    /// The entry being edited, when `?edit=` names one of the user's.
    pub editing: Option<DailyExpense>,
    /// The documents attached to entries of the month.
    pub documents: Vec<Document>,
    /// How many entries the filter selects on each day of the month that
    /// has any, newest day first.
    pub days: Vec<(NaiveDate, u32)>,
}

impl Month {
    /// How many pages the month's entries fill (at least one).
    pub fn pages(&self) -> u32 {
        self.count.div_ceil(MONTH_PAGE).max(1)
    }

    /// What the whole month's entries (every page's) come to in `base`.
    pub fn total(&self, rates: &crate::domain::rates::Rates, base: &str) -> Decimal {
        self.sums
            .iter()
            .map(|(currency, sum)| rates.to_base(*sum, currency, base))
            .sum()
    }

    /// The month's days with entries, each with the page (from 1) its
    /// first entry is on, newest day first.
    pub fn day_pages(&self) -> Vec<(NaiveDate, u32)> {
        day_pages(&self.days)
    }
}

/// For days and their entry counts in page order (newest first), the page
/// of [`MONTH_PAGE`] entries each day starts on (from 1).
fn day_pages(days: &[(NaiveDate, u32)]) -> Vec<(NaiveDate, u32)> {
    let mut before = 0u32;
    days.iter()
        .map(|&(day, n)| {
            let page = before / MONTH_PAGE + 1;
            before += n;
            (day, page)
        })
        .collect()
}

/// Where page `page` (from 1) of [`MONTH_PAGE`] entries begins, for days
/// and their entry counts in page order (newest first): the day of its
/// first entry and how many of that day's entries the pages before show.
/// `None` past the last entry.
fn page_start(days: &[(NaiveDate, u32)], page: u32) -> Option<(NaiveDate, u32)> {
    let mut skip = page.saturating_sub(1).saturating_mul(MONTH_PAGE);
    for &(day, n) in days {
        if skip < n {
            return Some((day, skip));
        }
        skip -= n;
    }
    None
}

/// The page `page` (from 1) of the one-time expenses of a month that
/// `shown` selects, with the count and sums of all of them, the one named
/// `editing`, and the month's documents. The page is found by key: its first entry's day
/// from the month's counts per day (which its pager shows anyway), so a
/// deep page reads no more entries than the first.
pub async fn month(
    state: &AppState,
    user: &UserId,
    shown: &MonthFilter,
    page: u32,
    editing: Option<String>,
) -> Result<Month> {
    let user = user.clone();
    let (first, last) = (shown.first, shown.last);
    let filter = Filter {
        limit: Some(MONTH_PAGE),
        ..shown.filter()
    };
    let category = filter.category.clone();
    state
        .db
        .read(move |c| {
            let (count, sums) =
                crate::store::daily_expenses::month_totals(c, &user, first, category.as_deref())?;
            let page = page.clamp(1, count.div_ceil(MONTH_PAGE).max(1));
            let days = crate::store::daily_expenses::day_counts(
                c,
                &user,
                (first, last),
                category.as_deref(),
            )?;
            // The page begins on its first entry's day, past the entries
            // of that day on the pages before: never past the days before.
            let entries = match page_start(&days, page) {
                Some((day, skip)) => {
                    let filter = Filter {
                        to: Some(day),
                        ..filter
                    };
                    crate::store::daily_expenses::page(c, &user, &filter, skip)?
                }
                None => Vec::new(),
            };
            Ok(Month {
                entries,
                page,
                count,
                sums,
                editing: match editing {
                    Some(id) => table::find::<DailyExpense>(c, &user, &id)?,
                    None => None,
                },
                documents: documents::attached(c, &user, Attached::DailyExpenses(first, last))?,
                days,
            })
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    #[test]
    fn a_month_and_a_category_are_read_once_for_the_page_and_its_file() {
        let today = day(17);
        let read = |month, category| MonthFilter::parse(month, category, today);
        let october = read(Some(" 2026-10 "), None).unwrap();
        assert_eq!(
            (october.first, october.last, &october.category),
            (
                NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
                NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
                &CategoryFilter::All
            )
        );
        // No month, or a blank one, is this month.
        for month in [None, Some(""), Some("  ")] {
            let this = read(month, None).unwrap();
            assert_eq!((this.first, this.last), (day(1), day(30)), "{month:?}");
        }
        // A month that is none is refused by name; a page shows this month.
        for month in ["2026-13", "march", "2026-1-1"] {
            let e = read(Some(month), None).unwrap_err();
            assert_eq!(e.to_string(), "month: must be a month YYYY-MM", "{month}");
            let shown = MonthFilter::parse_or_this_month(Some(month), Some("none"), today);
            assert_eq!(
                (shown.first, shown.category),
                (day(1), CategoryFilter::Uncategorised)
            );
        }
        // `none` is the entries without a category, blank is every one.
        for (raw, category, query) in [
            (None, CategoryFilter::All, None),
            (Some(""), CategoryFilter::All, None),
            (Some(" "), CategoryFilter::All, None),
            (Some("none"), CategoryFilter::Uncategorised, Some("none")),
            (Some("k1"), CategoryFilter::Only("k1".into()), Some("k1")),
        ] {
            let f = read(None, raw).unwrap();
            assert_eq!(f.category, category, "{raw:?}");
            assert_eq!(f.category.as_query(), query, "{raw:?}");
        }
        // The store's filter: the month's dates and the category.
        let f = read(Some("2026-02"), Some("none")).unwrap().filter();
        assert_eq!(
            (f.from, f.to, f.category.as_deref()),
            (
                NaiveDate::from_ymd_opt(2026, 2, 1),
                NaiveDate::from_ymd_opt(2026, 2, 28),
                Some("")
            )
        );
        let f = read(Some("2026-02"), Some("k1")).unwrap().filter();
        assert_eq!(f.category.as_deref(), Some("k1"));
    }

    #[test]
    fn each_day_links_to_the_page_its_first_entry_is_on() {
        // 30 on the 28th, 20 on the 27th fill page 1; the 26th's 5 start
        // page 2; the 25th's 60 run from page 2 into 3, so the 24th starts
        // page 3 too; page 4 starts within the 23rd's entries.
        let days = [
            (day(28), 30),
            (day(27), 20),
            (day(26), 5),
            (day(25), 60),
            (day(24), 10),
            (day(23), 30),
            (day(1), 1),
        ];
        assert_eq!(
            day_pages(&days),
            vec![
                (day(28), 1),
                (day(27), 1),
                (day(26), 2),
                (day(25), 2),
                (day(24), 3),
                (day(23), 3),
                (day(1), 4),
            ]
        );
        assert!(day_pages(&[]).is_empty());
        // Where each page begins: its first entry's day, past the entries
        // of that day on the pages before.
        assert_eq!(page_start(&days, 1), Some((day(28), 0)));
        assert_eq!(page_start(&days, 2), Some((day(26), 0)));
        assert_eq!(page_start(&days, 3), Some((day(25), 45)));
        assert_eq!(page_start(&days, 4), Some((day(23), 25)));
        assert_eq!(page_start(&days, 5), None);
        assert_eq!(page_start(&[], 1), None);
    }
}
