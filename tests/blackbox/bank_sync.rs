//! Bank sync over FinTS through the actions (docs/bank-sync.md), against
//! the loopback mock bank (`fints_bank`): connect, link, sync into a
//! staged batch with the bank's balance, confirm, sync again without
//! duplicates; TAN, decoupled approval, paging, wrong and locked PIN, a
//! bank that never answers, isolation between users, no PIN in any reply
//! or export, one sync at a time, and a bad bank address.

use crate::fints_bank::*;
use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

/// The bank app; `BANK_TEST_LOG=cashkeeper=debug` shows the server's log
/// (each FinTS request and answer by segment and code) beside a failure.
async fn app() -> TestApp {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter(std::env::var("BANK_TEST_LOG").unwrap_or_else(|_| "off".into()))
        .try_init();
    bank_app().await
}

async fn euro_account(app: &TestApp, user: &TestUser) -> String {
    app.ok(
        user,
        "createAccount",
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": 0}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A connection made and its one account linked to a new EUR account:
/// (connection id, account id).
async fn connected_and_linked(
    app: &TestApp,
    user: &TestUser,
    bank: &MockBank,
    save_pin: bool,
) -> (String, String) {
    let account = euro_account(app, user).await;
    let id = connected_to(app, user, bank, save_pin, &account).await;
    (id, account)
}

/// An amount the actions answer, as a JSON number or a decimal string.
fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not an amount: {v}"))
}

/// Sends the TAN while the connection asks for one (each continuation
/// page may ask again); the last answer.
async fn send_tans(app: &TestApp, user: &TestUser, id: &str) -> Value {
    let mut batches = Vec::new();
    for _ in 0..20 {
        let r = app.ok(user, "sendTan", json!({"id": id, "tan": TAN})).await;
        if let Some(b) = r["batches"].as_array() {
            batches.extend(b.iter().cloned());
        }
        if r["state"] != "tan" {
            let mut r = r;
            r["batches"] = json!(batches);
            return r;
        }
    }
    panic!("the bank kept asking for a TAN");
}

#[tokio::test]
async fn bank_sync_connect_link_sync_confirm_and_sync_again_adds_nothing() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    let conn = app
        .ok(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert_eq!(conn["state"], "ready");
    assert_eq!(conn["bankCode"], BANK_CODE);
    assert_eq!(conn["bankName"], "Mockbank Loopback AG");
    assert_eq!(conn["loginName"], LOGIN);
    assert_eq!(conn["tan"], Value::Null);
    assert_eq!(conn["pinSaved"], false);
    assert_eq!(conn["autoSync"], false);
    assert_eq!(conn["lastError"], Value::Null);
    let accounts = conn["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), 1);
    assert_eq!(accounts[0]["iban"], IBAN);
    assert_eq!(accounts[0]["bic"], BIC);
    assert_eq!(accounts[0]["accountNumber"], ACCOUNT);
    assert_eq!(accounts[0]["currency"], "EUR");
    assert_eq!(accounts[0]["ownerName"], "Erika Mustermann");
    assert_eq!(accounts[0]["accountId"], Value::Null);
    let id = conn["id"].as_str().unwrap().to_string();

    // A USD account is refused, naming the field.
    let usd = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Dollar", "type": "checking", "currency": "USD", "balance": 0}),
        )
        .await["id"]
        .clone();
    let e = app
        .refused(
            &user,
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": usd}),
        )
        .await;
    assert!(e.starts_with("accountId: ") && e.contains("EUR"), "{e}");
    let account = euro_account(&app, &user).await;
    app.ok(
        &user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account}),
    )
    .await;

    // Without a saved PIN the sync asks for one.
    let e = app.refused(&user, "syncBank", json!({"id": id})).await;
    assert!(e.starts_with("pin: "), "{e}");

    let synced = app
        .ok(&user, "syncBank", json!({"id": id, "pin": PIN}))
        .await;
    assert_eq!(synced["state"], "done", "{synced}");
    let batches = synced["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 1, "{synced}");
    assert_eq!(batches[0]["accountId"], account);
    assert_eq!(batches[0]["counts"]["new"], 3, "{synced}");
    let batch_id = batches[0]["batchId"].as_str().unwrap().to_string();

    let batch = app
        .ok(&user, "getImport", json!({"id": batch_id, "limit": 1000}))
        .await;
    assert_eq!(batch["source"], "fints", "{batch}");
    assert_eq!(batch["status"], "reconciled");
    assert_eq!(batch["format"]["kind"], "mt940");
    assert!(
        batch["fileName"]
            .as_str()
            .unwrap()
            .contains("Mockbank Loopback AG"),
        "{batch}"
    );
    let total: i64 = OPENING + (0..3).map(booking_cents).sum::<i64>();
    let euros = total as f64 / 100.0;
    assert_eq!(
        number(&batch["format"]["closingBalance"]["amount"]),
        euros,
        "{batch}"
    );
    assert_eq!(batch["format"]["closingBalance"]["date"], "2024-02-29");
    let rows = batch["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (i, row) in rows.iter().enumerate() {
        assert!(
            row["memo"]
                .as_str()
                .unwrap()
                .contains(&format!("Booking {i}")),
            "{row}"
        );
    }
    let listed = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(listed[0]["source"], "fints", "{listed}");

    let after = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(after["state"], "ready");
    assert!(after["lastSyncAt"].is_string(), "{after}");

    app.ok(
        &user,
        "confirmImport",
        json!({"id": batch_id, "setBalance": true}),
    )
    .await;
    let accounts = app.ok(&user, "listAccounts", json!({})).await;
    let giro = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == account)
        .unwrap()
        .clone();
    assert_eq!(number(&giro["balance"]), euros, "{giro}");

    // Again: the same bookings are duplicates, nothing new.
    let again = app
        .ok(&user, "syncBank", json!({"id": id, "pin": PIN}))
        .await;
    let batches = again["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 1, "{again}");
    assert_eq!(batches[0]["counts"]["new"], 0, "{again}");
    assert_eq!(batches[0]["counts"]["duplicate"], 3, "{again}");
    bank.assert_all_ended();
}

#[tokio::test]
async fn bank_sync_typed_tan_at_login_and_for_the_statement() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        init: Sca::Tan,
        statement: Sca::Tan,
        ..Scenario::default()
    })
    .await;
    let conn = app
        .ok(&user, "connectBank", connect_body(&bank, PIN, true))
        .await;
    assert_eq!(conn["state"], "tan", "{conn}");
    assert_eq!(conn["tan"]["decoupled"], false);
    assert!(conn["tan"]["challenge"]
        .as_str()
        .unwrap()
        .contains("pushTAN"));
    let id = conn["id"].as_str().unwrap().to_string();
    let seen = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(seen["state"], "tan");
    // Nothing saved before the login succeeded.
    assert_eq!(seen["pinSaved"], false);

    let done = send_tans(&app, &user, &id).await;
    assert_eq!(done["state"], "ready", "{done}");
    assert_eq!(done["pinSaved"], true);
    assert_eq!(done["accounts"][0]["iban"], IBAN);
    // Nothing waits any more.
    let e = app
        .refused(&user, "sendTan", json!({"id": id, "tan": TAN}))
        .await;
    assert!(!e.is_empty());

    let account = euro_account(&app, &user).await;
    app.ok(
        &user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account}),
    )
    .await;
    // A wrong TAN ends the sync, said plainly, and is the last error.
    let sync = app.ok(&user, "syncBank", json!({"id": id})).await;
    assert_eq!(sync["state"], "tan", "{sync}");
    let e = app
        .refused(&user, "sendTan", json!({"id": id, "tan": "000000"}))
        .await;
    assert!(e.contains("TAN"), "{e}");
    let after = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(after["state"], "ready");
    assert_eq!(after["lastError"], json!(e));
    assert_eq!(after["pinSaved"], true, "a wrong TAN keeps the PIN");

    let sync = app.ok(&user, "syncBank", json!({"id": id})).await;
    assert_eq!(sync["state"], "tan", "{sync}");
    assert!(sync["tan"]["challenge"].is_string());
    let busy = app.refused(&user, "syncBank", json!({"id": id})).await;
    assert!(busy.contains("already"), "{busy}");
    let done = send_tans(&app, &user, &id).await;
    assert_eq!(done["state"], "ready", "{done}");
    let batches = done["batches"].as_array().unwrap();
    assert_eq!(batches[0]["counts"]["new"], 3, "{done}");
    bank.assert_all_ended();
}

#[tokio::test]
async fn bank_sync_decoupled_approval_moves_on_by_itself() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        methods: Methods::Decoupled,
        init: Sca::Decoupled(1),
        ..Scenario::default()
    })
    .await;
    let conn = app
        .ok(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert_eq!(conn["state"], "tan", "{conn}");
    assert_eq!(conn["tan"]["decoupled"], true);
    assert!(conn["tan"]["challenge"]
        .as_str()
        .unwrap()
        .contains("SecureGo"));
    let id = conn["id"].as_str().unwrap().to_string();
    let done = until_not(&app, &user, &id, "tan").await;
    assert_eq!(done["state"], "ready", "{done}");
    assert_eq!(done["accounts"][0]["iban"], IBAN, "{done}");
    assert_eq!(done["lastError"], Value::Null);

    // The sync's dialog asks for the approval too, and goes on by itself
    // to the staged batch.
    let account = euro_account(&app, &user).await;
    app.ok(
        &user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account}),
    )
    .await;
    let sync = app
        .ok(&user, "syncBank", json!({"id": id, "pin": PIN}))
        .await;
    assert_eq!(sync["state"], "tan", "{sync}");
    assert_eq!(sync["tan"]["decoupled"], true);
    let e = app
        .refused(&user, "sendTan", json!({"id": id, "tan": TAN}))
        .await;
    assert!(!e.is_empty(), "an approval is not typed");
    let done = until_not(&app, &user, &id, "tan").await;
    let done = match done["state"].as_str() {
        Some("syncing") => until_not(&app, &user, &id, "syncing").await,
        _ => done,
    };
    assert_eq!(done["state"], "ready", "{done}");
    assert!(done["lastSyncAt"].is_string(), "{done}");
    let imports = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(imports[0]["source"], "fints", "{imports}");
    assert_eq!(imports[0]["counts"]["new"], 3, "{imports}");
    bank.assert_all_ended();
}

/// `getBankConnection` and `listBankConnections` asked without pause until
/// the connection is neither `tan` nor `syncing`, within [`GENEROUS`]:
/// every answer that says `ready` must show what the dialog settled
/// (`settled`), in both. The last answer.
async fn watch_until_ready(
    app: &TestApp,
    user: &TestUser,
    id: &str,
    settled: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + GENEROUS;
    loop {
        let one = app.ok(user, "getBankConnection", json!({"id": id})).await;
        let all = app.ok(user, "listBankConnections", json!({})).await;
        let listed = all
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("not listed: {all}"));
        for c in [&one, &listed] {
            let state = c["state"].as_str().unwrap_or_default();
            assert!(
                ["tan", "syncing", "ready"].contains(&state),
                "an unexpected state: {c}"
            );
            if state == "ready" {
                assert!(settled(c), "ready before what the dialog settled: {c}");
            }
        }
        if one["state"] == "ready" {
            return one;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not ready within {GENEROUS:?}: {one}"
        );
        tokio::task::yield_now().await;
    }
}

/// A connection is never seen `ready` before its dialog settled: the live
/// state is read before the database, and a dialog writes what it settled
/// and ends at the bank before it leaves. Under load this showed `ready`
/// with no accounts while an approval went on, and `ready` without the
/// sync's time while its batch was written.
#[tokio::test]
async fn bank_sync_a_connection_seen_ready_shows_what_its_dialog_settled() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        methods: Methods::Decoupled,
        init: Sca::Decoupled(1),
        ..Scenario::default()
    })
    .await;
    let conn = connect(&app, &user, &bank, false).await;
    assert_eq!(conn["state"], "tan", "{conn}");
    let id = conn["id"].as_str().unwrap().to_string();
    let done = watch_until_ready(&app, &user, &id, |c| {
        c["accounts"][0]["iban"] == IBAN && c["bankName"] == "Mockbank Loopback AG"
    })
    .await;
    assert_eq!(done["lastError"], Value::Null, "{done}");
    bank.assert_all_ended();

    let account = euro_account(&app, &user).await;
    link(&app, &user, &id, &account).await;
    let sync = app
        .ok(&user, "syncBank", json!({"id": id, "pin": PIN}))
        .await;
    assert_eq!(sync["state"], "tan", "{sync}");
    let done = watch_until_ready(&app, &user, &id, |c| c["lastSyncAt"].is_string()).await;
    assert_eq!(done["lastError"], Value::Null, "{done}");
    bank.assert_all_ended();
    let imports = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(imports[0]["counts"]["new"], 3, "{imports}");
}

/// A sync may need the TAN method chosen (here: a login that never
/// finished, forgotten by a restart): `syncBank` answers
/// `choose_tan_method`, the connection lists the methods, and the choice
/// goes on with the login and the sync.
#[tokio::test]
async fn bank_sync_asks_for_the_tan_method_and_goes_on_after_the_choice() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        methods: Methods::Choice,
        ..Scenario::default()
    })
    .await;
    let conn = connect(&app, &user, &bank, false).await;
    assert_eq!(conn["state"], "choose_tan_method", "{conn}");
    let id = conn["id"].as_str().unwrap().to_string();
    let dir = app.stop().await;
    let app = spawn_app_in(dir, allow_mock_banks).await;
    let seen = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(seen["state"], "ready", "{seen}");
    assert_eq!(seen["accounts"], json!([]), "{seen}");

    let sync = app
        .ok(&user, "syncBank", json!({"id": id, "pin": PIN}))
        .await;
    assert_eq!(sync["state"], "choose_tan_method", "{sync}");
    assert_eq!(sync["batches"], json!([]), "{sync}");
    let seen = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(seen["state"], "choose_tan_method", "{seen}");
    let codes: Vec<&str> = seen["tanMethods"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["code"].as_str())
        .collect();
    assert!(codes.contains(&"921") && codes.contains(&"946"), "{seen}");
    let page = app.page(&user, &format!("/bank/{id}")).await;
    assert!(page.contains("921"), "the page offers the methods: {page}");

    let done = app
        .ok(&user, "chooseTanMethod", json!({"id": id, "code": "921"}))
        .await;
    assert_eq!(done["state"], "ready", "{done}");
    assert_eq!(done["accounts"][0]["iban"], IBAN, "{done}");
    assert!(done["lastSyncAt"].is_string(), "{done}");
    bank.assert_all_ended();
}

/// A batch of an earlier sync left unconfirmed keeps waiting with its
/// bookings, and the next sync asks the bank only from the day after the
/// last booking staged: a booking is asked for once.
#[tokio::test]
async fn bank_sync_after_an_unconfirmed_batch_asks_only_for_later_bookings() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    let (id, _) = connected_and_linked(&app, &user, &bank, true).await;
    let first = app.ok(&user, "syncBank", json!({"id": id})).await;
    assert_eq!(first["batches"][0]["counts"]["new"], 3, "{first}");
    app.ok(&user, "syncBank", json!({"id": id})).await;
    let ranges = bank.seen.lock().unwrap().ranges.clone();
    assert_eq!(ranges.len(), 2, "{ranges:?}");
    // The mock bank's bookings are on 1 to 3 February 2024.
    assert_eq!(ranges[1].0, "20240204", "{ranges:?}");
    let imports = app.ok(&user, "listImports", json!({})).await;
    let waiting = imports
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == first["batches"][0]["batchId"])
        .unwrap_or_else(|| panic!("the first batch is gone: {imports}"));
    assert_eq!(waiting["counts"]["new"], 3, "{waiting}");
    assert_ne!(waiting["status"], "confirmed", "{waiting}");
}

#[tokio::test]
async fn bank_sync_choose_tan_method_then_go_on() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        methods: Methods::Choice,
        ..Scenario::default()
    })
    .await;
    let conn = app
        .ok(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert_eq!(conn["state"], "choose_tan_method", "{conn}");
    let methods = conn["tanMethods"].as_array().unwrap();
    assert!(methods.iter().any(|m| m["code"] == "921"), "{conn}");
    let id = conn["id"].as_str().unwrap().to_string();
    let e = app
        .refused(&user, "chooseTanMethod", json!({"id": id, "code": "999"}))
        .await;
    assert!(e.starts_with("code: "), "{e}");
    let done = app
        .ok(&user, "chooseTanMethod", json!({"id": id, "code": "921"}))
        .await;
    assert_eq!(done["state"], "ready", "{done}");
    assert_eq!(done["accounts"][0]["iban"], IBAN);
}

#[tokio::test]
async fn bank_sync_camt_pages_become_one_batch() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        camt: true,
        bookings: 25,
        per_page: 5,
        ..Scenario::default()
    })
    .await;
    let (id, _) = connected_and_linked(&app, &user, &bank, true).await;
    let synced = app.ok(&user, "syncBank", json!({"id": id})).await;
    let batches = synced["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 1, "{synced}");
    assert_eq!(batches[0]["counts"]["new"], 25, "{synced}");
    assert!(bank.seen.lock().unwrap().touchdowns.len() >= 4);
    let batch = app
        .ok(
            &user,
            "getImport",
            json!({"id": batches[0]["batchId"], "limit": 1000}),
        )
        .await;
    assert_eq!(batch["format"]["kind"], "camt.052", "{batch}");
    assert_eq!(batch["rowCount"], 25);

    // Unlinked, the account is not synced.
    let unlinked = app
        .ok(
            &user,
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": null}),
        )
        .await;
    assert_eq!(unlinked["accounts"][0]["accountId"], Value::Null);
    let synced = app.ok(&user, "syncBank", json!({"id": id})).await;
    assert_eq!(synced["batches"], json!([]), "{synced}");
}

#[tokio::test]
async fn bank_sync_three_thousand_bookings_over_six_pages_stage_as_one_batch() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        bookings: 3_000,
        per_page: 500,
        ..Scenario::default()
    })
    .await;
    let (id, _) = connected_and_linked(&app, &user, &bank, true).await;
    let started = std::time::Instant::now();
    let synced = app.ok(&user, "syncBank", json!({"id": id})).await;
    eprintln!(
        "bank sync of 3,000 bookings over 6 pages: {:?}",
        started.elapsed()
    );
    let batches = synced["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 1, "{synced}");
    assert_eq!(batches[0]["counts"]["new"], 3_000, "{synced}");
    assert_eq!(bank.seen.lock().unwrap().touchdowns.len(), 5);
}

#[tokio::test]
async fn bank_sync_wrong_pin_drops_the_saved_pin_and_automatic_sync() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    // A wrong PIN at connect: refused, worded, and no connection left.
    let e = app
        .refused(&user, "connectBank", connect_body(&bank, "falsch", true))
        .await;
    assert!(e.contains("PIN"), "{e}");
    assert_eq!(
        app.ok(&user, "listBankConnections", json!({})).await,
        json!([])
    );

    let (id, _) = connected_and_linked(&app, &user, &bank, true).await;
    let on = app
        .ok(&user, "setBankSync", json!({"id": id, "autoSync": true}))
        .await;
    assert_eq!(on["autoSync"], true);
    assert_eq!(on["pinSaved"], true);
    // The bank no longer takes the saved PIN (it was changed there).
    app.ok(
        &user,
        "setBankSync",
        json!({"id": id, "savePin": true, "pin": "alte-PIN"}),
    )
    .await;
    let e = app.refused(&user, "syncBank", json!({"id": id})).await;
    assert!(e.contains("PIN"), "{e}");
    let after = app.ok(&user, "getBankConnection", json!({"id": id})).await;
    assert_eq!(after["pinSaved"], false, "{after}");
    assert_eq!(after["autoSync"], false, "{after}");
    assert_eq!(after["lastError"], json!(e), "{after}");
    assert_eq!(after["state"], "ready");
    // Automatic sync needs a saved PIN.
    let e = app
        .refused(&user, "setBankSync", json!({"id": id, "autoSync": true}))
        .await;
    assert!(e.starts_with("autoSync: "), "{e}");
}

#[tokio::test]
async fn bank_sync_locked_access_is_said_plainly_in_german_too() {
    let app = app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let bank = MockBank::start(Scenario {
        fail: Fail::Locked,
        ..Scenario::default()
    })
    .await;
    let e = app
        .refused(&user, "connectBank", connect_body(&bank, PIN, true))
        .await;
    assert!(e.contains("gesperrt"), "{e}");
    assert!(!e.contains("3938"), "{e}");
}

#[tokio::test]
async fn bank_sync_a_bank_that_never_answers_times_out() {
    let app = spawn_app_with(|c| {
        c.fints_product_id = Some(PRODUCT.into());
        c.fints_allow_local = true;
        c.fints_timeout = Duration::from_millis(500);
    })
    .await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario {
        fail: Fail::Silent,
        ..Scenario::default()
    })
    .await;
    let e = app
        .refused(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert!(e.contains("in time"), "{e}");
}

#[tokio::test]
async fn bank_sync_without_product_id_is_refused_saying_how_to_get_one() {
    let app = spawn_app_with(|c| c.fints_allow_local = true).await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    let e = app
        .refused(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert!(
        e.contains("CASHKEEPER_FINTS_PRODUCT_ID") && e.contains("free of charge"),
        "{e}"
    );
    assert_eq!(bank.seen.lock().unwrap().messages.len(), 0);
}

#[tokio::test]
async fn bank_sync_bad_addresses_are_field_errors() {
    let strict = spawn_app_with(|c| c.fints_product_id = Some(PRODUCT.into())).await;
    let user = strict.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    // A private (loopback) address without CASHKEEPER_FINTS_ALLOW_LOCAL.
    let e = strict
        .refused(&user, "connectBank", connect_body(&bank, PIN, false))
        .await;
    assert!(e.starts_with("url: "), "{e}");
    // Plain http to a public host.
    let mut body = connect_body(&bank, PIN, false);
    body["url"] = json!("http://fints.example-bank.de/fints");
    let e = strict.refused(&user, "connectBank", body.clone()).await;
    assert!(e.starts_with("url: ") && e.contains("https"), "{e}");
    // No address, and none in the bank table for the code; a bank code
    // that is none.
    body.as_object_mut().unwrap().remove("url");
    body["bankCode"] = json!("99999999");
    let e = strict.refused(&user, "connectBank", body.clone()).await;
    assert!(e.starts_with("url: "), "{e}");
    body["bankCode"] = json!("1234");
    body["url"] = json!("https://fints.example-bank.de/fints");
    let e = strict.refused(&user, "connectBank", body).await;
    assert!(e.starts_with("bankCode: "), "{e}");
    assert_eq!(bank.seen.lock().unwrap().messages.len(), 0);
}

#[tokio::test]
async fn bank_sync_two_users_never_see_each_others_connections() {
    let app = app().await;
    let anna = app.new_user().await;
    let ben = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    let (id, _) = connected_and_linked(&app, &anna, &bank, true).await;
    let bens_account = euro_account(&app, &ben).await;
    assert_eq!(
        app.ok(&ben, "listBankConnections", json!({})).await,
        json!([])
    );
    for (action, body) in [
        ("getBankConnection", json!({"id": id})),
        (
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": bens_account}),
        ),
        ("syncBank", json!({"id": id, "pin": PIN})),
        ("setBankSync", json!({"id": id, "autoConfirm": true})),
        ("forgetBankPin", json!({"id": id})),
        ("sendTan", json!({"id": id, "tan": TAN})),
        ("chooseTanMethod", json!({"id": id, "code": "921"})),
        ("deleteBankConnection", json!({"id": id})),
    ] {
        let e = app.refused(&ben, action, body).await;
        assert_eq!(e, "not found", "{action}");
    }
    // Anna's own account id of another user is unknown to her link.
    let e = app
        .refused(
            &anna,
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": bens_account}),
        )
        .await;
    assert_eq!(e, "accountId: not found");
    let still = app.ok(&anna, "getBankConnection", json!({"id": id})).await;
    assert_eq!(still["pinSaved"], true);
    assert_eq!(still["autoConfirm"], false);
    assert_eq!(
        app.ok(&anna, "listBankConnections", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn bank_sync_the_pin_is_never_answered_nor_exported() {
    let app = app().await;
    let user = app.new_user().await;
    let bank = MockBank::start(Scenario::default()).await;
    let conn = app
        .action(
            "connectBank",
            connect_body(&bank, PIN, true),
            Some(&user.cookie),
        )
        .await;
    assert!(!conn.body.to_string().contains(PIN));
    let id = conn.data()["id"].as_str().unwrap().to_string();
    let account = euro_account(&app, &user).await;
    for (action, body) in [
        ("getBankConnection", json!({"id": id})),
        ("listBankConnections", json!({})),
        (
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": account}),
        ),
        ("setBankSync", json!({"id": id, "autoSync": true})),
        ("syncBank", json!({"id": id})),
    ] {
        let r = app.action(action, body, Some(&user.cookie)).await;
        assert!(r.ok(), "{action}: {}", r.body);
        assert!(!r.body.to_string().contains(PIN), "{action}");
    }
    let res = app.get("/api/export", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let files = crate::export::unzip(&res.bytes().await.unwrap());
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(PIN), "{name}");
        assert!(!text.contains("bank_connections"), "{name}");
    }
    let data = crate::export::data_json(&files);
    assert_eq!(data["tables"]["import_batches"][0]["source"], "fints");

    // Forgetting the PIN turns automatic sync off; deleting the
    // connection keeps the batch.
    let forgot = app.ok(&user, "forgetBankPin", json!({"id": id})).await;
    assert_eq!(forgot["pinSaved"], false);
    assert_eq!(forgot["autoSync"], false);
    app.ok(&user, "deleteBankConnection", json!({"id": id}))
        .await;
    let e = app
        .refused(&user, "getBankConnection", json!({"id": id}))
        .await;
    assert_eq!(e, "not found");
    let imports = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(imports.as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bank_sync_killed_mid_sync_leaves_no_half_batch_and_restarts_ready() {
    use crate::support::service::Service;
    let bank = MockBank::start(Scenario {
        fail: Fail::HangFirst("HKSAL"),
        ..Scenario::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("CASHKEEPER_FINTS_PRODUCT_ID", PRODUCT),
        ("CASHKEEPER_FINTS_ALLOW_LOCAL", "true"),
        ("CASHKEEPER_BANK_SYNC_SCHEDULE", "off"),
    ];
    let mut service = Service::start(dir.path(), &env);
    let cookie = service.register("bank@example.org").await;
    let call = |service: &Service, name: &'static str, body: Value, cookie: String| {
        let request = service
            .client
            .post(format!("{}/actions/{name}", service.base))
            .header("content-type", "application/json")
            .header("cookie", format!("cashkeeper_session={cookie}"))
            .body(body.to_string());
        async move {
            let r = request.send().await.ok()?;
            r.json::<Value>().await.ok()
        }
    };
    let conn = call(
        &service,
        "connectBank",
        connect_body(&bank, PIN, true),
        cookie.clone(),
    )
    .await
    .unwrap();
    let id = conn["data"]["id"].as_str().unwrap().to_string();
    let account = call(
        &service,
        "createAccount",
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": 0}),
        cookie.clone(),
    )
    .await
    .unwrap()["data"]["id"]
        .clone();
    call(
        &service,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account}),
        cookie.clone(),
    )
    .await
    .unwrap();

    // The sync has the bookings and waits for the balance when it is killed.
    let sync = tokio::spawn(call(
        &service,
        "syncBank",
        json!({"id": id}),
        cookie.clone(),
    ));
    loop {
        let notified = bank.ended.notified();
        if bank.sent("HKSAL") > 0 {
            break;
        }
        notified.await;
    }
    assert!(bank.sent("HKKAZ") > 0 && bank.sent("HKSAL") > 0);
    let during = call(
        &service,
        "getBankConnection",
        json!({"id": id}),
        cookie.clone(),
    )
    .await
    .unwrap();
    assert_eq!(during["data"]["state"], "syncing", "{during}");
    let second = call(&service, "syncBank", json!({"id": id}), cookie.clone())
        .await
        .unwrap();
    assert_eq!(second["success"], false, "one sync at a time: {second}");
    service.child.kill().unwrap(); // SIGKILL
    service.child.wait().unwrap();
    assert!(
        sync.await.unwrap().is_none(),
        "the killed sync never answered"
    );
    drop(service);

    service = Service::start(dir.path(), &env);
    let cookie = service.login("bank@example.org").await;
    let after = call(
        &service,
        "getBankConnection",
        json!({"id": id}),
        cookie.clone(),
    )
    .await
    .unwrap();
    assert_eq!(after["data"]["state"], "ready", "{after}");
    let imports = call(&service, "listImports", json!({}), cookie.clone())
        .await
        .unwrap();
    assert_eq!(imports["data"], json!([]), "no half batch: {imports}");

    // The same sync again brings every booking, once.
    let synced = call(&service, "syncBank", json!({"id": id}), cookie.clone())
        .await
        .unwrap();
    assert_eq!(synced["data"]["state"], "done", "{synced}");
    assert_eq!(synced["data"]["batches"][0]["counts"]["new"], 3, "{synced}");
    let imports = call(&service, "listImports", json!({}), cookie)
        .await
        .unwrap();
    assert_eq!(imports["data"].as_array().unwrap().len(), 1);
}
