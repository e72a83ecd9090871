//! The morning bank sync (`docs/bank-sync.md`), the use case the
//! schedule (`jobs::bank_sync`) runs: every connection with automatic
//! sync on (and so a saved PIN) is synced, one connection after the other.
//!
//! - With auto-confirm, a synced batch with no conflict and no error row
//!   is confirmed with the bank's balance (`setBalance`), by the import's
//!   own confirm. Every other batch waits on the import page, and its
//!   owner gets one push "12 new bookings at Sparkasse to review" when
//!   there is something new.
//! - A sync that needs a TAN or an approval asks the person by push once
//!   and is not tried again until a sync of the connection has completed
//!   since (the person fetched by hand): the bank never sees a loop of
//!   challenges, nor the person a push every morning.
//! - A wrong or locked PIN has turned automatic sync off and dropped the
//!   PIN (`app::bank`); the person is told by push.
//! - A failure of one connection never stops the others; each is logged
//!   by connection and user id only, never with PIN, TAN or login name.

use super::{AutoSync, SyncOutcome, SyncState, SyncedBatch, Trigger};
use crate::app::import::Counts;
use crate::error::{BankFailure, Error, Reason};
use crate::services::push::{notify_payload, PushService};
use crate::state::AppState;
use crate::store::bank_asks;

/// What one run did, for the log and the tests.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Connections with automatic sync on.
    pub connections: usize,
    /// Syncs that finished.
    pub synced: usize,
    /// Batches confirmed by auto-confirm.
    pub confirmed: usize,
    /// Batches left on the import page.
    pub waiting: usize,
    /// Connections whose sync needs the person (a TAN, an approval, a TAN
    /// method), asked now.
    pub asked: usize,
    /// Connections left alone: asked before and not synced since.
    pub skipped: usize,
    /// Connections whose bank refused the saved PIN or locked the access.
    pub pin_refused: usize,
    /// Connections whose sync failed otherwise.
    pub failed: usize,
    /// Push messages a push service accepted.
    pub pushed: usize,
}

/// Whether auto-confirm may confirm a batch: nothing for a person to
/// decide (no conflict) and nothing unreadable (no error row).
fn confirmable(counts: &Counts) -> bool {
    counts.conflict == 0 && counts.error == 0
}

/// The bookings of a batch a person reviews: every row that is not
/// already in the account.
fn to_review(counts: &Counts) -> i64 {
    counts.total() - counts.duplicate
}

/// Where a push about the batches left waiting leads: the one batch's
/// review, or the import page with the list of them.
fn review_link(waiting: &[&SyncedBatch]) -> String {
    match waiting {
        [one] => format!("/import?batch={}", one.batch_id),
        _ => "/import".to_string(),
    }
}

/// Syncs every connection with automatic sync on, one at a time; never
/// fails (each failure is logged and the next connection goes on).
pub async fn morning(state: &AppState) -> Summary {
    let mut summary = Summary::default();
    let connections = match super::auto_sync_connections(state).await {
        Ok(c) => c,
        Err(e) => {
            e.log();
            tracing::error!(error = %e, "bank sync: the connections could not be read");
            return summary;
        }
    };
    summary.connections = connections.len();
    let push = PushService::from_config(&state.config);
    for connection in &connections {
        one(state, push.as_ref(), connection, &mut summary).await;
    }
    tracing::info!(?summary, "bank sync job");
    summary
}

/// Syncs one connection and acts on the outcome.
async fn one(
    state: &AppState,
    push: Option<&PushService>,
    connection: &AutoSync,
    summary: &mut Summary,
) {
    let (user, id) = (&connection.user, &connection.connection_id);
    if waits_for_person(state, connection).await {
        summary.skipped += 1;
        tracing::info!(connection = %id, user_id = %user.id, "bank sync: waits for the person to fetch by hand");
        return;
    }
    match super::sync_connection(state, user, id.clone(), Trigger::Scheduled).await {
        Ok(outcome) if outcome.state == SyncState::Done => {
            summary.synced += 1;
            synced(state, push, connection, outcome, summary).await;
        }
        Ok(outcome) => {
            summary.asked += 1;
            tracing::info!(
                connection = %id,
                user_id = %user.id,
                state = ?outcome.state,
                "bank sync: the bank asks for a TAN or an approval; the person is asked once"
            );
            remember_ask(state, connection).await;
            let (title, body) = crate::i18n::mail::bank_tan_needed(user.locale, &outcome.bank_name);
            summary.pushed += send(state, push, connection, &title, &body, &bank_page(id)).await;
        }
        Err(Error::Refused(Reason::Bank(
            failure @ (BankFailure::WrongPin | BankFailure::Locked),
        ))) => {
            summary.pin_refused += 1;
            tracing::warn!(
                connection = %id,
                user_id = %user.id,
                failure = ?failure,
                "bank sync: the bank refused the saved PIN; automatic sync is off"
            );
            let locked = failure == BankFailure::Locked;
            let (title, body) =
                crate::i18n::mail::bank_pin_refused(user.locale, &connection.bank_name, locked);
            summary.pushed += send(state, push, connection, &title, &body, &bank_page(id)).await;
        }
        Err(e) => {
            summary.failed += 1;
            e.log();
            tracing::warn!(connection = %id, user_id = %user.id, error = %e, "bank sync failed");
        }
    }
}

/// Confirms what auto-confirm may, and tells the person about the rest.
async fn synced(
    state: &AppState,
    push: Option<&PushService>,
    connection: &AutoSync,
    outcome: SyncOutcome,
    summary: &mut Summary,
) {
    let (user, id) = (&connection.user, &connection.connection_id);
    let mut waiting: Vec<&SyncedBatch> = Vec::new();
    for batch in &outcome.batches {
        if connection.auto_confirm && confirmable(&batch.counts) {
            match crate::app::import::confirm(state, user, batch.batch_id.clone(), true).await {
                Ok(done) => {
                    summary.confirmed += 1;
                    tracing::info!(
                        connection = %id,
                        batch = %batch.batch_id,
                        imported = done.imported,
                        balance_set = done.balance_set,
                        "bank sync: batch confirmed"
                    );
                    continue;
                }
                Err(e) => {
                    e.log();
                    tracing::warn!(connection = %id, batch = %batch.batch_id, error = %e, "bank sync: auto-confirm failed; the batch waits");
                }
            }
        }
        waiting.push(batch);
    }
    summary.waiting += waiting.len();
    let count: i64 = waiting.iter().map(|b| to_review(&b.counts)).sum();
    if count > 0 {
        let (title, body) =
            crate::i18n::mail::bank_to_review(user.locale, &outcome.bank_name, count as usize);
        summary.pushed += send(
            state,
            push,
            connection,
            &title,
            &body,
            &review_link(&waiting),
        )
        .await;
    }
}

/// The connection's page.
fn bank_page(id: &str) -> String {
    format!("/bank/{id}")
}

/// Whether the person was asked for a TAN or an approval and has not
/// synced since; an ask the person has answered is forgotten.
async fn waits_for_person(state: &AppState, connection: &AutoSync) -> bool {
    let (user, id) = (connection.user.id.clone(), connection.connection_id.clone());
    let checked = state
        .db
        .transaction(move |tx| {
            let Some(ask) = bank_asks::find(tx, &user, &id)? else {
                return Ok(false);
            };
            let last_sync = crate::store::bank::find(tx, &user, &id)?.and_then(|c| c.last_sync_at);
            if ask.waiting(last_sync.as_deref()) {
                return Ok(true);
            }
            bank_asks::forget(tx, &user, &id)?;
            Ok(false)
        })
        .await;
    checked.unwrap_or_else(|e| {
        e.log();
        false
    })
}

/// Remembers that the person was asked, with the connection's last sync.
async fn remember_ask(state: &AppState, connection: &AutoSync) {
    let (user, id) = (connection.user.id.clone(), connection.connection_id.clone());
    let now = crate::clock::timestamp(state.clock.now());
    if let Err(e) = state
        .db
        .transaction(move |tx| {
            let last_sync = crate::store::bank::find(tx, &user, &id)?.and_then(|c| c.last_sync_at);
            bank_asks::remember(tx, &user, &id, last_sync.as_deref(), &now)
        })
        .await
    {
        e.log();
    }
}

/// Sends a push to each of the person's browsers; answers how many a push
/// service accepted (none without the VAPID configuration).
async fn send(
    state: &AppState,
    push: Option<&PushService>,
    connection: &AutoSync,
    title: &str,
    body: &str,
    url: &str,
) -> usize {
    let Some(push) = push else {
        return 0;
    };
    let message = notify_payload(title, body, url);
    crate::app::reminders::send(state, push, &connection.user.id, &message).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(new: i64, duplicate: i64, matched: i64, conflict: i64, error: i64) -> Counts {
        Counts {
            new,
            duplicate,
            matched,
            conflict,
            error,
        }
    }

    #[test]
    fn only_a_batch_without_conflict_or_error_is_confirmed_by_itself() {
        assert!(confirmable(&counts(12, 3, 1, 0, 0)));
        assert!(confirmable(&counts(0, 0, 0, 0, 0)));
        assert!(!confirmable(&counts(12, 0, 0, 1, 0)));
        assert!(!confirmable(&counts(12, 0, 0, 0, 1)));
    }

    #[test]
    fn the_bookings_to_review_leave_out_what_the_account_has() {
        assert_eq!(to_review(&counts(12, 5, 2, 1, 1)), 16);
        assert_eq!(to_review(&counts(0, 7, 0, 0, 0)), 0);
    }

    #[test]
    fn one_waiting_batch_is_linked_itself_several_by_the_import_page() {
        let batch = |id: &str| SyncedBatch {
            account_id: "a".into(),
            batch_id: id.into(),
            counts: Counts::default(),
        };
        let (one, two) = (batch("b1"), batch("b2"));
        assert_eq!(review_link(&[&one]), "/import?batch=b1");
        assert_eq!(review_link(&[&one, &two]), "/import");
    }
}
