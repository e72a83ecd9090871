//! How long reading one file may take, and a way to call it off: the
//! readers' loops ask [`Budget::check`] as they go, so a file that takes
//! too long is refused and one whose upload went away stops being read
//! (`docs/import.md`, Limits).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why reading stopped before the end of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The time the read was given has run out.
    TimeUp,
    /// The read was called off (the request went away).
    CalledOff,
}

/// The clock and the flag are looked at once per this many checks: a
/// check is then a counter's step, and a loop's step is small.
const CHECK_EVERY: u32 = 256;

/// A deadline and a flag to call the read off; one per read, on the
/// reading thread.
#[derive(Debug)]
pub struct Budget {
    deadline: Option<Instant>,
    off: Arc<AtomicBool>,
    steps: Cell<u32>,
}

impl Budget {
    /// No deadline, and nothing calls it off.
    pub fn unlimited() -> Budget {
        Budget {
            deadline: None,
            off: Arc::new(AtomicBool::new(false)),
            steps: Cell::new(0),
        }
    }

    /// Until `within` from now, or until `off` is set.
    pub fn new(within: Duration, off: Arc<AtomicBool>) -> Budget {
        Budget {
            deadline: Instant::now().checked_add(within),
            off,
            steps: Cell::new(0),
        }
    }

    /// One step of a reader's loop: an error once the time is up or the
    /// read was called off.
    pub fn check(&self) -> Result<(), Stop> {
        let steps = self.steps.get().wrapping_add(1);
        self.steps.set(steps);
        if !steps.is_multiple_of(CHECK_EVERY) {
            return Ok(());
        }
        self.now()
    }

    /// As [`Budget::check`], looking at the clock and the flag right away.
    pub fn now(&self) -> Result<(), Stop> {
        if self.off.load(Ordering::Relaxed) {
            return Err(Stop::CalledOff);
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(Stop::TimeUp),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_stops_when_its_time_is_up_or_it_is_called_off() {
        let unlimited = Budget::unlimited();
        assert!((0..10_000).all(|_| unlimited.check().is_ok()));

        let spent = Budget::new(Duration::ZERO, Arc::new(AtomicBool::new(false)));
        assert_eq!(spent.now(), Err(Stop::TimeUp));
        let first_error = (0..10_000).find_map(|_| spent.check().err());
        assert_eq!(first_error, Some(Stop::TimeUp));

        let off = Arc::new(AtomicBool::new(false));
        let budget = Budget::new(Duration::from_secs(3600), off.clone());
        assert_eq!(budget.now(), Ok(()));
        off.store(true, Ordering::Relaxed);
        assert_eq!(budget.now(), Err(Stop::CalledOff));
    }
}
