//! Contract terms and cancellation deadlines ("kündbar bis"): the terms an
//! expense takes and refuses, `cancelBy` as the test clock moves on,
//! `cancelContract` and taking it back, the reminders pushed 14 and 3 days
//! before a deadline through a push service on loopback, the insight, the
//! pages and the assistant's read tool.

use crate::push::{push_service, subscribe, vapid, BrowserKeys};
use crate::support::*;
use cashkeeper::config::Secret;
use serde_json::{json, Value};

/// Sets the app's clock to 08:00 UTC on `s`.
fn today(app: &TestApp, s: &str) {
    app.set_day(s, 8);
}

/// Moves the clock to `s` and signs `user` in again: a session ends after
/// 30 days unused.
async fn later(app: &TestApp, user: &mut TestUser, s: &str) {
    app.move_to_day(user, s, 8).await;
}

/// The expense `id` as `listExpenses` answers it.
async fn listed(app: &TestApp, user: &TestUser, id: &str) -> Value {
    let all = app.ok(user, "listExpenses", json!({})).await;
    all.as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} not listed: {all}"))
}

async fn gym(app: &TestApp, user: &TestUser, account: &str, terms: Value) -> Value {
    let mut body = json!({"name": "Fitnessstudio", "amount": "29.90", "frequency": "monthly",
        "startDate": "2026-02-01", "accountId": account, "isSubscription": true});
    body.as_object_mut()
        .unwrap()
        .extend(terms.as_object().unwrap().clone());
    app.ok(user, "createExpense", body).await
}

/// A term ending 31 January with one month's notice can be cancelled up
/// to 31 December; from 1 January the term has moved on by its renewal,
/// in every list that shows the item.
#[tokio::test]
async fn cancel_by_follows_the_terms_and_moves_on_with_the_day() {
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let mut user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let made = gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-01-31", "noticeMonths": 1}),
    )
    .await;
    assert_eq!(made["cancelBy"], "2026-12-31");
    assert_eq!(made["termEnd"], "2027-01-31");
    assert_eq!(made["renewalMonths"], 12, "a year by default");
    assert_eq!(made["cancelledTo"], Value::Null);
    let id = made["id"].as_str().unwrap();
    assert_eq!(listed(&app, &user, id).await["cancelBy"], "2026-12-31");
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    assert_eq!(subs["subscriptions"][0]["cancelBy"], "2026-12-31");
    assert_eq!(subs["subscriptions"][0]["cancelledTo"], Value::Null);

    // An item without terms has neither.
    let plain = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Miete", "amount": "900", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": a}),
        )
        .await;
    assert_eq!(plain["cancelBy"], Value::Null);
    assert_eq!(plain["termEnd"], Value::Null);

    later(&app, &mut user, "2026-12-31").await;
    assert_eq!(listed(&app, &user, id).await["cancelBy"], "2026-12-31");
    later(&app, &mut user, "2027-01-01").await;
    let moved = listed(&app, &user, id).await;
    assert_eq!(moved["termEnd"], "2028-01-31");
    assert_eq!(moved["cancelBy"], "2027-12-31");
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    assert_eq!(subs["subscriptions"][0]["cancelBy"], "2027-12-31");

    // Two months before the end of April: the end of February, the 29th
    // in 2028; days of notice count back from the end.
    let april = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id, "termEnd": "2028-04-30", "noticeMonths": 2}),
        )
        .await;
    assert_eq!(april["cancelBy"], "2028-02-29");
    let days = app
        .ok(&user, "updateExpense", json!({"id": id, "noticeDays": 14}))
        .await;
    assert_eq!(
        days["noticeMonths"],
        Value::Null,
        "the days replace the months"
    );
    assert_eq!(days["noticeDays"], 14);
    assert_eq!(days["cancelBy"], "2028-04-16");
}

/// Renewing by 0 months: after the first deadline the contract can be
/// ended any day, at today plus the notice; with no term given too.
#[tokio::test]
async fn renewal_zero_runs_on_with_no_fixed_term() {
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let mut user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let e = gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2026-12-31", "noticeMonths": 1, "renewalMonths": 0}),
    )
    .await;
    assert_eq!(e["cancelBy"], "2026-11-30");
    later(&app, &mut user, "2026-12-10").await;
    let on = listed(&app, &user, e["id"].as_str().unwrap()).await;
    assert_eq!(
        (on["cancelBy"].clone(), on["termEnd"].clone()),
        (json!("2026-12-10"), json!("2027-01-10"))
    );
    let open = gym(
        &app,
        &user,
        &a,
        json!({"noticeDays": 30, "renewalMonths": 0}),
    )
    .await;
    assert_eq!(open["cancelBy"], "2026-12-10");
    assert_eq!(open["termEnd"], "2027-01-09");
}

/// Terms that do not add up are refused naming the field, in both
/// languages, and never a 500.
#[tokio::test]
async fn incomplete_terms_are_refused_naming_the_field() {
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let base = json!({"name": "Handy", "amount": "20", "frequency": "monthly",
        "startDate": "2026-01-01", "accountId": a});
    let with = |extra: Value| {
        let mut b = base.clone();
        b.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        b
    };
    for (terms, field) in [
        (json!({"termEnd": "2027-06-30"}), "noticeMonths"),
        (json!({"noticeMonths": 3}), "termEnd"),
        (
            json!({"termEnd": "2027-06-30", "noticeMonths": 3, "noticeDays": 10}),
            "noticeDays",
        ),
        (
            json!({"termEnd": "2027-06-30", "noticeMonths": -1}),
            "noticeMonths",
        ),
        (
            json!({"termEnd": "2027-06-30", "noticeMonths": "drei"}),
            "noticeMonths",
        ),
        (
            json!({"termEnd": "2027-06-30", "noticeDays": 1.5}),
            "noticeDays",
        ),
        (
            json!({"termEnd": "2027-06-30", "noticeMonths": 1, "renewalMonths": 121}),
            "renewalMonths",
        ),
        (
            json!({"termEnd": "30.06.2027", "noticeMonths": 1}),
            "termEnd",
        ),
        (
            json!({"termEnd": "2027-02-30", "noticeMonths": 1}),
            "termEnd",
        ),
    ] {
        let error = app
            .refused(&user, "createExpense", with(terms.clone()))
            .await;
        assert!(
            error.starts_with(&format!("{field}: ")),
            "{terms} → {error}"
        );
    }
    let error = app
        .refused(
            &user,
            "createExpense",
            with(json!({"termEnd": "2027-06-30"})),
        )
        .await;
    assert!(error.contains("noticeMonths or noticeDays"), "{error}");
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let error = app
        .refused(&user, "createExpense", with(json!({"noticeMonths": 3})))
        .await;
    assert_eq!(
        error,
        "termEnd: das Ende der Laufzeit fehlt: eine Kündigungsfrist braucht termEnd, außer renewalMonths ist 0"
    );
    // Nothing was written.
    assert_eq!(app.ok(&user, "listExpenses", json!({})).await, json!([]));
}

/// `cancelContract` records the cancellation: the contract and the item
/// end at the term's end, so later months plan no payment; after the
/// deadline it is refused naming `on`; `updateExpense {cancelledTo: null}`
/// takes it back, the end date as it was.
#[tokio::test]
async fn cancel_contract_ends_the_item_and_can_be_taken_back() {
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let e = gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-08-31", "noticeMonths": 3}),
    )
    .await;
    let id = e["id"].as_str().unwrap().to_string();
    assert_eq!(e["cancelBy"], "2027-05-31");
    let september = json!({"year": 2027, "month": 9});
    let before = app.ok(&user, "getDashboard", september.clone()).await;
    assert_eq!(before["cashflow"]["expenses"], json!(29.9));

    // Too late: the day after the deadline.
    let error = app
        .refused(
            &user,
            "cancelContract",
            json!({"id": id, "on": "2027-06-01"}),
        )
        .await;
    assert!(error.starts_with("on: "), "{error}");
    assert!(error.contains("31\u{a0}May\u{a0}2027"), "{error}");
    let error = app
        .refused(&user, "cancelContract", json!({"id": id, "on": "morgen"}))
        .await;
    assert!(error.starts_with("on: "), "{error}");
    let plain = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Miete", "amount": "900", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": a}),
        )
        .await;
    let error = app
        .refused(&user, "cancelContract", json!({"id": plain["id"]}))
        .await;
    assert!(error.starts_with("termEnd: "), "{error}");
    let error = app
        .refused(&user, "cancelContract", json!({"id": "no-such-id"}))
        .await;
    assert_eq!(error, "not found");

    let cancelled = app.ok(&user, "cancelContract", json!({"id": id})).await;
    assert_eq!(cancelled["cancelledTo"], "2027-08-31");
    assert_eq!(cancelled["endDate"], "2027-08-31");
    assert_eq!(cancelled["cancelBy"], Value::Null, "no deadline to keep");
    assert_eq!(listed(&app, &user, &id).await["cancelledTo"], "2027-08-31");
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    assert_eq!(subs["subscriptions"][0]["cancelledTo"], "2027-08-31");
    let after = app.ok(&user, "getDashboard", september.clone()).await;
    assert_eq!(
        after["cashflow"]["expenses"],
        json!(900.0),
        "the rent alone"
    );
    let august = app
        .ok(&user, "getDashboard", json!({"year": 2027, "month": 8}))
        .await;
    assert_eq!(
        august["cashflow"]["expenses"],
        json!(929.9),
        "the last month is paid"
    );
    // A second click answers the same.
    let again = app
        .ok(
            &user,
            "cancelContract",
            json!({"id": id, "on": "2027-05-01"}),
        )
        .await;
    assert_eq!(again["cancelledTo"], "2027-08-31");

    // Only null takes it back.
    let error = app
        .refused(
            &user,
            "updateExpense",
            json!({"id": id, "cancelledTo": "2030-01-31"}),
        )
        .await;
    assert!(error.starts_with("cancelledTo: "), "{error}");
    let kept = app
        .ok(&user, "updateExpense", json!({"id": id, "name": "Gym"}))
        .await;
    assert_eq!(kept["cancelledTo"], "2027-08-31", "an edit keeps it");
    let back = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id, "cancelledTo": null}),
        )
        .await;
    assert_eq!(back["cancelledTo"], Value::Null);
    assert_eq!(back["endDate"], Value::Null, "the end date as before");
    assert_eq!(back["cancelBy"], "2027-05-31");
    let restored = app.ok(&user, "getDashboard", september).await;
    assert_eq!(restored["cashflow"]["expenses"], json!(929.9));
}

/// A cancellation made on a day before the deadline that has since passed
/// reaches the term that was current on that day.
#[tokio::test]
async fn a_cancellation_dated_back_reaches_the_term_of_its_day() {
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let mut user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let e = gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-01-31", "noticeMonths": 1}),
    )
    .await;
    later(&app, &mut user, "2027-01-05").await;
    assert_eq!(
        listed(&app, &user, e["id"].as_str().unwrap()).await["cancelBy"],
        "2027-12-31"
    );
    let done = app
        .ok(
            &user,
            "cancelContract",
            json!({"id": e["id"], "on": "2026-12-20"}),
        )
        .await;
    assert_eq!(done["cancelledTo"], "2027-01-31");
    assert_eq!(done["endDate"], "2027-01-31");
}

/// The daily job pushes "kündbar bis …" 14 days and 3 days before a
/// deadline, once each, to the owner's browsers in their language; the
/// insights job names the deadline as a `subscription_alert`.
#[tokio::test]
async fn reminders_are_pushed_14_and_3_days_before_once_each() {
    let (base, received) = push_service().await;
    let keys = vapid();
    let app = spawn_app_with(move |c| {
        c.vapid = Some(keys);
        c.push_allow_loopback_http = true;
        c.cron_secret = Some(Secret::new("k"));
    })
    .await;
    today(&app, "2027-05-01");
    let mut user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let a = app.account(&user, "Giro", "EUR").await;
    // Due on the 20th of each month: no payment reminder on the days below.
    let e = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Fitnessstudio", "amount": "29.90", "frequency": "monthly",
                   "startDate": "2026-02-20", "accountId": a, "isSubscription": true,
                   "termEnd": "2027-08-31", "noticeMonths": 3}),
        )
        .await;
    assert_eq!(e["cancelBy"], "2027-05-31");
    // Another user's contract, without push, is not anyone's message.
    let other = app.new_user().await;
    let b = app.account(&other, "Giro", "EUR").await;
    app.ok(
        &other,
        "createExpense",
        json!({"name": "Zeitung", "amount": "9", "frequency": "monthly",
               "startDate": "2026-02-20", "accountId": b,
               "termEnd": "2027-08-31", "noticeMonths": 3}),
    )
    .await;
    let browser = BrowserKeys::new();
    let endpoint = format!("{base}/push/ok");
    assert_eq!(
        subscribe(&app, &user.cookie, &browser.json(&endpoint))
            .await
            .status(),
        201
    );
    let run = || async {
        let r = app
            .client
            .get(app.url("/api/cron/upcoming-payments"))
            .header("authorization", "Bearer k")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    };
    let messages = || -> Vec<Value> {
        received
            .lock()
            .unwrap()
            .iter()
            .map(|r| {
                let mut secret = web_push_native::Auth::default();
                secret.copy_from_slice(&browser.auth);
                let plain =
                    web_push_native::decrypt(r.body.clone(), &browser.secret, &secret).unwrap();
                serde_json::from_slice(&plain).unwrap()
            })
            .collect()
    };

    // 30 days before: nothing.
    run().await;
    assert!(messages().is_empty());
    // 14 days before: the first reminder; the same day again: no second.
    later(&app, &mut user, "2027-05-17").await;
    run().await;
    run().await;
    let got = messages();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["title"], "Fitnessstudio: kündbar bis 31.05.2027");
    assert_eq!(
        got[0]["body"],
        "Noch 14 Tage: gekündigt endet der Vertrag am 31.08.2027, sonst verlängert er sich."
    );
    assert_eq!(got[0]["url"], "/subscriptions");
    // The days between: nothing new.
    later(&app, &mut user, "2027-05-20").await;
    run().await;
    assert_eq!(messages().len(), 1);
    // 3 days before: the second, once.
    later(&app, &mut user, "2027-05-28").await;
    run().await;
    run().await;
    let got = messages();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        got[1]["body"],
        "Noch 3 Tage: gekündigt endet der Vertrag am 31.08.2027, sonst verlängert er sich."
    );

    // The insights job names the deadline.
    let r = app
        .client
        .get(app.url("/api/cron/insights"))
        .header("authorization", "Bearer k")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let insights = app.ok(&user, "listInsights", json!({})).await;
    let alert = insights
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["cancelBy"] == "2027-05-31")
        .unwrap_or_else(|| panic!("no deadline insight: {insights}"));
    assert_eq!(alert["type"], "subscription_alert");
    assert_eq!(alert["metadata"]["expenseId"], e["id"]);
    assert_eq!(alert["metadata"]["termEnd"], "2027-08-31");
    assert_eq!(alert["title"], "Fitnessstudio: kündbar bis 31.05.2027");

    // Past the deadline the term moved on: the next year's deadline gets
    // its own reminders; a cancelled contract gets none.
    later(&app, &mut user, "2028-05-17").await;
    run().await;
    let got = messages();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[2]["title"], "Fitnessstudio: kündbar bis 31.05.2028");
    app.ok(&user, "cancelContract", json!({"id": e["id"]}))
        .await;
    later(&app, &mut user, "2028-05-28").await;
    run().await;
    assert_eq!(messages().len(), 3, "cancelled: no reminder");
}

/// The subscriptions page, the expenses page and the edit form say
/// "kündbar bis …" (or "cancel by …"), the form has the contract's
/// fields and "Kündigen"; the dashboard lists "Kündigungsfristen" only
/// when one is within 60 days.
#[tokio::test]
async fn the_pages_show_the_deadline_in_both_languages() {
    let app = spawn_app().await;
    today(&app, "2027-05-01");
    let mut user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let e = gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-11-30", "noticeMonths": 3}),
    )
    .await;
    let id = e["id"].as_str().unwrap();
    assert_eq!(e["cancelBy"], "2027-08-31");

    let english = app.page(&user, "/subscriptions").await;
    assert!(
        english.contains("cancel by 31\u{a0}Aug\u{a0}2027"),
        "{english}"
    );
    let dashboard = app.page(&user, "/").await;
    assert!(
        !dashboard.contains("Cancellation deadlines"),
        "122 days ahead"
    );

    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let german = app.page(&user, "/subscriptions").await;
    assert!(german.contains("kündbar bis 31.08.2027"), "{german}");
    let expenses = app.page(&user, "/expenses").await;
    assert!(expenses.contains("kündbar bis 31.08.2027"), "{expenses}");
    let form = app.page(&user, &format!("/subscriptions?edit={id}")).await;
    for needle in [
        r#"name="termEnd""#,
        r#"value="2027-11-30""#,
        r#"name="renewalMonths""#,
        r#"name="noticeMonths""#,
        r#"name="noticeDays""#,
        r#"data-action="cancelContract""#,
        "Kündigen",
        "Fitnessstudio zum 30.11.2027 kündigen?",
    ] {
        assert!(form.contains(needle), "{needle} missing: {form}");
    }

    later(&app, &mut user, "2027-07-15").await;
    let dashboard = app.page(&user, "/").await;
    assert!(dashboard.contains("Kündigungsfristen"), "{dashboard}");
    assert!(dashboard.contains("31.08.2027"), "{dashboard}");
    assert!(dashboard.contains("noch 47 Tage"), "{dashboard}");

    // Cancelled: the lists say to when, the form offers taking it back,
    // and the dashboard lists it no more.
    app.ok(&user, "cancelContract", json!({"id": id})).await;
    let german = app.page(&user, "/subscriptions").await;
    assert!(german.contains("gekündigt zum 30.11.2027"), "{german}");
    let form = app.page(&user, &format!("/subscriptions?edit={id}")).await;
    assert!(form.contains("Kündigung zurücknehmen"), "{form}");
    assert!(!form.contains(r#"data-action="cancelContract""#));
    let dashboard = app.page(&user, "/").await;
    assert!(!dashboard.contains("Kündigungsfristen"), "{dashboard}");
}

/// The assistant's read tools give the terms and the deadline, in the
/// user's language.
#[tokio::test]
async fn the_assistant_reads_the_terms() {
    use cashkeeper::app::assistant::tools::{self, Outcome};
    let app = spawn_app().await;
    today(&app, "2027-05-01");
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-08-31", "noticeMonths": 3}),
    )
    .await;
    app.ok(
        &user,
        "createExpense",
        json!({"name": "Haftpflicht", "amount": "60", "frequency": "yearly",
               "startDate": "2026-10-01", "accountId": a,
               "termEnd": "2027-09-30", "noticeDays": 30}),
    )
    .await;
    let read = |name: &'static str| {
        let app = &app;
        let user = &user;
        async move {
            let id = app.user_id(user).await;
            let stored = app
                .state
                .db
                .run(move |c| cashkeeper::store::users::find(c, &id))
                .await
                .unwrap()
                .unwrap();
            match tools::run(&app.state, &stored, name, "{}").await {
                Outcome::Read { result, looked } => (result, looked.text(stored.locale)),
                _ => panic!("{name} did not read"),
            }
        }
    };
    let (subs, _) = read("list_subscriptions").await;
    let gym = &subs["subscriptions"][0];
    assert_eq!(gym["cancelBy"], "2027-05-31");
    assert_eq!(gym["termEnd"], "2027-08-31");
    assert_eq!(
        gym["contract"],
        "term until 31\u{a0}Aug\u{a0}2027, renews by 12 months, notice 3 months: cancel by 31\u{a0}May\u{a0}2027"
    );
    let (all, line) = read("list_contracts").await;
    assert_eq!(
        line,
        "looked at your contracts and their cancellation deadlines"
    );
    let names: Vec<&str> = all["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Fitnessstudio", "Haftpflicht"], "nearest first");
    assert_eq!(all["contracts"][1]["cancelBy"], "2027-08-31");
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let (all, line) = read("list_contracts").await;
    assert_eq!(line, "Verträge und Kündigungsfristen angesehen");
    assert_eq!(
        all["contracts"][1]["said"],
        "Laufzeit bis 30.09.2027, verlängert sich um 12 Monate, Kündigungsfrist 30 Tage: kündbar bis 31.08.2027"
    );
}

/// axe-core finds nothing on the page open in `c` (when it is installed).
async fn no_violations(c: &fantoccini::Client, what: &str) {
    if let Some(found) = crate::axe::violations_here(c).await {
        assert!(found.is_empty(), "{what}: {found:#?}");
    }
}

/// In a browser at a phone's width, in German: the subscription says
/// "kündbar bis …" without the page growing sideways; a notice changed in
/// the edit form moves the deadline; "Kündigen", confirmed, records the
/// cancellation; and the dashboard lists the deadline. Saves
/// `subscriptions-deadline-phone`, `dashboard-deadlines-phone` and
/// `contract-form-phone` for the screenshot run.
#[tokio::test]
async fn a_person_sees_the_deadline_on_a_phone_and_cancels() {
    use crate::support::browser::{click, screenshot, signed_in, wait_for_text};
    use fantoccini::Locator;
    let app = spawn_app().await;
    today(&app, "2027-07-15");
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let a = app.account(&user, "Girokonto", "EUR").await;
    let e = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Deutschlandticket-Jahresabo", "amount": "58", "frequency": "monthly",
                   "startDate": "2026-12-01", "accountId": a, "isSubscription": true,
                   "termEnd": "2027-11-30", "noticeMonths": 3}),
        )
        .await;
    app.ok(
        &user,
        "createExpense",
        json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
               "startDate": "2026-03-12", "accountId": a, "isSubscription": true}),
    )
    .await;
    let id = e["id"].as_str().unwrap();
    let Some(browser) = signed_in(&app, &user, 390, 1400).await else {
        return;
    };
    let c = &browser.client;

    wait_for_text(c, "Kündigungsfristen").await;
    screenshot(c, "dashboard-deadlines-phone").await;
    no_violations(c, "the dashboard's deadlines").await;

    c.goto(&app.url("/subscriptions")).await.unwrap();
    wait_for_text(c, "kündbar bis 31.08.2027").await;
    let wider = c
        .execute(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
            vec![],
        )
        .await
        .unwrap()
        .as_i64()
        .unwrap();
    assert!(wider <= 1, "the page is {wider} px wider than the phone");
    screenshot(c, "subscriptions-deadline-phone").await;

    // One month's notice instead of three, through the edit form.
    c.goto(&app.url(&format!("/subscriptions?edit={id}")))
        .await
        .unwrap();
    wait_for_text(c, "Kündigungsfrist (Monate)").await;
    c.execute(
        "document.querySelector('fieldset.contract').scrollIntoView()",
        vec![],
    )
    .await
    .unwrap();
    screenshot(c, "contract-form-phone").await;
    no_violations(c, "the contract's fields and Kündigen").await;
    let notice = c
        .find(Locator::Css("form.stack [name=noticeMonths]"))
        .await
        .unwrap();
    notice.clear().await.unwrap();
    notice.send_keys("1").await.unwrap();
    click(c, "form.stack button[type=submit]").await;
    wait_for_text(c, "kündbar bis 31.10.2027").await;
    assert_eq!(listed(&app, &user, id).await["noticeMonths"], 1);

    // "Kündigen", confirmed.
    c.goto(&app.url(&format!("/subscriptions?edit={id}")))
        .await
        .unwrap();
    c.find(Locator::Css("form[data-action=cancelContract] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.accept_alert().await.unwrap();
    wait_for_text(c, "gekündigt zum 30.11.2027").await;
    c.goto(&app.url(&format!("/subscriptions?edit={id}")))
        .await
        .unwrap();
    wait_for_text(c, "Kündigung zurücknehmen").await;
    no_violations(c, "the cancelled contract").await;
    let cancelled = listed(&app, &user, id).await;
    assert_eq!(cancelled["cancelledTo"], "2027-11-30");
    assert_eq!(cancelled["endDate"], "2027-11-30");
    browser.client.clone().close().await.unwrap();
}

/// A user's export carries the terms and a recorded cancellation, and
/// loading it gives the new account the same deadlines.
#[tokio::test]
async fn an_export_keeps_the_terms_and_the_cancellation() {
    use crate::export::{export_of, load};
    let app = spawn_app().await;
    today(&app, "2026-11-01");
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    gym(
        &app,
        &user,
        &a,
        json!({"termEnd": "2027-08-31", "noticeDays": 45, "renewalMonths": 6}),
    )
    .await;
    let phone = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Handy", "amount": "20", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": a,
                   "termEnd": "2027-03-31", "noticeMonths": 1}),
        )
        .await;
    app.ok(&user, "cancelContract", json!({"id": phone["id"]}))
        .await;
    let before = app.ok(&user, "listExpenses", json!({})).await;
    let archive = export_of(&app, &user).await;

    let copy = app.new_user().await;
    let (status, body) = load(&app, Some(&copy.cookie), archive).await;
    assert_eq!(status, 200, "{body}");
    let after = app.ok(&copy, "listExpenses", json!({})).await;
    let terms = |list: &Value| -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                json!([
                    e["name"],
                    e["termEnd"],
                    e["renewalMonths"],
                    e["noticeMonths"],
                    e["noticeDays"],
                    e["cancelBy"],
                    e["cancelledTo"],
                    e["endDate"]
                ])
            })
            .collect()
    };
    assert_eq!(terms(&after), terms(&before));
    assert_eq!(
        terms(&after),
        vec![
            json!([
                "Fitnessstudio",
                "2027-08-31",
                6,
                null,
                45,
                "2027-07-17",
                null,
                null
            ]),
            json!([
                "Handy",
                "2027-03-31",
                12,
                1,
                null,
                null,
                "2027-03-31",
                "2027-03-31"
            ]),
        ]
    );
}
