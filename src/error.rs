//! One error type for the whole service.
//!
//! Actions turn it into the envelope `{"success":false,"error":"…"}`, the REST
//! API into `{"error":{"code","message"}}`, pages into an HTML page. The cause
//! of an [`Error::Internal`] is logged once where the response is made and
//! never sent to the client.

use std::borrow::Cow;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A field failed validation: `"amount: must be greater than 0"`.
    #[error("{field}: {message}")]
    Invalid {
        field: Cow<'static, str>,
        message: String,
    },
    /// Several fields failed validation (each an [`Error::Invalid`]); it
    /// reads as the first, and the action envelope lists them all.
    #[error("{}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Several(Vec<Error>),
    /// Unknown id, and another user's id, look exactly the same.
    #[error("not found")]
    NotFound,
    /// No (valid) session or token.
    #[error("unauthorized")]
    Unauthorized,
    /// A refusal that is not about one field ("registration is closed").
    #[error("{0}")]
    Refused(String),
    /// Logged with its cause; the client reads "internal error".
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl Error {
    pub fn invalid(field: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Error::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn refused(message: impl Into<String>) -> Self {
        Error::Refused(message.into())
    }

    /// Logs an internal error's cause (never its value for the client).
    pub fn log(&self) {
        if let Error::Internal(cause) = self {
            tracing::error!(error = ?cause, "internal error");
        }
    }
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

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Internal(anyhow::Error::new(e).context("store"))
    }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Self {
        Error::Internal(anyhow::Error::new(e).context("store: no connection"))
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(e: tokio::task::JoinError) -> Self {
        Error::Internal(anyhow::Error::new(e).context("blocking task failed"))
    }
}
