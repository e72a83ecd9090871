//! A new database in one go: `baseline.sql` is the schema that the
//! migrations in `migrations/` leave, written out by a test, and a new
//! (empty) database gets it in one transaction together with refinery's
//! history rows of every migration it covers. Only an existing database
//! runs the migrations themselves: their `ALTER TABLE`s make SQLite read
//! the whole schema again each time, which made a fresh start four times
//! as slow as a restart (`docs/performance.md`, "A fresh start").
//!
//! A new migration is added as usual, as the next `migrations/V…__….sql`.
//! Then the baseline is written anew and committed with it:
//!
//! ```sh
//! CASHKEEPER_WRITE_BASELINE=1 cargo test --lib baseline_is_what
//! ```
//!
//! Until then the test `the_baseline_is_what_the_migrations_make` fails,
//! and a new database still ends up right: it gets the older baseline,
//! and refinery applies the newer migration after it, as on any database.

use super::write_transaction;
use crate::error::Result;
use anyhow::Context;
use rusqlite::{params, Connection};

/// The schema (and any rows) the migrations up to [`covered`] leave.
const SQL: &str = include_str!("baseline.sql");

/// How `baseline.sql` begins; the number after it is [`covered`].
const HEADER: &str = "-- The schema of migrations/V1 to V";

/// The newest migration that `baseline.sql` includes.
fn covered(sql: &str) -> i64 {
    sql.strip_prefix(HEADER)
        .map(|rest| rest.split(|ch: char| !ch.is_ascii_digit()).next())
        .and_then(|digits| digits?.parse().ok())
        .expect("baseline.sql begins with its header")
}

/// Lays the baseline into `c` if it holds nothing yet (no table, index or
/// trigger), with a history row for each of `migrations` (version, name,
/// refinery's checksum) that it covers, written as refinery writes them,
/// so that refinery finds them applied and runs only newer ones. Answers
/// how many migrations it recorded: 0 for a database that exists.
pub fn lay<'a>(
    c: &mut Connection,
    migrations: impl IntoIterator<Item = (i32, &'a str, u64)>,
) -> Result<usize> {
    lay_sql(c, SQL, migrations)
}

fn lay_sql<'a>(
    c: &mut Connection,
    sql: &str,
    migrations: impl IntoIterator<Item = (i32, &'a str, u64)>,
) -> Result<usize> {
    // A database that exists is seen without taking the write lock, so a
    // restart beside another process's writes never waits for it; a new
    // one is looked at again inside the transaction, since two processes
    // may start on the same new file at once.
    if !is_empty(c)? {
        return Ok(0);
    }
    let tx = write_transaction(c)?;
    if !is_empty(&tx)? {
        return Ok(0);
    }
    tx.execute_batch(sql)
        .context("laying the baseline schema")?;
    let covered = covered(sql);
    let applied_on = applied_on(chrono::Utc::now());
    let mut insert = tx.prepare(
        "INSERT INTO refinery_schema_history (version, name, applied_on, checksum)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut recorded = 0;
    for (version, name, checksum) in migrations
        .into_iter()
        .filter(|(version, _, _)| i64::from(*version) <= covered)
    {
        insert.execute(params![version, name, applied_on, checksum.to_string()])?;
        recorded += 1;
    }
    drop(insert);
    tx.commit()?;
    Ok(recorded)
}

/// Whether the database holds no table, index or trigger yet.
fn is_empty(c: &Connection) -> Result<bool> {
    Ok(
        c.query_row("SELECT NOT EXISTS (SELECT 1 FROM sqlite_master)", [], |r| {
            r.get(0)
        })?,
    )
}

/// `at` as refinery writes a migration's time (RFC 3339 in UTC, the
/// fraction of a second without trailing zeros, none when whole).
fn applied_on(at: chrono::DateTime<chrono::Utc>) -> String {
    let whole = at.format("%Y-%m-%dT%H:%M:%S");
    let nanos = at.timestamp_subsec_nanos().min(999_999_999);
    if nanos == 0 {
        format!("{whole}Z")
    } else {
        let fraction = format!("{nanos:09}");
        format!("{whole}.{}Z", fraction.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use refinery::Target;
    use rusqlite::types::ValueRef;

    fn runner() -> refinery::Runner {
        crate::store::migrations::runner()
    }

    /// Every migration as [`lay`] takes them.
    fn history() -> impl Iterator<Item = (i32, &'static str, u64)> {
        crate::store::migrations::MIGRATIONS
            .iter()
            .map(|m| (m.version, m.name, m.checksum()))
    }

    /// A database made by running the migrations up to `target`.
    fn migrated(target: Target) -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        runner().set_target(target).run(&mut c).unwrap();
        c
    }

    fn newest() -> i64 {
        crate::store::backups::newest_version()
    }

    /// What `baseline.sql` holds for a database: its header, every table
    /// first (a virtual table's own tables and SQLite's are made by
    /// SQLite), then every index, view and trigger, each in the order the
    /// migrations made it, then the rows of every table but refinery's
    /// history, which [`lay`] writes.
    fn dump(c: &Connection, covered: i64) -> String {
        let mut out = format!(
            "{HEADER}{covered} make, written by \
             `CASHKEEPER_WRITE_BASELINE=1 cargo test --lib baseline_is_what` \
             (src/store/baseline.rs): not edited by hand.\n"
        );
        let made_by_sqlite = made_by_sqlite(c);
        let objects: Vec<(String, String, String)> = c
            .prepare(
                "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL
                 ORDER BY type <> 'table', rowid",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let mut tables = Vec::new();
        for (kind, name, sql) in objects {
            if made_by_sqlite.contains(&name) {
                continue;
            }
            out.push('\n');
            out.push_str(&sql);
            out.push_str(";\n");
            if sql.starts_with("CREATE VIRTUAL TABLE") && sql.contains("USING fts5") {
                // As its migration did: the search index's own tables then
                // hold what an index of no rows holds.
                out.push_str(&format!(
                    "INSERT INTO \"{name}\"(\"{name}\") VALUES ('rebuild');\n"
                ));
            }
            if kind == "table" && !sql.starts_with("CREATE VIRTUAL TABLE") {
                tables.push(name);
            }
        }
        for table in tables.iter().filter(|t| *t != "refinery_schema_history") {
            for row in rows(c, table) {
                out.push_str(&format!("\nINSERT INTO \"{table}\" VALUES ({row});\n"));
            }
        }
        out
    }

    /// The tables SQLite makes itself: its own (`sqlite_sequence`) and
    /// those of a virtual table (the search index's).
    fn made_by_sqlite(c: &Connection) -> Vec<String> {
        names(
            c,
            "SELECT name FROM pragma_table_list WHERE type = 'shadow' OR name LIKE 'sqlite\\_%' ESCAPE '\\'",
        )
    }

    /// The first column of `query`'s rows.
    fn names(c: &Connection, query: &str) -> Vec<String> {
        c.prepare(query)
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// Every row of `table`, in rowid order or the primary key's.
    fn rows(c: &Connection, table: &str) -> Vec<String> {
        lines(c, &format!("SELECT * FROM \"{table}\""))
    }

    /// Each row of `query`, its values written as SQL literals.
    fn lines(c: &Connection, query: &str) -> Vec<String> {
        let mut stmt = c.prepare(query).unwrap();
        let n = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            let values: Vec<String> = (0..n)
                .map(|i| match row.get_ref(i).unwrap() {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Integer(n) => n.to_string(),
                    ValueRef::Real(x) => format!("{x:?}"),
                    ValueRef::Text(t) => {
                        format!("'{}'", String::from_utf8_lossy(t).replace('\'', "''"))
                    }
                    ValueRef::Blob(b) => format!("X'{}'", hex::encode(b)),
                })
                .collect();
            out.push(values.join(", "));
        }
        out
    }

    /// Everything of a database's schema and contents that a later
    /// migration or the service could tell apart: every object of
    /// `sqlite_master` with its SQL, the rows of every table (SQLite's own
    /// and the search index's too), refinery's history but for the times,
    /// and `PRAGMA user_version`.
    fn everything(c: &Connection) -> Vec<String> {
        let mut out = lines(
            c,
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name",
        );
        let tables = names(
            c,
            "SELECT name FROM sqlite_master WHERE type = 'table'
             AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name",
        );
        for table in tables {
            let rows = if table == "refinery_schema_history" {
                lines(
                    c,
                    "SELECT version, name, checksum FROM refinery_schema_history ORDER BY version",
                )
            } else {
                rows(c, &table)
            };
            out.extend(rows.into_iter().map(|row| format!("row of {table}: {row}")));
        }
        out.extend(lines(
            c,
            "SELECT 'user_version', user_version FROM pragma_user_version",
        ));
        out
    }

    /// The lines where `a` and `b` differ, for a failure's message.
    fn differences(a: &[String], b: &[String]) -> String {
        let only_a = a.iter().filter(|l| !b.contains(l));
        let only_b = b.iter().filter(|l| !a.contains(l));
        only_a
            .map(|l| format!("- {l}"))
            .chain(only_b.map(|l| format!("+ {l}")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A new database laid by [`lay_sql`] from `sql`, then migrated by
    /// refinery as every start does.
    fn laid(sql: &str) -> (Connection, usize) {
        let mut c = Connection::open_in_memory().unwrap();
        let recorded = lay_sql(&mut c, sql, history()).unwrap();
        let applied = runner().run(&mut c).unwrap().applied_migrations().len();
        (c, recorded + applied)
    }

    #[test]
    fn the_baseline_is_what_the_migrations_make() {
        let c = migrated(Target::Latest);
        let written = dump(&c, newest());
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/store/baseline.sql");
        if std::env::var_os("CASHKEEPER_WRITE_BASELINE").is_some() {
            // The tests compare the file this build included; the next
            // build includes the new one.
            std::fs::write(path, &written).unwrap();
            eprintln!("wrote src/store/baseline.sql");
            return;
        }
        assert!(
            SQL == written,
            "src/store/baseline.sql is not what the migrations make; write it anew with \
             `CASHKEEPER_WRITE_BASELINE=1 cargo test --lib baseline_is_what` and commit it \
             (src/store/baseline.rs)"
        );
        assert_eq!(covered(SQL), newest());
    }

    /// A database laid by the baseline and one made by every migration
    /// cannot be told apart: the same tables, indexes, triggers and search
    /// index with the same SQL, the same rows (none but SQLite's own, and
    /// the history but for its times) and the same `user_version`.
    #[test]
    fn a_new_database_laid_by_the_baseline_equals_one_migrated() {
        let (by_baseline, recorded) = laid(SQL);
        let by_migrations = everything(&migrated(Target::Latest));
        let laid = everything(&by_baseline);
        assert!(
            laid == by_migrations,
            "the baseline differs from the migrations:\n{}",
            differences(&by_migrations, &laid)
        );
        assert_eq!(recorded, runner().get_migrations().len());
        assert!(laid.iter().any(|l| l.starts_with("'trigger'")));
        assert!(laid.iter().any(|l| l.starts_with("'index'")));
        assert!(laid
            .iter()
            .any(|l| l.contains("CREATE VIRTUAL TABLE daily_expenses_fts")));
    }

    /// The history rows of a laid baseline are refinery's own: refinery
    /// reads them back (it stops on a time it cannot read) with the names
    /// and checksums of the migrations, and applies nothing more.
    #[test]
    fn refinery_reads_the_history_of_a_laid_baseline_as_its_own() {
        let (mut c, _) = laid(SQL);
        let runner = runner();
        let applied = runner.get_applied_migrations(&mut c).unwrap();
        let mut embedded = runner.get_migrations().clone();
        embedded.sort_by_key(|m| m.version());
        assert_eq!(applied.len(), embedded.len());
        for (a, m) in applied.iter().zip(&embedded) {
            assert_eq!(
                (a.version(), a.name(), a.checksum()),
                (m.version(), m.name(), m.checksum())
            );
            assert!(a.applied_on().is_some());
        }
        assert!(runner.run(&mut c).unwrap().applied_migrations().is_empty());
    }

    /// A migration added after the baseline was written applies to a
    /// database laid by that baseline: here the baseline of all but the
    /// newest migration, after which refinery applies the newest, and the
    /// database equals one made by every migration.
    #[test]
    fn a_migration_newer_than_the_baseline_applies_to_a_database_it_laid() {
        let previous = runner()
            .get_migrations()
            .iter()
            .map(|m| m.version())
            .filter(|v| i64::from(*v) < newest())
            .max()
            .unwrap();
        let older = dump(&migrated(Target::Version(previous)), i64::from(previous));
        let (c, recorded) = laid(&older);
        assert_eq!(recorded, runner().get_migrations().len());
        let by_migrations = everything(&migrated(Target::Latest));
        let got = everything(&c);
        assert!(
            got == by_migrations,
            "{}",
            differences(&by_migrations, &got)
        );
    }

    /// A database that exists, even one without a single migration applied
    /// by refinery, is left to the migrations.
    #[test]
    fn a_database_that_holds_anything_is_not_laid() {
        let mut c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE notes (x)").unwrap();
        assert_eq!(lay(&mut c, history()).unwrap(), 0);
        let tables: i64 = c
            .query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn times_are_written_as_refinery_writes_them() {
        use chrono::TimeZone;
        let at = chrono::Utc
            .with_ymd_and_hms(2026, 11, 23, 23, 21, 27)
            .unwrap();
        assert_eq!(applied_on(at), "2026-11-23T23:21:27Z");
        let at = at + chrono::Duration::nanoseconds(535_171_419);
        assert_eq!(applied_on(at), "2026-11-23T23:21:27.535171419Z");
        let at = chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
            + chrono::Duration::milliseconds(120);
        assert_eq!(applied_on(at), "2026-01-02T03:04:05.12Z");
    }
}
