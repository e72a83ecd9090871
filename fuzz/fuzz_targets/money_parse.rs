//! `money::parse` on arbitrary text, with each of the three signs.
//!
//! Never panics. An accepted amount has at most two decimals, is at most
//! 999,999,999.99 in absolute value, survives cents and its JSON text
//! unchanged, and respects the sign; the three signs agree with each other.
//! A refusal names the field.

#![no_main]

use cashkeeper::domain::money::{self, Sign, MAX};
use cashkeeper::Error;
use libfuzzer_sys::fuzz_target;

fn check_refusal(e: &Error) {
    match e {
        Error::Invalid { field, reason } => {
            assert_eq!(field, "amount");
            assert!(!reason.to_string().is_empty());
        }
        other => panic!("not a field error: {other:?}"),
    }
    assert!(e.to_string().starts_with("amount: "), "{e}");
}

fuzz_target!(|raw: &str| {
    let zero = money::from_cents(0);
    let any = money::parse("amount", raw, Sign::Any);
    let non_negative = money::parse("amount", raw, Sign::NonNegative);
    let positive = money::parse("amount", raw, Sign::Positive);

    let v = match any {
        Ok(v) => v,
        Err(e) => {
            check_refusal(&e);
            // What is refused with any sign is refused with every sign.
            check_refusal(&non_negative.unwrap_err());
            check_refusal(&positive.unwrap_err());
            return;
        }
    };
    assert!(v.scale() <= 2, "{raw:?} → {v}: more than two decimals");
    assert!(v.abs() <= MAX, "{raw:?} → {v}: above the maximum");
    assert_eq!(money::round(v), v, "{raw:?}");
    assert_eq!(money::from_cents(money::to_cents(v)), v, "{raw:?}");
    // The JSON text of the amount parses back to the same amount.
    let text = money::json_text(v);
    assert_eq!(
        money::parse("amount", &text, Sign::Any).unwrap(),
        v,
        "{text}"
    );
    // The stricter signs accept exactly the amounts they allow, unchanged.
    match non_negative {
        Ok(n) => assert!(n == v && v >= zero, "{raw:?} → {n}"),
        Err(e) => {
            assert!(v < zero, "{raw:?} → {v}: refused as negative");
            check_refusal(&e);
        }
    }
    match positive {
        Ok(p) => assert!(p == v && v > zero, "{raw:?} → {p}"),
        Err(e) => {
            assert!(v <= zero, "{raw:?} → {v}: refused as not positive");
            check_refusal(&e);
        }
    }
});
