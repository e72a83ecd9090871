//! The balances an account had, one per day (`balance_history`): recorded
//! whenever a balance is set, read for an account's history and for net
//! worth over the months. An account's rows go with it.

use super::users::UserId;
use crate::domain::money;
use crate::domain::net_worth::BalancePoint;
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use rust_decimal::Decimal;

/// Records `balance` as the balance of the user's account `account_id` on
/// `date`, replacing what that day held: several changes on one day keep
/// the last. Nothing is written for an account that is not the user's.
pub fn record(
    c: &Connection,
    user_id: &UserId,
    account_id: &str,
    date: NaiveDate,
    balance: Decimal,
    now: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO balance_history (user_id, account_id, date, balance_cents, recorded_at)
         SELECT user_id, id, ?3, ?4, ?5 FROM accounts WHERE id = ?1 AND user_id = ?2
         ON CONFLICT (account_id, date) DO UPDATE
            SET balance_cents = excluded.balance_cents, recorded_at = excluded.recorded_at",
    )?
    .execute(params![
        account_id,
        user_id,
        date.to_string(),
        money::to_cents(balance),
        now
    ])?;
    Ok(())
}

/// Records `balance`, read from a statement dated `date`, as the balance
/// of the user's account now (`docs/import.md`, The balance from the
/// file): it is kept on the statement's day (on `today` for a statement
/// dated later), replacing what that day held, and the entries of later
/// days are dropped, so that the history's last balance is the account's
/// balance. A statement older than the account's creation day makes the
/// history begin on the statement's day.
pub fn record_from_statement(
    c: &Connection,
    user_id: &UserId,
    account_id: &str,
    date: NaiveDate,
    balance: Decimal,
    today: NaiveDate,
    now: &str,
) -> Result<()> {
    let date = date.min(today);
    c.prepare_cached(
        "DELETE FROM balance_history WHERE account_id = ?1 AND user_id = ?2 AND date > ?3",
    )?
    .execute(params![account_id, user_id, date.to_string()])?;
    record(c, user_id, account_id, date, balance, now)
}

/// The recorded balances of the user's account, oldest first (empty for an
/// account that is not theirs).
pub fn of_account(c: &Connection, user_id: &UserId, account_id: &str) -> Result<Vec<BalancePoint>> {
    let rows = c
        .prepare_cached(
            "SELECT account_id, date, balance_cents FROM balance_history
              WHERE user_id = ?1 AND account_id = ?2 ORDER BY date",
        )?
        .query_map(params![user_id, account_id], point)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Every recorded balance of every account of the user, by account and
/// then oldest first.
pub fn all(c: &Connection, user_id: &UserId) -> Result<Vec<BalancePoint>> {
    let rows = c
        .prepare_cached(
            "SELECT account_id, date, balance_cents FROM balance_history
              WHERE user_id = ?1 ORDER BY account_id, date",
        )?
        .query_map([user_id], point)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

fn point(r: &rusqlite::Row<'_>) -> rusqlite::Result<BalancePoint> {
    Ok(BalancePoint {
        account_id: r.get(0)?,
        date: r.get(1)?,
        balance: money::from_cents(r.get(2)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::accounts::{Account, NewAccount};
    use crate::store::table;

    fn db() -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        c.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        crate::store::migrate(&mut c).unwrap();
        c.execute_batch(
            "INSERT INTO users (id, email, email_lower, password_hash, created_at, updated_at)
               VALUES ('a', 'a@x.org', 'a@x.org', 'x', '', ''), ('b', 'b@x.org', 'b@x.org', 'x', '', '');",
        )
        .unwrap();
        c
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_day_keeps_its_last_balance_and_another_user_reaches_nothing() {
        let (c, a, b) = (db(), UserId::test("a"), UserId::test("b"));
        let new = NewAccount {
            name: "Giro".into(),
            kind: "checking".into(),
            currency: "EUR".into(),
            balance: Decimal::new(100, 0),
        };
        let giro = table::insert::<Account>(&c, &a, &new, "2026-01-01T09:00:00Z").unwrap();
        record(
            &c,
            &a,
            &giro.id,
            day("2026-01-05"),
            Decimal::new(120, 0),
            "t1",
        )
        .unwrap();
        record(
            &c,
            &a,
            &giro.id,
            day("2026-01-05"),
            Decimal::new(-130, 0),
            "t2",
        )
        .unwrap();
        record(
            &c,
            &a,
            &giro.id,
            day("2026-01-02"),
            Decimal::new(90, 0),
            "t3",
        )
        .unwrap();
        // Bob cannot write to Alice's account, nor read it.
        record(
            &c,
            &b,
            &giro.id,
            day("2026-01-06"),
            Decimal::new(1, 0),
            "t4",
        )
        .unwrap();
        assert!(of_account(&c, &b, &giro.id).unwrap().is_empty());
        assert!(all(&c, &b).unwrap().is_empty());

        let points = of_account(&c, &a, &giro.id).unwrap();
        let seen: Vec<(String, Decimal)> = points
            .iter()
            .map(|p| (p.date.to_string(), p.balance))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("2026-01-02".to_string(), Decimal::new(90, 0)),
                ("2026-01-05".to_string(), Decimal::new(-130, 0)),
            ]
        );

        // A statement's balance drops the later days; another user's
        // statement drops nothing of Alice's.
        let (d1, d2) = (day("2026-01-03"), day("2026-01-10"));
        record_from_statement(&c, &b, &giro.id, d1, Decimal::ONE, d2, "t5").unwrap();
        assert_eq!(of_account(&c, &a, &giro.id).unwrap(), points);
        record_from_statement(&c, &a, &giro.id, d1, Decimal::ONE, d2, "t5").unwrap();
        let dates: Vec<String> = of_account(&c, &a, &giro.id)
            .unwrap()
            .iter()
            .map(|p| p.date.to_string())
            .collect();
        assert_eq!(dates, ["2026-01-02", "2026-01-03"]);

        // Deleting the account deletes its history.
        table::delete::<Account>(&c, &a, &giro.id).unwrap();
        assert!(all(&c, &a).unwrap().is_empty());
    }
}
