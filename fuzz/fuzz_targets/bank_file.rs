//! `domain::import::read::read` on arbitrary bytes: the CSV reader and the
//! statement readers (CAMT, MT940, OFX, QIF) behind it.
//!
//! Never panics. A file read has at least one and at most `MAX_ROWS` rows,
//! each on a line of the file; a statement names its kind and has no CSV
//! settings; a file of several accounts is refused naming them all.

#![no_main]

use cashkeeper::domain::import::read::{read, Choice, ReadError, MAX_ROWS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    match read(bytes, None, &Choice::default()) {
        Ok(statement) => {
            assert!(!statement.rows.is_empty());
            assert!(statement.rows.len() <= MAX_ROWS);
            assert!(statement.rows.iter().all(|r| r.line >= 1));
            let f = &statement.format;
            if f.kind != "csv" {
                assert!(f.delimiter.is_none() && f.date_format.is_none());
            }
        }
        Err(ReadError::SeveralAccounts { accounts }) => assert!(accounts.len() > 1),
        Err(_) => {}
    }
});
