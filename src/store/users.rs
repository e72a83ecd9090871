//! The `users` table: who a user is (the [`UserId`] every store function
//! is scoped by, and the [`User`] a session or token resolves to), their
//! password hash and settings. The account's steps that touch other tables
//! too (opening, a new password, disabling, deleting) are `app::users`.

use crate::domain::import::BatchStatus;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason, Result};
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

/// A user's id. Only a stored user row gives one (through a session, an
/// API token or a lookup), so a store function that takes a `&UserId` can
/// neither be handed a record id by mistake nor have its arguments swapped.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct UserId(String);

impl UserId {
    /// The id of a user about to be inserted ([`insert`]).
    fn fresh() -> UserId {
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

const COLUMNS: &str = "id, email, name, locale, base_currency, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<User> {
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

/// Moves the user's data version on once, for writes that the triggers
/// do not count (an import's records, written in bulk).
pub fn count_change(tx: &Connection, user_id: &UserId) -> Result<()> {
    tx.execute(
        "UPDATE user_data_versions SET version = version + 1 WHERE user_id = ?1",
        [user_id],
    )?;
    Ok(())
}

pub struct NewUser<'a> {
    pub email: &'a str,
    pub name: &'a str,
    pub password_hash: &'a str,
    pub locale: Locale,
    pub now: &'a str,
}

/// Inserts a user; an email taken in any letter case is refused naming `email`.
pub fn insert(c: &Connection, u: &NewUser<'_>) -> Result<User> {
    let id = UserId::fresh();
    let res = c.execute(
        "INSERT INTO users (id, email, email_lower, name, password_hash, locale, base_currency, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'EUR', ?7, ?7)",
        params![id, u.email, u.email.to_lowercase(), u.name, u.password_hash, u.locale.code(), u.now],
    );
    match res {
        Ok(_) => {}
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            return Err(Error::invalid("email", Reason::AlreadyRegistered));
        }
        Err(e) => return Err(e.into()),
    }
    find(c, &id)?.ok_or(Error::NotFound)
}

pub fn find_by_email(c: &Connection, email: &str) -> Result<Option<User>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM users WHERE email_lower = ?1"),
        [email.to_lowercase()],
        from_row,
    )
    .optional()?)
}

/// The user and their argon2 PHC string, for checking a password.
pub fn password_hash_by_email(c: &Connection, email: &str) -> Result<Option<(User, String)>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS}, password_hash FROM users WHERE email_lower = ?1"),
        [email.to_lowercase()],
        |r| Ok((from_row(r)?, r.get(6)?)),
    )
    .optional()?)
}

pub fn password_hash(c: &Connection, user_id: &UserId) -> Result<Option<String>> {
    Ok(c.query_row(
        "SELECT password_hash FROM users WHERE id = ?1",
        [user_id],
        |r| r.get(0),
    )
    .optional()?)
}

pub fn count(c: &Connection) -> Result<i64> {
    Ok(c.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
}

pub fn set_password(
    c: &Connection,
    user_id: &UserId,
    password_hash: &str,
    now: &str,
) -> Result<()> {
    c.execute(
        "UPDATE users SET password_hash = ?1, has_password = 1, updated_at = ?2 WHERE id = ?3",
        params![password_hash, now, user_id],
    )?;
    Ok(())
}

/// The settings a user changes themselves; `None` leaves a value as it is.
#[derive(Default)]
pub struct SettingsChange {
    pub name: Option<String>,
    pub base_currency: Option<String>,
    pub locale: Option<Locale>,
}

pub fn update_settings(
    c: &Connection,
    user_id: &UserId,
    change: &SettingsChange,
    now: &str,
) -> Result<User> {
    c.execute(
        "UPDATE users SET
             name = COALESCE(?1, name),
             base_currency = COALESCE(?2, base_currency),
             locale = COALESCE(?3, locale),
             updated_at = ?4
         WHERE id = ?5",
        params![
            change.name,
            change.base_currency,
            change.locale.map(|l| l.code()),
            now,
            user_id
        ],
    )?;
    find(c, user_id)?.ok_or(Error::NotFound)
}

/// Whether an administrator disabled the user.
pub fn is_disabled(c: &Connection, user_id: &UserId) -> Result<bool> {
    Ok(c.query_row(
        "SELECT disabled_at IS NOT NULL FROM users WHERE id = ?1",
        [user_id],
        |r| r.get(0),
    )
    .optional()?
    .unwrap_or(false))
}

/// Marks a user disabled (`Some(now)`) or enabled (`None`).
pub fn set_disabled(c: &Connection, user_id: &UserId, at: Option<&str>, now: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET disabled_at = ?1, updated_at = ?2 WHERE id = ?3",
        params![at, now, user_id],
    )?;
    Ok(())
}

/// A user as the administrator's list shows them.
pub struct Listed {
    pub user: User,
    pub disabled_at: Option<String>,
    pub records: i64,
}

/// Every user with their state and how many money records they keep.
pub fn list_for_admin(c: &Connection) -> Result<Vec<Listed>> {
    let mut s = c.prepare(&format!(
        "SELECT {COLUMNS}, disabled_at,
            (SELECT COUNT(*) FROM daily_expenses d WHERE d.user_id = users.id)
          + (SELECT COUNT(*) FROM expenses e WHERE e.user_id = users.id)
          + (SELECT COUNT(*) FROM incomes i WHERE i.user_id = users.id)
          + (SELECT COUNT(*) FROM transfers t WHERE t.user_id = users.id)
         FROM users ORDER BY created_at, id"
    ))?;
    let rows = s
        .query_map([], |r| {
            Ok(Listed {
                user: from_row(r)?,
                disabled_at: r.get(6)?,
                records: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Removes the user and, through the schema's cascades, every row of
/// theirs.
pub fn delete(c: &Connection, user_id: &UserId) -> Result<()> {
    c.execute("DELETE FROM users WHERE id = ?1", [user_id])?;
    Ok(())
}

/// Whether the user knows their password: false for an account made by
/// signing in through the OpenID provider, until a password is set.
pub fn has_password(c: &Connection, user_id: &UserId) -> Result<bool> {
    Ok(c.query_row(
        "SELECT has_password FROM users WHERE id = ?1",
        [user_id],
        |r| r.get(0),
    )?)
}

/// Marks a new account's password as unknown (see [`has_password`]).
pub fn mark_without_password(c: &Connection, user_id: &UserId) -> Result<()> {
    c.execute("UPDATE users SET has_password = 0 WHERE id = ?1", [user_id])?;
    Ok(())
}

/// Every user (for the jobs).
pub fn all(c: &Connection) -> Result<Vec<User>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users ORDER BY created_at, id"
    ))?;
    let rows = s
        .query_map([], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// What a new user has done of the dashboard's next steps (a recurring
/// income, a recurring expense, a confirmed import), and whether they hid
/// the card.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NextSteps {
    pub account: bool,
    pub income: bool,
    pub recurring_expense: bool,
    pub import: bool,
    pub dismissed: bool,
}

pub fn next_steps(c: &Connection, user_id: &UserId) -> Result<NextSteps> {
    Ok(c.query_row(
        "SELECT EXISTS (SELECT 1 FROM accounts WHERE user_id = ?1),
                EXISTS (SELECT 1 FROM incomes WHERE user_id = ?1 AND frequency <> 'once'),
                EXISTS (SELECT 1 FROM expenses WHERE user_id = ?1),
                EXISTS (SELECT 1 FROM import_batches WHERE user_id = ?1 AND status = ?2),
                (SELECT next_steps_dismissed_at IS NOT NULL FROM users WHERE id = ?1)",
        params![user_id, BatchStatus::Confirmed.code()],
        |r| {
            Ok(NextSteps {
                account: r.get(0)?,
                income: r.get(1)?,
                recurring_expense: r.get(2)?,
                import: r.get(3)?,
                dismissed: r.get::<_, Option<bool>>(4)?.unwrap_or(false),
            })
        },
    )?)
}

/// Hides the dashboard's next steps for good.
pub fn dismiss_next_steps(c: &Connection, user_id: &UserId, now: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET next_steps_dismissed_at = COALESCE(next_steps_dismissed_at, ?1)
         WHERE id = ?2",
        params![now, user_id],
    )?;
    Ok(())
}
