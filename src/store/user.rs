//! Who a user is: the [`UserId`] every store function is scoped by, and
//! the [`User`] a session or token resolves to. The account's lifecycle
//! (sign-up, password, disabling, deleting) is `users`.

use crate::domain::locale::Locale;
use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;

/// A user's id. Only a stored user row gives one (through a session, an
/// API token or a lookup), so a store function that takes a `&UserId` can
/// neither be handed a record id by mistake nor have its arguments swapped.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct UserId(String);

impl UserId {
    /// The id of a user about to be inserted (`users::insert`).
    pub(super) fn fresh() -> UserId {
        UserId(super::new_id())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id for unit tests that insert users with SQL of their own.
    #[cfg(test)]
    pub fn test(id: &str) -> UserId {
        UserId(id.to_string())
    }
}

impl std::fmt::Display for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl rusqlite::types::ToSql for UserId {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        self.0.to_sql()
    }
}

impl rusqlite::types::FromSql for UserId {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        String::column_result(v).map(UserId)
    }
}

/// A signed-in person. Never carries the password hash out of the store
/// except through [`password_hash_by_email`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: UserId,
    pub email: String,
    pub name: String,
    pub locale: Locale,
    pub base_currency: String,
    pub created_at: String,
}

pub(super) const COLUMNS: &str = "id, email, name, locale, base_currency, created_at";

pub(super) fn from_row(r: &Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        email: r.get(1)?,
        name: r.get(2)?,
        locale: r.get(3)?,
        base_currency: r.get(4)?,
        created_at: r.get(5)?,
    })
}

pub fn find(c: &Connection, id: &UserId) -> Result<Option<User>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM users WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()?)
}

/// The user's data version (`user_data_versions`): every write to the
/// user's records moves it on, from any process, so what is computed from
/// them can be kept while it stands still.
pub fn data_version(c: &Connection, user_id: &UserId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT version FROM user_data_versions WHERE user_id = ?1",
        [user_id],
        |r| r.get(0),
    )
    .optional()?
    .unwrap_or(0))
}
