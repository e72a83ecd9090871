//! A user's data as one archive, and an archive loaded into a user who has
//! no records yet: "Export my data" and "Load an export" in Settings,
//! `cashkeeper export-user` and `import-user` (`docs/operations.md`).

use crate::error::Result;
use crate::store::documents::Files;
use crate::store::export::{self, Imported, Limits, Summary};
use crate::store::users::{User, UserId};
use crate::store::Db;
use std::fs::File;

/// Archives read and checked at once; more wait their turn (the checks
/// hold the archive's rows in memory).
static CHECKS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Writes `user`'s archive, stamped `exported_at`, into `out`.
pub async fn write(
    db: &Db,
    files: &Files,
    user: &User,
    exported_at: String,
    out: File,
) -> Result<Summary> {
    let (files, user) = (files.clone(), user.clone());
    db.run(move |c| {
        export::write(c, &files, &user, &exported_at, out).map_err(crate::Error::Internal)
    })
    .await
}

/// Loads the archive `archive` into the user `user`, who has no records:
/// read and checked within `limits` without a database connection, then
/// written in one transaction. A refused archive writes nothing; its
/// refusal names the field `file`.
pub async fn load(
    db: &Db,
    files: &Files,
    user: &UserId,
    archive: File,
    limits: Limits,
    now: String,
) -> Result<Imported> {
    let _turn = CHECKS
        .acquire()
        .await
        .map_err(|e| crate::Error::Internal(e.into()))?;
    let (files, u) = (files.clone(), user.clone());
    let quota = limits.quota;
    let checked =
        tokio::task::spawn_blocking(move || export::check(&files, &u, archive, &limits)).await??;
    let user = user.clone();
    let loaded = db
        .run(move |c| export::load(c, &user, checked, quota, &now))
        .await;
    crate::memory::release_free();
    loaded
}
