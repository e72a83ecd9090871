//! A bank's FinTS answer on arbitrary bytes: `services::fints` parses it
//! (the encryption envelope unwrapped), reads the bank's and the user's
//! parameters from it, its typed error and any balance.
//!
//! Never panics. What parses is written back to the same segments.

#![no_main]

use cashkeeper::services::fints::message::Response;
use cashkeeper::services::fints::{balance_of, error_of, syntax, BankState};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(segments) = syntax::parse(bytes) {
        assert_eq!(syntax::parse(&syntax::write(&segments)).as_ref(), Ok(&segments));
    }
    if let Ok(response) = Response::parse(bytes) {
        let mut state = BankState::default();
        state.absorb(&response);
        let _ = error_of(&response);
        for s in response.all("HISAL") {
            let _ = balance_of(s);
        }
        let _ = state.usable_tan_methods();
    }
});
