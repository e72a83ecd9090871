//! What each staged row is to the user's records (`docs/import.md`):
//!
//! - `duplicate`: the same money movement is already in the account: a
//!   record an earlier import wrote from an equal row (its import key), or a
//!   one-time expense or income with the same date, amount and payee key.
//!   Occurrence-aware: each record answers for one row only, so two equal
//!   coffees on one day import as two, and the same file twice adds nothing.
//! - `matched`: the payment of a recurring expense or income, or one side of
//!   a transfer, due within [`WINDOW_DAYS`] with the same amount: already
//!   counted by that item.
//! - `conflict`: a near match a person must decide: a one-time record within
//!   [`WINDOW_DAYS`], the same amount, and payee keys that are equal or one
//!   contains the other.
//! - `new`: everything else.
//!
//! Rows that could not be read, and rows of no amount, are `error` from
//! staging on and never reach this module.

use super::read::Problem;
use crate::domain::merchant;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};

/// How far apart a bank's booking day and the day a record says may be.
pub const WINDOW_DAYS: i64 = 3;

/// The kind of record a row matched (`match.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    DailyExpense,
    Income,
    Expense,
    Transfer,
}

impl Kind {
    pub fn code(self) -> &'static str {
        match self {
            Kind::DailyExpense => "daily_expense",
            Kind::Income => "income",
            Kind::Expense => "expense",
            Kind::Transfer => "transfer",
        }
    }

    pub fn from_code(code: &str) -> Option<Kind> {
        [
            Kind::DailyExpense,
            Kind::Income,
            Kind::Expense,
            Kind::Transfer,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

/// A row's reconciliation status, answered as its [`Status::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    New,
    Duplicate,
    Matched,
    Conflict,
    Error,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::New,
        Status::Duplicate,
        Status::Matched,
        Status::Conflict,
        Status::Error,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Duplicate => "duplicate",
            Status::Matched => "matched",
            Status::Conflict => "conflict",
            Status::Error => "error",
        }
    }

    pub fn from_code(code: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.code() == code)
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// Why a row has its status. Stored as JSON with the row and rendered in
/// the reader's language (`i18n::import::reason`), with the names as they
/// were when it was decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum Reason {
    /// The bank file's row could not be read.
    Unreadable { problem: Problem },
    /// An amount of zero: an information line, nothing to book.
    ZeroAmount,
    /// An earlier import wrote this movement.
    ImportedBefore { name: String, date: NaiveDate },
    /// A one-time record with the same date, amount and payee.
    SameEntry { name: String, date: NaiveDate },
    /// The payment of a recurring expense or income.
    Recurring { name: String, due: NaiveDate },
    /// One side of a transfer between the user's accounts.
    Transfer { name: String, due: NaiveDate },
    /// A record a few days apart with the same amount and a similar payee.
    NearMatch { name: String, date: NaiveDate },
    /// The AI provider's suggestion for an uncategorised row.
    AiCategory { category: String },
    /// The AI provider thinks this may be a record already there.
    AiDuplicate { name: String, date: NaiveDate },
}

/// The key that says two payees are the same: the payee's merchant key,
/// or the memo's when the row has no payee (the merchant memory's key,
/// [`merchant::normalize`]). A record's is that of its merchant, or its name.
pub fn payee_key(payee: &str, memo: &str) -> String {
    let key = merchant::normalize(payee);
    if key.is_empty() {
        merchant::normalize(memo)
    } else {
        key
    }
}

/// Each row's import key: its date, amount and payee key, and how many
/// equal rows came before it in the file. The same movement in a later
/// file of the same account gets the same key. `None` rows (unreadable)
/// get an empty key.
pub fn import_keys(rows: &[Option<(NaiveDate, i64, String)>]) -> Vec<String> {
    let mut seen: HashMap<(NaiveDate, i64, &str), u32> = HashMap::with_capacity(rows.len());
    rows.iter()
        .map(|row| {
            let Some((date, cents, key)) = row else {
                return String::new();
            };
            let n = seen.entry((*date, *cents, key.as_str())).or_insert(0);
            let mut h = Sha256::new();
            h.update(format!("{date}|{cents}|{key}|{n}").as_bytes());
            *n += 1;
            hex::encode(&h.finalize()[..16])
        })
        .collect()
}

/// A staged row that could be read.
#[derive(Clone, Debug)]
pub struct Staged {
    pub date: NaiveDate,
    /// Signed: negative is money out.
    pub cents: i64,
    pub key: String,
    pub import_key: String,
}

/// A one-time expense (negative) or income (positive) of the account.
#[derive(Clone, Debug)]
pub struct Entry {
    pub kind: Kind,
    pub id: String,
    pub date: NaiveDate,
    pub cents: i64,
    pub name: String,
    pub key: String,
    pub import_key: Option<String>,
}

/// A payment a recurring expense or income, or a transfer, has due in the
/// account: negative when money leaves it.
#[derive(Clone, Debug)]
pub struct Due {
    pub kind: Kind,
    pub id: String,
    pub date: NaiveDate,
    pub cents: i64,
    pub name: String,
}

/// The record a row was found to be (`match`).
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub kind: Kind,
    pub id: String,
    pub date: NaiveDate,
    pub cents: i64,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub reason: Option<Reason>,
    pub found: Option<Found>,
    /// From the merchant memory, for rows that may be written.
    pub category_id: Option<String>,
}

impl Outcome {
    /// A row's outcome as staged, before any reconcile: `new`, with no
    /// reason, match or category.
    pub fn staged() -> Outcome {
        Outcome {
            status: Status::New,
            reason: None,
            found: None,
            category_id: None,
        }
    }
}

/// Reconciles `rows` (in file order) against the account's one-time
/// `entries` and the `dues` of its recurring items and transfers; `memory`
/// is the merchant memory (payee key → category id).
pub fn reconcile(
    rows: &[Staged],
    entries: &[Entry],
    dues: &[Due],
    memory: &HashMap<String, String>,
) -> Vec<Outcome> {
    let mut out: Vec<Option<Outcome>> = vec![None; rows.len()];
    let mut used = vec![false; entries.len()];

    // 1. Rows an earlier import wrote.
    let by_import_key: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.import_key.as_deref().map(|k| (k, i)))
        .collect();
    for (row, slot) in rows.iter().zip(out.iter_mut()) {
        if let Some(&i) = by_import_key.get(row.import_key.as_str()) {
            if !used[i] {
                used[i] = true;
                let e = &entries[i];
                *slot = Some(found(Status::Duplicate, entry_found(e), |f| {
                    Reason::ImportedBefore {
                        name: f.name.clone(),
                        date: f.date,
                    }
                }));
            }
        }
    }

    // 2. The same date, amount and payee, one record per row.
    let mut exact: HashMap<(NaiveDate, i64, &str), Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate().rev() {
        if !used[i] {
            exact
                .entry((e.date, e.cents, e.key.as_str()))
                .or_default()
                .push(i);
        }
    }
    for (row, slot) in rows.iter().zip(out.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        let Some(i) = exact
            .get_mut(&(row.date, row.cents, row.key.as_str()))
            .and_then(Vec::pop)
        else {
            continue;
        };
        used[i] = true;
        *slot = Some(found(Status::Duplicate, entry_found(&entries[i]), |f| {
            Reason::SameEntry {
                name: f.name.clone(),
                date: f.date,
            }
        }));
    }

    // 3. Payments recurring items and transfers already count.
    let mut free_dues = Free::new(dues.iter().map(|d| (d.cents, d.date)).enumerate());
    for (row, slot) in rows.iter().zip(out.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        let Some(i) = free_dues.nearest(row.cents, row.date) else {
            continue;
        };
        free_dues.take(dues[i].cents, dues[i].date, i);
        let d = &dues[i];
        let f = Found {
            kind: d.kind,
            id: d.id.clone(),
            date: d.date,
            cents: d.cents,
            name: d.name.clone(),
        };
        *slot = Some(found(Status::Matched, f, |f| match f.kind {
            Kind::Transfer => Reason::Transfer {
                name: f.name.clone(),
                due: f.date,
            },
            _ => Reason::Recurring {
                name: f.name.clone(),
                due: f.date,
            },
        }));
    }

    // 4. Near matches a person decides: the nearest free record of the
    // amount whose payee key is related, found among the record of the
    // same key nearest to the row and the [`NEAR_SCAN`] records of the
    // amount nearest to it.
    let free = || entries.iter().enumerate().filter(|(i, _)| !used[*i]);
    let mut by_amount = Free::new(free().map(|(i, e)| (i, (e.cents, e.date))));
    let mut by_key = Free::new(
        free()
            .filter(|(_, e)| !e.key.is_empty())
            .map(|(i, e)| (i, ((e.cents, e.key.as_str()), e.date))),
    );
    for (row, slot) in rows.iter().zip(out.iter_mut()) {
        if slot.is_some() || row.key.is_empty() {
            continue;
        }
        let same_key = by_key.nearest((row.cents, row.key.as_str()), row.date);
        let similar = |i: usize| related(&row.key, &entries[i].key);
        let scanned = by_amount.nearest_where(row.cents, row.date, NEAR_SCAN, similar);
        let Some(i) = [same_key, scanned]
            .into_iter()
            .flatten()
            .min_by_key(|&i| nearness(entries[i].date, row.date, i))
        else {
            continue;
        };
        let e = &entries[i];
        by_amount.take(e.cents, e.date, i);
        by_key.take((e.cents, e.key.as_str()), e.date, i);
        *slot = Some(found(Status::Conflict, entry_found(e), |f| {
            Reason::NearMatch {
                name: f.name.clone(),
                date: f.date,
            }
        }));
    }

    // The category of the payee as learned, or of the learned payee most
    // like it (a typo, a longer or shorter name); each key looked up once.
    let learned = merchant::KeyIndex::new(memory.keys().map(String::as_str));
    let mut fuzzy: HashMap<String, Option<String>> = HashMap::new();
    let mut remembered = |key: &str| -> Option<String> {
        if let Some(c) = memory.get(key) {
            return Some(c.clone());
        }
        if key.is_empty() {
            return None;
        }
        fuzzy
            .entry(key.to_string())
            .or_insert_with(|| learned.closest(key).and_then(|k| memory.get(k).cloned()))
            .clone()
    };
    // `out` first: its vector becomes the answer's, not a second one.
    out.into_iter()
        .zip(rows)
        .map(|(o, row)| {
            let mut o = o.unwrap_or_else(Outcome::staged);
            if matches!(o.status, Status::New | Status::Conflict) {
                o.category_id = remembered(&row.key);
            }
            o
        })
        .collect()
}

fn entry_found(e: &Entry) -> Found {
    Found {
        kind: e.kind,
        id: e.id.clone(),
        date: e.date,
        cents: e.cents,
        name: e.name.clone(),
    }
}

fn found(status: Status, f: Found, reason: impl FnOnce(&Found) -> Reason) -> Outcome {
    Outcome {
        status,
        reason: Some(reason(&f)),
        found: Some(f),
        category_id: None,
    }
}

/// How many records of a row's amount near its date the near-match step
/// looks at, nearest first, besides the nearest one of the row's own payee
/// key: a file or an account of thousands of equal amounts on the same
/// days costs each row this many comparisons, not one per record.
pub const NEAR_SCAN: usize = 256;

/// What makes one candidate nearer to a row than another: fewer days
/// apart, then the earlier day, then the earlier in list order.
fn nearness(date: NaiveDate, row: NaiveDate, i: usize) -> (i64, NaiveDate, usize) {
    ((date - row).num_days().abs(), date, i)
}

/// The days a candidate may be booked on, nearest to `date` first (the
/// earlier of two equally near ones first).
fn window(date: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    (0..=WINDOW_DAYS).flat_map(move |d| {
        let days = [
            date - chrono::Duration::days(d),
            date + chrono::Duration::days(d),
        ];
        days.into_iter().take(if d == 0 { 1 } else { 2 })
    })
}

/// Candidates not used yet, grouped by a key (an amount, or an amount and
/// a payee key) and ordered by day and list position; a used one is
/// taken out, so nothing is looked at again once it answered for a row.
struct Free<K> {
    groups: HashMap<K, BTreeSet<(NaiveDate, usize)>>,
}

impl<K: std::hash::Hash + Eq> Free<K> {
    fn new(items: impl Iterator<Item = (usize, (K, NaiveDate))>) -> Self {
        let mut groups: HashMap<K, BTreeSet<(NaiveDate, usize)>> = HashMap::new();
        for (i, (key, date)) in items {
            groups.entry(key).or_default().insert((date, i));
        }
        Free { groups }
    }

    /// The free candidate of `key` nearest to `date` within the window.
    fn nearest(&self, key: K, date: NaiveDate) -> Option<usize> {
        self.nearest_where(key, date, usize::MAX, |_| true)
    }

    /// The free candidate of `key` nearest to `date` within the window that
    /// `accept` allows, among the `max` nearest.
    fn nearest_where(
        &self,
        key: K,
        date: NaiveDate,
        max: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let group = self.groups.get(&key)?;
        window(date)
            .flat_map(|day| group.range((day, 0)..=(day, usize::MAX)))
            .take(max)
            .map(|&(_, i)| i)
            .find(|&i| accept(i))
    }

    fn take(&mut self, key: K, date: NaiveDate, i: usize) {
        if let Some(group) = self.groups.get_mut(&key) {
            group.remove(&(date, i));
        }
    }
}

/// Payee keys that name the same payee: equal, or one contains the other.
fn related(a: &str, b: &str) -> bool {
    !a.is_empty() && !b.is_empty() && (a == b || a.contains(b) || b.contains(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn rows(list: &[(&str, i64, &str)]) -> Vec<Staged> {
        let keyed: Vec<_> = list
            .iter()
            .map(|(d, c, p)| Some((day(d), *c, payee_key(p, ""))))
            .collect();
        let keys = import_keys(&keyed);
        list.iter()
            .zip(keys)
            .map(|((d, c, p), k)| Staged {
                date: day(d),
                cents: *c,
                key: payee_key(p, ""),
                import_key: k,
            })
            .collect()
    }

    fn entry(id: &str, d: &str, cents: i64, name: &str) -> Entry {
        Entry {
            kind: if cents < 0 {
                Kind::DailyExpense
            } else {
                Kind::Income
            },
            id: id.into(),
            date: day(d),
            cents,
            name: name.into(),
            key: payee_key(name, ""),
            import_key: None,
        }
    }

    fn statuses(o: &[Outcome]) -> Vec<&'static str> {
        o.iter().map(|o| o.status.code()).collect()
    }

    #[test]
    fn two_equal_payments_on_one_day_are_two_rows_and_one_record_answers_for_one() {
        let r = rows(&[
            ("2026-03-02", -350, "Cafe Kranz"),
            ("2026-03-02", -350, "Cafe Kranz"),
        ]);
        let none = reconcile(&r, &[], &[], &HashMap::new());
        assert_eq!(statuses(&none), ["new", "new"]);
        let one = [entry("a", "2026-03-02", -350, "CAFE KRANZ 0042")];
        let o = reconcile(&r, &one, &[], &HashMap::new());
        assert_eq!(statuses(&o), ["duplicate", "new"]);
        assert_eq!(o[0].found.as_ref().unwrap().id, "a");
    }

    #[test]
    fn records_an_import_wrote_are_known_by_their_key_even_when_renamed() {
        let r = rows(&[
            ("2026-03-02", -350, "Cafe Kranz"),
            ("2026-03-02", -350, "Cafe Kranz"),
        ]);
        let mut written: Vec<Entry> = r
            .iter()
            .enumerate()
            .map(|(i, row)| Entry {
                import_key: Some(row.import_key.clone()),
                ..entry(&format!("w{i}"), "2026-03-02", -350, "Coffee with Anna")
            })
            .collect();
        let o = reconcile(&r, &written, &[], &HashMap::new());
        assert_eq!(statuses(&o), ["duplicate", "duplicate"]);
        assert!(matches!(o[1].reason, Some(Reason::ImportedBefore { .. })));
        // A later file with a third coffee that day adds only that one.
        let r3 = rows(&[
            ("2026-03-02", -350, "Cafe Kranz"),
            ("2026-03-02", -350, "Cafe Kranz"),
            ("2026-03-02", -350, "Cafe Kranz"),
        ]);
        assert_eq!(
            statuses(&reconcile(&r3, &written, &[], &HashMap::new())),
            ["duplicate", "duplicate", "new"]
        );
        written.pop();
        assert_eq!(
            statuses(&reconcile(&r3, &written, &[], &HashMap::new())),
            ["duplicate", "new", "new"]
        );
    }

    #[test]
    fn recurring_payments_and_transfers_within_three_days_are_matched_once() {
        let r = rows(&[
            ("2026-03-03", -1299, "Netflix International"),
            ("2026-03-04", -1299, "Netflix International"),
            ("2026-03-10", -50000, "Max Mustermann"),
            ("2026-03-20", -50000, "Max Mustermann"),
        ]);
        let dues = [
            Due {
                kind: Kind::Expense,
                id: "netflix".into(),
                date: day("2026-03-01"),
                cents: -1299,
                name: "Netflix".into(),
            },
            Due {
                kind: Kind::Transfer,
                id: "save".into(),
                date: day("2026-03-07"),
                cents: -50000,
                name: "Tagesgeld".into(),
            },
        ];
        let o = reconcile(&r, &[], &dues, &HashMap::new());
        assert_eq!(statuses(&o), ["matched", "new", "matched", "new"]);
        assert_eq!(o[2].found.as_ref().unwrap().kind, Kind::Transfer);
        assert!(matches!(o[0].reason, Some(Reason::Recurring { .. })));
    }

    #[test]
    fn near_matches_are_conflicts_and_unrelated_payees_are_new() {
        let r = rows(&[
            ("2026-03-05", -2399, "REWE Markt 1234 Berlin"),
            ("2026-03-05", -2399, "Edeka"),
            ("2026-03-05", -999, "Rewe"),
        ]);
        let e = [
            entry("rewe", "2026-03-03", -2399, "Rewe Markt"),
            entry("old", "2026-02-20", -999, "Rewe"),
        ];
        let o = reconcile(&r, &e, &[], &HashMap::new());
        assert_eq!(statuses(&o), ["conflict", "new", "new"]);
        assert_eq!(o[0].found.as_ref().unwrap().id, "rewe");
    }

    #[test]
    fn the_merchant_memory_gives_new_rows_their_category() {
        let r = rows(&[
            ("2026-03-05", -2399, "REWE Markt 1234"),
            ("2026-03-05", -1299, "REWE"),
            ("2026-03-05", -799, "Rewe Makrt"),
            ("2026-03-05", -499, "Aldi Sued"),
        ]);
        let memory = HashMap::from([("rewe markt".to_string(), "groceries".to_string())]);
        let o = reconcile(&r, &[], &[], &memory);
        let categories: Vec<Option<&str>> = o.iter().map(|o| o.category_id.as_deref()).collect();
        // Exactly, written shorter, with a typo; another merchant gets none.
        assert_eq!(
            categories,
            [
                Some("groceries"),
                Some("groceries"),
                Some("groceries"),
                None
            ]
        );
    }

    #[test]
    fn running_it_again_gives_the_same_result() {
        let r = rows(&[
            ("2026-03-05", -2399, "Rewe"),
            ("2026-03-05", -2399, "Rewe"),
            ("2026-03-06", 250000, "Arbeitgeber GmbH"),
        ]);
        let e = [entry("a", "2026-03-05", -2399, "Rewe")];
        let first = reconcile(&r, &e, &[], &HashMap::new());
        assert_eq!(first, reconcile(&r, &e, &[], &HashMap::new()));
    }

    #[test]
    fn reasons_are_stored_as_json_and_read_back() {
        let json = serde_json::to_string(&Reason::Unreadable {
            problem: Problem::Date {
                value: "31.02.2025".into(),
            },
        })
        .unwrap();
        let back: Reason = serde_json::from_str(&json).unwrap();
        assert!(
            matches!(back, Reason::Unreadable { problem: Problem::Date { value } } if value == "31.02.2025")
        );
    }

    /// Reconciliation as it was before its indices: every candidate of the
    /// row's amount in the window looked at, for the property below.
    mod reference {
        use super::super::*;
        /// Reconciles `rows` (in file order) against the account's one-time
        /// `entries` and the `dues` of its recurring items and transfers; `memory`
        /// is the merchant memory (payee key → category id).
        pub fn reconcile_reference(
            rows: &[Staged],
            entries: &[Entry],
            dues: &[Due],
            memory: &HashMap<String, String>,
        ) -> Vec<Outcome> {
            let mut out: Vec<Option<Outcome>> = vec![None; rows.len()];
            let mut used = vec![false; entries.len()];

            // 1. Rows an earlier import wrote.
            let by_import_key: HashMap<&str, usize> = entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.import_key.as_deref().map(|k| (k, i)))
                .collect();
            for (row, slot) in rows.iter().zip(out.iter_mut()) {
                if let Some(&i) = by_import_key.get(row.import_key.as_str()) {
                    if !used[i] {
                        used[i] = true;
                        let e = &entries[i];
                        *slot = Some(found(Status::Duplicate, entry_found(e), |f| {
                            Reason::ImportedBefore {
                                name: f.name.clone(),
                                date: f.date,
                            }
                        }));
                    }
                }
            }

            // 2. The same date, amount and payee, one record per row.
            let mut exact: HashMap<(NaiveDate, i64, &str), Vec<usize>> = HashMap::new();
            for (i, e) in entries.iter().enumerate().rev() {
                if !used[i] {
                    exact
                        .entry((e.date, e.cents, e.key.as_str()))
                        .or_default()
                        .push(i);
                }
            }
            for (row, slot) in rows.iter().zip(out.iter_mut()) {
                if slot.is_some() {
                    continue;
                }
                let Some(i) = exact
                    .get_mut(&(row.date, row.cents, row.key.as_str()))
                    .and_then(Vec::pop)
                else {
                    continue;
                };
                used[i] = true;
                *slot = Some(found(Status::Duplicate, entry_found(&entries[i]), |f| {
                    Reason::SameEntry {
                        name: f.name.clone(),
                        date: f.date,
                    }
                }));
            }

            // 3. Payments recurring items and transfers already count.
            let dues_by_cents = by_cents(dues.iter().map(|d| (d.cents, d.date)));
            let mut due_used = vec![false; dues.len()];
            for (row, slot) in rows.iter().zip(out.iter_mut()) {
                if slot.is_some() {
                    continue;
                }
                let Some(i) = nearest(&dues_by_cents, row, &due_used, |_| true, |i| dues[i].date)
                else {
                    continue;
                };
                due_used[i] = true;
                let d = &dues[i];
                let f = Found {
                    kind: d.kind,
                    id: d.id.clone(),
                    date: d.date,
                    cents: d.cents,
                    name: d.name.clone(),
                };
                *slot = Some(found(Status::Matched, f, |f| match f.kind {
                    Kind::Transfer => Reason::Transfer {
                        name: f.name.clone(),
                        due: f.date,
                    },
                    _ => Reason::Recurring {
                        name: f.name.clone(),
                        due: f.date,
                    },
                }));
            }

            // 4. Near matches a person decides.
            let entries_by_cents = by_cents(entries.iter().map(|e| (e.cents, e.date)));
            for (row, slot) in rows.iter().zip(out.iter_mut()) {
                if slot.is_some() {
                    continue;
                }
                let similar = |i: usize| related(&row.key, &entries[i].key);
                let Some(i) = nearest(&entries_by_cents, row, &used, similar, |i| entries[i].date)
                else {
                    continue;
                };
                used[i] = true;
                *slot = Some(found(Status::Conflict, entry_found(&entries[i]), |f| {
                    Reason::NearMatch {
                        name: f.name.clone(),
                        date: f.date,
                    }
                }));
            }

            // The category of the payee as learned, or of the learned payee most
            // like it (a typo, a longer or shorter name); each key looked up once.
            let mut fuzzy: HashMap<String, Option<String>> = HashMap::new();
            let mut remembered = |key: &str| -> Option<String> {
                if let Some(c) = memory.get(key) {
                    return Some(c.clone());
                }
                if key.is_empty() {
                    return None;
                }
                fuzzy
                    .entry(key.to_string())
                    .or_insert_with(|| {
                        crate::domain::merchant::closest(
                            key,
                            memory.keys().map(|k| (k.as_str(), 0)),
                        )
                        .and_then(|k| memory.get(k).cloned())
                    })
                    .clone()
            };
            rows.iter()
                .zip(out)
                .map(|(row, o)| {
                    let mut o = o.unwrap_or(Outcome {
                        status: Status::New,
                        reason: None,
                        found: None,
                        category_id: None,
                    });
                    if matches!(o.status, Status::New | Status::Conflict) {
                        o.category_id = remembered(&row.key);
                    }
                    o
                })
                .collect()
        }

        fn entry_found(e: &Entry) -> Found {
            Found {
                kind: e.kind,
                id: e.id.clone(),
                date: e.date,
                cents: e.cents,
                name: e.name.clone(),
            }
        }

        fn found(status: Status, f: Found, reason: impl FnOnce(&Found) -> Reason) -> Outcome {
            Outcome {
                status,
                reason: Some(reason(&f)),
                found: Some(f),
                category_id: None,
            }
        }

        /// Indices by amount, each list sorted by date.
        fn by_cents(
            items: impl Iterator<Item = (i64, NaiveDate)>,
        ) -> HashMap<i64, Vec<(NaiveDate, usize)>> {
            let mut map: HashMap<i64, Vec<(NaiveDate, usize)>> = HashMap::new();
            for (i, (cents, date)) in items.enumerate() {
                map.entry(cents).or_default().push((date, i));
            }
            for list in map.values_mut() {
                list.sort();
            }
            map
        }

        /// The unused candidate of the row's amount nearest to its date within the
        /// window (the earlier one on a tie) that `accept` allows.
        fn nearest(
            index: &HashMap<i64, Vec<(NaiveDate, usize)>>,
            row: &Staged,
            used: &[bool],
            accept: impl Fn(usize) -> bool,
            date_of: impl Fn(usize) -> NaiveDate,
        ) -> Option<usize> {
            let list = index.get(&row.cents)?;
            let from = row.date - chrono::Duration::days(WINDOW_DAYS);
            let to = row.date + chrono::Duration::days(WINDOW_DAYS);
            let start = list.partition_point(|(d, _)| *d < from);
            list[start..]
                .iter()
                .take_while(|(d, _)| *d <= to)
                .filter(|(_, i)| !used[*i] && accept(*i))
                .min_by_key(|(_, i)| ((date_of(*i) - row.date).num_days().abs(), date_of(*i)))
                .map(|(_, i)| *i)
        }

        /// Payee keys that name the same payee: equal, or one contains the other.
        fn related(a: &str, b: &str) -> bool {
            !a.is_empty() && !b.is_empty() && (a == b || a.contains(b) || b.contains(a))
        }
    }

    fn arb_key() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "",
            "rewe",
            "rewe markt",
            "aldi sued",
            "aldi",
            "edeka",
            "rewe makrt",
            "bahn",
        ])
    }

    fn arb_day() -> impl Strategy<Value = NaiveDate> {
        (0i64..12).prop_map(|d| day("2026-03-01") + chrono::Duration::days(d))
    }

    fn arb_cents() -> impl Strategy<Value = i64> {
        prop::sample::select(vec![-350i64, -1000, 2500, -350, -999])
    }

    proptest! {
        #[test]
        fn the_indices_find_what_looking_at_every_candidate_finds(
            rows in prop::collection::vec((arb_day(), arb_cents(), arb_key()), 0..40),
            entries in prop::collection::vec((arb_day(), arb_cents(), arb_key(), any::<bool>()), 0..40),
            dues in prop::collection::vec((arb_day(), arb_cents()), 0..12),
        ) {
            let keys = import_keys(
                &rows.iter().map(|(d, c, k)| Some((*d, *c, k.to_string()))).collect::<Vec<_>>(),
            );
            let staged: Vec<Staged> = rows
                .iter()
                .zip(&keys)
                .map(|((d, c, k), ik)| Staged { date: *d, cents: *c, key: k.to_string(), import_key: ik.clone() })
                .collect();
            let entries: Vec<Entry> = entries
                .iter()
                .enumerate()
                .map(|(i, (d, c, k, imported))| Entry {
                    kind: Kind::DailyExpense,
                    id: format!("e{i}"),
                    date: *d,
                    cents: *c,
                    name: k.to_string(),
                    key: k.to_string(),
                    import_key: imported.then(|| keys.get(i).cloned()).flatten(),
                })
                .collect();
            let dues: Vec<Due> = dues
                .iter()
                .enumerate()
                .map(|(i, (d, c))| Due { kind: Kind::Expense, id: format!("d{i}"), date: *d, cents: *c, name: "Miete".into() })
                .collect();
            let memory: HashMap<String, String> =
                [("rewe markt".to_string(), "food".to_string()), ("aldi".to_string(), "food".to_string())].into();
            prop_assert_eq!(
                reconcile(&staged, &entries, &dues, &memory),
                reference::reconcile_reference(&staged, &entries, &dues, &memory)
            );
        }
    }
}
