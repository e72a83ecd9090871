//! The write tools: a create and an update tool for each kind of record
//! the assistant may propose ([`each_proposed`]), made from the kind's
//! record input and its [`Proposal`] impl (the fields the model is told
//! of, what the record is, the line for the person).
//!
//! Write tools never write: their arguments are decoded into the record's
//! own input and checked by its own `validate` (with the stored record for
//! an update, the per-user limit for a create) inside a transaction that
//! is rolled back, so a preview refuses exactly what the write would. A
//! confirmed proposal is booked through the same write ([`book`]).

use super::arguments::{normalise_date, normalise_frequency, snake};
use super::values::amt;
use super::{reads, Preview};
use crate::app::input;
use crate::app::records::recurring::{self, Over, RecurringInput};
use crate::app::records::{
    self, DailyInput, EachKind, ExpenseInput, IncomeInput, Record, TransferInput, Update, Verb,
};
use crate::domain::recurrence::Schedule;
use crate::error::{Error, Reason, Result};
use crate::i18n::assistant::{amount_from, quoted, when, Entry};
use crate::i18n::{self, format};
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::daily_expenses::{DailyEntry, DailyExpense};
use crate::store::expenses::Expense;
use crate::store::incomes::Income;
use crate::store::recurring::{NewRecurring, Planned};
use crate::store::table::{self, Table};
use crate::store::transfers::{NewTransfer, Transfer};
use crate::store::users::User;
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::sync::LazyLock;

/// How a write tool's argument is read (and tidied, see `normalise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Text,
    Amount,
    Date,
    /// `once` allowed or not.
    Frequency(bool),
    Bool,
}

/// One input field of a record's action: name, how it is read, whether a
/// create needs it, what the model is told.
pub(super) struct Field(
    pub(super) &'static str,
    pub(super) Ty,
    pub(super) bool,
    pub(super) &'static str,
);

const AMOUNT: &str = "positive, at most two decimals, e.g. 12.40";
const CURRENCY: &str = "ISO code such as EUR; default: the account's currency";
const ACCOUNT: &str = "id of one of the user's accounts (list_accounts)";
const CATEGORY: &str = "id of one of the user's categories (search finds it by name)";
const START_ONCE: Field = Field(
    "startDate",
    Ty::Date,
    true,
    "first (or only) date, YYYY-MM-DD",
);
const END: Field = Field(
    "endDate",
    Ty::Date,
    false,
    "last day, inclusive, YYYY-MM-DD",
);
const AMOUNT_FROM: Field = Field(
    "amountFrom",
    Ty::Date,
    false,
    "only when changing an amount: the first day the new amount applies, YYYY-MM-DD; payments before keep theirs (default today)",
);

/// What a write tool's Confirm does: `door` is run for the kind of record
/// it writes, and the answer is whether it creates or updates one; `None`
/// for a read tool or an unknown name. A door names the action from both
/// (`create_daily_expense` → `createDailyExpense`, `http::names::tool`).
pub fn write_call(tool: &str, door: &mut impl EachKind) -> Option<Verb> {
    let write = write_tool(tool)?;
    struct Pick<'a, D> {
        kind: usize,
        at: usize,
        door: &'a mut D,
    }
    impl<D: EachKind> EachProposed for Pick<'_, D> {
        fn kind<R: Proposal>(&mut self) {
            if self.at == self.kind {
                self.door.kind::<R>();
            }
            self.at += 1;
        }
    }
    each_proposed(&mut Pick {
        kind: write.kind,
        at: 0,
        door,
    });
    Some(if write.update {
        Verb::Update
    } else {
        Verb::Create
    })
}

/// Whether `name` is a write tool (its call becomes a preview).
pub fn is_write(name: &str) -> bool {
    write_tool(name).is_some()
}

/// Whether the write tool `name` books an expense (one-time or recurring):
/// its confirm works out the budget insights again.
pub fn spends(name: &str) -> bool {
    write_tool(name).is_some_and(|t| t.spends)
}

/// A write tool: the create or the update action of a kind of record the
/// assistant may propose, everything about it taken from that kind.
pub(super) struct WriteTool {
    /// The verb and the kind's noun in snake_case: `create_daily_expense`
    /// (the door names the action its Confirm calls, [`write_call`]).
    pub(super) name: String,
    /// Which of [`each_proposed`]'s kinds it writes.
    kind: usize,
    /// Whether it changes a stored record (and takes its `id`).
    pub(super) update: bool,
    /// Its arguments, as the model is told of them ([`Proposal::FIELDS`]).
    pub(super) fields: &'static [Field],
    /// What the model is told the record is ([`Proposal::ABOUT`]).
    pub(super) about: &'static str,
    /// What a refusal's line calls the record ([`Proposal::ENTRY`]).
    pub(super) entry: Entry,
    /// Whether it books an expense ([`Record::SPENDS`]).
    pub(super) spends: bool,
    /// [`check`] for the kind.
    check: CheckFn,
    /// [`written`] for the kind.
    written: WriteFn,
}

/// A kind's [`check`]: the record and the line a preview shows.
type CheckFn = fn(&Connection, &User, Value, bool) -> Result<(Value, String)>;
/// A kind's [`written`]: the record as its action answers it.
type WriteFn = fn(&Connection, &User, Value, bool, &str, NaiveDate) -> Result<Value>;

/// What is done for every kind of record the assistant may propose
/// ([`each_proposed`]).
pub(super) trait EachProposed {
    fn kind<R: Proposal>(&mut self);
}

/// The kinds of record the assistant may propose, each a record input
/// with a [`Proposal`] impl, in the order the model is told of their
/// tools: a kind is one line here.
pub(super) fn each_proposed(each: &mut impl EachProposed) {
    each.kind::<DailyInput>();
    each.kind::<ExpenseInput>();
    each.kind::<IncomeInput>();
    each.kind::<TransferInput>();
}

/// The tool `verb` of the kind `R`: the verb and the kind's noun in
/// snake_case (`create_daily_expense`).
pub(super) fn tool_name<R: Record>(verb: Verb) -> String {
    let word = match verb {
        Verb::List => "list",
        Verb::Create => "create",
        Verb::Update => "update",
        Verb::Delete => "delete",
    };
    format!("{word}{}", snake(R::NOUN[0]))
}

/// The create and the update tool of every kind proposed.
struct Tools(Vec<WriteTool>);

impl EachProposed for Tools {
    /// The create and the update tool of the kind `R`.
    fn kind<R: Proposal>(&mut self) {
        // Two tools for each kind before this one.
        let kind = self.0.len() / 2;
        for verb in [Verb::Create, Verb::Update] {
            self.0.push(WriteTool {
                name: tool_name::<R>(verb),
                kind,
                update: verb == Verb::Update,
                fields: R::FIELDS,
                about: R::ABOUT,
                entry: R::ENTRY,
                spends: R::SPENDS,
                check: check::<R>,
                written: written::<R>,
            });
        }
    }
}

/// Every write tool.
pub(super) static WRITE_TOOLS: LazyLock<Vec<WriteTool>> = LazyLock::new(|| {
    let mut tools = Tools(Vec::new());
    each_proposed(&mut tools);
    tools.0
});

/// The write tool of this name.
pub(super) fn write_tool(name: &str) -> Option<&'static WriteTool> {
    WRITE_TOOLS.iter().find(|t| t.name == name)
}

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
    let Some(write) = write_tool(tool) else {
        let names: Vec<&str> = WRITE_TOOLS.iter().map(|t| t.name.as_str()).collect();
        return Err(Error::invalid(
            "tool",
            Reason::NotPreviewable {
                name: tool.to_string(),
                read_tool: reads::find(tool).is_some(),
                tools: names.into_iter().map(String::from).collect(),
            },
        ));
    };
    let arguments = Value::Object(normalise(write.fields, write.update, arguments));
    let (given, user, tool_name) = (arguments.clone(), user.clone(), tool.to_string());
    let locale = user.locale;
    let checked = state
        .db
        .run(move |c| {
            // Validation only reads; the transaction, never committed, makes
            // sure that nothing a check might do is kept.
            let tx = c.transaction()?;
            let checked = (write.check)(&tx, &user, given, write.update);
            drop(tx);
            match checked {
                Ok(done) => Ok(Ok(done)),
                Err(e @ Error::Internal(_)) => Err(e),
                Err(refusal) => Ok(Err(refusal.text(locale))),
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
            summary: i18n::assistant::not_possible(write.entry, &refusal, locale),
            errors: vec![refusal],
            record: Value::Null,
        },
    };
    Ok((arguments, preview))
}

/// Books a proposal: runs the write of `tool`'s action (`create…` or
/// `update…`, [`write_call`]) with `arguments` inside the caller's
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
    let Some(write) = write_tool(tool) else {
        return Err(Error::invalid(
            "tool",
            Reason::NotAWriteTool(tool.to_string()),
        ));
    };
    let record = (write.written)(tx, user, arguments, write.update, now, today)?;
    let id = record
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("a written {tool} record has no id")))?;
    Ok((id, record))
}

pub(super) fn written<R: Record>(
    tx: &Connection,
    user: &User,
    arguments: Value,
    update: bool,
    now: &str,
    today: NaiveDate,
) -> Result<Value> {
    let record = if update {
        records::update_in(tx, &user.id, Update::<R>::decode(arguments)?, now, today)?
    } else {
        records::create_in(tx, &user.id, input::decode::<R>(arguments)?, now, today)?
    };
    serde_json::to_value(record).map_err(|e| Error::Internal(e.into()))
}

/// A validated record, as the action would write it.
pub(super) type New<R> = <<R as Record>::Stored as Table>::New;

/// A record input that the write tools propose: what the model is told
/// of it, and how its validated record and the line for the person are
/// made.
pub(super) trait Proposal: Record {
    /// The fields its tools take, as the model is told of them, under the
    /// input's own camelCase names (a test holds them to the input's).
    const FIELDS: &'static [Field];
    /// What the model is told the record is.
    const ABOUT: &'static str;
    /// What a refused proposal's line calls it.
    const ENTRY: Entry;
    /// The validated fields, camelCase, amounts as decimal strings.
    fn record(new: &New<Self>) -> Map<String, Value>;
    /// The line for the person ("Einzelausgabe 12,40 € bei Bäckerei am 23.11.2026").
    fn line(c: &Connection, user: &User, new: &New<Self>) -> Result<String>;
    /// The stored amount and currency, when an update changes them.
    fn was(new: &New<Self>, stored: &Self::Stored) -> Option<(Decimal, String)>;
    /// The account it books on and its category (`Some(None)`: none
    /// chosen; `None`: the kind has none), said after the line; `None`
    /// for a transfer, whose line names both its accounts.
    fn booked_on(new: &New<Self>) -> Option<(&str, Option<Option<&str>>)>;
}

/// Decodes and validates `args` exactly as the action does (its input
/// type, its `validate`, the stored record of an update, the per-user
/// limit of a create, the table's own checks); answers the record and the
/// line, or the action's refusal.
pub(super) fn check<R: Proposal>(
    c: &Connection,
    user: &User,
    args: Value,
    update: bool,
) -> Result<(Value, String)> {
    let (id, stored, new) = if update {
        let Update { id, fields } = Update::<R>::decode(args)?;
        let id = input::required_id(id)?;
        let stored = table::find::<R::Stored>(c, &user.id, &id)?.ok_or(Error::NotFound)?;
        let new = fields.validate(c, &user.id, Some(&stored))?;
        <R::Stored as Table>::before_write(c, &user.id, &new, Some(&id))?;
        (Some(id), Some(stored), new)
    } else {
        let new = input::decode::<R>(args)?.validate(c, &user.id, None)?;
        R::CAP.check(c, &user.id)?;
        <R::Stored as Table>::before_write(c, &user.id, &new, None)?;
        (None, None, new)
    };
    let mut record = Map::new();
    if let Some(id) = id {
        record.insert("id".into(), Value::String(id));
    }
    record.extend(R::record(&new));
    let locale = user.locale;
    let mut line = R::line(c, user, &new)?;
    if let Some((account, category)) = R::booked_on(&new) {
        let category = match category {
            Some(Some(id)) => Some(Some(category_name(c, user, id)?)),
            Some(None) => Some(None),
            None => None,
        };
        let account = account_name(c, user, account)?;
        line +=
            &i18n::assistant::booked_on(&account, category.as_ref().map(Option::as_deref), locale);
    }
    let summary = match stored {
        None => line,
        Some(stored) => {
            let was = R::was(&new, &stored).map(|(a, cur)| format::money(a, &cur, locale));
            i18n::assistant::change(&line, was.as_deref(), locale)
        }
    };
    Ok((Value::Object(record), summary))
}

/// The fields every schedule has.
pub(super) fn schedule_fields(s: &Schedule, out: &mut Map<String, Value>) {
    out.insert("frequency".into(), json!(s.frequency.code()));
    out.insert("startDate".into(), json!(s.start));
    out.insert("endDate".into(), json!(s.end));
}

/// The name of one of the user's accounts (validated before, so present).
pub(super) fn account_name(c: &Connection, user: &User, id: &str) -> Result<String> {
    Ok(table::find::<Account>(c, &user.id, id)?
        .map(|a| a.name)
        .unwrap_or_default())
}

/// The name of one of the user's categories (validated before, so present).
fn category_name(c: &Connection, user: &User, id: &str) -> Result<String> {
    Ok(table::find::<Category>(c, &user.id, id)?
        .map(|a| a.name)
        .unwrap_or_default())
}

/// A recurring expense's or income's line: "Einnahme „Gehalt“ 2.500,00 €
/// monatlich ab 01.01.2026".
fn recurring_line(entry: Entry, n: &NewRecurring, l: crate::domain::locale::Locale) -> String {
    format!(
        "{} {} {} {}{}",
        entry.label(l),
        quoted(&n.name, l),
        format::money(n.plan.amount, &n.plan.currency, l),
        when(&n.plan.schedule(), l),
        amount_from(n.amount_from, l)
    )
}

/// The stored amount and currency of a schedule, when the new one
/// changes them.
fn plan_changed(new: &Planned, was: &Planned) -> Option<(Decimal, String)> {
    changed(*new.amount, &new.currency, *was.amount, &was.currency)
}

pub(super) fn changed(
    amount: Decimal,
    currency: &str,
    was: Decimal,
    was_cur: &str,
) -> Option<(Decimal, String)> {
    (amount != was || currency != was_cur).then(|| (was, was_cur.to_string()))
}

impl Proposal for DailyInput {
    const FIELDS: &'static [Field] = &[
        Field("name", Ty::Text, true, "what was paid for"),
        Field("amount", Ty::Amount, true, AMOUNT),
        Field("currency", Ty::Text, false, CURRENCY),
        Field("date", Ty::Date, true, "the day, YYYY-MM-DD"),
        Field("accountId", Ty::Text, true, ACCOUNT),
        Field("categoryId", Ty::Text, false, CATEGORY),
        Field("merchant", Ty::Text, false, "the shop or payee"),
        Field("notes", Ty::Text, false, "free text"),
    ];
    const ABOUT: &'static str = "a one-time expense (a purchase, a bill paid once)";
    const ENTRY: Entry = Entry::DailyExpense;

    fn record(n: &DailyEntry) -> Map<String, Value> {
        let v = json!({
            "name": n.name, "amount": amt(n.amount), "currency": n.currency, "date": n.date,
            "accountId": n.account_id, "categoryId": n.category_id, "merchant": n.merchant,
            "notes": n.notes,
        });
        v.as_object().cloned().unwrap_or_default()
    }

    fn line(_: &Connection, user: &User, n: &DailyEntry) -> Result<String> {
        let l = user.locale;
        let amount = format::money(n.amount, &n.currency, l);
        // "bei Bäckerei": the merchant, or else the name; the name too
        // when both are given and differ.
        let merchant = n.merchant.trim();
        let (named, at) = if merchant.is_empty() || merchant.eq_ignore_ascii_case(&n.name) {
            (String::new(), n.name.as_str())
        } else {
            (format!("{} ", quoted(&n.name, l)), merchant)
        };
        Ok(i18n::assistant::one_time(&named, &amount, at, n.date, l))
    }

    fn was(n: &DailyEntry, s: &DailyExpense) -> Option<(Decimal, String)> {
        changed(*n.amount, &n.currency, *s.entry.amount, &s.entry.currency)
    }

    fn booked_on(n: &DailyEntry) -> Option<(&str, Option<Option<&str>>)> {
        Some((&n.account_id, Some(n.category_id.as_deref())))
    }
}

/// What a proposed recurring expense or income says besides the fields
/// both have.
pub(super) trait RecurringProposal: recurring::Kind {
    /// [`Proposal::FIELDS`].
    const FIELDS: &'static [Field];
    /// [`Proposal::ABOUT`].
    const ABOUT: &'static str;
    /// [`Proposal::ENTRY`].
    const ENTRY: Entry;
    /// Whether it has a category and a subscription flag.
    const CATEGORISED: bool;
    /// What its line calls it.
    fn entry(n: &NewRecurring) -> Entry;
}

impl RecurringProposal for Expense {
    const FIELDS: &'static [Field] = &[
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
        END,
        Field("accountId", Ty::Text, true, ACCOUNT),
        Field("categoryId", Ty::Text, false, CATEGORY),
        Field("isSubscription", Ty::Bool, false, "true for a subscription"),
        Field("notes", Ty::Text, false, "free text"),
        AMOUNT_FROM,
    ];
    const ABOUT: &'static str =
        "a recurring expense (rent, insurance, a subscription with isSubscription)";
    const ENTRY: Entry = Entry::Expense;
    const CATEGORISED: bool = true;
    fn entry(n: &NewRecurring) -> Entry {
        if n.is_subscription {
            Entry::Subscription
        } else {
            Entry::Expense
        }
    }
}

impl RecurringProposal for Income {
    const FIELDS: &'static [Field] = &[
        Field("name", Ty::Text, true, "e.g. Salary"),
        Field("amount", Ty::Amount, true, AMOUNT),
        Field("currency", Ty::Text, false, CURRENCY),
        Field(
            "frequency",
            Ty::Frequency(true),
            true,
            "how often it comes; once for a single payment",
        ),
        START_ONCE,
        END,
        Field("accountId", Ty::Text, true, ACCOUNT),
        Field("notes", Ty::Text, false, "free text"),
        AMOUNT_FROM,
    ];
    const ABOUT: &'static str = "an income (salary, a single payment with frequency once)";
    const ENTRY: Entry = Entry::Income;
    const CATEGORISED: bool = false;
    fn entry(_: &NewRecurring) -> Entry {
        Entry::Income
    }
}

impl<S, C, F> Proposal for RecurringInput<S, C, F>
where
    S: RecurringProposal,
    C: Over<String>,
    F: Over<bool>,
{
    const FIELDS: &'static [Field] = S::FIELDS;
    const ABOUT: &'static str = S::ABOUT;
    const ENTRY: Entry = S::ENTRY;

    fn record(n: &NewRecurring) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("name".into(), json!(n.name));
        m.insert("amount".into(), amt(n.plan.amount));
        m.insert("currency".into(), json!(n.plan.currency));
        schedule_fields(&n.plan.schedule(), &mut m);
        m.insert("accountId".into(), json!(n.account_id));
        if S::CATEGORISED {
            m.insert("categoryId".into(), json!(n.category_id));
            m.insert("isSubscription".into(), json!(n.is_subscription));
        }
        m.insert("notes".into(), json!(n.notes));
        if let Some(from) = n.amount_from {
            m.insert("amountFrom".into(), json!(from.to_string()));
        }
        m
    }

    fn line(_: &Connection, user: &User, n: &NewRecurring) -> Result<String> {
        Ok(recurring_line(S::entry(n), n, user.locale))
    }

    fn was(n: &NewRecurring, s: &S) -> Option<(Decimal, String)> {
        plan_changed(&n.plan, s.kept().plan)
    }

    fn booked_on(n: &NewRecurring) -> Option<(&str, Option<Option<&str>>)> {
        let category = S::CATEGORISED.then_some(n.category_id.as_deref());
        Some((&n.account_id, category))
    }
}

impl Proposal for TransferInput {
    const FIELDS: &'static [Field] = &[
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
        START_ONCE,
        END,
        Field("note", Ty::Text, false, "free text"),
    ];
    const ABOUT: &'static str = "a transfer between two of the user's own accounts";
    const ENTRY: Entry = Entry::Transfer;

    fn record(n: &NewTransfer) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("fromAccountId".into(), json!(n.from_account_id));
        m.insert("toAccountId".into(), json!(n.to_account_id));
        m.insert("amount".into(), amt(n.plan.amount));
        m.insert("currency".into(), json!(n.plan.currency));
        schedule_fields(&n.plan.schedule(), &mut m);
        m.insert("note".into(), json!(n.note));
        m
    }

    fn line(c: &Connection, user: &User, n: &NewTransfer) -> Result<String> {
        let l = user.locale;
        let (from, to) = (
            account_name(c, user, &n.from_account_id)?,
            account_name(c, user, &n.to_account_id)?,
        );
        let (amount, when) = (
            format::money(n.plan.amount, &n.plan.currency, l),
            when(&n.plan.schedule(), l),
        );
        Ok(i18n::assistant::transfer(&amount, &from, &to, &when, l))
    }

    fn was(n: &NewTransfer, s: &Transfer) -> Option<(Decimal, String)> {
        plan_changed(&n.plan, &s.plan)
    }

    fn booked_on(_: &NewTransfer) -> Option<(&str, Option<Option<&str>>)> {
        None
    }
}

/// A write tool's arguments as its action reads them: the tool's fields
/// only (`id` for an update), under their camelCase names (snake_case ones
/// renamed), the unambiguous forms of sloppy values tidied. What is still
/// wrong stays, for the action's decoding to name.
pub(super) fn normalise(
    fields: &[Field],
    update: bool,
    args: Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let id = Field("id", Ty::Text, true, "");
    let fields = update.then_some(&id).into_iter().chain(fields);
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
