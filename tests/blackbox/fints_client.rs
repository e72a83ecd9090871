//! The FinTS client against the loopback mock bank (`fints_bank`): every
//! scenario of docs/bank-sync.md, that each dialog is ended with HKEND,
//! and that no log line holds the PIN, the TAN or the login name.

use crate::fints_bank::*;
use cashkeeper::config::Secret;
use cashkeeper::domain::import::statement;
use cashkeeper::services::fints::{
    Account, BankState, BankTarget, Client, ClientConfig, Connected, Credentials, Error, Fetched,
    Outcome, Statement,
};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::time::Duration;

const PRODUCT: &str = "MOCKPRODUCT123456789";

fn client(bank: &MockBank, pin: &str, timeout: Duration) -> Client {
    Client::new(
        ClientConfig {
            product_id: PRODUCT.into(),
            product_version: "0.1".into(),
            timeout,
        },
        BankTarget {
            url: bank.url.clone(),
            bank_code: BANK_CODE.into(),
        },
        Credentials {
            login: LOGIN.into(),
            customer_id: None,
            pin: Secret::new(pin),
        },
    )
    .unwrap()
}

fn ok_client(bank: &MockBank) -> Client {
    client(bank, PIN, Duration::from_secs(30))
}

fn from() -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(2024, 2, 1)
}

fn to() -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(2024, 2, 29)
}

async fn connected(c: &Client) -> Connected {
    match c.connect(BankState::default()).await.unwrap() {
        Outcome::Done(done) => done,
        other => panic!("expected done, got {other:?}"),
    }
}

async fn fetched(c: &Client, state: BankState, account: &Account) -> Fetched {
    match c.fetch(state, account, from(), to()).await.unwrap() {
        Outcome::Done(done) => done,
        other => panic!("expected done, got {other:?}"),
    }
}

fn cents(c: i64) -> Decimal {
    Decimal::new(c, 2)
}

/// The rows the import's readers find, as (day, amount, memo contains).
fn check_rows(rows: &[cashkeeper::domain::import::row::Row], n: usize) {
    assert_eq!(rows.len(), n);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.amount, Some(cents(booking_cents(i))), "row {i}");
        assert_eq!(
            row.date,
            NaiveDate::from_ymd_opt(2024, 2, booking_day(i)),
            "row {i}"
        );
        assert!(
            row.memo.contains(&format!("Booking {i}")),
            "row {i}: {}",
            row.memo
        );
        assert!(
            row.payee.contains(&format!("Payee {i}")),
            "row {i}: {}",
            row.payee
        );
    }
}

#[tokio::test]
async fn fints_connect_reads_parameters_system_id_and_accounts_without_sca() {
    let bank = MockBank::start(Scenario::default()).await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    assert_eq!(done.accounts.len(), 1);
    let a = &done.accounts[0];
    assert_eq!(a.iban.as_deref(), Some(IBAN));
    assert_eq!(a.bic.as_deref(), Some(BIC));
    assert_eq!(a.account_number, ACCOUNT);
    assert_eq!(a.bank_code, BANK_CODE);
    assert_eq!(a.currency.as_deref(), Some("EUR"));
    assert_eq!(a.name.as_deref(), Some("Girokonto"));
    assert_eq!(a.owner_name.as_deref(), Some("Erika Mustermann"));
    assert_eq!(done.state.system_id.as_deref(), Some(SYSTEM_ID));
    assert_eq!(done.state.tan_method.as_deref(), Some("921"));
    assert_eq!(
        done.state.bank_name.as_deref(),
        Some("Mockbank Loopback AG")
    );
    // pushTAN needs the medium named: the dialog was opened for HKTAB,
    // which named the one medium.
    assert_eq!(done.state.tan_media, [MEDIUM]);
    assert_eq!(done.state.tan_medium.as_deref(), Some(MEDIUM));
    assert_eq!(
        bank.seen.lock().unwrap().hktans,
        [("HKTAB".to_owned(), String::new())]
    );
    // Anonymous BPD, HKSYN, the main dialog: three dialogs, all ended.
    assert_eq!(bank.seen.lock().unwrap().opened.len(), 3);
    bank.assert_all_ended();
    assert!(bank
        .seen
        .lock()
        .unwrap()
        .product_ids
        .iter()
        .all(|p| p == PRODUCT));

    // The kept state skips the anonymous dialog and HKSYN.
    let json = serde_json::to_string(&done.state).unwrap();
    let state: BankState = serde_json::from_str(&json).unwrap();
    assert_eq!(state, done.state);
    match c.connect(state).await.unwrap() {
        Outcome::Done(again) => assert_eq!(again.accounts, done.accounts),
        other => panic!("{other:?}"),
    }
    assert_eq!(bank.sent("HKSYN"), 1);
    assert_eq!(bank.sent("HKTAB"), 1);
    // The next dialog names the medium.
    assert_eq!(
        bank.seen.lock().unwrap().hktans[1],
        ("HKIDN".to_owned(), MEDIUM.to_owned())
    );
    assert_eq!(bank.seen.lock().unwrap().opened.len(), 4);
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_choose_tan_method_lists_them_and_goes_on_with_the_chosen_one() {
    let bank = MockBank::start(Scenario {
        methods: Methods::Choice,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let Outcome::ChooseTanMethod { methods, mut state } =
        c.connect(BankState::default()).await.unwrap()
    else {
        panic!("expected a TAN method choice");
    };
    let codes: Vec<(&str, bool)> = methods
        .iter()
        .map(|m| (m.code.as_str(), m.decoupled))
        .collect();
    assert_eq!(codes, [("921", false), ("946", true)]);
    assert_eq!(methods[1].name, "SecureGo plus (Direktfreigabe)");
    assert_eq!(methods[1].poll_secs, 2);
    assert!(!state.choose_tan_method("999999"));
    assert!(state.choose_tan_method("946"));
    match c.connect(*state).await.unwrap() {
        Outcome::Done(done) => assert_eq!(done.state.tan_method.as_deref(), Some("946")),
        other => panic!("{other:?}"),
    }
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_typed_tan_at_login_wrong_then_right() {
    let bank = MockBank::start(Scenario {
        init: Sca::Tan,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let Outcome::NeedTan(pending) = c.connect(BankState::default()).await.unwrap() else {
        panic!("expected a TAN");
    };
    assert_eq!(pending.challenge().text, "Bitte geben Sie die pushTAN ein.");
    assert!(!pending.challenge().decoupled);
    let err = pending.send_tan(&Secret::new("000000")).await.unwrap_err();
    assert!(
        matches!(err, Error::TanRejected { ref code, .. } if code == "9941"),
        "{err:?}"
    );
    bank.assert_all_ended();

    let Outcome::NeedTan(pending) = c.connect(BankState::default()).await.unwrap() else {
        panic!("expected a TAN");
    };
    match pending.send_tan(&Secret::new(TAN)).await.unwrap() {
        Outcome::Done(done) => assert_eq!(done.accounts[0].iban.as_deref(), Some(IBAN)),
        other => panic!("{other:?}"),
    }
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_decoupled_approval_is_polled_until_given() {
    let bank = MockBank::start(Scenario {
        methods: Methods::Decoupled,
        init: Sca::Decoupled(2),
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let mut outcome = c.connect(BankState::default()).await.unwrap();
    let mut polls = 0;
    let done = loop {
        match outcome {
            Outcome::NeedTan(p) => {
                assert!(p.challenge().decoupled);
                assert_eq!(p.challenge().poll_after, Duration::from_secs(2));
                assert!(p.challenge().text.contains("SecureGo plus"));
                polls += 1;
                assert!(polls < 10, "never approved");
                outcome = p.poll().await.unwrap();
            }
            Outcome::Done(done) => break done,
            other => panic!("{other:?}"),
        }
    };
    // Two "still waiting" answers (3956), then the approval.
    assert_eq!(polls, 3);
    assert_eq!(done.accounts.len(), 1);
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_mt940_over_continuation_pages_reads_through_the_import() {
    let bank = MockBank::start(Scenario {
        bookings: 7,
        per_page: 3,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    let f = fetched(&c, done.state, &done.accounts[0]).await;
    assert_eq!(f.pages, 3);
    assert_eq!(
        bank.seen.lock().unwrap().touchdowns,
        ["MOCK-PAGE:1", "MOCK-PAGE:2"]
    );
    let Statement::Mt940(bytes) = f.statement else {
        panic!("expected MT940");
    };
    let parsed = statement::read(&bytes).unwrap();
    assert_eq!(parsed.kind, statement::Kind::Mt940);
    let rows: Vec<_> = parsed
        .accounts
        .iter()
        .flat_map(|a| a.rows.clone())
        .collect();
    check_rows(&rows, 7);
    let balance = f.balance.unwrap();
    let total = OPENING + (0..7).map(booking_cents).sum::<i64>();
    assert_eq!(balance.amount, cents(total));
    assert_eq!(balance.currency, "EUR");
    assert_eq!(Some(balance.date), to());
    assert_eq!(bank.sent("HKCAZ"), 0);
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_camt_via_hkcaz_over_continuation_pages_reads_through_the_import() {
    let bank = MockBank::start(Scenario {
        camt: true,
        bookings: 5,
        per_page: 2,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    let f = fetched(&c, done.state, &done.accounts[0]).await;
    let Statement::Camt052(docs) = f.statement else {
        panic!("expected camt.052");
    };
    assert_eq!(docs.len(), 3);
    let mut rows = Vec::new();
    for doc in &docs {
        let parsed = statement::read(doc).unwrap();
        assert_eq!(parsed.kind, statement::Kind::Camt052);
        assert_eq!(parsed.accounts[0].id, IBAN);
        rows.extend(parsed.accounts.iter().flat_map(|a| a.rows.clone()));
    }
    check_rows(&rows, 5);
    assert_eq!(bank.sent("HKKAZ"), 0);
    assert_eq!(bank.sent("HKCAZ"), 3);
    assert!(f.balance.is_some());
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_statement_behind_a_tan_goes_on_in_the_same_dialog() {
    let bank = MockBank::start(Scenario {
        statement: Sca::Tan,
        bookings: 4,
        per_page: 2,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    let Outcome::NeedTan(p) = c
        .fetch(done.state, &done.accounts[0], from(), to())
        .await
        .unwrap()
    else {
        panic!("expected a TAN");
    };
    let opened = bank.seen.lock().unwrap().opened.len();
    // Each page asks again (the bank's HIPINS says HKKAZ needs a TAN).
    let mut outcome = p.send_tan(&Secret::new(TAN)).await.unwrap();
    let f = loop {
        match outcome {
            Outcome::NeedTan(p) => outcome = p.send_tan(&Secret::new(TAN)).await.unwrap(),
            Outcome::Done(f) => break f,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(bank.seen.lock().unwrap().opened.len(), opened);
    let Statement::Mt940(bytes) = f.statement else {
        panic!()
    };
    let rows: Vec<_> = statement::read(&bytes)
        .unwrap()
        .accounts
        .iter()
        .flat_map(|a| a.rows.clone())
        .collect();
    check_rows(&rows, 4);
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_wrong_pin_is_typed_and_the_dialog_ended() {
    let bank = MockBank::start(Scenario::default()).await;
    let err = client(&bank, "falsch", Duration::from_secs(30))
        .connect(BankState::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::WrongPin { ref code, .. } if code == "9910"),
        "{err:?}"
    );
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_locked_access_is_typed_even_as_a_warning() {
    let bank = MockBank::start(Scenario {
        fail: Fail::Locked,
        ..Scenario::default()
    })
    .await;
    let err = ok_client(&bank)
        .connect(BankState::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Locked { ref code, .. } if code == "3938"),
        "{err:?}"
    );
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_refused_product_id_is_typed() {
    let bank = MockBank::start(Scenario {
        fail: Fail::ProductRefused,
        ..Scenario::default()
    })
    .await;
    let err = ok_client(&bank)
        .connect(BankState::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::ProductRefused { ref code, .. } if code == "9078"),
        "{err:?}"
    );
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_dropped_connection_is_unreachable_and_the_dialog_still_ended() {
    let bank = MockBank::start(Scenario {
        fail: Fail::DropOn("HKKAZ"),
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    let err = c
        .fetch(done.state, &done.accounts[0], from(), to())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unreachable(_)), "{err:?}");
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_a_bank_that_never_answers_times_out() {
    let bank = MockBank::start(Scenario {
        fail: Fail::Silent,
        ..Scenario::default()
    })
    .await;
    let err = client(&bank, PIN, Duration::from_millis(300))
        .connect(BankState::default())
        .await
        .unwrap_err();
    assert_eq!(err, Error::Timeout);
}

#[tokio::test]
async fn fints_dropping_a_pending_dialog_ends_it() {
    let bank = MockBank::start(Scenario {
        init: Sca::Tan,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let Outcome::NeedTan(pending) = c.connect(BankState::default()).await.unwrap() else {
        panic!("expected a TAN");
    };
    assert!(!bank.all_ended());
    drop(pending);
    bank.wait_ended(3).await;
    bank.assert_all_ended();
}

/// The environment variable that makes [`fints_log_child`] run.
const LOG_CHILD: &str = "CASHKEEPER_FINTS_LOG_CHILD";

/// Runs a connect and a fetch, each with a TAN, and a wrong PIN in a child
/// process of this test binary whose only subscriber (global, so no other
/// test's thread can hide a line) writes every level to stdout; no log line
/// may hold the PIN, the TAN or the login name.
#[test]
fn fints_no_pin_tan_or_login_reaches_the_log() {
    let log = crate::support::child::log_of_child("fints_client::fints_log_child", LOG_CHILD);
    assert!(log.contains("FinTS request"), "{log}");
    assert!(log.contains("HKKAZ"), "{log}");
    assert!(log.contains("9910"), "{log}");
    for secret in [PIN, TAN, LOGIN, "falsch-1234", "test?@user"] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}

/// The child of [`fints_no_pin_tan_or_login_reaches_the_log`].
#[test]
#[ignore = "run by fints_no_pin_tan_or_login_reaches_the_log in a child process"]
fn fints_log_child() {
    if std::env::var_os(LOG_CHILD).is_none() {
        return;
    }
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .init();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(no_secret_in_the_log());
}

async fn no_secret_in_the_log() {
    let bank = MockBank::start(Scenario {
        init: Sca::Tan,
        statement: Sca::Tan,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let Outcome::NeedTan(p) = c.connect(BankState::default()).await.unwrap() else {
        panic!("expected a TAN");
    };
    let Outcome::Done(done) = p.send_tan(&Secret::new(TAN)).await.unwrap() else {
        panic!("expected done");
    };
    let Outcome::NeedTan(p) = c
        .fetch(done.state, &done.accounts[0], from(), to())
        .await
        .unwrap()
    else {
        panic!("expected a TAN");
    };
    // A TAN for the dialog's start, one for the statement.
    let Outcome::NeedTan(p) = p.send_tan(&Secret::new(TAN)).await.unwrap() else {
        panic!("expected a second TAN");
    };
    let Outcome::Done(_) = p.send_tan(&Secret::new(TAN)).await.unwrap() else {
        panic!("expected done");
    };
    let _ = client(&bank, "falsch-1234", Duration::from_secs(30))
        .connect(BankState::default())
        .await;
}

/// The size the sync's benchmark uses: 3,000 bookings over 6 continuation
/// pages arrive whole and in order through the MT940 reader.
#[tokio::test]
async fn fints_three_thousand_bookings_over_six_pages() {
    let bank = MockBank::start(Scenario {
        bookings: 3000,
        per_page: 500,
        ..Scenario::default()
    })
    .await;
    let c = ok_client(&bank);
    let done = connected(&c).await;
    let f = fetched(&c, done.state, &done.accounts[0]).await;
    assert_eq!(f.pages, 6);
    let Statement::Mt940(bytes) = f.statement else {
        panic!("expected MT940");
    };
    let rows: Vec<_> = statement::read(&bytes)
        .unwrap()
        .accounts
        .iter()
        .flat_map(|a| a.rows.clone())
        .collect();
    check_rows(&rows, 3000);
    bank.assert_all_ended();
}
