//! The record engine: every kind of user-owned record (accounts,
//! categories, recurring expenses, one-time expenses, incomes, transfers)
//! is its store table, its input with its own validation, and a
//! [`Record`] impl; listing, creating, updating and deleting are written
//! once here. What the kinds share besides: checking that referenced
//! accounts and categories are the user's, and the currency that defaults
//! to the account's.

pub mod accounts;
pub mod categories;
pub mod daily_expenses;
pub mod expenses;
pub mod incomes;
pub mod recurring;
pub mod transfers;

pub use accounts::AccountInput;
pub use categories::CategoryInput;
pub use daily_expenses::DailyInput;
pub use expenses::ExpenseInput;
pub use incomes::IncomeInput;
pub use transfers::TransferInput;

use crate::app::budget_insights;
use crate::app::input::{self, IdInput, Patch};
use crate::domain::currency::Currency;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::table::{self, Table};
use crate::store::users::UserId;
use crate::store::{require_owned_field, Cap};
use chrono::NaiveDate;
use rusqlite::Connection;
use serde_json::Value;

/// The entry's currency: the given one, or else its account's. Fails naming
/// `account_field` when the account is not the user's.
pub fn currency_for(
    c: &Connection,
    user_id: &UserId,
    account_field: &'static str,
    account_id: &str,
    given: Option<String>,
) -> Result<String> {
    let account = table::find::<Account>(c, user_id, account_id)?
        .ok_or_else(|| Error::unknown(account_field))?;
    match given {
        Some(code) if !code.trim().is_empty() => {
            Ok(Currency::parse("currency", &code)?.code().to_string())
        }
        _ => Ok(account.currency),
    }
}

/// The entry's `accountId` (required, the user's) and its currency (the
/// given one, else the stored one, else the account's), each given over
/// the stored record's `(account_id, currency)` when updating.
pub fn account_and_currency(
    c: &Connection,
    user_id: &UserId,
    account: Patch<String>,
    currency: Patch<String>,
    stored: Option<(&str, &str)>,
) -> Result<(String, String)> {
    let account_id = input::optional_id(account.or(stored.map(|(a, _)| a.to_string())))
        .ok_or_else(|| Error::invalid("accountId", Reason::Required))?;
    let given = match currency {
        Patch::Absent => stored.map(|(_, code)| code.to_string()),
        p => p.or(None),
    };
    let currency = currency_for(c, user_id, "accountId", &account_id, given)?;
    Ok((account_id, currency))
}

/// Fails naming `categoryId` unless the category (if any) is the user's.
pub fn check_category(c: &Connection, user_id: &UserId, category_id: Option<&str>) -> Result<()> {
    match category_id {
        Some(id) => require_owned_field::<Category>(c, user_id, "categoryId", id),
        None => Ok(()),
    }
}

/// The input of one kind of user-owned record, as the generic create,
/// update and delete below see it: the record it makes (whose
/// [`Table`] keeps it), its name, the per-user limit a create checks, and
/// its own validation. A new kind of record is its table, its input, this
/// impl and a line in [`each_kind`]. The input holds the fields a create
/// or an update gives; an update's `id` is read beside them ([`Update`]).
pub trait Record: serde::de::DeserializeOwned + Send + Sync + 'static {
    /// The record as stored and answered.
    type Stored: Table + serde::Serialize + Send + Sync + 'static;
    /// The kind's noun, one and many, that its actions are named by
    /// (`docs/actions.md`, `http::names::record`): `["Category", "Categories"]` gives
    /// `listCategories`, `createCategory`, `updateCategory` and `deleteCategory`.
    const NOUN: [&'static str; 2];
    /// The per-user limit a create checks.
    const CAP: Cap;
    /// Whether the kind is spending (one-time and recurring expenses): a
    /// save of one works out the budget insights again
    /// ([`crate::app::budget_insights`]).
    const SPENDS: bool = false;

    /// The complete record from the input over the stored one (`None`
    /// when creating). Every field is checked ([`input::Checks`]), so that
    /// a form hears of all its errors at once.
    fn validate(
        self,
        c: &Connection,
        user_id: &UserId,
        stored: Option<&Self::Stored>,
    ) -> Result<<Self::Stored as Table>::New>;
    /// Runs in the same transaction after a create or update.
    fn after_write(
        _c: &Connection,
        _user_id: &UserId,
        _written: &Written<'_, Self::Stored>,
    ) -> Result<()> {
        Ok(())
    }
}

/// What a door does with a kind of record: one of its four actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    List,
    Create,
    Update,
    Delete,
}

impl Verb {
    pub const ALL: [Verb; 4] = [Verb::List, Verb::Create, Verb::Update, Verb::Delete];
}

/// What a door does for every kind of record ([`each_kind`]), such as
/// registering its actions.
pub trait EachKind {
    fn kind<R: Record>(&mut self);
}

/// Runs `door` for every kind of record, in the order `docs/actions.md`
/// lists them: a new kind is one line here.
pub fn each_kind(door: &mut impl EachKind) {
    door.kind::<AccountInput>();
    door.kind::<CategoryInput>();
    door.kind::<ExpenseInput>();
    door.kind::<DailyInput>();
    door.kind::<IncomeInput>();
    door.kind::<TransferInput>();
}

/// An update's input: the id of the record it changes and the fields it gives.
pub struct Update<R> {
    pub id: Option<String>,
    pub fields: R,
}

impl<R: Record> Update<R> {
    /// Reads an update from a door's JSON object: its `id` and the kind's
    /// fields, a failure naming its field.
    pub fn decode(json: Value) -> Result<Self> {
        let IdInput { id } = input::decode(json.clone())?;
        Ok(Update {
            id,
            fields: input::decode(json)?,
        })
    }
}

/// A record just created or updated, as [`Record::after_write`] sees it.
pub struct Written<'a, S: Table> {
    /// The record's id (a new one after a create).
    pub id: &'a str,
    /// The id and the record before an update; `None` after a create.
    pub stored: Option<(&'a str, &'a S)>,
    /// The record as written.
    pub record: &'a S,
    pub new: &'a S::New,
    pub now: &'a str,
    pub today: NaiveDate,
}

/// All of the user's records of a kind, in the table's order.
pub async fn list<R: Record>(state: &AppState, user: &UserId) -> Result<Vec<R::Stored>> {
    let (user, today) = (user.clone(), state.clock.today());
    let all = state
        .db
        .read(move |c| table::all::<R::Stored>(c, &user))
        .await?;
    Ok(all.into_iter().map(|r| r.shown_on(today)).collect())
}

/// Validates and inserts in one transaction ([`create_in`]).
pub async fn create<R: Record>(state: &AppState, user: &UserId, input: R) -> Result<R::Stored> {
    write::<R, _>(state, user, input, create_in).await
}

/// Runs `write` (a create or an update) in one transaction, as of now;
/// after an expense's, the budget insights are worked out again.
async fn write<R: Record, I: Send + 'static>(
    state: &AppState,
    user: &UserId,
    input: I,
    write: fn(&Connection, &UserId, I, &str, NaiveDate) -> Result<R::Stored>,
) -> Result<R::Stored> {
    let (user, now, today) = (
        user.clone(),
        crate::clock::timestamp(state.clock.now()),
        state.clock.today(),
    );
    let saved = state
        .db
        .transaction({
            let user = user.clone();
            move |tx| write(tx, &user, input, &now, today)
        })
        .await?;
    if R::SPENDS {
        budget_insights::refresh(state, &user).await;
    }
    Ok(saved)
}

/// What [`create`] does inside its transaction: validate, check the
/// per-user limit, insert, [`Record::after_write`]. Also the write of a
/// confirmed assistant proposal, in the proposal's transaction.
pub fn create_in<R: Record>(
    tx: &Connection,
    user: &UserId,
    input: R,
    now: &str,
    today: NaiveDate,
) -> Result<R::Stored> {
    let new = input.validate(tx, user, None)?;
    R::CAP.check(tx, user)?;
    let record = table::insert::<R::Stored>(tx, user, &new, now)?;
    let written = Written {
        id: record.id(),
        stored: None,
        record: &record,
        new: &new,
        now,
        today,
    };
    R::after_write(tx, user, &written)?;
    // Read again: `after_write` may have changed what the record shows.
    let record = table::find::<R::Stored>(tx, user, record.id())?.ok_or(Error::NotFound)?;
    Ok(record.shown_on(today))
}

/// The given fields over the stored record, validated and written in one
/// transaction ([`update_in`]); another user's id is not found.
pub async fn update<R: Record>(
    state: &AppState,
    user: &UserId,
    input: Update<R>,
) -> Result<R::Stored> {
    write::<R, _>(state, user, input, update_in).await
}

/// What [`update`] does inside its transaction: the stored record, the input validated over it, the write,
/// [`Record::after_write`], the record read again. Also the write of a
/// confirmed assistant proposal.
pub fn update_in<R: Record>(
    tx: &Connection,
    user: &UserId,
    input: Update<R>,
    now: &str,
    today: NaiveDate,
) -> Result<R::Stored> {
    let id = input::required_id(input.id)?;
    let stored = table::find::<R::Stored>(tx, user, &id)?.ok_or(Error::NotFound)?;
    let new = input.fields.validate(tx, user, Some(&stored))?;
    let record = table::update::<R::Stored>(tx, user, &id, &new, now)?.ok_or(Error::NotFound)?;
    let written = Written {
        id: &id,
        stored: Some((&id, &stored)),
        record: &record,
        new: &new,
        now,
        today,
    };
    R::after_write(tx, user, &written)?;
    // Read again: `after_write` may have changed what the record shows.
    let record = table::find::<R::Stored>(tx, user, &id)?.ok_or(Error::NotFound)?;
    Ok(record.shown_on(today))
}

/// Deletes one record; another user's id is not found.
pub async fn delete<R: Record>(state: &AppState, user: &UserId, id: String) -> Result<()> {
    let user = user.clone();
    if !state
        .db
        .run(move |c| table::delete::<R::Stored>(c, &user, &id))
        .await?
    {
        return Err(Error::NotFound);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{CategoryInput, Update};
    use crate::error::{Error, Reason};
    use serde_json::json;

    fn field(e: Error) -> String {
        match e {
            Error::Invalid { field, .. } => field.to_string(),
            other => panic!("not a field error: {other}"),
        }
    }

    /// An update's id and its fields are read from one object, and a
    /// failure names its field as a create's would.
    #[test]
    fn an_update_reads_its_id_beside_the_fields() {
        let u = Update::<CategoryInput>::decode(json!({"id": "c1", "name": "Rent"})).unwrap();
        assert_eq!(u.id.as_deref(), Some("c1"));
        let u = Update::<CategoryInput>::decode(json!({"name": "Rent"})).unwrap();
        assert_eq!(u.id, None);
        let bad_id = Update::<CategoryInput>::decode(json!({"id": 5, "name": "Rent"}));
        assert_eq!(field(bad_id.err().unwrap()), "id");
        let bad_name = Update::<CategoryInput>::decode(json!({"id": "c1", "name": 5}));
        let e = bad_name.err().unwrap();
        assert!(matches!(
            &e,
            Error::Invalid {
                reason: Reason::NotText,
                ..
            }
        ));
        assert_eq!(field(e), "name");
    }
}
