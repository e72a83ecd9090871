//! Why an operation failed: the typed errors and the return codes that
//! mean them.

use super::message::{self, Response};
use crate::error::{BankFailure, Reason};

/// Why an operation failed, in terms a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the bank refused the PIN ({code}: {text})")]
    WrongPin { code: String, text: String },
    #[error("the bank has locked the access ({code}: {text})")]
    Locked { code: String, text: String },
    #[error("the bank refused the TAN or it expired ({code}: {text})")]
    TanRejected { code: String, text: String },
    #[error("the bank did not accept the product id ({code}: {text})")]
    ProductRefused { code: String, text: String },
    #[error("the bank is not reachable: {0}")]
    Unreachable(String),
    #[error("the bank did not answer in time")]
    Timeout,
    #[error("the approval in the banking app was not given in time")]
    ApprovalTimedOut,
    #[error("the bank refused ({code}: {text})")]
    Refused { code: String, text: String },
    #[error("the bank's answer cannot be read: {0}")]
    Protocol(String),
    #[error("the bank does not offer {0}")]
    NotOffered(&'static str),
    #[error("the chosen TAN method is not offered by the bank")]
    UnknownTanMethod,
}

/// The bank's own words shown to a person at most, in characters.
const MAX_BANK_TEXT: usize = 200;

impl Error {
    /// What a person reads of this error (worded in `i18n`); the return
    /// code and the technical cause stay in the error's `Display`, for the
    /// log. Only a refusal the client does not know by its code carries the
    /// bank's own words, on one line and shortened.
    pub fn failure(&self) -> BankFailure {
        match self {
            Error::WrongPin { .. } => BankFailure::WrongPin,
            Error::Locked { .. } => BankFailure::Locked,
            Error::TanRejected { .. } => BankFailure::TanRejected,
            Error::ProductRefused { .. } => BankFailure::ProductRefused,
            Error::Unreachable(_) => BankFailure::Unreachable,
            Error::Timeout => BankFailure::Timeout,
            Error::ApprovalTimedOut => BankFailure::ApprovalTimedOut,
            Error::Refused { text, .. } => BankFailure::Refused {
                text: plain_bank_text(text),
            },
            Error::Protocol(_) => BankFailure::Unreadable,
            Error::NotOffered(_) => BankFailure::NotOffered,
            Error::UnknownTanMethod => BankFailure::UnknownTanMethod,
        }
    }

    /// The refusal a person reads: [`Error::failure`] as a [`Reason`].
    pub fn reason(&self) -> Reason {
        Reason::Bank(self.failure())
    }
}

/// The bank's text on one line, without control characters, cut to
/// [`MAX_BANK_TEXT`] characters.
fn plain_bank_text(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let line = words.join(" ");
    match line.char_indices().nth(MAX_BANK_TEXT) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line,
    }
}

/// Return codes of a refused PIN.
pub const WRONG_PIN: &[&str] = &["9910", "9931", "9942", "9930"];
/// Return codes of a locked access (some banks send them as warnings).
pub const LOCKED: &[&str] = &["3938", "3931", "9938", "9936"];
/// Return codes of a wrong or expired TAN.
pub const TAN_REJECTED: &[&str] = &["9941", "9951", "9955", "9340"];
/// Return codes of a refused product registration.
pub const PRODUCT_REFUSED: &[&str] = &["9078", "9952"];

/// The typed error an answer's return codes mean, if any.
pub fn error_of(response: &Response) -> Option<Error> {
    let find = |set: &[&str]| {
        response
            .codes
            .iter()
            .find(|c| set.contains(&c.code.as_str()))
    };
    let pair = |c: &message::Code| (c.code.clone(), c.text.clone());
    if let Some(c) = find(LOCKED) {
        let (code, text) = pair(c);
        return Some(Error::Locked { code, text });
    }
    if let Some(c) = find(PRODUCT_REFUSED) {
        let (code, text) = pair(c);
        return Some(Error::ProductRefused { code, text });
    }
    if let Some(c) = find(WRONG_PIN) {
        let (code, text) = pair(c);
        return Some(Error::WrongPin { code, text });
    }
    if let Some(c) = find(TAN_REJECTED) {
        let (code, text) = pair(c);
        return Some(Error::TanRejected { code, text });
    }
    // The most telling error: not the generic "message has errors" or
    // "dialog ended" when a more specific one is there.
    let errors: Vec<_> = response.codes.iter().filter(|c| c.is_error()).collect();
    let c = errors
        .iter()
        .find(|c| !matches!(c.code.as_str(), "9050" | "9800"))
        .or(errors.first())?;
    let (code, text) = pair(c);
    Some(Error::Refused { code, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_reads_the_failure_and_the_log_keeps_the_code() {
        let pair = |code: &str| (code.to_string(), "PIN falsch".to_string());
        let (code, text) = pair("9942");
        let e = Error::WrongPin { code, text };
        assert_eq!(e.failure(), BankFailure::WrongPin);
        assert!(
            e.to_string().contains("9942"),
            "the log keeps the code: {e}"
        );
        let (code, text) = pair("3938");
        assert_eq!(Error::Locked { code, text }.failure(), BankFailure::Locked);
        let (code, text) = pair("9941");
        assert_eq!(
            Error::TanRejected { code, text }.failure(),
            BankFailure::TanRejected
        );
        let (code, text) = pair("9078");
        assert_eq!(
            Error::ProductRefused { code, text }.reason(),
            Reason::Bank(BankFailure::ProductRefused)
        );
        for (e, want) in [
            (
                Error::Unreachable("connection refused".into()),
                BankFailure::Unreachable,
            ),
            (Error::Timeout, BankFailure::Timeout),
            (Error::ApprovalTimedOut, BankFailure::ApprovalTimedOut),
            (
                Error::Protocol("not base64".into()),
                BankFailure::Unreadable,
            ),
            (Error::NotOffered("HKKAZ"), BankFailure::NotOffered),
            (Error::UnknownTanMethod, BankFailure::UnknownTanMethod),
        ] {
            assert_eq!(e.failure(), want, "{e}");
        }
    }

    #[test]
    fn a_refusal_keeps_the_banks_words_on_one_shortened_line() {
        let refused = |text: &str| {
            Error::Refused {
                code: "9050".into(),
                text: text.into(),
            }
            .failure()
        };
        assert_eq!(
            refused("  Auftrag\r\nabgelehnt\u{7}  "),
            BankFailure::Refused {
                text: "Auftrag abgelehnt".into()
            }
        );
        let BankFailure::Refused { text } = refused(&"Ä".repeat(500)) else {
            panic!("a refusal stays one")
        };
        assert_eq!(text.chars().count(), MAX_BANK_TEXT + 1);
        assert!(text.ends_with('…'));
    }
}
