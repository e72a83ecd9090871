//! The tools the model may call, as it is told of them: a flat JSON-schema
//! `parameters` object per tool (no `$ref`, no `$defs`, no empty `enum`:
//! local models refuse or misread them). The property names of a write
//! tool are the camelCase input names of its record, so Confirm books the
//! arguments as they are.

use super::reads::READ_TOOLS;
use super::*;
use crate::app::records::{EachKind, Verb};
use crate::i18n::assistant::Entry;

/// The kinds of record the write tools propose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    DailyExpense,
    Expense,
    Income,
    Transfer,
}

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

pub(super) const AMOUNT: &str = "positive, at most two decimals, e.g. 12.40";
pub(super) const CURRENCY: &str = "ISO code such as EUR; default: the account's currency";
pub(super) const ACCOUNT: &str = "id of one of the user's accounts (list_accounts)";
pub(super) const CATEGORY: &str = "id of one of the user's categories (search finds it by name)";

pub(super) const DAILY_FIELDS: &[Field] = &[
    Field("name", Ty::Text, true, "what was paid for"),
    Field("amount", Ty::Amount, true, AMOUNT),
    Field("currency", Ty::Text, false, CURRENCY),
    Field("date", Ty::Date, true, "the day, YYYY-MM-DD"),
    Field("accountId", Ty::Text, true, ACCOUNT),
    Field("categoryId", Ty::Text, false, CATEGORY),
    Field("merchant", Ty::Text, false, "the shop or payee"),
    Field("notes", Ty::Text, false, "free text"),
];

pub(super) const EXPENSE_FIELDS: &[Field] = &[
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

pub(super) const INCOME_FIELDS: &[Field] = &[
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

pub(super) const TRANSFER_FIELDS: &[Field] = &[
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

/// The write tools: name, kind, whether it changes a stored record. Each
/// calls its kind's create or update action ([`write_call`]).
pub(super) const WRITE_TOOLS: &[(&str, Kind, bool)] = &[
    ("create_daily_expense", Kind::DailyExpense, false),
    ("update_daily_expense", Kind::DailyExpense, true),
    ("create_expense", Kind::Expense, false),
    ("update_expense", Kind::Expense, true),
    ("create_income", Kind::Income, false),
    ("update_income", Kind::Income, true),
    ("create_transfer", Kind::Transfer, false),
    ("update_transfer", Kind::Transfer, true),
];

impl Kind {
    pub(super) fn fields(self) -> &'static [Field] {
        match self {
            Kind::DailyExpense => DAILY_FIELDS,
            Kind::Expense => EXPENSE_FIELDS,
            Kind::Income => INCOME_FIELDS,
            Kind::Transfer => TRANSFER_FIELDS,
        }
    }

    /// What the model is told the tool is for.
    pub(super) fn about(self) -> &'static str {
        match self {
            Kind::DailyExpense => "a one-time expense (a purchase, a bill paid once)",
            Kind::Expense => {
                "a recurring expense (rent, insurance, a subscription with isSubscription)"
            }
            Kind::Income => "an income (salary, a single payment with frequency once)",
            Kind::Transfer => "a transfer between two of the user's own accounts",
        }
    }

    /// The entry a summary line names.
    pub(super) fn entry(self) -> Entry {
        match self {
            Kind::DailyExpense => Entry::DailyExpense,
            Kind::Expense => Entry::Expense,
            Kind::Income => Entry::Income,
            Kind::Transfer => Entry::Transfer,
        }
    }
}

/// The write tool of this name: its kind and whether it is an update.
pub(super) fn write_tool(name: &str) -> Option<(Kind, bool)> {
    WRITE_TOOLS.iter().find(|t| t.0 == name).map(|t| (t.1, t.2))
}

/// What a write tool's Confirm does: `door` is run for the kind of record
/// it writes, and the answer is whether it creates or updates one; `None`
/// for a read tool or an unknown name. A door names the action from both
/// (`create_daily_expense` → `createDailyExpense`).
pub fn write_call(tool: &str, door: &mut impl EachKind) -> Option<Verb> {
    let (kind, update) = write_tool(tool)?;
    match kind {
        Kind::DailyExpense => door.kind::<DailyInput>(),
        Kind::Expense => door.kind::<ExpenseInput>(),
        Kind::Income => door.kind::<IncomeInput>(),
        Kind::Transfer => door.kind::<TransferInput>(),
    }
    Some(if update { Verb::Update } else { Verb::Create })
}

/// Whether `name` is a write tool (its call becomes a preview).
pub fn is_write(name: &str) -> bool {
    write_tool(name).is_some()
}

/// Whether the write tool `name` books an expense (one-time or recurring):
/// its confirm works out the budget insights again.
pub fn spends(name: &str) -> bool {
    matches!(
        write_tool(name),
        Some((Kind::DailyExpense | Kind::Expense, _))
    )
}

pub(super) fn schema_of(ty: Ty, about: &str) -> Value {
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
    for (name, description, params, required, _) in READ_TOOLS {
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
    for (name, kind, update) in WRITE_TOOLS {
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
