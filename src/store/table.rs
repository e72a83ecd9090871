//! The queries every user-owned record table shares, written once.
//!
//! A record type describes its table with [`Table`] (name, columns, how a
//! row is read and how a validated record is bound), and [`find`], [`all`],
//! [`insert`], [`update`] and [`delete`] do the rest, each scoped by user so
//! that another user's id behaves like an unknown one. What is special to a
//! table (filters, sums, a uniqueness check) stays in its own module.

use super::users::UserId;
use crate::error::Result;
use rusqlite::types::ToSql;
use rusqlite::{params, Connection, OptionalExtension, Row};

/// A user-owned table of records with `id`, `user_id`, `created_at` and
/// `updated_at` columns besides its own.
pub trait Table: Sized {
    /// A validated record, ready to write.
    type New;
    /// The table's name.
    const NAME: &'static str;
    /// The columns a row is read from, in the order [`Table::from_row`] reads them.
    const COLUMNS: &'static str;
    /// The columns a write sets, in the order [`Table::bind`] gives their values.
    const WRITTEN: &'static [&'static str];
    /// The order of [`all`].
    const ORDER: &'static str;

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self>;

    /// The record's id.
    fn id(&self) -> &str;

    /// Calls `f` with the values of [`Table::WRITTEN`] for `new`.
    fn bind<R>(new: &Self::New, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R;

    /// The record as shown on `today`: as read, but for a record with
    /// parts that follow from the day (a recurring expense's current
    /// contract term and its deadline, [`crate::store::expenses::Expense::on`]).
    fn shown_on(self, _today: chrono::NaiveDate) -> Self {
        self
    }

    /// Checks run before each insert (`id` is `None`) or update, in the
    /// same transaction.
    fn before_write(
        _c: &Connection,
        _user_id: &UserId,
        _new: &Self::New,
        _id: Option<&str>,
    ) -> Result<()> {
        Ok(())
    }
}

/// Writes a table's [`Table::COLUMNS`] and [`Table::from_row`] from one
/// list, so the columns and the order they are read in cannot drift apart.
/// `id` comes first; each field is then read from the column of its name, or
/// from the column (or expression) given after `:`, passed through the
/// function after `=>` when there is one. `; field: Struct { … }` after the
/// list reads a struct field from a list of its own, in the same way, and
/// `; plan` is the field `plan`, a [`crate::store::recurring::Planned`]
/// (in scope as `Planned`), read from its five columns.
macro_rules! read_columns {
    { $($field:ident $(: $column:expr $(=> $read:path)?)?),+ ; plan $(,)? } => {
        $crate::store::table::read_columns! {
            $($field $(: $column $(=> $read)?)?),+ ;
            plan: Planned {
                amount: "amount_cents" => $crate::domain::money::Money::from_cents,
                currency, frequency, start_date, end_date,
            }
        }
    };
    {
        $($field:ident $(: $column:expr $(=> $read:path)?)?),+
        $(; $nested:ident: $Nested:ident {
            $($sub:ident $(: $sub_column:expr $(=> $sub_read:path)?)?),+ $(,)?
        })?
        $(,)?
    } => {
        const COLUMNS: &'static str = concat!(
            "id"
            $(, ", ", $crate::store::table::read_columns!(@name $field $($column)?))+
            $($(, ", ", $crate::store::table::read_columns!(@name $sub $($sub_column)?))+)?
        );

        fn id(&self) -> &str {
            &self.id
        }

        fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
            let mut at = 0;
            let mut next = || {
                at += 1;
                at
            };
            // Struct fields are evaluated in the order written: the columns' order.
            Ok(Self {
                id: r.get(0)?,
                $($field: $crate::store::table::read_columns!(@read r, next() $($(, $read)?)?),)+
                $($nested: $Nested {
                    $($sub: $crate::store::table::read_columns!(
                        @read r, next() $($(, $sub_read)?)?
                    ),)+
                },)?
            })
        }
    };
    (@name $field:ident) => { stringify!($field) };
    (@name $field:ident $column:expr) => { $column };
    (@read $r:ident, $at:expr) => { $r.get($at)? };
    (@read $r:ident, $at:expr, $read:path) => { $read($r.get($at)?) };
}
pub(crate) use read_columns;

/// Writes a table's [`Table::WRITTEN`] and [`Table::bind`] from one list of
/// `column => value` pairs, the values taken from the validated record named
/// before the `;`; `plan: …` after them writes a
/// [`crate::store::recurring::Planned`] to its five columns.
macro_rules! written_columns {
    { $new:ident; $($column:literal => $value:expr),+ ; plan: $plan:expr $(,)? } => {
        const WRITTEN: &'static [&'static str] = &[
            $($column,)+ "amount_cents", "currency", "frequency", "start_date", "end_date",
        ];

        fn bind<R>(
            $new: &Self::New,
            f: impl FnOnce(&[&dyn rusqlite::types::ToSql]) -> R,
        ) -> R {
            let p = &$plan;
            f(rusqlite::params![
                $($value,)+
                $crate::domain::money::to_cents(p.amount),
                p.currency,
                p.frequency.code(),
                p.start_date,
                p.end_date,
            ])
        }
    };
    { $new:ident; $($column:literal => $value:expr),+ $(,)? } => {
        const WRITTEN: &'static [&'static str] = &[$($column),+];

        fn bind<R>(
            $new: &Self::New,
            f: impl FnOnce(&[&dyn rusqlite::types::ToSql]) -> R,
        ) -> R {
            f(rusqlite::params![$($value),+])
        }
    };
}

/// The column that reads a record's earlier amounts (`store::prices`), for
/// the record table `$table` whose rows `earlier_amounts.$owner` names.
macro_rules! earlier_amounts {
    ($owner:literal, $table:literal) => {
        concat!(
            "(SELECT group_concat(p.until || ' ' || p.amount_cents) FROM earlier_amounts p WHERE p.",
            $owner,
            " = ",
            $table,
            ".id AND p.user_id = ",
            $table,
            ".user_id)"
        )
    };
}
pub(crate) use earlier_amounts;
pub(crate) use written_columns;

/// The user's record with this id, if any.
pub fn find<T: Table>(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<T>> {
    let sql = format!(
        "SELECT {} FROM {} WHERE id = ?1 AND user_id = ?2",
        T::COLUMNS,
        T::NAME
    );
    Ok(c.prepare_cached(&sql)?
        .query_row(params![id, user_id], T::from_row)
        .optional()?)
}

/// All of the user's records, in the table's order.
pub fn all<T: Table>(c: &Connection, user_id: &UserId) -> Result<Vec<T>> {
    let sql = format!(
        "SELECT {} FROM {} WHERE user_id = ?1 ORDER BY {}",
        T::COLUMNS,
        T::NAME,
        T::ORDER
    );
    let rows = c
        .prepare_cached(&sql)?
        .query_map([user_id], T::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Inserts a new record with a fresh id and answers it as stored.
pub fn insert<T: Table>(c: &Connection, user_id: &UserId, new: &T::New, now: &str) -> Result<T> {
    T::before_write(c, user_id, new, None)?;
    let id = super::new_id();
    let n = T::WRITTEN.len();
    let sql = format!(
        "INSERT INTO {} (id, user_id, {}, created_at, updated_at) VALUES ({}, ?{at}, ?{at})",
        T::NAME,
        T::WRITTEN.join(", "),
        (1..=n + 2)
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", "),
        at = n + 3,
    );
    T::bind(new, |values| {
        let mut all: Vec<&dyn ToSql> = vec![&id, &user_id];
        all.extend_from_slice(values);
        all.push(&now);
        c.prepare_cached(&sql)?.execute(all.as_slice())
    })?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

/// Overwrites the user's record with this id; `None` when there is none.
pub fn update<T: Table>(
    c: &Connection,
    user_id: &UserId,
    id: &str,
    new: &T::New,
    now: &str,
) -> Result<Option<T>> {
    T::before_write(c, user_id, new, Some(id))?;
    let n = T::WRITTEN.len();
    let set: Vec<String> = T::WRITTEN
        .iter()
        .enumerate()
        .map(|(i, column)| format!("{column} = ?{}", i + 1))
        .collect();
    let sql = format!(
        "UPDATE {} SET {}, updated_at = ?{} WHERE id = ?{} AND user_id = ?{}",
        T::NAME,
        set.join(", "),
        n + 1,
        n + 2,
        n + 3,
    );
    let changed = T::bind(new, |values| {
        let mut all: Vec<&dyn ToSql> = values.to_vec();
        all.extend_from_slice(&[&now, &id, &user_id]);
        c.prepare_cached(&sql)?.execute(all.as_slice())
    })?;
    if changed == 0 {
        return Ok(None);
    }
    find(c, user_id, id)
}

/// Deletes the user's record with this id; `false` when there is none.
pub fn delete<T: Table>(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    let sql = format!("DELETE FROM {} WHERE id = ?1 AND user_id = ?2", T::NAME);
    Ok(c.prepare_cached(&sql)?.execute(params![id, user_id])? == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::accounts::{Account, NewAccount};
    use rust_decimal::Decimal;

    fn db() -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        crate::store::migrate(&mut c).unwrap();
        c.execute_batch(
            "INSERT INTO users (id, email, email_lower, password_hash, created_at, updated_at)
               VALUES ('a', 'a@x.org', 'a@x.org', 'x', '', ''), ('b', 'b@x.org', 'b@x.org', 'x', '', '');",
        )
        .unwrap();
        c
    }

    fn account(name: &str, cents: i64) -> NewAccount {
        NewAccount {
            name: name.into(),
            kind: "savings".into(),
            currency: "EUR".into(),
            balance: Decimal::new(cents, 2),
        }
    }

    /// An id an input refers to is looked up in its table's own
    /// [`Table::NAME`]: the user's record passes, another user's and an
    /// unknown one fail naming the field.
    #[test]
    fn an_id_an_input_refers_to_is_checked_in_its_table() {
        let (c, a, b) = (db(), UserId::test("a"), UserId::test("b"));
        let made = insert::<Account>(&c, &a, &account("Giro", 1), "t1").unwrap();
        crate::store::require_owned_field::<Account>(&c, &a, "accountId", &made.id).unwrap();
        for (user, id) in [(&b, made.id.as_str()), (&a, "nope")] {
            let refused = crate::store::require_owned_field::<Account>(&c, user, "moveTo", id);
            assert!(
                matches!(&refused, Err(crate::error::Error::UnknownId(f)) if f == "moveTo"),
                "{refused:?}"
            );
        }
        // The same id is no category of the user's.
        assert!(
            crate::store::require_owned_field::<crate::store::categories::Category>(
                &c,
                &a,
                "categoryId",
                &made.id
            )
            .is_err()
        );
    }

    /// The generic queries write every column and only ever touch the
    /// given user's rows: another user's id is an unknown one.
    #[test]
    fn writes_every_column_and_scopes_by_user() {
        let (c, a, b) = (db(), UserId::test("a"), UserId::test("b"));
        let made = insert::<Account>(&c, &a, &account("Zebra", 12_345), "t1").unwrap();
        assert_eq!(
            (made.name.as_str(), made.kind.as_str()),
            ("Zebra", "savings")
        );
        assert_eq!(made.balance, Decimal::new(12_345, 2));
        assert_eq!(
            (made.created_at.as_str(), made.updated_at.as_str()),
            ("t1", "t1")
        );
        insert::<Account>(&c, &a, &account("alpha", 1), "t1").unwrap();

        assert!(find::<Account>(&c, &b, &made.id).unwrap().is_none());
        assert!(update::<Account>(&c, &b, &made.id, &account("X", 1), "t2")
            .unwrap()
            .is_none());
        assert!(!delete::<Account>(&c, &b, &made.id).unwrap());
        assert!(all::<Account>(&c, &b).unwrap().is_empty());

        let changed = update::<Account>(&c, &a, &made.id, &account("Yak", -5), "t2")
            .unwrap()
            .unwrap();
        assert_eq!(
            (changed.name.as_str(), changed.balance.0),
            ("Yak", Decimal::new(-5, 2))
        );
        assert_eq!(
            (changed.created_at.as_str(), changed.updated_at.as_str()),
            ("t1", "t2")
        );
        let names: Vec<String> = all::<Account>(&c, &a)
            .unwrap()
            .into_iter()
            .map(|a| a.name)
            .collect();
        assert_eq!(names, ["alpha", "Yak"]);

        assert!(delete::<Account>(&c, &a, &made.id).unwrap());
        assert!(find::<Account>(&c, &a, &made.id).unwrap().is_none());
    }

    /// A struct field read from its own list (`; entry: DailyEntry { … }`)
    /// is written, read and answered as the record's own fields.
    #[test]
    fn a_nested_struct_is_written_read_and_answered_flat() {
        use crate::store::daily_expenses::{DailyEntry, DailyExpense};
        let (c, a) = (db(), UserId::test("a"));
        let account = insert::<Account>(&c, &a, &account("A", 0), "t1").unwrap();
        let entry = DailyEntry {
            name: "Bakery".into(),
            amount: crate::domain::money::Money(Decimal::new(1_240, 2)),
            currency: "EUR".into(),
            date: chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap(),
            account_id: account.id.clone(),
            category_id: None,
            merchant: "Schmidt".into(),
            notes: "n".into(),
        };
        let made = insert::<DailyExpense>(&c, &a, &entry, "t1").unwrap();
        assert_eq!(made.entry.amount, entry.amount);
        let json = serde_json::to_string(&made).unwrap();
        let expected = format!(
            r#"{{"id":"{}","name":"Bakery","amount":12.40,"currency":"EUR","date":"2026-11-23","accountId":"{}","categoryId":null,"merchant":"Schmidt","notes":"n","createdAt":"t1","updatedAt":"t1"}}"#,
            made.id, account.id
        );
        assert_eq!(json, expected);
    }

    /// A record with a [`crate::store::recurring::Planned`] writes and reads
    /// its five columns (`; plan`), and answers them as its own fields.
    #[test]
    fn a_plan_is_written_read_and_answered_flat() {
        use crate::domain::recurrence::{Frequency, Schedule};
        use crate::store::recurring::Planned;
        use crate::store::transfers::{NewTransfer, Transfer};
        use chrono::NaiveDate;
        let (c, a) = (db(), UserId::test("a"));
        let from = insert::<Account>(&c, &a, &account("From", 0), "t1").unwrap();
        let to = insert::<Account>(&c, &a, &account("To", 0), "t1").unwrap();
        let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        let schedule = Schedule::new(
            Frequency::Quarterly,
            day("2026-01-31"),
            Some(day("2027-01-31")),
        )
        .unwrap();
        let new = NewTransfer {
            from_account_id: from.id,
            to_account_id: to.id,
            plan: Planned::new(Decimal::new(1_250, 2), "USD".into(), schedule),
            note: "n".into(),
        };
        let made = insert::<Transfer>(&c, &a, &new, "t1").unwrap();
        assert_eq!(made.plan.schedule(), schedule);
        assert_eq!(
            (*made.plan.amount, made.plan.currency.as_str()),
            (Decimal::new(1_250, 2), "USD")
        );
        // Amounts keep their two decimals, as in every reply.
        let json = serde_json::to_string(&made).unwrap();
        assert!(
            json.contains(
                r#""amount":12.50,"currency":"USD","frequency":"quarterly","startDate":"2026-01-31","endDate":"2027-01-31","note":"n""#
            ),
            "{json}"
        );
    }
}
