//! The skeleton of a record page (accounts, categories, expenses, …): the
//! panel that lists the records with their edit and delete, the panel with
//! the create/edit form, and the values that form starts from. A page adds
//! only its own columns and fields.

use super::common::{currency_options, frequency_options};
use crate::app::records::{Record, Verb};
use crate::domain::locale::Locale;
use crate::domain::prices::Prices;
use crate::domain::recurrence::{Frequency, Schedule};
use crate::http::names::record;
use crate::i18n::format;
use crate::i18n::Texts;
use crate::store::recurring::Planned;
use crate::web::components::{delete_button, form_error, select, Field};
use chrono::NaiveDate;
use maud::{html, Markup};
use rust_decimal::Decimal;

/// One row of a [`RecordList`]: the record's id and its cells, without the
/// edit/delete cell the list adds.
pub struct Row<'a> {
    id: &'a str,
    cells: Markup,
    inactive: bool,
    confirm: Option<&'a str>,
    undeletable: Option<&'a str>,
}

impl<'a> Row<'a> {
    pub fn new(id: &'a str, cells: Markup) -> Self {
        Row {
            id,
            cells,
            inactive: false,
            confirm: None,
            undeletable: None,
        }
    }

    /// When `why` is given the record cannot be deleted as it is (e.g. an
    /// account that entries use): the row says why instead of offering a
    /// delete that would be refused.
    pub fn undeletable(mut self, why: Option<&'a str>) -> Self {
        self.undeletable = why;
        self
    }

    /// What the delete button asks instead of the usual question (e.g.
    /// that a category's budget goes with it).
    pub fn confirm(mut self, question: Option<&'a str>) -> Self {
        self.confirm = question;
        self
    }

    /// Greys the row out (a record that no longer runs): `tr.inactive`.
    pub fn inactive(mut self, inactive: bool) -> Self {
        self.inactive = inactive;
        self
    }
}

/// Partial: the panel listing a page's records — the empty-list notice, or a
/// `table.records` whose last column holds each row's edit link and delete
/// button.
pub struct RecordList<'a> {
    t: &'static Texts,
    head: Markup,
    edit_href: &'a str,
    delete_action: String,
    foot: Option<Markup>,
    after: Option<Markup>,
}

impl<'a> RecordList<'a> {
    /// The list of records of kind `R`: `head` holds the header cells but
    /// the actions one; a row's edit link is `edit_href` followed by its id
    /// (e.g. `/accounts?edit=`); its delete button sends the kind's delete
    /// action.
    pub fn new<R: Record>(t: &'static Texts, edit_href: &'a str, head: Markup) -> Self {
        RecordList {
            t,
            head,
            edit_href,
            delete_action: record::<R>(Verb::Delete),
            foot: None,
            after: None,
        }
    }

    /// A `tfoot` row below the records (e.g. a total).
    pub fn foot(mut self, row: Markup) -> Self {
        self.foot = Some(row);
        self
    }

    /// What follows the table when there are records (e.g. a hint).
    pub fn after(mut self, markup: Markup) -> Self {
        self.after = Some(markup);
        self
    }

    /// The panel with one row per record, as `row` draws it.
    pub fn render<'r, T>(&self, records: &'r [T], row: impl Fn(&'r T) -> Row<'r>) -> Markup {
        let t = self.t;
        html! {
            section.panel {
                @if records.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr { (self.head) th { span.sr-only { (t.actions) } } } }
                        tbody {
                            @for record in records {
                                @let r = row(record);
                                tr class=[r.inactive.then_some("inactive")] {
                                    (r.cells)
                                    td.row-actions {
                                        a href={ (self.edit_href) (r.id) "#record-form" } { (t.edit) }
                                        @if let Some(why) = r.undeletable {
                                            small.hint.undeletable { (why) }
                                        } @else {
                                            (delete_button(&self.delete_action, r.id, r.confirm.unwrap_or(t.confirm_delete), t.delete))
                                        }
                                    }
                                }
                            }
                        }
                        @if let Some(foot) = &self.foot { tfoot { tr { (foot) } } }
                    }
                    @if let Some(after) = &self.after { (after) }
                }
            }
        }
    }
}

/// The record a [`RecordForm`] edits: its id and, if it has one, the name
/// its heading shows.
pub struct Editing<'a> {
    pub id: &'a str,
    pub name: Option<&'a str>,
}

impl<'a> Editing<'a> {
    pub fn named(id: &'a str, name: &'a str) -> Self {
        Editing {
            id,
            name: Some(name),
        }
    }

    pub fn unnamed(id: &'a str) -> Self {
        Editing { id, name: None }
    }
}

/// Partial: the panel with a page's form — "new …" and the create action,
/// or "edit: name" and the update action with the record's id; then the
/// page's fields, the form's error slot and its buttons. The action script
/// goes to `redirect` after saving; cancel leads there too.
pub struct RecordForm<'a> {
    t: &'static Texts,
    new_title: &'a str,
    create: String,
    update: String,
    redirect: &'a str,
    editing: Option<Editing<'a>>,
    missing_account: bool,
    merchant_hint: bool,
    add_another: bool,
    collapsed: bool,
    after_form: Option<Markup>,
}

impl<'a> RecordForm<'a> {
    /// The form of a record of kind `R`, sending the kind's create or
    /// update action; `new_title` heads the form of a new record.
    pub fn new<R: Record>(t: &'static Texts, new_title: &'a str, redirect: &'a str) -> Self {
        RecordForm {
            t,
            new_title,
            create: record::<R>(Verb::Create),
            update: record::<R>(Verb::Update),
            redirect,
            editing: None,
            missing_account: false,
            merchant_hint: false,
            add_another: false,
            collapsed: false,
            after_form: None,
        }
    }

    /// With records listed below (`has_records`), the form of a new record
    /// waits behind a "+ New …" button, so that the list starts on the
    /// first screen; an empty list, or a record being edited, shows the
    /// form open.
    pub fn collapsed(mut self, has_records: bool) -> Self {
        self.collapsed = has_records;
        self
    }

    /// What the panel shows below the form (e.g. an edited record's
    /// documents, with their own upload form).
    pub fn after_form(mut self, markup: Markup) -> Self {
        self.after_form = Some(markup);
        self
    }

    /// Offers "save and add another": the form stays, keeping its date and
    /// account, for entering a pile of receipts one after another.
    pub fn add_another(mut self) -> Self {
        self.add_another = true;
        self
    }

    /// The record to edit; `None` keeps the create form.
    pub fn editing(mut self, editing: Option<Editing<'a>>) -> Self {
        self.editing = editing;
        self
    }

    /// When `missing` (the record needs accounts the user has not got), the
    /// panel shows where to add one instead of the form.
    pub fn needs_account(mut self, missing: bool) -> Self {
        self.missing_account = missing;
        self
    }

    /// Marks the form for the action script's category hint by merchant
    /// (its fields hold the `.merchant-hint` paragraph).
    pub fn merchant_hint(mut self) -> Self {
        self.merchant_hint = true;
        self
    }

    /// The panel with `fields` in the form.
    pub fn render(&self, fields: Markup) -> Markup {
        let t = self.t;
        let editing = self.editing.as_ref();
        let action = if editing.is_some() {
            &self.update
        } else {
            &self.create
        };
        let panel = html! {
            section.panel #record-form {
                h2 {
                    @if let Some(e) = editing {
                        (t.edit) @if let Some(name) = e.name { ": " (name) }
                    } @else {
                        (self.new_title)
                    }
                }
                @if self.missing_account {
                    p.notice { (t.need_account_first) " " a href="/accounts" { (t.nav_accounts) } }
                } @else {
                    form.stack data-action=(action) data-redirect=(self.redirect) data-flash=(t.saved)
                        data-merchant-hint[self.merchant_hint] novalidate {
                        @if let Some(e) = editing { input type="hidden" name="id" value=(e.id); }
                        (fields)
                        (form_error())
                        div.buttons {
                            button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                            @if self.add_another && editing.is_none() {
                                button type="submit" data-another="" { (t.save_and_add_another) }
                            }
                            @if editing.is_some() { a.button href=(self.redirect) { (t.cancel) } }
                        }
                    }
                }
                @if let Some(after) = &self.after_form { (after) }
            }
        };
        if self.collapsed && editing.is_none() && !self.missing_account {
            html! {
                details.new-record {
                    summary.button.primary { span aria-hidden="true" { "+ " } (self.new_title) }
                    (panel)
                }
            }
        } else {
            panel
        }
    }
}

/// Prefill: an amount as its form field shows it (two decimals), empty for
/// a new record.
pub fn amount_value(amount: Option<Decimal>, locale: crate::domain::locale::Locale) -> String {
    amount
        .map(|a| crate::i18n::amount::input_value(a, locale))
        .unwrap_or_default()
}

/// Prefill: a date as a date input takes it (ISO), empty when there is none.
fn date_value(date: Option<NaiveDate>) -> String {
    date.map(|d| d.to_string()).unwrap_or_default()
}

/// The schedule part of a scheduled record's form (expenses, incomes,
/// transfers): the amount, frequency, start and end it starts from; a new
/// record starts monthly from today, with no amount and no end.
pub struct SchedulePrefill {
    pub amount: String,
    frequency: &'static str,
    start: String,
    end: String,
}

impl SchedulePrefill {
    /// From the edited record's plan: amount, frequency, start and end
    /// date; a one-off shows no end. A new record starts on `today` (the
    /// server's day, as the one-time expense's date does).
    pub fn new(
        editing: Option<&Planned>,
        today: NaiveDate,
        locale: crate::domain::locale::Locale,
    ) -> Self {
        SchedulePrefill {
            amount: amount_value(editing.map(|p| *p.amount), locale),
            frequency: editing.map_or("monthly", |p| p.frequency.code()),
            start: date_value(Some(editing.map_or(today, |p| p.start_date))),
            end: date_value(
                editing
                    .filter(|p| p.frequency != Frequency::Once)
                    .and_then(|p| p.end_date),
            ),
        }
    }

    /// Partial: the frequency select (`with_once` offers one-offs) and the
    /// start and end dates.
    pub fn fields(&self, locale: Locale, with_once: bool) -> Markup {
        let t = locale.texts();
        html! {
            (select(t.frequency, "frequency", &frequency_options(locale, with_once), Some(self.frequency), None))
            div.row {
                (Field::new(t.start_date, "startDate", "date").value(&self.start).required().render())
                (Field::new(t.end_date, "endDate", "date").value(&self.end).nullable().render())
            }
        }
    }
}

/// Partial: the amount field (holding an [`amount_value`]) beside the
/// currency select.
pub fn amount_and_currency(t: &Texts, amount: &str, currency: &str) -> Markup {
    html! {
        div.row {
            (amount_field(t, amount))
            (select(t.currency, "currency", &currency_options(), Some(currency), None))
        }
    }
}

/// Partial: the amount field, holding an [`amount_value`].
pub fn amount_field(t: &Texts, amount: &str) -> Markup {
    Field::new(t.amount, "amount", "text")
        .value(amount)
        .decimal()
        .required()
        .render()
}

/// Partial: on the edit form of a recurring expense or income, the day a
/// new amount applies from and the amounts it had (`docs/actions.md`,
/// Price changes).
pub fn amount_change(locale: Locale, prices: &Prices, start: NaiveDate, currency: &str) -> Markup {
    let t = locale.texts();
    let (date, money) = (
        |d: NaiveDate| format::date(d, locale),
        |a: Decimal| format::money(a, currency, locale),
    );
    // Each earlier amount from the day after the one before it (the first
    // from the start) to the day before its `until`.
    let froms = std::iter::once(start).chain(prices.earlier.iter().map(|e| e.until));
    let periods: Vec<String> = prices
        .earlier
        .iter()
        .zip(froms)
        .map(|(e, from)| {
            t.amount_until
                .replace("{from}", &date(from))
                .replace("{until}", &date(e.until.pred_opt().unwrap_or(e.until)))
                .replace("{amount}", &money(e.amount.0))
        })
        .collect();
    html! {
        (Field::new(t.amount_from, "amountFrom", "date").nullable().hint(t.amount_from_hint).render())
        @if let Some(latest_from) = prices.latest_from() {
            div.amount-history {
                h3 { (t.amount_history) }
                ul {
                    @for p in &periods { li { (p) } }
                    li { (t.amount_from_then
                        .replace("{date}", &date(latest_from))
                        .replace("{amount}", &money(prices.latest))) }
                }
            }
        }
    }
}

/// Partial: a list's amount cell of a recurring item: the amount of
/// `today`, and the latest change of it (past, or still to come).
/// The "next due" cell of a recurring record: its next due date on or after
/// `today`; a past one-off is no next payment and says when it was due, an
/// ended item says so.
pub fn next_due_cell(locale: Locale, schedule: &Schedule, today: NaiveDate) -> Markup {
    let t = locale.texts();
    html! {
        @match schedule.next_due(today) {
            Some(d) => (format::date(d, locale)),
            None if schedule.frequency == Frequency::Once => span.muted {
                (t.was_due.replace("{date}", &format::date(schedule.start, locale)))
            },
            None => span.muted { (t.ended) },
        }
    }
}

pub fn amount_today(
    locale: Locale,
    prices: &Prices,
    today: NaiveDate,
    cell: impl Fn(Decimal) -> Markup,
    currency: &str,
) -> Markup {
    let t = locale.texts();
    let now = prices.on(today);
    html! {
        (cell(now))
        @if let Some(from) = prices.latest_from() {
            br;
            small.muted {
                @if from > today {
                    (t.amount_from_then
                        .replace("{date}", &format::date(from, locale))
                        .replace("{amount}", &format::money(prices.latest, currency, locale)))
                } @else {
                    (t.amount_since
                        .replace("{date}", &format::date(from, locale))
                        .replace("{amount}", &format::money(prices.on(from.pred_opt().unwrap_or(from)), currency, locale)))
                }
            }
        }
    }
}
