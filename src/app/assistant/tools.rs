//! The assistant's tools (`docs/actions.md`, Assistant).
//!
//! Contract used by `chat`:
//! - [`catalogue`]: every tool, with a flat JSON-schema `parameters` object
//!   (no `$ref`, no `$defs`, no empty `enum`: local models refuse or
//!   misread them). The property names of a write tool are the camelCase
//!   input names of its action, so Confirm can send the arguments to the
//!   action ([`action_for`]) as they are.
//! - [`run`]`(state, user, name, arguments_json_text)` → [`Outcome`].
//! - [`preview`]: what a write tool would do (`previewTool`).
//!
//! Read tools run the very report functions the pages, the actions and the
//! REST API use (`reports::…`, `store::search`, `store::insights`), so the
//! assistant never has a number of its own; they answer compact JSON with
//! amounts as decimal strings with two decimals and the base currency named.
//!
//! Write tools never write. Their arguments are decoded into the action's
//! own input type and checked by its own `validate` (with the stored record
//! for an update, the per-user limit for a create), inside a transaction
//! that is rolled back, so a preview refuses exactly what the action would.
//!
//! Models are sloppy with arguments: they send `""` or a JSON string that
//! holds the object, numbers as strings, `snake_case` keys, `Monthly`,
//! `23.11.2026`. What can be read without guessing is read
//! ([`parse_arguments`], `normalise`); anything else fails naming the field.

use crate::app::input::{self, decode as parse_input};
use crate::app::records::{
    self as entries, DailyInput, ExpenseInput, IncomeInput, Record, TransferInput,
};
use crate::clock::timestamp;
use crate::domain::locale::Locale;
use crate::domain::money;
use crate::domain::recurrence::{parse_date, parse_month, Frequency, Schedule};
use crate::error::{Error, Result};
use crate::i18n::format;
use crate::reports::payments::{months, Source};
use crate::reports::{dashboard, forecasts, reserves, subscriptions};
use crate::services::ai::Tool;
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::daily_expenses::{DailyExpense, NewDailyExpense};
use crate::store::expenses::{Expense, NewExpense};
use crate::store::incomes::{Income, NewIncome};
use crate::store::table::{self, Table};
use crate::store::transfers::{NewTransfer, Transfer};
use crate::store::users::User;
use crate::store::{insights, search};
use chrono::{Datelike, NaiveDate};
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::ops::RangeInclusive;

/// What a write tool would do, without doing it (`previewTool`'s reply).
#[derive(Clone, Debug, Serialize)]
pub struct Preview {
    pub tool: String,
    pub valid: bool,
    /// The action's refusals ("amount: must be greater than 0"); empty when valid.
    pub errors: Vec<String>,
    /// One line for the person, in their language.
    pub summary: String,
    /// What would be written: the validated fields, camelCase, amounts as
    /// decimal strings with two decimals, with `id` for an update; `null`
    /// when not valid.
    pub record: Value,
}

/// What running one tool call came to.
pub enum Outcome {
    /// A read tool ran: its result for the model, and a line for the
    /// person ("looked at your forecast for Tagesgeld").
    Read { result: Value, summary: String },
    /// A write tool with a valid preview: not run, proposed. `arguments`
    /// are the ones to send to the action ([`action_for`]) on Confirm.
    Proposed { arguments: Value, preview: Preview },
    /// Unknown tool, bad arguments, no such record, a write the action
    /// would refuse: told to the model as `{"error": …}` so it can correct
    /// the call or ask.
    Failed(String),
}

// ---------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------

/// Payments `list_payments` answers at most.
pub const PAYMENTS_MAX: usize = 200;

/// The read tools: name, description, parameters (name, JSON type,
/// description) and the required ones.
type Param = (&'static str, &'static str, &'static str);
const READ_TOOLS: &[(&str, &str, &[Param], &[&str])] = &[
    (
        "get_summary",
        "The user's month at a glance, in the base currency: total assets, the cashflow view \
         (income and expenses due in the month, surplus, change against the previous month in \
         percent), the reserve view (recurring items spread by their monthly equivalent: a \
         yearly 1200 counts 100 a month), recurring fixed costs and subscriptions per month, \
         and the next payments due. Defaults to the current month.",
        &[
            ("year", "integer", "e.g. 2026; default: this year"),
            (
                "month",
                "integer",
                "1-12; default: this month (January when only year is given)",
            ),
        ],
        &[],
    ),
    (
        "list_accounts",
        "The user's accounts (ids, names, type checking/savings/etf, currency) with their \
         balance, and the balance converted to the base currency. The total of all accounts \
         is totalAssets in get_summary.",
        &[],
        &[],
    ),
    (
        "list_payments",
        "Every payment from one day through another, both inclusive, at most one year apart: \
         each due date of recurring expenses and incomes and each one-time expense, with its \
         amount in the base currency. At most 200; truncated is true when there were more. \
         For a month's totals use get_summary.",
        &[
            ("from", "string", "first day, YYYY-MM-DD"),
            ("to", "string", "last day, YYYY-MM-DD"),
        ],
        &["from", "to"],
    ),
    (
        "search",
        "Finds the user's accounts, categories, recurring and one-time expenses, incomes and \
         transfers by name, notes or merchant; best matches first, at most 50. Use it to find \
         the id of a record or a category.",
        &[("query", "string", "words to look for")],
        &["query"],
    ),
    (
        "get_account_forecast",
        "An account's forecast for the coming months (from next month), in the base currency: \
         per month income, expenses, transfers in and out, net, and for savings and ETF \
         accounts the projected balance. Name the account by accountId or accountName.",
        &[
            ("accountId", "string", "the account's id"),
            (
                "accountName",
                "string",
                "the account's name, or a unique part of it",
            ),
            ("months", "integer", "1-24; default 12"),
        ],
        &[],
    ),
    (
        "get_reserve_plan",
        "What to set aside each month for the quarterly, half-yearly and yearly expenses, \
         what each pot should hold today, what it holds and the gap; base currency.",
        &[],
        &[],
    ),
    (
        "list_insights",
        "The user's current insights (unusual spending, budget warnings, saving \
         opportunities, subscription alerts), newest first.",
        &[],
        &[],
    ),
    (
        "spending_by_category",
        "The expenses of one month per category (cashflow view, base currency), largest \
         first, with each category's monthly limit if set. Defaults to the current month.",
        &[
            ("year", "integer", "e.g. 2026; default: this year"),
            (
                "month",
                "integer",
                "1-12; default: this month (January when only year is given)",
            ),
        ],
        &[],
    ),
    (
        "list_subscriptions",
        "The recurring expenses marked as subscriptions, with what each costs a month and a \
         year, whether it is active today, and the monthly and yearly totals of the active \
         ones in the base currency.",
        &[],
        &[],
    ),
];

/// The kinds of record the write tools propose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    DailyExpense,
    Expense,
    Income,
    Transfer,
}

/// How a write tool's argument is read (and tidied, see `normalise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Text,
    Amount,
    Date,
    /// `once` allowed or not.
    Frequency(bool),
    Bool,
}

/// One input field of a record's action: name, how it is read, whether a
/// create needs it, what the model is told.
struct Field(&'static str, Ty, bool, &'static str);

const AMOUNT: &str = "positive, at most two decimals, e.g. 12.40";
const CURRENCY: &str = "ISO code such as EUR; default: the account's currency";
const ACCOUNT: &str = "id of one of the user's accounts (list_accounts)";
const CATEGORY: &str = "id of one of the user's categories (search finds it by name)";

const DAILY_FIELDS: &[Field] = &[
    Field("name", Ty::Text, true, "what was paid for"),
    Field("amount", Ty::Amount, true, AMOUNT),
    Field("currency", Ty::Text, false, CURRENCY),
    Field("date", Ty::Date, true, "the day, YYYY-MM-DD"),
    Field("accountId", Ty::Text, true, ACCOUNT),
    Field("categoryId", Ty::Text, false, CATEGORY),
    Field("merchant", Ty::Text, false, "the shop or payee"),
    Field("notes", Ty::Text, false, "free text"),
];

const EXPENSE_FIELDS: &[Field] = &[
    Field("name", Ty::Text, true, "e.g. Rent"),
    Field("amount", Ty::Amount, true, AMOUNT),
    Field("currency", Ty::Text, false, CURRENCY),
    Field(
        "frequency",
        Ty::Frequency(false),
        true,
        "how often it is due",
    ),
    Field("startDate", Ty::Date, true, "first due date, YYYY-MM-DD"),
    Field(
        "endDate",
        Ty::Date,
        false,
        "last day, inclusive, YYYY-MM-DD",
    ),
    Field("accountId", Ty::Text, true, ACCOUNT),
    Field("categoryId", Ty::Text, false, CATEGORY),
    Field("isSubscription", Ty::Bool, false, "true for a subscription"),
    Field("notes", Ty::Text, false, "free text"),
    Field(
        "amountFrom",
        Ty::Date,
        false,
        "only when changing an amount: the first day the new amount applies, YYYY-MM-DD; payments before keep theirs (default today)",
    ),
];

const INCOME_FIELDS: &[Field] = &[
    Field("name", Ty::Text, true, "e.g. Salary"),
    Field("amount", Ty::Amount, true, AMOUNT),
    Field("currency", Ty::Text, false, CURRENCY),
    Field(
        "frequency",
        Ty::Frequency(true),
        true,
        "how often it comes; once for a single payment",
    ),
    Field(
        "startDate",
        Ty::Date,
        true,
        "first (or only) date, YYYY-MM-DD",
    ),
    Field(
        "endDate",
        Ty::Date,
        false,
        "last day, inclusive, YYYY-MM-DD",
    ),
    Field("accountId", Ty::Text, true, ACCOUNT),
    Field("notes", Ty::Text, false, "free text"),
    Field(
        "amountFrom",
        Ty::Date,
        false,
        "only when changing an amount: the first day the new amount applies, YYYY-MM-DD; payments before keep theirs (default today)",
    ),
];

const TRANSFER_FIELDS: &[Field] = &[
    Field(
        "fromAccountId",
        Ty::Text,
        true,
        "id of the account it leaves",
    ),
    Field(
        "toAccountId",
        Ty::Text,
        true,
        "id of the account it goes to",
    ),
    Field(
        "amount",
        Ty::Amount,
        true,
        "in the source account's currency; positive, at most two decimals",
    ),
    Field(
        "frequency",
        Ty::Frequency(true),
        true,
        "how often; once for a single transfer",
    ),
    Field(
        "startDate",
        Ty::Date,
        true,
        "first (or only) date, YYYY-MM-DD",
    ),
    Field(
        "endDate",
        Ty::Date,
        false,
        "last day, inclusive, YYYY-MM-DD",
    ),
    Field("note", Ty::Text, false, "free text"),
];

/// The write tools: name, kind, whether it changes a stored record, the action.
const WRITE_TOOLS: &[(&str, Kind, bool, &str)] = &[
    (
        "create_daily_expense",
        Kind::DailyExpense,
        false,
        "createDailyExpense",
    ),
    (
        "update_daily_expense",
        Kind::DailyExpense,
        true,
        "updateDailyExpense",
    ),
    ("create_expense", Kind::Expense, false, "createExpense"),
    ("update_expense", Kind::Expense, true, "updateExpense"),
    ("create_income", Kind::Income, false, "createIncome"),
    ("update_income", Kind::Income, true, "updateIncome"),
    ("create_transfer", Kind::Transfer, false, "createTransfer"),
    ("update_transfer", Kind::Transfer, true, "updateTransfer"),
];

impl Kind {
    fn fields(self) -> &'static [Field] {
        match self {
            Kind::DailyExpense => DAILY_FIELDS,
            Kind::Expense => EXPENSE_FIELDS,
            Kind::Income => INCOME_FIELDS,
            Kind::Transfer => TRANSFER_FIELDS,
        }
    }

    /// What the model is told the tool is for.
    fn about(self) -> &'static str {
        match self {
            Kind::DailyExpense => "a one-time expense (a purchase, a bill paid once)",
            Kind::Expense => {
                "a recurring expense (rent, insurance, a subscription with isSubscription)"
            }
            Kind::Income => "an income (salary, a single payment with frequency once)",
            Kind::Transfer => "a transfer between two of the user's own accounts",
        }
    }

    /// The record's name in a summary line.
    fn label(self, locale: Locale) -> &'static str {
        match (self, locale) {
            (Kind::DailyExpense, Locale::De) => "Einzelausgabe",
            (Kind::DailyExpense, Locale::En) => "One-time expense",
            (Kind::Expense, Locale::De) => "Wiederkehrende Ausgabe",
            (Kind::Expense, Locale::En) => "Recurring expense",
            (Kind::Income, Locale::De) => "Einnahme",
            (Kind::Income, Locale::En) => "Income",
            (Kind::Transfer, Locale::De) => "Umbuchung",
            (Kind::Transfer, Locale::En) => "Transfer",
        }
    }
}

/// The write tool of this name: its kind and whether it is an update.
fn write_tool(name: &str) -> Option<(Kind, bool)> {
    WRITE_TOOLS.iter().find(|t| t.0 == name).map(|t| (t.1, t.2))
}

/// The action a write tool's Confirm calls with its arguments
/// (`create_daily_expense` → `createDailyExpense`); `None` for a read tool
/// or an unknown name.
pub fn action_for(tool: &str) -> Option<&'static str> {
    WRITE_TOOLS.iter().find(|t| t.0 == tool).map(|t| t.3)
}

/// Whether `name` is a write tool (its call becomes a preview).
pub fn is_write(name: &str) -> bool {
    write_tool(name).is_some()
}

fn schema_of(ty: Ty, about: &str) -> Value {
    match ty {
        Ty::Text | Ty::Date => json!({"type": "string", "description": about}),
        Ty::Amount => json!({"type": "number", "description": about}),
        Ty::Bool => json!({"type": "boolean", "description": about}),
        Ty::Frequency(once) => {
            let mut codes: Vec<&str> = Vec::new();
            if once {
                codes.push("once");
            }
            codes.extend(Frequency::RECURRING.iter().map(|f| f.code()));
            json!({"type": "string", "enum": codes, "description": about})
        }
    }
}

/// Every tool the model may call.
pub fn catalogue() -> Vec<Tool> {
    let mut tools = Vec::new();
    for (name, description, params, required) in READ_TOOLS {
        let properties: Map<String, Value> = params
            .iter()
            .map(|(p, ty, about)| (p.to_string(), json!({"type": ty, "description": about})))
            .collect();
        tools.push(Tool {
            name: name.to_string(),
            description: description.to_string(),
            parameters: json!({"type": "object", "properties": properties, "required": required}),
        });
    }
    for (name, kind, update, _) in WRITE_TOOLS {
        let mut properties = Map::new();
        let mut required = Vec::new();
        if *update {
            properties.insert(
                "id".into(),
                json!({"type": "string", "description": "id of the record to change"}),
            );
            required.push("id");
        }
        for Field(field, ty, needed, about) in kind.fields() {
            properties.insert(field.to_string(), schema_of(*ty, about));
            if *needed && !update {
                required.push(field);
            }
        }
        let description = if *update {
            format!(
                "Proposes to change {}. Give only the fields to change; the others keep their \
                 values, and null clears an optional one (endDate, categoryId). Nothing is saved \
                 until the user confirms the preview.",
                kind.about()
            )
        } else {
            format!(
                "Proposes to add {}. Nothing is saved until the user confirms the preview.",
                kind.about()
            )
        };
        tools.push(Tool {
            name: name.to_string(),
            description,
            parameters: json!({"type": "object", "properties": properties, "required": required}),
        });
    }
    tools
}

// ---------------------------------------------------------------------------
// Running a call
// ---------------------------------------------------------------------------

/// Runs one tool call of the model for `user`. A read tool answers its
/// result; a write tool is only previewed: valid → [`Outcome::Proposed`],
/// refused → [`Outcome::Failed`] with the action's error, so that the model
/// corrects the call or asks the user.
pub async fn run(state: &AppState, user: &User, name: &str, arguments: &str) -> Outcome {
    let args = match parse_arguments(arguments) {
        Ok(a) => a,
        Err(e) => return Outcome::Failed(e),
    };
    let outcome = if is_write(name) {
        preview(state, user, name, args)
            .await
            .map(|(arguments, preview)| {
                if preview.valid {
                    Outcome::Proposed { arguments, preview }
                } else {
                    Outcome::Failed(preview.errors.join("; "))
                }
            })
    } else {
        read(state, user, name, Args(args))
            .await
            .map(|(result, summary)| Outcome::Read { result, summary })
    };
    outcome.unwrap_or_else(|e| {
        e.log();
        Outcome::Failed(e.to_string())
    })
}

/// The arguments of a call as a JSON object. A model may send `""` or
/// `null` for none, or the object's JSON inside a JSON string.
pub fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Map::new());
    }
    let value = serde_json::from_str::<Value>(text)
        .map_err(|e| format!("arguments: not valid JSON ({e})"))?;
    as_object(value)
}

/// A JSON value as the arguments object (see [`parse_arguments`]).
pub fn as_object(value: Value) -> Result<Map<String, Value>, String> {
    const NOT_AN_OBJECT: &str = "arguments: must be a JSON object";
    match value {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        Value::String(s) if s.trim().is_empty() => Ok(Map::new()),
        Value::String(s) => match serde_json::from_str::<Value>(s.trim()) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(NOT_AN_OBJECT.into()),
        },
        _ => Err(NOT_AN_OBJECT.into()),
    }
}

/// `accountId` → `account_id`.
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A read tool's arguments.
struct Args(Map<String, Value>);

impl Args {
    /// The argument `name` (or its snake_case twin); `null` and `""` count
    /// as left out.
    fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .get(name)
            .or_else(|| self.0.get(&snake(name)))
            .filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()))
    }

    /// A text argument (a number counts as its digits).
    fn text(&self, name: &'static str) -> Result<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(Error::invalid(name, "must be text")),
        }
    }

    /// A whole number in `range`, given as a number or as digits.
    fn int(&self, name: &'static str, range: RangeInclusive<i64>) -> Result<Option<i64>> {
        let wrong = || {
            Error::invalid(
                name,
                format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        };
        let n = match self.get(name) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.trim().to_string(),
            Some(_) => return Err(wrong()),
        };
        // `6.0` is a whole number too.
        let n = n.strip_suffix(".0").unwrap_or(&n);
        match n.parse::<i64>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(wrong()),
        }
    }

    /// A required day (see [`normalise_date`]).
    fn date(&self, name: &'static str) -> Result<NaiveDate> {
        match self.text(name)? {
            Some(s) => parse_date(name, &normalise_date(&s)),
            None => Err(Error::invalid(name, "is required")),
        }
    }

    /// The first day of the month of `year` and `month` (as `getDashboard`
    /// reads them: this month by default, January when only the year is
    /// given); `month` may also be `YYYY-MM`.
    fn month(&self, today: NaiveDate) -> Result<NaiveDate> {
        if let Some(Value::String(s)) = self.get("month") {
            if s.trim().len() == 7 && s.contains('-') {
                return Ok(parse_month("month", s)?.0);
            }
        }
        let year = self.int("year", 1900..=2200)?;
        let month = self.int("month", 1..=12)?;
        let first = NaiveDate::from_ymd_opt(
            year.map_or(today.year(), |y| y as i32),
            month.map_or(if year.is_some() { 1 } else { today.month() }, |m| m as u32),
            1,
        );
        first.ok_or_else(|| Error::invalid("month", "must be between 1 and 12"))
    }
}

/// A day as `parse_date` reads it: `23.11.2026` becomes `2026-11-23`, and
/// a timestamp its day; anything else is left for `parse_date` to refuse.
fn normalise_date(s: &str) -> String {
    let s = s.trim();
    let parts: Vec<&str> = s.split('.').collect();
    if let [d, m, y] = parts[..] {
        let digits = |p: &str, n: RangeInclusive<usize>| {
            n.contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit())
        };
        if digits(d, 1..=2) && digits(m, 1..=2) && digits(y, 4..=4) {
            return format!("{y}-{m:0>2}-{d:0>2}");
        }
    }
    // Byte 10 is ASCII here, so `s[..10]` ends on a character boundary.
    if s.len() > 10 && matches!(s.as_bytes()[10], b'T' | b' ') {
        return s[..10].to_string();
    }
    s.to_string()
}

/// A frequency as `Frequency::parse` reads it: lower case, `half-yearly`
/// and `half yearly` as `half_yearly`, and a few words models use.
fn normalise_frequency(s: &str) -> String {
    let code = s.trim().to_lowercase().replace(['-', ' '], "_");
    let alias = match code.as_str() {
        "annually" | "annual" | "every_year" | "jährlich" => "yearly",
        "month" | "every_month" | "monatlich" => "monthly",
        "week" | "every_week" | "wöchentlich" => "weekly",
        "quarter" | "every_quarter" | "vierteljährlich" => "quarterly",
        "semiannually" | "semi_annually" | "semi_annual" | "halbjährlich" => "half_yearly",
        "one_time" | "onetime" | "one_off" | "single" | "einmalig" => "once",
        _ => return code,
    };
    alias.to_string()
}

/// A write tool's arguments as its action reads them: the tool's fields
/// only (`id` for an update), under their camelCase names (snake_case ones
/// renamed), the unambiguous forms of sloppy values tidied. What is still
/// wrong stays, for the action's decoding to name.
fn normalise(kind: Kind, update: bool, args: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let id = Field("id", Ty::Text, true, "");
    let fields = update.then_some(&id).into_iter().chain(kind.fields());
    for Field(name, ty, _, _) in fields {
        let Some(value) = args.get(*name).or_else(|| args.get(&snake(name))) else {
            continue;
        };
        let value = match (ty, value) {
            (Ty::Text, Value::Number(n)) => Value::String(n.to_string()),
            (Ty::Amount, Value::String(s)) => {
                Value::String(s.replace(['€', '$', '£'], "").trim().to_string())
            }
            (Ty::Date, Value::String(s)) => Value::String(normalise_date(s)),
            (Ty::Date, Value::Number(n)) => Value::String(n.to_string()),
            (Ty::Frequency(_), Value::String(s)) => Value::String(normalise_frequency(s)),
            (Ty::Bool, Value::String(s)) => match s.trim().to_lowercase().as_str() {
                "true" | "yes" | "ja" | "1" => Value::Bool(true),
                "false" | "no" | "nein" | "0" => Value::Bool(false),
                _ => value.clone(),
            },
            (Ty::Bool, Value::Number(n)) if n.as_u64() == Some(1) => Value::Bool(true),
            (Ty::Bool, Value::Number(n)) if n.as_u64() == Some(0) => Value::Bool(false),
            _ => value.clone(),
        };
        out.insert(name.to_string(), value);
    }
    out
}

// ---------------------------------------------------------------------------
// Write tools: previews
// ---------------------------------------------------------------------------

/// What the write tool `tool` would do with `arguments`, without doing it:
/// the arguments to send to its action on Confirm, and the preview. Fails
/// only for an unknown tool or an internal error; every refusal of the
/// action is a preview with `valid: false`.
pub async fn preview(
    state: &AppState,
    user: &User,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<(Value, Preview)> {
    let Some((kind, update)) = write_tool(tool) else {
        let names: Vec<&str> = WRITE_TOOLS.iter().map(|t| t.0).collect();
        let what = if READ_TOOLS.iter().any(|t| t.0 == tool) {
            "is a read tool"
        } else {
            "is not a tool"
        };
        return Err(Error::invalid(
            "tool",
            format!("{tool:?} {what}; previews are for {}", names.join(", ")),
        ));
    };
    let arguments = Value::Object(normalise(kind, update, arguments));
    let (given, user, tool_name) = (arguments.clone(), user.clone(), tool.to_string());
    let locale = user.locale;
    let checked = state
        .db
        .run(move |c| {
            // Validation only reads; the transaction, never committed, makes
            // sure that nothing a check might do is kept.
            let tx = c.transaction()?;
            let checked = match kind {
                Kind::DailyExpense => check::<DailyInput>(&tx, &user, given, update),
                Kind::Expense => check::<ExpenseInput>(&tx, &user, given, update),
                Kind::Income => check::<IncomeInput>(&tx, &user, given, update),
                Kind::Transfer => check::<TransferInput>(&tx, &user, given, update),
            };
            drop(tx);
            match checked {
                Ok(done) => Ok(Ok(done)),
                Err(e @ Error::Internal(_)) => Err(e),
                Err(refusal) => Ok(Err(refusal.to_string())),
            }
        })
        .await?;
    let preview = match checked {
        Ok((record, summary)) => Preview {
            tool: tool_name,
            valid: true,
            errors: Vec::new(),
            summary,
            record,
        },
        Err(refusal) => Preview {
            tool: tool_name,
            valid: false,
            summary: match locale {
                Locale::De => format!("{} nicht möglich: {refusal}", kind.label(locale)),
                Locale::En => format!("{} not possible: {refusal}", kind.label(locale)),
            },
            errors: vec![refusal],
            record: Value::Null,
        },
    };
    Ok((arguments, preview))
}

/// Books a proposal: runs the write of `tool`'s action (`create…` or
/// `update…`, [`action_for`]) with `arguments` inside the caller's
/// transaction, decoded and validated exactly as the action does. Answers
/// the written record's id and the record as the action answers it.
pub fn book(
    tx: &Connection,
    user: &User,
    tool: &str,
    arguments: Value,
    now: &str,
    today: NaiveDate,
) -> Result<(String, Value)> {
    let Some((kind, update)) = write_tool(tool) else {
        return Err(Error::invalid(
            "tool",
            format!("{tool:?} is not a write tool"),
        ));
    };
    let record = match kind {
        Kind::DailyExpense => written::<DailyInput>(tx, user, arguments, update, now, today),
        Kind::Expense => written::<ExpenseInput>(tx, user, arguments, update, now, today),
        Kind::Income => written::<IncomeInput>(tx, user, arguments, update, now, today),
        Kind::Transfer => written::<TransferInput>(tx, user, arguments, update, now, today),
    }?;
    let id = record
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("a written {tool} record has no id")))?;
    Ok((id, record))
}

fn written<R: Record>(
    tx: &Connection,
    user: &User,
    arguments: Value,
    update: bool,
    now: &str,
    today: NaiveDate,
) -> Result<Value> {
    let input: R = parse_input(arguments)?;
    let record = if update {
        entries::update_in(tx, &user.id, input, now, today)?
    } else {
        entries::create_in(tx, &user.id, input, now, today)?
    };
    serde_json::to_value(record).map_err(|e| Error::Internal(e.into()))
}

/// A validated record, as the action would write it.
type New<R> = <<R as Record>::Stored as Table>::New;

/// A record input that a write tool proposes: how its validated record
/// and the line for the person are made.
trait Proposal: Record {
    /// The validated fields, camelCase, amounts as decimal strings.
    fn record(new: &New<Self>) -> Map<String, Value>;
    /// The line for the person ("Einzelausgabe 12,40 € bei Bäckerei am 23.11.2026").
    fn line(c: &Connection, user: &User, new: &New<Self>) -> Result<String>;
    /// The stored amount and currency, when an update changes them.
    fn was(new: &New<Self>, stored: &Self::Stored) -> Option<(Decimal, String)>;
}

/// Decodes and validates `args` exactly as the action does (its input
/// type, its `validate`, the stored record of an update, the per-user
/// limit of a create, the table's own checks); answers the record and the
/// line, or the action's refusal.
fn check<R: Proposal>(
    c: &Connection,
    user: &User,
    args: Value,
    update: bool,
) -> Result<(Value, String)> {
    let mut input: R = parse_input(args)?;
    let (id, stored, new) = if update {
        let id = input::required_id(input.take_id())?;
        let stored = table::find::<R::Stored>(c, &user.id, &id)?.ok_or(Error::NotFound)?;
        let new = input.validate(c, &user.id, Some(&stored))?;
        <R::Stored as Table>::before_write(c, &user.id, &new, Some(&id))?;
        (Some(id), Some(stored), new)
    } else {
        let new = input.validate(c, &user.id, None)?;
        R::CAP.check(c, &user.id)?;
        <R::Stored as Table>::before_write(c, &user.id, &new, None)?;
        (None, None, new)
    };
    let mut record = Map::new();
    if let Some(id) = id {
        record.insert("id".into(), Value::String(id));
    }
    record.extend(R::record(&new));
    let line = R::line(c, user, &new)?;
    let locale = user.locale;
    let summary = match stored {
        None => line,
        Some(stored) => {
            let was = R::was(&new, &stored).map(|(a, cur)| format::money(a, &cur, locale));
            match (locale, was) {
                (Locale::De, Some(was)) => format!("Änderung: {line} (bisher {was})"),
                (Locale::De, None) => format!("Änderung: {line}"),
                (Locale::En, Some(was)) => format!("Change: {line} (was {was})"),
                (Locale::En, None) => format!("Change: {line}"),
            }
        }
    };
    Ok((Value::Object(record), summary))
}

/// The day a changed amount applies from, as a proposal's line says it
/// (" – new amount from 01.01.2027").
fn amount_from(from: Option<NaiveDate>, l: Locale) -> String {
    match (from, l) {
        (None, _) => String::new(),
        (Some(d), Locale::De) => format!(", neuer Betrag ab {}", format::date(d, l)),
        (Some(d), Locale::En) => format!(", new amount from {}", format::date(d, l)),
    }
}

/// An amount at the edge: a decimal string with two decimals ("12.40").
/// A string, since a JSON number in a `serde_json::Value` is a float and
/// would lose the trailing zero.
fn amt(d: Decimal) -> Value {
    Value::String(money::json_text(d))
}

fn opt_amt(d: Option<Decimal>) -> Value {
    d.map_or(Value::Null, amt)
}

/// A percentage with one decimal, as the dashboard gives it.
fn pct(d: Option<Decimal>) -> Value {
    d.map_or(Value::Null, |d| Value::String(format!("{d:.1}")))
}

/// The fields every schedule has.
fn schedule_fields(s: &Schedule, out: &mut Map<String, Value>) {
    out.insert("frequency".into(), json!(s.frequency.code()));
    out.insert("startDate".into(), json!(s.start));
    out.insert("endDate".into(), json!(s.end));
}

/// When a schedule is due, for a line: "monatlich ab 01.12.2026",
/// "on 1 Dec 2026".
fn when(s: &Schedule, l: Locale) -> String {
    let start = format::date(s.start, l);
    if s.frequency == Frequency::Once {
        return match l {
            Locale::De => format!("am {start}"),
            Locale::En => format!("on {start}"),
        };
    }
    let f = l.frequency(s.frequency);
    let end = s.end.map(|e| format::date(e, l));
    match (l, end) {
        (Locale::De, None) => format!("{f} ab {start}"),
        (Locale::De, Some(end)) => format!("{f} ab {start} bis {end}"),
        (Locale::En, None) => format!("{f} from {start}"),
        (Locale::En, Some(end)) => format!("{f} from {start} until {end}"),
    }
}

/// A name in quotes of the language.
fn quoted(name: &str, l: Locale) -> String {
    match l {
        Locale::De => format!("„{name}“"),
        Locale::En => format!("“{name}”"),
    }
}

/// The name of one of the user's accounts (validated before, so present).
fn account_name(c: &Connection, user: &User, id: &str) -> Result<String> {
    Ok(table::find::<Account>(c, &user.id, id)?
        .map(|a| a.name)
        .unwrap_or_default())
}

fn changed(
    amount: Decimal,
    currency: &str,
    was: Decimal,
    was_cur: &str,
) -> Option<(Decimal, String)> {
    (amount != was || currency != was_cur).then(|| (was, was_cur.to_string()))
}

impl Proposal for DailyInput {
    fn record(n: &NewDailyExpense) -> Map<String, Value> {
        let v = json!({
            "name": n.name, "amount": amt(n.amount), "currency": n.currency, "date": n.date,
            "accountId": n.account_id, "categoryId": n.category_id, "merchant": n.merchant,
            "notes": n.notes,
        });
        v.as_object().cloned().unwrap_or_default()
    }

    fn line(_: &Connection, user: &User, n: &NewDailyExpense) -> Result<String> {
        let l = user.locale;
        let (label, amount, date) = (
            Kind::DailyExpense.label(l),
            format::money(n.amount, &n.currency, l),
            format::date(n.date, l),
        );
        // "bei Bäckerei": the merchant, or else the name; the name too
        // when both are given and differ.
        let merchant = n.merchant.trim();
        let (named, at) = if merchant.is_empty() || merchant.eq_ignore_ascii_case(&n.name) {
            (String::new(), n.name.as_str())
        } else {
            (format!("{} ", quoted(&n.name, l)), merchant)
        };
        Ok(match l {
            Locale::De => format!("{label} {named}{amount} bei {at} am {date}"),
            Locale::En => format!("{label} {named}{amount} at {at} on {date}"),
        })
    }

    fn was(n: &NewDailyExpense, s: &DailyExpense) -> Option<(Decimal, String)> {
        changed(n.amount, &n.currency, s.amount, &s.currency)
    }
}

impl Proposal for ExpenseInput {
    fn record(n: &NewExpense) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("name".into(), json!(n.name));
        m.insert("amount".into(), amt(n.amount));
        m.insert("currency".into(), json!(n.currency));
        schedule_fields(&n.schedule, &mut m);
        m.insert("accountId".into(), json!(n.account_id));
        m.insert("categoryId".into(), json!(n.category_id));
        m.insert("isSubscription".into(), json!(n.is_subscription));
        m.insert("notes".into(), json!(n.notes));
        if let Some(from) = n.amount_from {
            m.insert("amountFrom".into(), json!(from.to_string()));
        }
        m
    }

    fn line(_: &Connection, user: &User, n: &NewExpense) -> Result<String> {
        let l = user.locale;
        let label = match (n.is_subscription, l) {
            (true, Locale::De) => "Abo",
            (true, Locale::En) => "Subscription",
            (false, _) => Kind::Expense.label(l),
        };
        Ok(format!(
            "{label} {} {} {}{}",
            quoted(&n.name, l),
            format::money(n.amount, &n.currency, l),
            when(&n.schedule, l),
            amount_from(n.amount_from, l)
        ))
    }

    fn was(n: &NewExpense, s: &Expense) -> Option<(Decimal, String)> {
        changed(n.amount, &n.currency, s.amount, &s.currency)
    }
}

impl Proposal for IncomeInput {
    fn record(n: &NewIncome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("name".into(), json!(n.name));
        m.insert("amount".into(), amt(n.amount));
        m.insert("currency".into(), json!(n.currency));
        schedule_fields(&n.schedule, &mut m);
        m.insert("accountId".into(), json!(n.account_id));
        m.insert("notes".into(), json!(n.notes));
        if let Some(from) = n.amount_from {
            m.insert("amountFrom".into(), json!(from.to_string()));
        }
        m
    }

    fn line(_: &Connection, user: &User, n: &NewIncome) -> Result<String> {
        let l = user.locale;
        Ok(format!(
            "{} {} {} {}{}",
            Kind::Income.label(l),
            quoted(&n.name, l),
            format::money(n.amount, &n.currency, l),
            when(&n.schedule, l),
            amount_from(n.amount_from, l)
        ))
    }

    fn was(n: &NewIncome, s: &Income) -> Option<(Decimal, String)> {
        changed(n.amount, &n.currency, s.amount, &s.currency)
    }
}

impl Proposal for TransferInput {
    fn record(n: &NewTransfer) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("fromAccountId".into(), json!(n.from_account_id));
        m.insert("toAccountId".into(), json!(n.to_account_id));
        m.insert("amount".into(), amt(n.amount));
        m.insert("currency".into(), json!(n.currency));
        schedule_fields(&n.schedule, &mut m);
        m.insert("note".into(), json!(n.note));
        m
    }

    fn line(c: &Connection, user: &User, n: &NewTransfer) -> Result<String> {
        let l = user.locale;
        let (from, to) = (
            account_name(c, user, &n.from_account_id)?,
            account_name(c, user, &n.to_account_id)?,
        );
        let (label, amount, when) = (
            Kind::Transfer.label(l),
            format::money(n.amount, &n.currency, l),
            when(&n.schedule, l),
        );
        Ok(match l {
            Locale::De => format!("{label} {amount} von {from} auf {to} {when}"),
            Locale::En => format!("{label} {amount} from {from} to {to} {when}"),
        })
    }

    fn was(n: &NewTransfer, s: &Transfer) -> Option<(Decimal, String)> {
        changed(n.amount, &n.currency, s.amount, &s.currency)
    }
}

// ---------------------------------------------------------------------------
// Read tools
// ---------------------------------------------------------------------------

/// Runs the read tool `name`: its result and the line for the person.
async fn read(state: &AppState, user: &User, name: &str, args: Args) -> Result<(Value, String)> {
    let (rates, today) = (state.rates.current(), state.clock.today());
    let user = user.clone();
    let db = &state.db;
    match name {
        "get_summary" => {
            let first = args.month(today)?;
            db.run(move |c| get_summary(c, &user, &rates, first, today))
                .await
        }
        "list_accounts" => db.run(move |c| list_accounts(c, &user, &rates)).await,
        "list_payments" => {
            let (from, to) = (args.date("from")?, args.date("to")?);
            if to < from {
                return Err(Error::invalid("to", "must not be before from"));
            }
            if (to - from).num_days() > crate::reports::payments::MAX_SPAN_DAYS {
                return Err(Error::invalid(
                    "to",
                    "must be at most 365 days after from (ask for one year at a time)",
                ));
            }
            db.run(move |c| list_payments(c, &user, &rates, from, to))
                .await
        }
        "search" => {
            // As the `search` action reads its query.
            let query = args.text("query")?.unwrap_or_default();
            if query.is_empty() {
                return Err(Error::invalid("query", "is required"));
            }
            if query.chars().count() > 100 {
                return Err(Error::invalid("query", "must be at most 100 characters"));
            }
            db.run(move |c| run_search(c, &user, query)).await
        }
        "get_account_forecast" => {
            let months = args.int("months", 1..=24)?.unwrap_or(12) as u32;
            db.run(move |c| account_forecast(c, &user, &rates, &args, months, today))
                .await
        }
        "get_reserve_plan" => db.run(move |c| reserve_plan(c, &user, &rates, today)).await,
        "list_insights" => {
            let now = timestamp(state.clock.now());
            db.run(move |c| list_insights(c, &user, &now)).await
        }
        "spending_by_category" => {
            let first = args.month(today)?;
            db.run(move |c| spending_by_category(c, &user, &rates, first, today))
                .await
        }
        "list_subscriptions" => {
            db.run(move |c| list_subscriptions(c, &user, &rates, today))
                .await
        }
        _ => {
            let names: Vec<&str> = READ_TOOLS
                .iter()
                .map(|t| t.0)
                .chain(WRITE_TOOLS.iter().map(|t| t.0))
                .collect();
            Err(Error::refused(format!(
                "unknown tool {name:?}; the tools are {}",
                names.join(", ")
            )))
        }
    }
}

/// A line in the user's language.
fn said(l: Locale, de: String, en: String) -> String {
    match l {
        Locale::De => de,
        Locale::En => en,
    }
}

fn month_view(v: &dashboard::MonthView) -> Value {
    json!({
        "income": amt(v.income),
        "expenses": amt(v.expenses),
        "surplus": amt(v.surplus),
        "incomeChangePct": pct(v.income_change_pct),
        "expensesChangePct": pct(v.expenses_change_pct),
    })
}

/// `get_summary`: the dashboard of a month (`reports::dashboard`, as `getDashboard`).
fn get_summary(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
    first: NaiveDate,
    today: NaiveDate,
) -> Result<(Value, String)> {
    let d = dashboard::dashboard(c, user, rates, first, today)?;
    let upcoming: Vec<Value> = d
        .upcoming
        .iter()
        .map(|p| json!({"date": p.date, "type": p.kind, "name": p.name, "amount": amt(p.amount)}))
        .collect();
    let result = json!({
        "currency": d.currency,
        "year": d.year,
        "month": d.month,
        "totalAssets": amt(d.total_assets),
        "cashflow": month_view(&d.cashflow),
        "reserve": month_view(&d.reserve),
        "recurring": {
            "fixedCostsMonthly": amt(d.recurring.fixed_costs_monthly),
            "fixedCostsCount": d.recurring.fixed_costs_count,
            "subscriptionsMonthly": amt(d.recurring.subscriptions_monthly),
            "subscriptionsCount": d.recurring.subscriptions_count,
        },
        "upcoming": upcoming,
    });
    let (l, month) = (user.locale, user.locale.month_year(d.year, d.month));
    Ok((
        result,
        said(
            l,
            format!("Übersicht für {month} angesehen"),
            format!("looked at your summary for {month}"),
        ),
    ))
}

/// `list_accounts`: the accounts with their balance in the base currency
/// (`Rates::to_base`, as `/api/v1/accounts` converts it).
fn list_accounts(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
) -> Result<(Value, String)> {
    let accounts: Vec<Value> = table::all::<Account>(c, &user.id)?
        .into_iter()
        .map(|a| {
            let in_base = rates.to_base(a.balance, &a.currency, &user.base_currency);
            json!({
                "id": a.id,
                "name": a.name,
                "type": a.kind,
                "currency": a.currency,
                "balance": amt(a.balance),
                "balanceInBase": amt(in_base),
            })
        })
        .collect();
    Ok((
        json!({"currency": user.base_currency, "accounts": accounts}),
        said(
            user.locale,
            "Konten angesehen".into(),
            "looked at your accounts".into(),
        ),
    ))
}

/// `list_payments`: `reports::payments::Source` a month at a time (as
/// `/api/v1/payments`), stopping after [`PAYMENTS_MAX`].
fn list_payments(
    c: &Connection,
    user: &User,
    rates: &std::sync::Arc<crate::domain::rates::Rates>,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<(Value, String)> {
    let source = Source::load(c, user, rates)?;
    let mut payments = Vec::new();
    let mut truncated = false;
    'months: for (first, last) in months(from, to) {
        for p in source.between(c, first, last)? {
            if payments.len() == PAYMENTS_MAX {
                truncated = true;
                break 'months;
            }
            let mut v = json!({
                "id": p.id, "date": p.date, "type": p.kind, "name": p.name,
                "amount": amt(p.amount),
            });
            if p.original_currency != source.currency() {
                v["originalAmount"] = amt(p.original_amount);
                v["originalCurrency"] = json!(p.original_currency);
            }
            if let Some(k) = &p.category {
                v["category"] = json!(k.name);
            }
            if p.is_subscription {
                v["isSubscription"] = json!(true);
            }
            payments.push(v);
        }
    }
    let l = user.locale;
    let (f, t) = (format::date(from, l), format::date(to, l));
    Ok((
        json!({
            "currency": source.currency(), "from": from, "to": to,
            "count": payments.len(), "truncated": truncated, "payments": payments,
        }),
        said(
            l,
            format!("Zahlungen vom {f} bis {t} angesehen"),
            format!("looked at your payments from {f} to {t}"),
        ),
    ))
}

/// `search`: `store::search`, as the `search` action.
fn run_search(c: &Connection, user: &User, query: String) -> Result<(Value, String)> {
    let hits: Vec<Value> = search::search(c, &user.id, &query, search::LIMIT)?
        .into_iter()
        .map(|h| {
            json!({
                "kind": h.kind, "id": h.id, "name": h.name, "date": h.date,
                "amount": opt_amt(h.amount), "currency": h.currency,
            })
        })
        .collect();
    let q = quoted(&query, user.locale);
    Ok((
        json!({"query": query, "hits": hits}),
        said(
            user.locale,
            format!("nach {q} gesucht"),
            format!("searched for {q}"),
        ),
    ))
}

/// The account a call names: by `accountId`, else by `accountName` (the
/// same name without regard to case, else the one account whose name
/// contains it). An `accountId` that is no id is tried as a name, since
/// models mix the two up.
fn find_account(c: &Connection, user: &User, args: &Args) -> Result<Account> {
    let accounts = table::all::<Account>(c, &user.id)?;
    let id = args.text("accountId")?;
    if let Some(a) = id
        .as_ref()
        .and_then(|id| accounts.iter().find(|a| a.id == *id))
    {
        return Ok(a.clone());
    }
    let (field, wanted) = match (args.text("accountName")?, id) {
        (Some(name), _) => ("accountName", name),
        (None, Some(id)) => ("accountId", id),
        (None, None) => return Err(Error::invalid("accountId", "is required (or accountName)")),
    };
    let lower = wanted.to_lowercase();
    let exact: Vec<&Account> = accounts
        .iter()
        .filter(|a| a.name.to_lowercase() == lower)
        .collect();
    let found = if exact.is_empty() {
        accounts
            .iter()
            .filter(|a| a.name.to_lowercase().contains(&lower))
            .collect()
    } else {
        exact
    };
    let names = |list: &[&Account]| {
        list.iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match found[..] {
        [one] => Ok(one.clone()),
        [] => {
            let all: Vec<&Account> = accounts.iter().collect();
            Err(Error::invalid(
                field,
                format!(
                    "no account {wanted:?}; the accounts are: {}",
                    if all.is_empty() {
                        "none".into()
                    } else {
                        names(&all)
                    }
                ),
            ))
        }
        _ => Err(Error::invalid(
            field,
            format!(
                "{wanted:?} matches several accounts ({}); give accountId",
                names(&found)
            ),
        )),
    }
}

/// `get_account_forecast`: `reports::forecasts::for_account`, as
/// `getAccountForecast`.
fn account_forecast(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
    args: &Args,
    months: u32,
    today: NaiveDate,
) -> Result<(Value, String)> {
    let account = find_account(c, user, args)?;
    let outlook = forecasts::for_account(c, user, rates, &account.id, months, today)?
        .ok_or(Error::NotFound)?;
    let f = outlook.forecast;
    let monthly: Vec<Value> = f
        .monthly
        .iter()
        .map(|m| {
            json!({
                "year": m.year, "month": m.month, "income": amt(m.income),
                "expenses": amt(m.expenses), "transfersIn": amt(m.transfers_in),
                "transfersOut": amt(m.transfers_out), "net": amt(m.net),
                "balance": opt_amt(m.balance),
            })
        })
        .collect();
    let a = outlook.account;
    let result = json!({
        "account": {
            "id": a.id, "name": a.name, "type": a.kind, "currency": a.currency,
            "balance": amt(a.balance), "balanceInBase": amt(outlook.balance_in_base),
        },
        "currency": user.base_currency,
        "months": f.months,
        "isCumulative": f.is_cumulative,
        "projectedBalance": opt_amt(f.projected_balance),
        "monthly": monthly,
    });
    Ok((
        result,
        said(
            user.locale,
            format!("Prognose für {} angesehen", a.name),
            format!("looked at your forecast for {}", a.name),
        ),
    ))
}

/// `get_reserve_plan`: `reports::reserves::plan`, as `getReservePlan`.
fn reserve_plan(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
    today: NaiveDate,
) -> Result<(Value, String)> {
    let p = reserves::plan(c, user, rates, today)?;
    let entries: Vec<Value> = p
        .entries
        .iter()
        .map(|e| {
            json!({
                "expenseId": e.expense_id, "name": e.name, "frequency": e.frequency.code(),
                "amount": amt(e.amount), "currency": e.currency,
                "amountInBase": amt(e.amount_in_base), "nextDueDate": e.next_due_date,
                "monthlyAmount": amt(e.monthly_amount), "targetToday": amt(e.target_today),
                "pot": amt(e.pot), "gap": amt(e.gap),
            })
        })
        .collect();
    Ok((
        json!({
            "currency": p.currency, "monthlyTotal": amt(p.monthly_total),
            "targetTotal": amt(p.target_total), "potsTotal": amt(p.pots_total),
            "gapTotal": amt(p.gap_total), "entries": entries,
        }),
        said(
            user.locale,
            "Rücklagenplan angesehen".into(),
            "looked at your reserve plan".into(),
        ),
    ))
}

/// `list_insights`: `store::insights::current`, as `listInsights`, in the
/// user's language (stored in German; other languages are made from the
/// finding, as the insights page does).
fn list_insights(c: &Connection, user: &User, now: &str) -> Result<(Value, String)> {
    let l = user.locale;
    let list: Vec<Value> = insights::current(c, &user.id, now, insights::LIMIT)?
        .into_iter()
        .map(|listed| {
            let i = listed.insight;
            let (title, message) = i.text(l);
            json!({
                "id": i.id, "type": i.kind, "severity": i.severity, "title": title,
                "message": message, "createdAt": i.created_at, "isRead": listed.is_read,
            })
        })
        .collect();
    Ok((
        json!({"insights": list}),
        said(
            l,
            "Hinweise angesehen".into(),
            "looked at your insights".into(),
        ),
    ))
}

/// `spending_by_category`: the dashboard's `byCategory` of a month, with
/// the categories' limits.
fn spending_by_category(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
    first: NaiveDate,
    today: NaiveDate,
) -> Result<(Value, String)> {
    let d = dashboard::dashboard(c, user, rates, first, today)?;
    let limits: HashMap<String, Option<Decimal>> = table::all::<Category>(c, &user.id)?
        .into_iter()
        .map(|k| (k.id, k.monthly_limit))
        .collect();
    let l = user.locale;
    let categories: Vec<Value> = d
        .by_category
        .iter()
        .map(|s| {
            let name = s
                .category
                .as_ref()
                .map_or(l.texts().uncategorised, |k| k.name.as_str());
            let limit = s
                .category_id
                .as_ref()
                .and_then(|id| limits.get(id).copied().flatten());
            json!({
                "categoryId": s.category_id, "name": name, "amount": amt(s.amount),
                "monthlyLimit": opt_amt(limit),
            })
        })
        .collect();
    let month = l.month_year(d.year, d.month);
    Ok((
        json!({
            "currency": d.currency, "year": d.year, "month": d.month,
            "expenses": amt(d.cashflow.expenses), "categories": categories,
        }),
        said(
            l,
            format!("Ausgaben nach Kategorie für {month} angesehen"),
            format!("looked at your spending by category for {month}"),
        ),
    ))
}

/// `list_subscriptions`: `reports::subscriptions`, as `listSubscriptions`.
fn list_subscriptions(
    c: &Connection,
    user: &User,
    rates: &crate::domain::rates::Rates,
    today: NaiveDate,
) -> Result<(Value, String)> {
    let s = subscriptions::subscriptions(c, user, rates, today)?;
    let list: Vec<Value> = s
        .subscriptions
        .iter()
        .map(|x| {
            let e = &x.expense;
            json!({
                "id": e.id, "name": e.name, "amount": amt(e.amount), "currency": e.currency,
                "frequency": e.frequency.code(), "startDate": e.start_date, "endDate": e.end_date,
                "monthlyAmount": amt(x.monthly_amount), "yearlyAmount": amt(x.yearly_amount),
                "monthlyInBase": amt(x.monthly_in_base), "active": x.active,
            })
        })
        .collect();
    Ok((
        json!({
            "currency": s.currency, "monthlyTotal": amt(s.monthly_total),
            "yearlyTotal": amt(s.yearly_total), "subscriptions": list,
        }),
        said(
            user.locale,
            "Abos angesehen".into(),
            "looked at your subscriptions".into(),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::users::UserId;

    fn user(locale: Locale) -> User {
        User {
            id: UserId::test("u"),
            email: "u@example.org".into(),
            name: String::new(),
            locale,
            base_currency: "EUR".into(),
            created_at: String::new(),
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    fn args(v: Value) -> Args {
        Args(v.as_object().unwrap().clone())
    }

    /// Every `$ref`, `$defs` and empty `enum` anywhere in `v`.
    fn unwanted(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "$ref" || k == "$defs" || k == "definitions" {
                        out.push(format!("{path}.{k}"));
                    }
                    if k == "enum" && x.as_array().is_none_or(|a| a.is_empty()) {
                        out.push(format!("{path}.enum"));
                    }
                    unwanted(x, &format!("{path}.{k}"), out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| unwanted(x, path, out)),
            _ => {}
        }
    }

    #[test]
    fn the_catalogue_is_flat_and_named_verb_object() {
        let tools = catalogue();
        assert_eq!(tools.len(), READ_TOOLS.len() + WRITE_TOOLS.len());
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "names are unique");
        for t in &tools {
            assert!(
                t.name.chars().all(|c| c.is_ascii_lowercase() || c == '_') && t.name.contains('_')
                    || t.name == "search",
                "{} is snake_case verb_object",
                t.name
            );
            assert!(!t.description.is_empty());
            let p = &t.parameters;
            assert_eq!(p["type"], "object", "{}", t.name);
            let props = p["properties"].as_object().unwrap();
            for r in p["required"].as_array().unwrap() {
                assert!(props.contains_key(r.as_str().unwrap()), "{} {r}", t.name);
            }
            for (k, v) in props {
                assert!(v["type"].is_string(), "{}.{k} has one type", t.name);
                assert!(!k.contains('_'), "{}.{k} is camelCase", t.name);
            }
            let mut bad = Vec::new();
            unwanted(p, &t.name, &mut bad);
            assert!(bad.is_empty(), "{bad:?}");
        }
    }

    #[test]
    fn each_write_tool_names_its_action_in_camel_case() {
        for (tool, _, update, action) in WRITE_TOOLS {
            // The action is the tool's name in camelCase.
            let camel: String = tool
                .split('_')
                .enumerate()
                .map(|(i, w)| {
                    if i == 0 {
                        w.to_string()
                    } else {
                        w[..1].to_uppercase() + &w[1..]
                    }
                })
                .collect();
            assert_eq!(&camel, action);
            assert_eq!(action_for(tool), Some(*action));
            assert!(is_write(tool));
            let schema = catalogue()
                .into_iter()
                .find(|t| t.name == *tool)
                .unwrap()
                .parameters;
            assert_eq!(
                schema["properties"].get("id").is_some(),
                *update,
                "{tool}: only updates take an id"
            );
        }
        assert_eq!(action_for("get_summary"), None);
        assert!(!is_write("get_summary"));
    }

    #[test]
    fn frequencies_offer_once_only_where_the_action_takes_it() {
        let tools = catalogue();
        let codes = |name: &str| -> Vec<String> {
            let t = tools.iter().find(|t| t.name == name).unwrap();
            t.parameters["properties"]["frequency"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert!(!codes("create_expense").contains(&"once".to_string()));
        assert!(codes("create_income").contains(&"once".to_string()));
        assert!(codes("update_transfer").contains(&"half_yearly".to_string()));
    }

    #[test]
    fn arguments_are_an_object_however_the_model_sends_it() {
        assert!(parse_arguments("").unwrap().is_empty());
        assert!(parse_arguments("  null ").unwrap().is_empty());
        assert!(parse_arguments("{}").unwrap().is_empty());
        assert_eq!(parse_arguments(r#"{"a":1}"#).unwrap()["a"], 1);
        // The object's JSON inside a JSON string.
        assert_eq!(parse_arguments(r#""{\"a\":1}""#).unwrap()["a"], 1);
        assert_eq!(
            parse_arguments("[1]").unwrap_err(),
            "arguments: must be a JSON object"
        );
        assert!(parse_arguments("{nope")
            .unwrap_err()
            .starts_with("arguments: not valid JSON"));
    }

    #[test]
    fn write_arguments_are_tidied_to_the_actions_names_and_forms() {
        let got = normalise(
            Kind::Expense,
            false,
            json!({
                "id": "ignored on a create",
                "name": 42,
                "amount": "12,40 €",
                "frequency": "Half-Yearly",
                "start_date": "01.12.2026",
                "endDate": "2027-06-01T00:00:00Z",
                "account_id": "a1",
                "isSubscription": "yes",
                "colour": "red",
            })
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_eq!(
            Value::Object(got),
            json!({
                "name": "42",
                "amount": "12,40",
                "frequency": "half_yearly",
                "startDate": "2026-12-01",
                "endDate": "2027-06-01",
                "accountId": "a1",
                "isSubscription": true,
            })
        );
        // An update keeps its id, and null (which clears a field).
        let got = normalise(
            Kind::Income,
            true,
            json!({"id": "x", "endDate": null, "frequency": "annually", "amount": 5})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(
            Value::Object(got),
            json!({"id": "x", "endDate": null, "frequency": "yearly", "amount": 5})
        );
        // What cannot be read stays, for the action to refuse by name.
        let got = normalise(
            Kind::Expense,
            false,
            json!({"isSubscription": "maybe", "startDate": "next week"})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(got["isSubscription"], "maybe");
        assert_eq!(got["startDate"], "next week");
        assert_eq!(normalise_frequency("einmalig"), "once");
        assert_eq!(normalise_frequency("Monthly"), "monthly");
        assert_eq!(normalise_date("5.3.2026"), "2026-03-05");
        assert_eq!(normalise_date("2026-03-05"), "2026-03-05");
        assert_eq!(normalise_date("5.3.26"), "5.3.26");
        assert_eq!(normalise_date("2026-03-05 10:00"), "2026-03-05");
        assert_eq!(normalise_date("2026-03-05ä"), "2026-03-05ä", "no panic");
        assert_eq!(normalise_date("ääääää"), "ääääää");
    }

    #[test]
    fn the_month_is_read_like_get_dashboard_and_from_yyyy_mm() {
        let today = day("2026-11-23");
        assert_eq!(args(json!({})).month(today).unwrap(), day("2026-11-01"));
        assert_eq!(
            args(json!({"year": 2025})).month(today).unwrap(),
            day("2025-01-01")
        );
        assert_eq!(
            args(json!({"year": "2025", "month": "7"}))
                .month(today)
                .unwrap(),
            day("2025-07-01")
        );
        assert_eq!(
            args(json!({"month": "2026-08"})).month(today).unwrap(),
            day("2026-08-01")
        );
        assert_eq!(
            args(json!({"month": 3.0})).month(today).unwrap(),
            day("2026-03-01")
        );
        assert_eq!(
            args(json!({"year": null, "month": ""}))
                .month(today)
                .unwrap(),
            day("2026-11-01"),
            "null and empty count as left out"
        );
        let err = |v: Value| args(v).month(today).unwrap_err().to_string();
        assert_eq!(
            err(json!({"month": 13})),
            "month: must be a whole number from 1 to 12"
        );
        assert_eq!(
            err(json!({"year": "soon"})),
            "year: must be a whole number from 1900 to 2200"
        );
        assert_eq!(
            err(json!({"month": "2026-13"})),
            "month: must be a month YYYY-MM"
        );
        assert_eq!(
            args(json!({"account_name": "Giro"}))
                .text("accountName")
                .unwrap()
                .as_deref(),
            Some("Giro"),
            "snake_case names are read too"
        );
    }

    #[test]
    fn lines_speak_the_users_language() {
        let c = Connection::open_in_memory().unwrap();
        let mut expense = NewDailyExpense {
            name: "Bäckerei".into(),
            amount: dec("12.4"),
            currency: "EUR".into(),
            date: day("2026-11-23"),
            account_id: "a".into(),
            category_id: None,
            merchant: String::new(),
            notes: String::new(),
        };
        let line = |e: &NewDailyExpense, l| DailyInput::line(&c, &user(l), e).unwrap();
        assert_eq!(
            line(&expense, Locale::De),
            "Einzelausgabe 12,40\u{a0}€ bei Bäckerei am 23.11.2026"
        );
        assert_eq!(
            line(&expense, Locale::En),
            "One-time expense €12.40 at Bäckerei on 23\u{a0}Nov\u{a0}2026"
        );
        expense.name = "Brötchen".into();
        expense.merchant = "Bäckerei Müller".into();
        assert_eq!(
            line(&expense, Locale::De),
            "Einzelausgabe „Brötchen“ 12,40\u{a0}€ bei Bäckerei Müller am 23.11.2026"
        );

        let rent = NewExpense {
            name: "Miete".into(),
            amount: dec("900"),
            currency: "EUR".into(),
            schedule: Schedule::new(
                Frequency::Monthly,
                day("2026-12-01"),
                Some(day("2027-11-30")),
            )
            .unwrap(),
            account_id: "a".into(),
            category_id: None,
            is_subscription: false,
            notes: String::new(),
            amount_from: None,
        };
        assert_eq!(
            ExpenseInput::line(&c, &user(Locale::De), &rent).unwrap(),
            "Wiederkehrende Ausgabe „Miete“ 900,00\u{a0}€ monatlich ab 01.12.2026 bis 30.11.2027"
        );
        let bonus = NewIncome {
            name: "Bonus".into(),
            amount: dec("500"),
            currency: "USD".into(),
            schedule: Schedule::once(day("2026-12-01")),
            account_id: "a".into(),
            notes: String::new(),
            amount_from: None,
        };
        assert_eq!(
            IncomeInput::line(&c, &user(Locale::En), &bonus).unwrap(),
            "Income “Bonus” $500.00 on 1\u{a0}Dec\u{a0}2026"
        );
    }

    #[test]
    fn records_carry_amounts_with_two_decimals_and_camel_case_names() {
        let r = IncomeInput::record(&NewIncome {
            name: "Gehalt".into(),
            amount: dec("2500"),
            currency: "EUR".into(),
            schedule: Schedule::new(Frequency::Monthly, day("2026-01-01"), None).unwrap(),
            account_id: "a".into(),
            notes: String::new(),
            amount_from: None,
        });
        assert_eq!(
            Value::Object(r),
            json!({
                "name": "Gehalt", "amount": "2500.00", "currency": "EUR",
                "frequency": "monthly", "startDate": "2026-01-01", "endDate": null,
                "accountId": "a", "notes": "",
            })
        );
        assert_eq!(amt(dec("0.1")), json!("0.10"));
        assert_eq!(pct(Some(dec("12.34"))), json!("12.3"));
        assert_eq!(pct(None), Value::Null);
    }
}
