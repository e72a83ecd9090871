//! The bank sync pages (docs/bank-sync.md#how-to-connect): `/bank`,
//! `/bank/connect` and `/bank/{id}` for a signed-in user, in both
//! languages, each user seeing only their own connections; and one browser
//! test through connect, the approval in the bank's app (the waiting screen
//! moves on by itself), linking, fetching and the import review, against
//! the loopback mock bank.

use crate::fints_bank::{Methods, MockBank, Sca, Scenario, IBAN, LOGIN, PIN};
use crate::support::browser::{
    click, screenshot, signed_in, signed_in_with, type_into, wait_for_css, wait_for_path,
    wait_until,
};
use crate::support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

pub use crate::fints_bank::{allow_mock_banks, bank_app};

/// Connections of a user in each state a bank page shows (for the
/// accessibility run): `ready` fetched once into `account` (its batch
/// waits for review) and then refused (its last error beside it); the
/// others wait for the TAN method to be chosen, for a typed TAN, and for
/// an approval in the bank's app.
pub struct Seeded {
    pub ready: String,
    pub choose: String,
    pub tan: String,
    pub approval: String,
    _banks: Vec<MockBank>,
}

pub async fn seed(app: &TestApp, user: &TestUser, account: &str) -> Seeded {
    let ready = MockBank::start(Scenario::default()).await;
    let conn = connect(app, user, &ready, true).await;
    let id = conn["id"].as_str().unwrap().to_string();
    app.ok(
        user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account}),
    )
    .await;
    app.ok(user, "syncBank", json!({"id": id})).await;
    let refused = app
        .action(
            "syncBank",
            json!({"id": id, "pin": "wrong-pin"}),
            Some(&user.cookie),
        )
        .await;
    assert!(!refused.ok(), "{}", refused.body);
    let mut banks = vec![ready];
    let mut waiting = Vec::new();
    for scenario in [
        Scenario {
            methods: Methods::Choice,
            ..Scenario::default()
        },
        Scenario {
            init: Sca::Tan,
            ..Scenario::default()
        },
        Scenario {
            methods: Methods::Decoupled,
            init: Sca::Decoupled(u32::MAX),
            ..Scenario::default()
        },
    ] {
        let bank = MockBank::start(scenario).await;
        let conn = connect(app, user, &bank, false).await;
        waiting.push(conn["id"].as_str().unwrap().to_string());
        banks.push(bank);
    }
    let [choose, tan, approval] = <[String; 3]>::try_from(waiting).unwrap();
    Seeded {
        ready: id,
        choose,
        tan,
        approval,
        _banks: banks,
    }
}

/// A bank code the bundled table does not know: the form asks for the
/// mock bank's address.
const UNLISTED: &str = "99999999";

/// Connects `user` to `bank` through the action, as the form does.
pub async fn connect(app: &TestApp, user: &TestUser, bank: &MockBank, save_pin: bool) -> Value {
    app.ok(
        user,
        "connectBank",
        json!({"bankCode": UNLISTED, "url": bank.url, "loginName": LOGIN, "pin": PIN,
               "savePin": save_pin}),
    )
    .await
}

#[tokio::test]
async fn the_bank_pages_send_a_visitor_without_a_session_to_sign_in() {
    let app = bank_app().await;
    for path in [
        "/bank",
        "/bank/connect",
        "/bank/3f1c0a4e-0000-4000-8000-000000000000",
    ] {
        let res = app.get(path, None).await;
        assert_eq!(res.status(), 303, "{path}");
        assert_eq!(res.headers()["location"], "/login", "{path}");
    }
}

#[tokio::test]
async fn the_bank_pages_render_in_both_languages_and_are_reached_from_import_and_settings() {
    let app = bank_app().await;
    let user = app.new_user().await;
    let list = app.page(&user, "/bank").await;
    assert!(list.contains("<h1>Bank connections</h1>"), "{list}");
    assert!(list.contains("No bank connected yet."));
    assert!(list.contains("href=\"/bank/connect\""));
    // The bank pages belong to the import in the navigation.
    assert!(
        list.contains("href=\"/import\" aria-current=\"page\""),
        "{list}"
    );
    let form = app.page(&user, "/bank/connect").await;
    for part in [
        "data-action=\"connectBank\"",
        "name=\"bankCode\"",
        "data-bank-search",
        "name=\"loginName\"",
        "name=\"customerId\"",
        "name=\"pin\" type=\"password\"",
        "name=\"savePin\"",
        "name=\"url\"",
        "bank.js",
    ] {
        assert!(form.contains(part), "{part}");
    }
    // The address is asked only when the bank chosen has none.
    assert!(form.contains("<div class=\"bank-url\" hidden>"), "{form}");
    for path in ["/import", "/settings"] {
        let html = app.page(&user, path).await;
        assert!(
            html.contains("href=\"/bank/connect\"") && html.contains("href=\"/bank\""),
            "{path} leads to bank sync"
        );
    }

    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let list = app.page(&user, "/bank").await;
    assert!(list.contains("<h1>Bankverbindungen</h1>"), "{list}");
    assert!(list.contains("Noch keine Bank verbunden."));
    let form = app.page(&user, "/bank/connect").await;
    for words in [
        "Bank verbinden",
        "Anmeldename",
        "PIN speichern",
        "Kunden-ID",
    ] {
        assert!(form.contains(words), "{words}");
    }
    let unknown = app
        .page(&user, "/bank/3f1c0a4e-0000-4000-8000-000000000000")
        .await;
    assert!(unknown.contains("Diese Bankverbindung gibt es nicht (mehr)."));
}

#[tokio::test]
async fn a_connection_shows_its_accounts_and_its_error_and_only_to_its_user() {
    let bank = MockBank::start(Scenario::default()).await;
    let app = bank_app().await;
    let user = app.new_user().await;
    let conn = connect(&app, &user, &bank, false).await;
    assert_eq!(conn["state"], "ready", "{conn}");
    let id = conn["id"].as_str().unwrap().to_string();

    let list = app.page(&user, "/bank").await;
    let panel = section(&list, &id);
    // The account the bank names, its IBAN in groups, and where to fetch it.
    assert!(panel.contains("DE89 1203 0000 1234 5678 90"), "{panel}");
    assert!(panel.contains("Girokonto"), "{panel}");
    assert!(panel.contains("data-action=\"linkBankAccount\""));
    assert!(panel.contains("Create a new account"));
    assert!(panel.contains("Fetch now") && panel.contains("data-action=\"syncBank\""));
    // No PIN saved: the fetch asks for it, and there is none to forget.
    assert!(panel.contains("<dd>not saved</dd>") && !panel.contains("Forget the PIN"));
    assert!(panel.contains("data-action=\"deleteBankConnection\""));
    // The login is shown masked, never whole.
    assert!(!list.contains(LOGIN), "{panel}");
    assert!(panel.contains("tes•••er"), "{panel}");

    // A fetch the bank refuses: its words beside the connection.
    let account = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": 0}),
        )
        .await;
    app.ok(
        &user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account["id"]}),
    )
    .await;
    let wrong = app
        .action(
            "syncBank",
            json!({"id": id, "pin": "wrong-pin"}),
            Some(&user.cookie),
        )
        .await;
    assert!(!wrong.ok(), "{}", wrong.body);
    let list = app.page(&user, "/bank").await;
    let panel = section(&list, &id);
    assert!(
        panel.contains("class=\"notice error bank-last-error\"")
            && panel.contains("The bank did not accept the PIN"),
        "{panel}"
    );

    // Another user sees neither the connection nor its page.
    let other = app.new_user().await;
    let theirs = app.page(&other, "/bank").await;
    assert!(!theirs.contains(&id) && !theirs.contains(IBAN.get(..8).unwrap()));
    assert!(theirs.contains("No bank connected yet."));
    let page = app.page(&other, &format!("/bank/{id}")).await;
    assert!(
        page.contains("This bank connection does not exist"),
        "{page}"
    );
    assert!(!page.contains("DE89"));
}

/// The part of a page that is the connection `id`'s panel.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"bank-{id}\""))
        .unwrap_or_else(|| panic!("no panel of {id}: {html}"));
    let rest = &html[start..];
    &rest[..rest.find("</article>").unwrap_or(rest.len())]
}

/// No accessibility violation on the page as it is now, and it fits a
/// phone.
async fn accessible(c: &Client, what: &str) {
    fits_a_phone(c, what).await;
    if let Some(found) = crate::axe::violations_here(c).await {
        assert!(found.is_empty(), "{what}: {found:#?}");
    }
}

#[tokio::test]
async fn a_person_connects_a_bank_approves_in_the_app_links_fetches_and_reviews_the_bookings() {
    // The bank asks for an approval in its app when connecting, and says
    // "still waiting" once first: the waiting screen must go on by itself.
    let bank = MockBank::start(Scenario {
        methods: Methods::Decoupled,
        init: Sca::Decoupled(1),
        ..Scenario::default()
    })
    .await;
    let app = bank_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 390, 1000).await else {
        return;
    };
    let c = &browser.client;

    // From the import page to the form.
    c.goto(&app.url("/import")).await.unwrap();
    click(c, "a[href='/bank/connect']").await;
    wait_for_path(c, "/bank/connect").await;
    // A bank code the table does not know: the form asks for its address.
    type_into(c, "#f-bankCode", UNLISTED).await;
    wait_for_css(c, ".bank-url:not([hidden]) #f-url").await;
    type_into(c, "#f-url", &bank.url).await;
    // Sent without a login name: said beside it, and the cursor is there.
    click(c, "#bank-connect button[type=submit]").await;
    wait_until(
        c,
        "return document.activeElement && document.activeElement.id === 'f-loginName'
           && document.querySelector('#f-loginName-error').textContent === 'is required'",
        vec![],
    )
    .await
    .expect("the missing login name is named and focused");
    type_into(c, "#f-loginName", LOGIN).await;
    type_into(c, "#f-pin", PIN).await;
    accessible(c, "the connect form").await;
    screenshot(c, "bank-connect-filled-phone").await;
    click(c, "#bank-connect button[type=submit]").await;

    // The waiting screen, then, by itself, the connection.
    wait_for_css(c, "[data-bank-wait] .bank-wait-status[role=status]").await;
    let title = c
        .find(Locator::Css("#bank-step-title"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(title, "Please approve in your banking app");
    let moved_on = wait_long(c, "return document.querySelector('.bank-account') !== null").await;
    assert!(moved_on, "the waiting screen never moved on");
    let path = c.current_url().await.unwrap().path().to_string();
    assert!(path.starts_with("/bank/"), "{path}");
    accessible(c, "a connection just made").await;

    // A new account for the bank's account, linked.
    let select = c.find(Locator::Css(".bank-link select")).await.unwrap();
    select.select_by_value("new").await.unwrap();
    click(c, ".bank-link button[type=submit]").await;
    wait_until(
        c,
        // Linked, the page is loaded again and says so.
        "const s = document.querySelector('.bank-link select');
         const saved = document.querySelector('.toast');
         return saved && saved.textContent === 'Saved.' && s && s.value !== ''
           && s.selectedOptions[0].textContent.includes('Girokonto')",
        vec![],
    )
    .await
    .expect("the new account is linked");
    let accounts = app.ok(&user, "listAccounts", json!({})).await;
    assert_eq!(accounts[0]["name"], "Girokonto", "{accounts}");
    assert_eq!(accounts[0]["currency"], "EUR");

    // Fetch: the PIN is asked, as none is saved. This bank asks for the
    // approval at every login, so the waiting screen comes again and goes
    // on by itself to the connection, whose new bookings wait for review.
    type_into(c, ".bank-sync input[name=pin]", PIN).await;
    click(c, ".bank-sync button[type=submit]").await;
    let fetched = wait_long(
        c,
        "return document.querySelector('.bank-review a[href^=\"/import?batch=\"]') !== null",
    )
    .await;
    let said = c
        .find(Locator::Css("main"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(fetched, "the fetch links its batch: {said}");
    accessible(c, "a fetched connection").await;
    screenshot(c, "bank-fetched-phone").await;
    let review = c
        .find(Locator::Css(".bank-review a[href^='/import?batch=']"))
        .await
        .unwrap();
    review.click().await.unwrap();
    wait_for_path(c, "/import").await;
    // The bank's three bookings in the review.
    wait_for_css(c, ".import-batch").await;
    let html = c.source().await.unwrap();
    for payee in ["Payee 0", "Payee 1", "Payee 2"] {
        assert!(html.contains(payee), "{payee} in the review");
    }
    browser.client.clone().close().await.unwrap();
}

/// Waits for `check` for up to a minute: an approval is asked of the bank
/// at its own interval.
async fn wait_long(c: &Client, check: &str) -> bool {
    for _ in 0..6 {
        if wait_until(c, check, vec![]).await.is_some() {
            return true;
        }
    }
    false
}

/// The page fits the screen's width (nothing scrolls sideways), and every
/// button, field and button-like link of the page is at least 24 pixels
/// high and wide, a target a finger finds.
async fn fits_a_phone(c: &Client, what: &str) {
    let problems = c
        .execute(
            "const out = [];
             if (document.documentElement.scrollWidth > window.innerWidth)
               out.push('scrolls sideways: ' + document.documentElement.scrollWidth);
             for (const el of document.querySelectorAll('main button, main .button, main input:not([type=hidden]), main select, main summary')) {
               const r = el.getBoundingClientRect();
               if (r.width === 0 && r.height === 0) continue; // not shown
               if (r.height < 24 || r.width < 24) out.push(el.outerHTML.slice(0, 80) + ' ' + r.width + 'x' + r.height);
               if (r.right > window.innerWidth + 1) out.push('beyond the edge: ' + el.outerHTML.slice(0, 80));
             }
             return out;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(problems, json!([]), "{what}");
}

/// Screenshots of the bank pages on a phone, light and dark, in German:
/// `CASHKEEPER_SCREENSHOTS=target/screenshots cargo test --test blackbox -- --ignored bank_screenshots`
/// (`docs/screenshots/` holds a choice of them).
#[tokio::test]
#[ignore]
async fn bank_screenshots() {
    let ready = MockBank::start(Scenario::default()).await;
    let waiting = MockBank::start(Scenario {
        methods: Methods::Decoupled,
        init: Sca::Decoupled(u32::MAX),
        ..Scenario::default()
    })
    .await;
    let app = bank_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Girokonto", "type": "checking", "currency": "EUR", "balance": "1000"}),
        )
        .await;
    let conn = connect(&app, &user, &ready, true).await;
    let id = conn["id"].as_str().unwrap().to_string();
    app.ok(
        &user,
        "linkBankAccount",
        json!({"id": id, "iban": IBAN, "accountId": account["id"]}),
    )
    .await;
    app.ok(&user, "syncBank", json!({"id": id})).await;
    let pending = connect(&app, &user, &waiting, false).await;
    assert_eq!(pending["state"], "tan", "{pending}");
    let pending = pending["id"].as_str().unwrap().to_string();
    for (mode, dark) in [("phone", false), ("phone-dark", true)] {
        let Some(browser) = signed_in_with(&app, &user, 390, 1500, dark).await else {
            return;
        };
        let c = &browser.client;
        c.goto(&app.url("/bank/connect")).await.unwrap();
        type_into(c, "#f-bankCode", "Sparkasse").await;
        wait_for_css(c, ".bank-results:not([hidden]) button").await;
        fits_a_phone(c, "the connect form").await;
        screenshot(c, &format!("bank-search-{mode}")).await;
        c.goto(&app.url(&format!("/bank/{pending}"))).await.unwrap();
        wait_for_css(c, "[data-bank-wait]").await;
        fits_a_phone(c, "the waiting screen").await;
        screenshot(c, &format!("bank-approve-{mode}")).await;
        c.goto(&app.url("/bank")).await.unwrap();
        fits_a_phone(c, "the connections").await;
        screenshot(c, &format!("bank-list-{mode}")).await;
        browser.client.clone().close().await.unwrap();
    }
}
