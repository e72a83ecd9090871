//! What the entry actions (expenses, one-time expenses, incomes, transfers)
//! share: checking that referenced accounts and categories are the user's,
//! and the currency that defaults to the account's.

use crate::domain::currency::Currency;
use crate::error::{Error, Result};
use crate::store::{accounts, require_owned_field, Owned};
use rusqlite::Connection;

/// The entry's currency: the given one, or else its account's. Fails naming
/// `account_field` when the account is not the user's.
pub fn currency_for(
    c: &Connection,
    user_id: &str,
    account_field: &'static str,
    account_id: &str,
    given: Option<String>,
) -> Result<String> {
    let account = accounts::find(c, user_id, account_id)?
        .ok_or_else(|| Error::invalid(account_field, "not found"))?;
    match given {
        Some(code) if !code.trim().is_empty() => {
            Ok(Currency::parse("currency", &code)?.code().to_string())
        }
        _ => Ok(account.currency),
    }
}

/// Fails naming `categoryId` unless the category (if any) is the user's.
pub fn check_category(c: &Connection, user_id: &str, category_id: Option<&str>) -> Result<()> {
    match category_id {
        Some(id) => require_owned_field(c, Owned::Category, user_id, "categoryId", id),
        None => Ok(()),
    }
}

/// A kind of user-owned record, as the generic create, update and delete
/// actions below see it. Each record module implements it once; its
/// validation stays its own.
pub trait Record: Send + Sync + 'static {
    /// The record as stored and answered.
    type Stored: serde::Serialize + Send + 'static;
    /// A validated record, ready to write.
    type New: Send + 'static;
    /// The action's input (all fields optional; `id` for updates).
    type Input: serde::de::DeserializeOwned + Send + 'static;

    /// The per-user limit a create checks.
    const CAP: crate::store::Cap;

    /// Takes the `id` out of an update's input.
    fn take_id(input: &mut Self::Input) -> Option<String>;
    /// The complete record from the input over the stored one (`None` when creating).
    fn validate(
        input: Self::Input,
        c: &Connection,
        user_id: &str,
        stored: Option<&Self::Stored>,
    ) -> Result<Self::New>;
    fn find(c: &Connection, user_id: &str, id: &str) -> Result<Option<Self::Stored>>;
    fn insert(c: &Connection, user_id: &str, new: &Self::New, now: &str) -> Result<Self::Stored>;
    fn update(
        c: &Connection,
        user_id: &str,
        id: &str,
        new: &Self::New,
        now: &str,
    ) -> Result<Option<Self::Stored>>;
    fn delete(c: &Connection, user_id: &str, id: &str) -> Result<bool>;
    /// Runs in the same transaction after a create or update.
    fn after_write(_c: &Connection, _user_id: &str, _new: &Self::New, _now: &str) -> Result<()> {
        Ok(())
    }
}

/// Declares a record kind and its [`Record`] impl: the per-user cap, the
/// store module whose `find`, `insert`, `update` and `delete` (each scoped
/// by user) keep it, and the input type whose
/// `validate(self, connection, user, stored)` makes a record to write;
/// optionally a function run after each write in the same transaction.
/// A new record kind is then its store module, its input and this line.
macro_rules! record {
    (
        $kind:ident { cap: $cap:ident, store: $store:ident, stored: $stored:ty,
        new: $new:ty, input: $input:ty $(, after_write: $after:path)? $(,)? }
    ) => {
        pub struct $kind;

        impl $crate::actions::entries::Record for $kind {
            const CAP: $crate::store::Cap = $crate::store::Cap::$cap;
            type Stored = $stored;
            type New = $new;
            type Input = $input;

            fn take_id(input: &mut $input) -> Option<String> {
                input.id.take()
            }
            fn validate(
                input: $input,
                c: &rusqlite::Connection,
                user: &str,
                stored: Option<&$stored>,
            ) -> $crate::error::Result<$new> {
                input.validate(c, user, stored)
            }
            fn find(
                c: &rusqlite::Connection,
                user: &str,
                id: &str,
            ) -> $crate::error::Result<Option<$stored>> {
                $store::find(c, user, id)
            }
            fn insert(
                c: &rusqlite::Connection,
                user: &str,
                new: &$new,
                now: &str,
            ) -> $crate::error::Result<$stored> {
                $store::insert(c, user, new, now)
            }
            fn update(
                c: &rusqlite::Connection,
                user: &str,
                id: &str,
                new: &$new,
                now: &str,
            ) -> $crate::error::Result<Option<$stored>> {
                $store::update(c, user, id, new, now)
            }
            fn delete(c: &rusqlite::Connection, user: &str, id: &str) -> $crate::error::Result<bool> {
                $store::delete(c, user, id)
            }
            $(
                fn after_write(
                    c: &rusqlite::Connection,
                    user: &str,
                    new: &$new,
                    now: &str,
                ) -> $crate::error::Result<()> {
                    $after(c, user, new, now)
                }
            )?
        }
    };
}
pub(crate) use record;

/// `create…`: validates and inserts in one transaction.
pub async fn create<R: Record>(ctx: super::Ctx, input: R::Input) -> Result<super::Reply> {
    let (user, now) = (
        ctx.user_id()?,
        crate::clock::timestamp(ctx.state.clock.now()),
    );
    let record = ctx
        .state
        .db
        .transaction(move |tx| {
            let new = R::validate(input, tx, &user, None)?;
            R::CAP.check(tx, &user)?;
            R::after_write(tx, &user, &new, &now)?;
            R::insert(tx, &user, &new, &now)
        })
        .await?;
    super::Reply::data(record)
}

/// `update…`: the given fields over the stored record, validated and
/// written in one transaction; another user's id is "not found".
pub async fn update<R: Record>(ctx: super::Ctx, mut input: R::Input) -> Result<super::Reply> {
    let id = super::input::required_id(R::take_id(&mut input))?;
    let (user, now) = (
        ctx.user_id()?,
        crate::clock::timestamp(ctx.state.clock.now()),
    );
    let record = ctx
        .state
        .db
        .transaction(move |tx| {
            let stored = R::find(tx, &user, &id)?.ok_or(Error::NotFound)?;
            let new = R::validate(input, tx, &user, Some(&stored))?;
            R::after_write(tx, &user, &new, &now)?;
            R::update(tx, &user, &id, &new, &now)?.ok_or(Error::NotFound)
        })
        .await?;
    super::Reply::data(record)
}

/// `delete…`: another user's id is "not found".
pub async fn delete<R: Record>(
    ctx: super::Ctx,
    input: super::input::IdInput,
) -> Result<super::Reply> {
    let id = super::input::required_id(input.id)?;
    let user = ctx.user_id()?;
    if !ctx.state.db.run(move |c| R::delete(c, &user, &id)).await? {
        return Err(Error::NotFound);
    }
    super::Reply::data(())
}
