//! The staged CSV import's pure rules: reading a bank's export
//! ([`read`]), which records and payments a row may be ([`candidates`]),
//! and deciding what each row is to the user's records ([`reconcile`]).
//! See `docs/import.md`.

pub mod budget;
pub mod candidates;
pub mod read;
pub mod reconcile;
pub mod row;
pub mod statement;

use serde::Serialize;

/// A batch's life: staged, reconciled against the account, then either
/// confirmed (its rows written) or cancelled. A confirmed batch that is
/// undone becomes cancelled with its confirmation time kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BatchStatus {
    Staged,
    Reconciled,
    Confirmed,
    Cancelled,
}

impl BatchStatus {
    pub const ALL: [BatchStatus; 4] = [
        BatchStatus::Staged,
        BatchStatus::Reconciled,
        BatchStatus::Confirmed,
        BatchStatus::Cancelled,
    ];

    /// The word stored and answered.
    pub fn code(self) -> &'static str {
        match self {
            BatchStatus::Staged => "staged",
            BatchStatus::Reconciled => "reconciled",
            BatchStatus::Confirmed => "confirmed",
            BatchStatus::Cancelled => "cancelled",
        }
    }

    pub fn from_code(code: &str) -> Option<BatchStatus> {
        BatchStatus::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Rows can still be decided, and the batch confirmed or cancelled.
    pub fn is_open(self) -> bool {
        matches!(self, BatchStatus::Staged | BatchStatus::Reconciled)
    }
}

/// Where a batch came from: a file the user uploaded, or a bank sync
/// over FinTS (docs/bank-sync.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    #[default]
    File,
    Fints,
}

impl Source {
    /// The word stored and answered.
    pub fn code(self) -> &'static str {
        match self {
            Source::File => "file",
            Source::Fints => "fints",
        }
    }

    /// An unknown word reads as a file.
    pub fn from_code(code: &str) -> Source {
        match code {
            "fints" => Source::Fints,
            _ => Source::File,
        }
    }
}

/// What the user decided for a row: write it at the confirm, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Import,
    Skip,
}

impl Decision {
    pub const ALL: [Decision; 2] = [Decision::Import, Decision::Skip];

    /// The word stored and answered.
    pub fn code(self) -> &'static str {
        match self {
            Decision::Import => "import",
            Decision::Skip => "skip",
        }
    }

    pub fn from_code(code: &str) -> Option<Decision> {
        Decision::ALL.into_iter().find(|d| d.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_decisions_read_back_their_codes() {
        for s in BatchStatus::ALL {
            assert_eq!(BatchStatus::from_code(s.code()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.code());
        }
        assert_eq!(BatchStatus::from_code("confirming"), None);
        for d in [Decision::Import, Decision::Skip] {
            assert_eq!(Decision::from_code(d.code()), Some(d));
            assert_eq!(serde_json::to_value(d).unwrap(), d.code());
        }
        assert!(BatchStatus::Reconciled.is_open() && !BatchStatus::Cancelled.is_open());
    }
}
