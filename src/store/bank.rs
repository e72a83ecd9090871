//! Bank connections over FinTS and the bank accounts each shows
//! (docs/bank-sync.md). Every query is scoped by user: another user's
//! connection is not found. The PIN and the bank's state are stored sealed
//! (`auth::sealed`) and are never part of an export.

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};

/// A connection as stored; `pin_sealed` and `state_sealed` stay inside the
/// service.
#[derive(Clone, Debug)]
pub struct BankConnection {
    pub id: String,
    pub bank_code: String,
    pub bank_name: String,
    pub url: String,
    pub login_name: String,
    pub customer_id: Option<String>,
    pub pin_sealed: Option<String>,
    pub state_sealed: Option<String>,
    pub tan_method: Option<String>,
    pub auto_sync: bool,
    pub auto_confirm: bool,
    pub last_sync_at: Option<String>,
    /// The code of the last failure (`BankFailure`'s), worded when read.
    pub last_error: Option<String>,
    /// The bank's own words, for a refusal known by no code.
    pub last_error_text: Option<String>,
    pub created_at: String,
}

/// A bank account of a connection, as the doors answer it too.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BankAccount {
    /// The IBAN, or the account number when the bank gives no IBAN: the
    /// key `linkBankAccount` takes.
    pub iban: String,
    pub bic: Option<String>,
    pub account_number: String,
    pub name: Option<String>,
    pub owner_name: Option<String>,
    pub currency: Option<String>,
    /// The user's account it is linked to.
    pub account_id: Option<String>,
    /// The day of the last booking a sync of it saw.
    #[serde(skip)]
    pub last_booking: Option<chrono::NaiveDate>,
}

/// A new connection.
pub struct NewConnection<'a> {
    pub id: &'a str,
    pub bank_code: &'a str,
    pub bank_name: &'a str,
    pub url: &'a str,
    pub login_name: &'a str,
    pub customer_id: Option<&'a str>,
    pub pin_sealed: Option<&'a str>,
    pub state_sealed: Option<&'a str>,
    pub tan_method: Option<&'a str>,
}

const COLUMNS: &str = "id, bank_code, bank_name, url, login_name, customer_id, pin_sealed, \
     state_sealed, tan_method, auto_sync, auto_confirm, last_sync_at, last_error, \
     last_error_text, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<BankConnection> {
    Ok(BankConnection {
        id: r.get(0)?,
        bank_code: r.get(1)?,
        bank_name: r.get(2)?,
        url: r.get(3)?,
        login_name: r.get(4)?,
        customer_id: r.get(5)?,
        pin_sealed: r.get(6)?,
        state_sealed: r.get(7)?,
        tan_method: r.get(8)?,
        auto_sync: r.get(9)?,
        auto_confirm: r.get(10)?,
        last_sync_at: r.get(11)?,
        last_error: r.get(12)?,
        last_error_text: r.get(13)?,
        created_at: r.get(14)?,
    })
}

pub fn insert(c: &Connection, user: &UserId, n: &NewConnection<'_>, now: &str) -> Result<()> {
    c.execute(
        "INSERT INTO bank_connections (id, user_id, bank_code, bank_name, url, login_name,
             customer_id, pin_sealed, state_sealed, tan_method, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
        params![
            n.id,
            user,
            n.bank_code,
            n.bank_name,
            n.url,
            n.login_name,
            n.customer_id,
            n.pin_sealed,
            n.state_sealed,
            n.tan_method,
            now
        ],
    )?;
    Ok(())
}

/// The user's connection `id`; another user's is `None`.
pub fn find(c: &Connection, user: &UserId, id: &str) -> Result<Option<BankConnection>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM bank_connections WHERE id = ?1 AND user_id = ?2"),
        params![id, user],
        from_row,
    )
    .optional()?)
}

/// The user's connections, oldest first.
pub fn list(c: &Connection, user: &UserId) -> Result<Vec<BankConnection>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM bank_connections WHERE user_id = ?1 ORDER BY created_at, id"
    ))?;
    let rows = s
        .query_map([user], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Every connection with automatic sync on, of every user, as
/// `(user, connection id)`, oldest first.
pub fn auto_sync(c: &Connection) -> Result<Vec<(UserId, String)>> {
    let mut s = c.prepare_cached(
        "SELECT user_id, id FROM bank_connections
         WHERE auto_sync = 1 AND pin_sealed IS NOT NULL ORDER BY created_at, id",
    )?;
    let rows = s
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Deletes the user's connection, its accounts, saved PIN and state.
pub fn delete(c: &Connection, user: &UserId, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM bank_connections WHERE id = ?1 AND user_id = ?2",
        params![id, user],
    )? > 0)
}

/// Keeps the bank's state (sealed) and the chosen TAN method.
pub fn set_state(
    c: &Connection,
    user: &UserId,
    id: &str,
    state_sealed: &str,
    tan_method: Option<&str>,
    bank_name: Option<&str>,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE bank_connections SET state_sealed = ?3, tan_method = ?4,
             bank_name = COALESCE(?5, bank_name), updated_at = ?6
         WHERE id = ?1 AND user_id = ?2",
        params![id, user, state_sealed, tan_method, bank_name, now],
    )? > 0)
}

/// Saves (`Some`) or forgets (`None`) the sealed PIN; forgetting also
/// turns automatic sync off.
pub fn set_pin(
    c: &Connection,
    user: &UserId,
    id: &str,
    pin_sealed: Option<&str>,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE bank_connections SET pin_sealed = ?3,
             auto_sync = CASE WHEN ?3 IS NULL THEN 0 ELSE auto_sync END, updated_at = ?4
         WHERE id = ?1 AND user_id = ?2",
        params![id, user, pin_sealed, now],
    )? > 0)
}

/// Sets the switches given; automatic sync only where a PIN is saved (the
/// caller checks it and names the field).
pub fn set_switches(
    c: &Connection,
    user: &UserId,
    id: &str,
    auto_sync: Option<bool>,
    auto_confirm: Option<bool>,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE bank_connections SET auto_sync = COALESCE(?3, auto_sync),
             auto_confirm = COALESCE(?4, auto_confirm), updated_at = ?5
         WHERE id = ?1 AND user_id = ?2",
        params![id, user, auto_sync, auto_confirm, now],
    )? > 0)
}

/// Records the outcome of a dialog: a failure's code (and the bank's
/// words), or none; `synced_at` when a sync finished.
pub fn set_outcome(
    c: &Connection,
    user: &UserId,
    id: &str,
    error: Option<(&str, Option<&str>)>,
    synced_at: Option<&str>,
    now: &str,
) -> Result<bool> {
    let (code, text) = match error {
        Some((code, text)) => (Some(code), text),
        None => (None, None),
    };
    Ok(c.execute(
        "UPDATE bank_connections SET last_error = ?3, last_error_text = ?4,
             last_sync_at = COALESCE(?5, last_sync_at), updated_at = ?6
         WHERE id = ?1 AND user_id = ?2",
        params![id, user, code, text, synced_at, now],
    )? > 0)
}

const ACCOUNT_COLUMNS: &str =
    "iban, bic, account_number, name, owner_name, currency, account_id, last_booking";

fn account_from_row(r: &Row<'_>) -> rusqlite::Result<BankAccount> {
    Ok(BankAccount {
        iban: r.get(0)?,
        bic: r.get(1)?,
        account_number: r.get(2)?,
        name: r.get(3)?,
        owner_name: r.get(4)?,
        currency: r.get(5)?,
        account_id: r.get(6)?,
        last_booking: r.get(7)?,
    })
}

/// The bank accounts of the user's connection, in the bank's order.
pub fn accounts(c: &Connection, user: &UserId, connection: &str) -> Result<Vec<BankAccount>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {ACCOUNT_COLUMNS} FROM bank_accounts
         WHERE connection_id = ?1 AND user_id = ?2 ORDER BY position, iban"
    ))?;
    let rows = s
        .query_map(params![connection, user], account_from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Puts the accounts the bank shows in place of the stored ones, keeping
/// the link and the last booking of those still shown.
pub fn replace_accounts(
    c: &Connection,
    user: &UserId,
    connection: &str,
    shown: &[BankAccount],
) -> Result<()> {
    let kept = accounts(c, user, connection)?;
    c.execute(
        "DELETE FROM bank_accounts WHERE connection_id = ?1 AND user_id = ?2",
        params![connection, user],
    )?;
    let mut insert = c.prepare_cached(
        "INSERT OR IGNORE INTO bank_accounts (connection_id, user_id, position, iban, bic,
             account_number, name, owner_name, currency, account_id, last_booking)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for (i, a) in shown.iter().enumerate() {
        let old = kept.iter().find(|k| k.iban == a.iban);
        insert.execute(params![
            connection,
            user,
            i as i64,
            a.iban,
            a.bic,
            a.account_number,
            a.name,
            a.owner_name,
            a.currency,
            old.and_then(|o| o.account_id.clone()),
            old.and_then(|o| o.last_booking),
        ])?;
    }
    Ok(())
}

/// Links the bank account `iban` of the user's connection to `account_id`
/// (or unlinks it); false when there is no such bank account.
pub fn link(
    c: &Connection,
    user: &UserId,
    connection: &str,
    iban: &str,
    account_id: Option<&str>,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE bank_accounts SET account_id = ?4
         WHERE connection_id = ?1 AND user_id = ?2 AND iban = ?3",
        params![connection, user, iban, account_id],
    )? > 0)
}

/// Records the day of the last booking a sync of the bank account saw
/// (never moving it back).
pub fn saw_booking(
    c: &Connection,
    user: &UserId,
    connection: &str,
    iban: &str,
    day: chrono::NaiveDate,
) -> Result<()> {
    c.execute(
        "UPDATE bank_accounts SET last_booking = ?4
         WHERE connection_id = ?1 AND user_id = ?2 AND iban = ?3
           AND (last_booking IS NULL OR last_booking < ?4)",
        params![connection, user, iban, day],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        c.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        crate::store::migrate(&mut c).unwrap();
        c.execute_batch(
            "INSERT INTO users (id, email, email_lower, password_hash, created_at, updated_at)
               VALUES ('a', 'a@x.org', 'a@x.org', 'x', '', ''), ('b', 'b@x.org', 'b@x.org', 'x', '', '');
             INSERT INTO accounts (id, user_id, name, type, currency, balance_cents, created_at, updated_at)
               VALUES ('giro', 'a', 'Giro', 'checking', 'EUR', 0, '', '');",
        )
        .unwrap();
        c
    }

    fn connection(c: &Connection, user: &UserId, id: &str) {
        insert(
            c,
            user,
            &NewConnection {
                id,
                bank_code: "12030000",
                bank_name: "Bank",
                url: "https://fints.example.de/",
                login_name: "anna",
                customer_id: None,
                pin_sealed: Some("v1:sealed"),
                state_sealed: None,
                tan_method: None,
            },
            "2026-01-01T00:00:00Z",
        )
        .unwrap();
    }

    fn account(iban: &str) -> BankAccount {
        BankAccount {
            iban: iban.into(),
            bic: None,
            account_number: "1".into(),
            name: None,
            owner_name: None,
            currency: Some("EUR".into()),
            account_id: None,
            last_booking: None,
        }
    }

    #[test]
    fn a_connection_is_its_users_only_and_goes_with_them() {
        let (c, a, b) = (db(), UserId::test("a"), UserId::test("b"));
        connection(&c, &a, "k");
        assert!(find(&c, &a, "k").unwrap().is_some());
        assert!(find(&c, &b, "k").unwrap().is_none());
        assert!(list(&c, &b).unwrap().is_empty());
        assert!(!delete(&c, &b, "k").unwrap());
        assert!(!set_pin(&c, &b, "k", None, "now").unwrap());
        replace_accounts(&c, &a, "k", &[account("DE1")]).unwrap();
        assert!(!link(&c, &b, "k", "DE1", Some("giro")).unwrap());
        assert!(accounts(&c, &b, "k").unwrap().is_empty());

        c.execute("DELETE FROM users WHERE id = 'a'", []).unwrap();
        let left: i64 = c
            .query_row(
                "SELECT (SELECT COUNT(*) FROM bank_connections) + (SELECT COUNT(*) FROM bank_accounts)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn links_and_last_bookings_outlive_a_new_account_list_and_forgetting_the_pin_stops_auto_sync() {
        let (c, a) = (db(), UserId::test("a"));
        connection(&c, &a, "k");
        replace_accounts(&c, &a, "k", &[account("DE1"), account("DE2")]).unwrap();
        assert!(link(&c, &a, "k", "DE1", Some("giro")).unwrap());
        let day = chrono::NaiveDate::from_ymd_opt(2026, 1, 5).unwrap();
        saw_booking(&c, &a, "k", "DE1", day).unwrap();
        saw_booking(&c, &a, "k", "DE1", day.pred_opt().unwrap()).unwrap();
        replace_accounts(&c, &a, "k", &[account("DE1")]).unwrap();
        let kept = accounts(&c, &a, "k").unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].account_id.as_deref(), Some("giro"));
        assert_eq!(kept[0].last_booking, Some(day));

        set_switches(&c, &a, "k", Some(true), Some(true), "now").unwrap();
        assert_eq!(auto_sync(&c).unwrap().len(), 1);
        set_pin(&c, &a, "k", None, "now").unwrap();
        let k = find(&c, &a, "k").unwrap().unwrap();
        assert!(k.pin_sealed.is_none() && !k.auto_sync && k.auto_confirm);
        assert!(auto_sync(&c).unwrap().is_empty());
        // Automatic sync without a saved PIN is refused by the schema too.
        assert!(set_switches(&c, &a, "k", Some(true), None, "now").is_err());

        // The user's account deleted: the bank account is unlinked.
        c.execute("DELETE FROM accounts WHERE id = 'giro'", [])
            .unwrap();
        assert_eq!(accounts(&c, &a, "k").unwrap()[0].account_id, None);
    }
}
