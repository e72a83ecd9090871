//! What a bank connection is doing right now, in memory only: a dialog
//! running, a TAN method to choose, a TAN or an approval awaited. The
//! database holds only settled facts, so after a restart no connection is
//! stuck: what was live is gone, and a dropped dialog is ended with HKEND.
//!
//! A dialog writes what it settled before its entry goes, so the live
//! state is read before the database: a connection seen without an entry
//! shows everything its last dialog settled, never `ready` beside the
//! facts of before.
//!
//! One entry per connection: while it exists, another sync or connect of
//! the connection is refused. A wait for the user (a TAN method, a typed
//! TAN) ends after [`WAIT_MAX`].

use super::{Job, TanView};
use crate::services::fints::{BankState, Connected, Fetched, Pending, TanMethod};
use crate::state::AppState;
use crate::store::users::UserId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a TAN method choice or a typed TAN is waited for.
pub const WAIT_MAX: Duration = Duration::from_secs(5 * 60);

/// A dialog waiting for a typed TAN, and the work it belongs to.
pub(super) enum Waiting {
    Connect(Box<Pending<Connected>>),
    Fetch(Box<Pending<Fetched>>),
}

pub(super) enum Phase {
    /// A dialog with the bank runs (a connect or a sync).
    Running,
    /// The user chooses a TAN method; then the job goes on.
    Choose {
        methods: Vec<TanMethod>,
        bank: Box<BankState>,
        job: Box<Job>,
    },
    /// A TAN or an approval is awaited. For a typed TAN the dialog waits
    /// here; an approval is polled by a task that holds it.
    Tan {
        view: TanView,
        typed: Option<(Waiting, Box<Job>)>,
    },
}

struct Entry {
    user: UserId,
    generation: u64,
    phase: Phase,
}

/// What a connection answers about its live state.
#[derive(Clone, Debug)]
pub enum Now {
    Syncing,
    Choose(Vec<TanMethod>),
    Tan(TanView),
}

/// The live bank dialogs, by connection id.
#[derive(Default)]
pub struct Live {
    entries: Mutex<HashMap<String, Entry>>,
    next: AtomicU64,
}

impl Live {
    /// The live dialogs of this server. `AppState` keeps them without
    /// naming this layer's types (the state is below the application).
    pub(super) fn of(state: &AppState) -> &Live {
        state
            .bank_live
            .get_or_init(|| Arc::new(Live::default()))
            .downcast_ref::<Live>()
            .expect("bank_live holds the bank dialogs")
    }

    /// Marks the connection busy; false when it already is.
    pub(super) fn begin(&self, id: &str, user: &UserId) -> bool {
        let mut entries = self.entries.lock().expect("live lock");
        if entries.contains_key(id) {
            return false;
        }
        let generation = self.next.fetch_add(1, Ordering::Relaxed);
        entries.insert(
            id.to_string(),
            Entry {
                user: user.clone(),
                generation,
                phase: Phase::Running,
            },
        );
        true
    }

    /// Puts the connection in `phase`; answers its generation, which
    /// [`Live::expire`] checks.
    pub(super) fn set(&self, id: &str, user: &UserId, phase: Phase) -> u64 {
        let generation = self.next.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.entries.lock().expect("live lock");
        entries.insert(
            id.to_string(),
            Entry {
                user: user.clone(),
                generation,
                phase,
            },
        );
        generation
    }

    /// The connection is settled: nothing live any more.
    pub(super) fn end(&self, id: &str) {
        let gone = self.entries.lock().expect("live lock").remove(id);
        // A waiting dialog is dropped (and ended) outside the lock.
        drop(gone);
    }

    /// Ends a wait for the user that is still the one of `generation`.
    pub(super) fn expire(&self, id: &str, generation: u64) {
        let gone = {
            let mut entries = self.entries.lock().expect("live lock");
            match entries.get(id) {
                Some(e) if e.generation == generation && !matches!(e.phase, Phase::Running) => {
                    entries.remove(id)
                }
                _ => None,
            }
        };
        if gone.is_some() {
            tracing::info!(connection = %id, "bank dialog expired waiting for the user");
        }
        drop(gone);
    }

    /// The user's connection's live state, if any.
    pub fn now(&self, id: &str, user: &UserId) -> Option<Now> {
        let entries = self.entries.lock().expect("live lock");
        self_now(entries.get(id)?, user)
    }

    /// The live state of each of the user's connections that has one.
    pub fn all_of(&self, user: &UserId) -> HashMap<String, Now> {
        let entries = self.entries.lock().expect("live lock");
        entries
            .keys()
            .filter_map(|id| Some((id.clone(), self_now(entries.get(id)?, user)?)))
            .collect()
    }

    /// Whether the connection has a live dialog of any kind.
    pub fn is_busy(&self, id: &str) -> bool {
        self.entries.lock().expect("live lock").contains_key(id)
    }

    /// Takes the TAN method choice waiting for the user, leaving the
    /// connection running.
    pub(super) fn take_choice(
        &self,
        id: &str,
        user: &UserId,
    ) -> Option<(Vec<TanMethod>, Box<BankState>, Box<Job>)> {
        let mut entries = self.entries.lock().expect("live lock");
        let e = entries.get_mut(id).filter(|e| &e.user == user)?;
        match std::mem::replace(&mut e.phase, Phase::Running) {
            Phase::Choose { methods, bank, job } => Some((methods, bank, job)),
            other => {
                e.phase = other;
                None
            }
        }
    }

    /// Takes the dialog waiting for a typed TAN, leaving the connection
    /// running.
    pub(super) fn take_typed(&self, id: &str, user: &UserId) -> Option<(Waiting, Box<Job>)> {
        let mut entries = self.entries.lock().expect("live lock");
        let e = entries.get_mut(id).filter(|e| &e.user == user)?;
        match &mut e.phase {
            Phase::Tan {
                typed: typed @ Some(_),
                ..
            } => {
                let taken = typed.take();
                e.phase = Phase::Running;
                taken
            }
            _ => None,
        }
    }
}

/// What an entry answers to its user.
fn self_now(e: &Entry, user: &UserId) -> Option<Now> {
    if &e.user != user {
        return None;
    }
    Some(match &e.phase {
        Phase::Running => Now::Syncing,
        Phase::Choose { methods, .. } => Now::Choose(methods.clone()),
        Phase::Tan { view, .. } => Now::Tan(view.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tan() -> Phase {
        Phase::Tan {
            view: TanView {
                challenge: "Bitte TAN eingeben".into(),
                decoupled: false,
                hhd_uc: None,
                image: None,
            },
            typed: None,
        }
    }

    #[test]
    fn a_connection_runs_one_dialog_at_a_time_until_it_ends() {
        let (live, anna) = (Live::default(), UserId::test("anna"));
        assert!(!live.is_busy("c1"));
        assert!(live.begin("c1", &anna));
        assert!(!live.begin("c1", &anna), "a second sync is refused");
        assert!(live.begin("c2", &anna), "another connection is free");
        assert!(matches!(live.now("c1", &anna), Some(Now::Syncing)));
        live.end("c1");
        assert!(!live.is_busy("c1"));
        assert!(live.now("c1", &anna).is_none());
        assert!(live.begin("c1", &anna), "free again once ended");
    }

    #[test]
    fn another_user_sees_nothing_of_a_connections_live_state() {
        let (live, anna, bob) = (Live::default(), UserId::test("anna"), UserId::test("bob"));
        live.set("c1", &anna, tan());
        assert!(
            matches!(live.now("c1", &anna), Some(Now::Tan(v)) if v.challenge == "Bitte TAN eingeben")
        );
        assert!(live.now("c1", &bob).is_none());
        assert!(live.take_typed("c1", &bob).is_none());
        assert!(live.take_choice("c1", &bob).is_none());
        assert!(live.is_busy("c1"), "bob's attempts left anna's wait alone");
    }

    #[test]
    fn a_wait_expires_only_if_it_is_still_the_same_wait() {
        let (live, anna) = (Live::default(), UserId::test("anna"));
        let first = live.set("c1", &anna, tan());
        let second = live.set("c1", &anna, tan());
        assert_ne!(first, second);
        // The timer of the first wait finds a newer one: it stays.
        live.expire("c1", first);
        assert!(live.is_busy("c1"));
        live.expire("c1", second);
        assert!(!live.is_busy("c1"), "the user never answered");

        // A running dialog is not a wait for the user: it does not expire.
        let running = live.set("c1", &anna, Phase::Running);
        live.expire("c1", running);
        assert!(matches!(live.now("c1", &anna), Some(Now::Syncing)));
    }

    #[test]
    fn taking_what_is_not_waiting_leaves_the_phase_as_it_was() {
        let (live, anna) = (Live::default(), UserId::test("anna"));
        live.set("c1", &anna, tan());
        // A TAN is awaited, not a method choice; and it is an approval
        // polled elsewhere, not a typed TAN held here.
        assert!(live.take_choice("c1", &anna).is_none());
        assert!(live.take_typed("c1", &anna).is_none());
        assert!(matches!(live.now("c1", &anna), Some(Now::Tan(_))));
    }
}
