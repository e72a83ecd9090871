//! A user's account from opening to deletion: opened (by sign-up, single
//! sign-on or the administrator), listed, given a new password or freed of
//! its second factor, disabled and enabled again, deleted with everything it
//! holds (by its owner in Settings, or by the administrator). These are the
//! steps that touch more than the `users` table (`store::users` keeps that
//! table alone). The command line runs them on the database alone, so they
//! take it rather than the whole state; [`open`] and [`new_password`] run
//! inside a caller's transaction, beside the checks of its own.

use crate::auth::password;
use crate::clock::timestamp;
use crate::domain::email::Email;
use crate::domain::locale::Locale;
use crate::error::Result;
use crate::store::documents::Files;
use crate::store::users::{self, Listed, NewUser, User, UserId};
use crate::store::{self, api_tokens, categories, sessions, two_factor, Db};
use chrono::{DateTime, Utc};
use rusqlite::Connection;

/// Opens an account in the caller's transaction: the user and the default
/// categories in their language.
pub fn open(tx: &Connection, new: &NewUser<'_>) -> Result<User> {
    let user = users::insert(tx, new)?;
    categories::insert_defaults(tx, &user.id, new.locale, new.now)?;
    Ok(user)
}

/// Stores the user's new password hash in the caller's transaction. A
/// sign-in half-way through (password right, code not yet given) began
/// with the old password: it starts over.
pub fn new_password(tx: &Connection, user: &UserId, hash: &str, now: &str) -> Result<()> {
    users::set_password(tx, user, hash, now)?;
    two_factor::end_challenges(tx, user)
}

/// Disables the user in the caller's transaction: their sessions end and
/// their API tokens are revoked.
pub fn disable_in(tx: &Connection, user: &UserId, now: &str) -> Result<()> {
    users::set_disabled(tx, user, Some(now), now)?;
    sessions::delete_all_for_user(tx, user, None)?;
    api_tokens::revoke_all_for_user(tx, user, now)?;
    Ok(())
}

/// The user with this email address, if any.
pub async fn find(db: &Db, email: &Email) -> Result<Option<User>> {
    let key = email.key();
    db.run(move |c| users::find_by_email(c, &key)).await
}

/// Every user with their state and how many records they keep.
pub async fn list(db: &Db) -> Result<Vec<Listed>> {
    db.run(|c| users::list_for_admin(c)).await
}

/// A new user with the default categories, signing in with `password`
/// (checked against the password rule, naming `password`).
pub async fn create(
    db: &Db,
    email: &Email,
    name: String,
    password: String,
    locale: Locale,
    now: DateTime<Utc>,
) -> Result<User> {
    password::check_rule("password", &password)?;
    let hash = password::hash(password).await?;
    let (email, now) = (email.as_str().to_string(), timestamp(now));
    db.transaction(move |tx| {
        open(
            tx,
            &NewUser {
                email: &email,
                name: &name,
                password_hash: &hash,
                locale,
                now: &now,
            },
        )
    })
    .await
}

/// Gives the user a new password (checked against the rule, naming
/// `password`) and ends every session of theirs.
pub async fn set_password(
    db: &Db,
    user: &UserId,
    password: String,
    now: DateTime<Utc>,
) -> Result<()> {
    password::check_rule("password", &password)?;
    let hash = password::hash(password).await?;
    let (id, now) = (user.clone(), timestamp(now));
    db.transaction(move |tx| {
        new_password(tx, &id, &hash, &now)?;
        sessions::delete_all_for_user(tx, &id, None)
    })
    .await?;
    Ok(())
}

/// Turns the user's second factor off; `false` when it was not on.
pub async fn reset_two_factor(db: &Db, user: &UserId) -> Result<bool> {
    let id = user.clone();
    db.transaction(move |tx| two_factor::disable(tx, &id)).await
}

/// Disables an account: its sessions end and its API tokens are revoked,
/// and it cannot sign in until enabled again.
pub async fn disable(db: &Db, user: &UserId, now: DateTime<Utc>) -> Result<()> {
    let (id, now) = (user.clone(), timestamp(now));
    db.transaction(move |tx| disable_in(tx, &id, &now)).await
}

/// Lets a disabled account sign in again.
pub async fn enable(db: &Db, user: &UserId, now: DateTime<Utc>) -> Result<()> {
    let (id, now) = (user.clone(), timestamp(now));
    db.transaction(move |tx| users::set_disabled(tx, &id, None, &now))
        .await
}

/// Deletes the user, every record, document file, session and token of
/// theirs: the rows in one transaction (the schema's cascades), then the
/// files. Everything is gone or nothing.
pub async fn delete(db: &Db, files: &Files, user: &UserId) -> Result<()> {
    let (id, files) = (user.clone(), files.clone());
    db.run(move |c| {
        let tx = store::write_transaction(c)?;
        users::delete(&tx, &id)?;
        tx.commit()?;
        files.remove_user(&id)
    })
    .await
}
