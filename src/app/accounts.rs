//! A user account's lifecycle beyond sign-up: disabled and enabled again by
//! the administrator, deleted with everything it holds (by its owner in
//! Settings, or by the administrator). The command line runs these on the
//! database alone, so they take it rather than the whole state.

use crate::clock::timestamp;
use crate::error::Result;
use crate::store::documents::Files;
use crate::store::users::{self, UserId};
use crate::store::Db;
use chrono::{DateTime, Utc};

/// Disables an account: its sessions end and its API tokens are revoked,
/// and it cannot sign in until enabled again.
pub async fn disable(db: &Db, user: &UserId, now: DateTime<Utc>) -> Result<()> {
    let (id, now) = (user.clone(), timestamp(now));
    db.transaction(move |tx| users::set_disabled(tx, &id, Some(&now), &now))
        .await
}

/// Lets a disabled account sign in again.
pub async fn enable(db: &Db, user: &UserId, now: DateTime<Utc>) -> Result<()> {
    let (id, now) = (user.clone(), timestamp(now));
    db.transaction(move |tx| users::set_disabled(tx, &id, None, &now))
        .await
}

/// Deletes the user, every record, document file, session and token of
/// theirs, in one transaction (the files after it).
pub async fn delete(db: &Db, files: &Files, user: &UserId) -> Result<()> {
    let (id, files) = (user.clone(), files.clone());
    db.run(move |c| users::delete_everything(c, &files, &id))
        .await
}
