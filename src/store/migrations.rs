//! The migrations in `migrations/`, embedded, and bringing a database up
//! to date. refinery runs them and keeps their history in
//! `refinery_schema_history`; but only when there is something to run: a
//! new database gets them all at once ([`super::baseline`]), and a database
//! whose history already holds every one of them, with the same names and
//! checksums, is left as it is without asking refinery, whose list of
//! migrations costs a start more than the rest of opening the database
//! (it compiles a regular expression to read their file names;
//! `docs/performance.md`, "A fresh start").

use super::baseline;
use crate::error::Result;
use anyhow::Context;
use refinery::{Migration, Runner};
use rusqlite::Connection;
use std::hash::{Hash, Hasher};

/// One file of `migrations/`: its version, name and SQL.
pub struct Embedded {
    pub version: i32,
    pub name: &'static str,
    pub sql: &'static str,
}

impl Embedded {
    /// The checksum refinery keeps of it: SipHash 1-3 over its name,
    /// version and SQL, as `refinery::Migration::unapplied` computes it.
    pub fn checksum(&self) -> u64 {
        let mut hasher = siphasher::sip::SipHasher13::new();
        self.name.hash(&mut hasher);
        self.version.hash(&mut hasher);
        self.sql.hash(&mut hasher);
        hasher.finish()
    }
}

/// Every migration of `migrations/`, by version (listed by `build.rs`).
pub const MIGRATIONS: &[Embedded] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The newest schema version this binary knows.
pub fn newest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| i64::from(m.version))
}

/// refinery's runner of [`MIGRATIONS`].
pub fn runner() -> Runner {
    let migrations: Vec<Migration> = MIGRATIONS
        .iter()
        .map(|m| {
            Migration::unapplied(&format!("V{}__{}", m.version, m.name), m.sql)
                .expect("build.rs lists only well-named migrations")
        })
        .collect();
    Runner::new(&migrations)
}

/// Brings the database up to date and answers how many migrations that
/// applied: a new (empty) database gets the schema of all of them at once
/// ([`baseline::lay`]), an existing one the migrations it does not have
/// yet, from refinery, which also refuses a history that is not this
/// binary's (a migration changed since it was applied, or one newer than
/// the binary).
pub fn migrate(c: &mut Connection) -> Result<usize> {
    let laid = baseline::lay(
        c,
        MIGRATIONS.iter().map(|m| (m.version, m.name, m.checksum())),
    )?;
    if has_every_migration(c)? {
        return Ok(laid);
    }
    let report = runner().run(c).context("migration failed")?;
    Ok(laid + report.applied_migrations().len())
}

/// Whether refinery's history holds exactly [`MIGRATIONS`]: each by its
/// version, name and checksum, and nothing else.
fn has_every_migration(c: &Connection) -> Result<bool> {
    let kept: bool = c.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master
                        WHERE type = 'table' AND name = 'refinery_schema_history')",
        [],
        |r| r.get(0),
    )?;
    if !kept {
        return Ok(false);
    }
    let history: Vec<(i64, String, String)> = c
        .prepare("SELECT version, name, checksum FROM refinery_schema_history ORDER BY version")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(history.len() == MIGRATIONS.len()
        && history.iter().zip(MIGRATIONS).all(|((v, name, sum), m)| {
            *v == i64::from(m.version) && name == m.name && *sum == m.checksum().to_string()
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list `build.rs` makes is refinery's own: every migration with
    /// refinery's version, name and checksum, and none more.
    #[test]
    fn the_embedded_migrations_are_refinerys_with_its_checksums() {
        let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
            .unwrap()
            .count();
        assert_eq!(MIGRATIONS.len(), files);
        let mut theirs = runner().get_migrations().clone();
        theirs.sort_by_key(|m| m.version());
        assert_eq!(theirs.len(), MIGRATIONS.len());
        for (m, r) in MIGRATIONS.iter().zip(&theirs) {
            assert_eq!(
                (m.version, m.name, m.checksum()),
                (r.version(), r.name(), r.checksum())
            );
        }
        assert!(MIGRATIONS.windows(2).all(|w| w[0].version < w[1].version));
        assert_eq!(
            newest_version(),
            i64::from(theirs.last().unwrap().version())
        );
    }

    fn history_count(c: &Connection) -> i64 {
        c.query_row("SELECT COUNT(*) FROM refinery_schema_history", [], |r| {
            r.get(0)
        })
        .unwrap()
    }

    /// A database short of a migration gets it from refinery; one whose
    /// history names a migration this binary does not have, or whose
    /// applied migration changed since, is refused as refinery refuses it.
    #[test]
    fn only_a_database_with_every_migration_skips_refinery() {
        let previous = MIGRATIONS[MIGRATIONS.len() - 2].version;
        let mut c = Connection::open_in_memory().unwrap();
        runner()
            .set_target(refinery::Target::Version(previous))
            .run(&mut c)
            .unwrap();
        assert!(!has_every_migration(&c).unwrap());
        assert_eq!(migrate(&mut c).unwrap(), 1);
        assert!(has_every_migration(&c).unwrap());
        assert_eq!(migrate(&mut c).unwrap(), 0);

        c.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum)
             VALUES (9999, 'future', '2030-01-01T00:00:00Z', '0')",
            [],
        )
        .unwrap();
        assert!(!has_every_migration(&c).unwrap());
        assert!(migrate(&mut c).is_err(), "a newer database is refused");

        c.execute(
            "DELETE FROM refinery_schema_history WHERE version = 9999",
            [],
        )
        .unwrap();
        c.execute(
            "UPDATE refinery_schema_history SET checksum = '1' WHERE version = 1",
            [],
        )
        .unwrap();
        assert!(!has_every_migration(&c).unwrap());
        assert!(migrate(&mut c).is_err(), "a changed migration is refused");
        assert_eq!(history_count(&c), MIGRATIONS.len() as i64);
    }
}
