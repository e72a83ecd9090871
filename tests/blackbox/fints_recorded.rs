//! Recorded answers of real banks (anonymised, from nemiah/phpFinTS, MIT;
//! kept outside the repository, see docs/bank-sync.md) read with the
//! client's parser: every answer parses, and what each holds (return
//! codes, bank parameters, TAN methods, accounts, MT940 and camt.052,
//! continuation points) is what the client takes from it.
//!
//! The folder is `CASHKEEPER_FINTS_DIALOGS_DIR` (default
//! `../shared/fints-dialogs` beside the repository); without it the tests
//! skip loudly, unless `CASHKEEPER_FINTS_DIALOGS=required`.

use cashkeeper::domain::import::statement;
use cashkeeper::services::fints::message::Response;
use cashkeeper::services::fints::params::tan_media_of;
use cashkeeper::services::fints::{balance_of, error_of, BankState, Error};
use rust_decimal::Decimal;
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CASHKEEPER_FINTS_DIALOGS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fints-dialogs")
        });
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CASHKEEPER_FINTS_DIALOGS").as_deref() == Ok("required") {
        panic!(
            "the recorded FinTS dialogs are required but {} is missing",
            dir.display()
        );
    }
    eprintln!(
        "!!! SKIPPED: no recorded FinTS dialogs at {} (set CASHKEEPER_FINTS_DIALOGS_DIR)",
        dir.display()
    );
    None
}

fn load(dir: &std::path::Path, name: &str) -> Response {
    let bytes =
        std::fs::read(dir.join(format!("{name}.fints"))).unwrap_or_else(|e| panic!("{name}: {e}"));
    Response::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn state_of(dir: &std::path::Path, names: &[&str]) -> BankState {
    let mut state = BankState::default();
    for n in names {
        state.absorb(&load(dir, n));
    }
    state
}

#[test]
fn fints_recorded_every_answer_parses() {
    let Some(dir) = dir() else { return };
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "fints") {
            let bytes = std::fs::read(&path).unwrap();
            let r = Response::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!r.segments.is_empty(), "{}", path.display());
            assert!(
                !r.codes.is_empty() || r.first("HICAZ").is_some(),
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 70, "only {n} recorded answers");
}

#[test]
fn fints_recorded_dkb_parameters_pushtan_accounts_and_mt940_paging() {
    let Some(dir) = dir() else { return };
    let state = state_of(
        &dir,
        &[
            "DKB__DKBIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "DKB__DKBIntegrationTestBase__SYNC_RESPONSE",
            "DKB__DKBIntegrationTestBase__INIT_RESPONSE",
            "DKB__GetSEPAAccountsTest__GET_ACCOUNTS_RESPONSE",
        ],
    );
    assert_eq!(state.bpd_version, 3);
    assert_eq!(
        state.bank_name.as_deref(),
        Some("Deutsche Kreditbank Aktiengesellschaft")
    );
    assert_eq!(
        state.system_id.as_deref(),
        Some("FAKEKUNDENSYSTEMIDabcdefghij")
    );
    assert_eq!(state.allowed_tan_methods, ["921"]);
    assert!(
        state.tan_methods.iter().any(|m| m.code == "921"),
        "{:?}",
        state.tan_methods
    );
    assert!(state.orders.contains_key("HIKAZS"));
    assert_eq!(state.accounts.len(), 2);
    let giro = &state.accounts[0];
    assert_eq!(giro.account_number, "1234567890");
    assert_eq!(giro.iban.as_deref(), Some("DExxABCDEFGH1234567890"));
    assert_eq!(giro.bic.as_deref(), Some("BYLADEM1001"));
    assert_eq!(giro.owner_name.as_deref(), Some("NAME1 TEST ABCDEFGHIJK"));
    assert_eq!(giro.name.as_deref(), Some("Sichteinlagen"));
    assert_eq!(giro.currency.as_deref(), Some("EUR"));
    assert!(giro.allowed.iter().any(|o| o == "HKKAZ"));

    let pushtan = state.tan_methods.iter().find(|m| m.code == "921").unwrap();
    assert!(pushtan.needs_medium, "{pushtan:?}");
    let media = tan_media_of(&load(&dir, "DKB__InitEndDialogTest__HKTAB_RESPONSE"));
    assert_eq!(media, ["pushtan", "SomePhone1"]);

    let before = load(
        &dir,
        "DKB__GetStatementOfAccountTest__GET_STATEMENT_RESPONSE_BEFORE_TAN",
    );
    assert!(before.has("0030"));
    assert_eq!(
        before.first("HITAN").unwrap().text(3, 0),
        "4567-11-30-17.17.09.654321"
    );
    let init = load(&dir, "DKB__DKBIntegrationTestBase__INIT_RESPONSE");
    assert!(init.has("3076"));
    assert_eq!(error_of(&init), None);

    let page1 = load(
        &dir,
        "DKB__GetStatementOfAccountTest__GET_STATEMENT_PAGE_1_RESPONSE",
    );
    assert_eq!(
        page1.touchdown(3).as_deref(),
        Some("9978-12-08-12.12.22.:9789")
    );
    let page2 = load(
        &dir,
        "DKB__GetStatementOfAccountTest__GET_STATEMENT_PAGE_2_RESPONSE",
    );
    assert_eq!(page2.touchdown(3), None);
    let mut mt940 = Vec::new();
    for page in [&page1, &page2] {
        mt940.extend(
            page.first("HIKAZ").unwrap().element(1).unwrap().0[0]
                .bytes
                .clone(),
        );
    }
    let parsed = statement::read(&mt940).unwrap();
    let rows: Vec<_> = parsed
        .accounts
        .iter()
        .flat_map(|a| a.rows.clone())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].amount, Some(Decimal::new(-1200, 2)));
    assert_eq!(rows[1].amount, Some(Decimal::new(12345, 2)));
    assert!(rows[1].memo.contains("Irgendein K"), "{}", rows[1].memo);

    let balance = balance_of(
        load(&dir, "DKB__GetBalanceTest__GET_BALANCE_RESPONSE")
            .first("HISAL")
            .unwrap(),
    )
    .unwrap();
    assert_eq!(balance.amount, Decimal::new(12345, 2));
    assert_eq!(balance.currency, "EUR");
    assert_eq!(balance.date.to_string(), "2020-04-09");
}

#[test]
fn fints_recorded_gls_camt_through_hkcaz_with_continuation() {
    let Some(dir) = dir() else { return };
    let state = state_of(
        &dir,
        &["GLS__GLSIntegrationTestBase__ANONYMOUS_INIT_RESPONSE"],
    );
    assert_eq!(state.bank_name.as_deref(), Some("GLS Gemeinschaftsbank eG"));
    assert_eq!(state.version("HKCAZ", &[1]), Some(1));
    assert!(
        state
            .camt_formats
            .iter()
            .any(|f| f.ends_with("camt.052.001.02")),
        "{:?}",
        state.camt_formats
    );
    let before = load(
        &dir,
        "GLS__GetStatementOfAccountXMLTest__GET_STATEMENT_RESPONSE_BEFORE_TAN",
    );
    assert!(before.has("0030"));
    assert!(before.first("HITAN").unwrap().text(4, 0).contains("SMS"));
    let tan = load(&dir, "GLS__GetStatementOfAccountXMLTest__SEND_TAN_RESPONSE");
    assert_eq!(
        tan.touchdown(3).as_deref(),
        Some("0_=2#=20200515#=9382064#=0#=0#=0")
    );
    let page2 = load(
        &dir,
        "GLS__GetStatementOfAccountXMLTest__GET_STATEMENT_PAGE_2_RESPONSE",
    );
    assert_eq!(
        page2.touchdown(3).as_deref(),
        Some("0_=2#=20200703#=15530363#=0#=0#=0")
    );
    let page3 = load(
        &dir,
        "GLS__GetStatementOfAccountXMLTest__GET_STATEMENT_PAGE_3_RESPONSE",
    );
    assert_eq!(page3.touchdown(3), None);
    let doc = &page3.first("HICAZ").unwrap().element(3).unwrap().0[0];
    assert!(doc.binary);
    assert_eq!(statement::sniff(&doc.bytes), Some(statement::Kind::Camt052));
}

#[test]
fn fints_recorded_atruvia_decoupled_method_and_polling() {
    let Some(dir) = dir() else { return };
    let state = state_of(
        &dir,
        &[
            "Atruvia__AtruviaIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "Atruvia__AtruviaIntegrationTestBase__SYNC_RESPONSE",
        ],
    );
    let m = state.tan_methods.iter().find(|m| m.code == "946").unwrap();
    assert!(m.decoupled);
    assert_eq!(m.name, "SecureGo plus (Direktfreigabe)");
    assert_eq!((m.first_poll_secs, m.poll_secs, m.hktan_version), (2, 2, 7));
    assert!(
        !state
            .tan_methods
            .iter()
            .find(|m| m.code == "942")
            .unwrap()
            .decoupled
    );
    assert!(state.needs_tan("HKKAZ"));
    assert!(state.needs_tan("HKCAZ"));
    assert!(!state.needs_tan("HKSAL"));
    assert!(!state.needs_tan("HKSPA"));
    assert_eq!(state.version("HKKAZ", &[5, 6, 7]), Some(7));
    let done = load(
        &dir,
        "Atruvia__SendTransferVoPTest__CHECK_DECOUPLED_SUBMISSION_RESPONSE",
    );
    assert_eq!(done.first("HITAN").unwrap().text(1, 0), "S");
    assert_eq!(error_of(&done), None);
}

#[test]
fn fints_recorded_blocked_pins_are_typed() {
    let Some(dir) = dir() else { return };
    let ksk = load(&dir, "KSK__InitDialogWithBlockedPinTest__INIT_RESPONSE");
    assert!(matches!(error_of(&ksk), Some(Error::Locked { code, .. }) if code == "3938"));
    let postbank = load(
        &dir,
        "Postbank__InitDialogWithBlockedPinTest__SYNC_RESPONSE",
    );
    assert!(matches!(error_of(&postbank), Some(Error::Locked { code, .. }) if code == "3931"));
    let ing = load(&dir, "IngDiba__InitDialogWithBlockedPinTest__SYNC_RESPONSE");
    assert!(matches!(error_of(&ing), Some(Error::WrongPin { code, .. }) if code == "9942"));
}

#[test]
fn fints_recorded_other_banks_parameters() {
    let Some(dir) = dir() else { return };
    for (name, bank) in [
        (
            "Consors__ConsorsIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "Consors",
        ),
        (
            "Postbank__PostbankIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "Postbank -Giro- Hamburg",
        ),
        (
            "KSK__KSKIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "Kreissparkasse Miesbach-Tegernsee",
        ),
        (
            "KSK-Biberach__KskBiberachIntegrationTestBase__ANONYMOUS_INIT_RESPONSE",
            "Kreissparkasse Biberach",
        ),
    ] {
        let state = state_of(&dir, &[name]);
        assert_eq!(state.bank_name.as_deref(), Some(bank));
        assert!(!state.tan_methods.is_empty(), "{name}");
        assert!(state.version("HKKAZ", &[5, 6, 7]).is_some(), "{name}");
        assert!(state.version("HKSAL", &[5, 6, 7]).is_some(), "{name}");
    }
    let ing = state_of(
        &dir,
        &[
            "IngDiba__IngDibaIntegrationTestBase__SYNC_RESPONSE",
            "IngDiba__GetSEPAAccountsTest__GET_ACCOUNTS_RESPONSE",
        ],
    );
    assert!(
        ing.accounts.iter().any(|a| a.iban.is_some()),
        "{:?}",
        ing.accounts
    );
    let consors = load(
        &dir,
        "Consors__GetStatementOfAccountTest__GET_STATEMENT_RESPONSE",
    );
    let mt940 = &consors.first("HIKAZ").unwrap().element(1).unwrap().0[0].bytes;
    assert!(!statement::read(mt940).unwrap().accounts.is_empty());
}
