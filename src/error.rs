//! One error type for the whole service. What is refused is a [`Reason`];
//! its words, in the user's language, are `i18n/reasons.rs`.
//!
//! Actions turn it into the envelope `{"success":false,"error":"…"}`, the REST
//! API into `{"error":{"code","message"}}`, pages into an HTML page. The cause
//! of an [`Error::Internal`] is logged once where the response is made and
//! never sent to the client.

use std::borrow::Cow;

mod reason;
pub use reason::{
    AiTask, BankAddressProblem, BankFailure, BankSyncProblem, Counted, FileKind, Part, Reason,
    Uses, LAYOUT_COLUMNS_NAMED, LAYOUT_COLUMNS_OFFERED,
};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A field failed validation: `"amount: must be greater than 0"`.
    #[error("{field}: {reason}")]
    Invalid {
        field: Cow<'static, str>,
        reason: Reason,
    },
    /// Several fields failed validation (each an [`Error::Invalid`]); it
    /// reads as the first, and the action envelope lists them all.
    #[error("{}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Several(Vec<Error>),
    /// Unknown id, and another user's id, look exactly the same.
    #[error("not found")]
    NotFound,
    /// A field names a record that is not the user's (unknown, or another
    /// user's, which looks the same): `"accountId: not found"`.
    #[error("{0}: not found")]
    UnknownId(Cow<'static, str>),
    /// No (valid) session or token.
    #[error("unauthorized")]
    Unauthorized,
    /// A refusal that is not about one field ("registration is closed").
    #[error("{0}")]
    Refused(Reason),
    /// The work could not run now: no database connection came free in
    /// time, a read passed its time budget, or the write lock stayed taken.
    /// Logged with its cause as a warning; the client reads that the service
    /// is busy and gets 503 with `Retry-After` ([`RETRY_AFTER_BUSY`]), never
    /// a 500 and never "signed out".
    #[error("busy")]
    Busy(anyhow::Error),
    /// Logged with its cause; the client reads "internal error".
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

/// Seconds a client is asked to wait after [`Error::Busy`] (`Retry-After`).
pub const RETRY_AFTER_BUSY: u64 = 5;

impl Error {
    pub fn invalid(field: impl Into<Cow<'static, str>>, reason: Reason) -> Self {
        Error::Invalid {
            field: field.into(),
            reason,
        }
    }

    /// [`Error::UnknownId`] for `field`.
    pub fn unknown(field: impl Into<Cow<'static, str>>) -> Self {
        Error::UnknownId(field.into())
    }

    pub fn refused(reason: Reason) -> Self {
        Error::Refused(reason)
    }

    /// Logs an internal error's cause, on one line with every cause below
    /// it (`store: database is locked`); never its value for the client.
    /// Every error also names itself on its request's log line ([`note`]).
    pub fn log(&self) {
        self.note();
        if let Some(cause) = self.cause() {
            tracing::error!(error = %cause, "internal error");
        }
        if let Error::Busy(cause) = self {
            tracing::warn!(error = %chain(&**cause), "busy: answered 503");
        }
    }

    /// Names the error on its request's log line ([`noting_failure`]): an
    /// internal or busy one by its whole chain of causes, a refusal by its
    /// English words (`amount: must be greater than 0`).
    pub fn note(&self) {
        note(|| match self {
            Error::Internal(cause) => chain(&**cause),
            Error::Busy(cause) => format!("busy: {}", chain(&**cause)),
            other => other.to_string(),
        });
    }

    /// [`Error::Busy`] with its cause.
    pub fn busy(cause: impl Into<anyhow::Error>) -> Self {
        Error::Busy(cause.into())
    }

    pub fn is_busy(&self) -> bool {
        matches!(self, Error::Busy(_))
    }

    /// A refusal of a proposal that is settled already: its state
    /// (`saved`, `discarded`) and the record it booked, which a confirm's
    /// refusal carries beside its words so the page can link it.
    pub fn settled(&self) -> Option<(&'static str, Option<&str>)> {
        match self {
            Error::Invalid {
                reason: Reason::ProposalSaved(record),
                ..
            } => Some(("saved", record.as_deref())),
            Error::Invalid {
                reason: Reason::ProposalDiscarded,
                ..
            } => Some(("discarded", None)),
            _ => None,
        }
    }

    /// What a refusal brings for the person to choose from next, as data
    /// beside its words: an unknown layout its `columns` (for a mapping), a
    /// file of several accounts its `accounts`.
    pub fn offered(&self) -> Option<(&'static str, &[String])> {
        match self {
            Error::Invalid {
                reason: Reason::UnknownLayout { columns, .. },
                ..
            } => Some(("columns", columns)),
            Error::Invalid {
                reason: Reason::StatementAccounts(accounts),
                ..
            } => Some(("accounts", accounts)),
            _ => None,
        }
    }

    /// An internal error's whole chain of causes on one line ([`chain`]);
    /// None for the errors a client is told about.
    pub fn cause(&self) -> Option<String> {
        match self {
            Error::Internal(cause) => Some(chain(&**cause)),
            _ => None,
        }
    }
}

tokio::task_local! {
    /// What the request being answered failed with, first noted first.
    static FAILURE: std::cell::RefCell<Option<String>>;
}

/// Runs a request's handling and gives back, beside its response, what
/// it failed with as the doors noted it ([`note`], [`Error::note`]), for
/// the request's one log line.
pub async fn noting_failure<F: std::future::Future>(f: F) -> (F::Output, Option<String>) {
    FAILURE
        .scope(std::cell::RefCell::new(None), async {
            let out = f.await;
            (out, FAILURE.with(|noted| noted.borrow_mut().take()))
        })
        .await
}

/// Notes what the request being answered failed with; the first note
/// stands (the cause, not the words a door answered with after it).
/// Outside a request ([`noting_failure`]) it does nothing.
pub fn note(what: impl FnOnce() -> String) {
    let _ = FAILURE.try_with(|noted| {
        let mut noted = noted.borrow_mut();
        if noted.is_none() {
            *noted = Some(what());
        }
    });
}

/// An error and its causes on one line, for the log.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The error a request body fails with when it has not arrived in time
/// (the server's body deadline, `docs/operations.md`): a door answers it
/// 408, not as a body too large or broken.
#[derive(Debug)]
pub struct BodyTooSlow;

impl std::fmt::Display for BodyTooSlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for BodyTooSlow {}

/// Whether `e` or one of its causes is [`BodyTooSlow`].
pub fn is_body_too_slow(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(e);
    while let Some(e) = current {
        if e.is::<BodyTooSlow>() {
            return true;
        }
        current = e.source();
    }
    false
}

/// A statement that failed for load rather than for a fault is
/// [`Error::Busy`]: interrupted past its time budget
/// (`store::READ_BUDGET`), or the write lock still taken after
/// `store::BUSY_TIMEOUT`.
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{DatabaseBusy, OperationInterrupted};
        let load = matches!(
            e.sqlite_error_code(),
            Some(DatabaseBusy | OperationInterrupted)
        );
        let e = anyhow::Error::new(e).context("store");
        if load {
            Error::Busy(e)
        } else {
            Error::Internal(e)
        }
    }
}

/// No connection came free within the pool's wait.
impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Self {
        Error::Busy(anyhow::Error::new(e).context("store: no connection"))
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(e: tokio::task::JoinError) -> Self {
        Error::Internal(anyhow::Error::new(e).context("blocking task failed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn sqlite(code: std::ffi::c_int, message: &str) -> Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(message.into())).into()
    }

    fn locked() -> Error {
        sqlite(rusqlite::ffi::SQLITE_IOERR, "disk I/O error")
    }

    #[test]
    fn load_is_busy_and_a_fault_is_internal() {
        assert!(sqlite(rusqlite::ffi::SQLITE_BUSY, "database is locked").is_busy());
        assert!(sqlite(rusqlite::ffi::SQLITE_INTERRUPT, "interrupted").is_busy());
        assert!(matches!(locked(), Error::Internal(_)));
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_BUSY, "database is locked").cause(),
            None,
            "a client is told it is busy; the cause is logged as a warning"
        );
    }

    /// What the log receives, for a test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_store_error_is_logged_with_its_sqlite_cause_on_one_line() {
        let e = locked();
        assert_eq!(e.to_string(), "internal error", "the client reads no more");
        assert_eq!(
            e.cause().as_deref(),
            Some("store: disk I/O error: Error code 10: disk I/O error"),
            "the chain of causes, down to SQLite's code"
        );
        assert_eq!(Error::NotFound.cause(), None);

        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || e.log());
        let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(logged.lines().count(), 1, "{logged}");
        assert!(logged.contains("error=store: disk I/O error"), "{logged}");
    }
}
