//! Browser tests: headless Chromium driven through chromedriver.
//!
//! When Chromium or chromedriver is missing the tests say so loudly and
//! pass as skipped, unless CASHKEEPER_E2E=required (set by .ci/run after it
//! installs them), which turns a missing browser into a failure.

use crate::support::browser::*;
use crate::support::*;
use fantoccini::{Client, Locator};
#[tokio::test]
async fn a_person_registers_lands_on_the_dashboard_switches_to_german_and_logs_out() {
    let Some(browser) = start(1280, 900).await else {
        return;
    };
    let c = &browser.client;
    let app = spawn_app().await;

    c.goto(&app.url("/")).await.unwrap();
    wait_for_path(c, "/login").await;
    screenshot(c, "login").await;
    c.find(Locator::LinkText("Create an account"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_path(c, "/register").await;

    // A too-short password: the error appears next to the field.
    c.find(Locator::Css("#f-name"))
        .await
        .unwrap()
        .send_keys("Ann")
        .await
        .unwrap();
    c.find(Locator::Css("#f-email"))
        .await
        .unwrap()
        // Letters beyond ASCII before the @ are the server's to accept
        // (the browser's own email check would refuse them).
        .send_keys("anné@example.org")
        .await
        .unwrap();
    c.find(Locator::Css("#f-password"))
        .await
        .unwrap()
        .send_keys("short")
        .await
        .unwrap();
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "must be at least 8 characters").await;
    let slot = c
        .find(Locator::Css("[data-error-for=password]"))
        .await
        .unwrap();
    assert_eq!(slot.text().await.unwrap(), "must be at least 8 characters");

    let pw = c.find(Locator::Css("#f-password")).await.unwrap();
    pw.clear().await.unwrap();
    pw.send_keys("correct horse battery").await.unwrap();
    // Submit with the keyboard.
    pw.send_keys("\u{E007}").await.unwrap();
    wait_for_path(c, "/").await;
    wait_for_text(c, "Welcome, Ann").await;
    screenshot(c, "dashboard-en").await;

    c.find(Locator::Css("button[lang=de]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "Willkommen, Ann").await;
    let nav = c
        .find(Locator::Css("nav.mainnav"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        nav.contains("Übersicht") && nav.contains("Einstellungen"),
        "{nav}"
    );
    screenshot(c, "dashboard-de").await;

    c.find(Locator::Css("form[data-action=logout] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_path(c, "/login").await;
    // Signed out for real: the dashboard sends us back.
    c.goto(&app.url("/")).await.unwrap();
    wait_for_path(c, "/login").await;
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn the_phone_layout_hides_the_navigation_behind_the_menu_button() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    let nav = c.find(Locator::Css("nav.mainnav")).await.unwrap();
    assert!(
        !nav.is_displayed().await.unwrap(),
        "navigation folded away on a phone"
    );
    c.find(Locator::Css("label.nav-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert!(
        nav.is_displayed().await.unwrap(),
        "the menu button opens it"
    );
    screenshot(c, "phone-menu").await;
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_person_records_an_account_a_recurring_and_a_one_time_expense_and_sees_them_on_the_dashboard(
) {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;

    c.goto(&app.url("/accounts")).await.unwrap();
    fill(c, "name", "Girokonto").await;
    fill(c, "balance", "2500").await;
    c.find(Locator::Css("form.stack button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, ">Girokonto<").await;

    c.goto(&app.url("/expenses")).await.unwrap();
    fill(c, "name", "Miete").await;
    fill(c, "amount", "-5").await;
    let today = app.state.clock.today();
    // Dates go in through the date picker's keyboard order (month/day/year in en-US).
    let date_keys = today.format("%m%d%Y").to_string();
    c.find(Locator::Css("form.stack [name=startDate]"))
        .await
        .unwrap()
        .send_keys(&date_keys)
        .await
        .unwrap();
    c.find(Locator::Css("form.stack button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "must be greater than 0").await;
    fill(c, "amount", "950").await;
    c.find(Locator::Css("form.stack button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, ">Miete<").await;

    c.goto(&app.url("/daily-expenses")).await.unwrap();
    fill(c, "name", "Wocheneinkauf").await;
    fill(c, "amount", "42.30").await;
    c.find(Locator::Css("form.stack button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "Wocheneinkauf").await;

    c.goto(&app.url("/")).await.unwrap();
    let html = c.source().await.unwrap();
    assert!(html.contains("Miete"), "next payments list the rent");
    assert!(
        html.contains("992.30") || html.contains("992,30"),
        "950 + 42.30 this month"
    );
    screenshot(c, "dashboard-with-data").await;
    browser.client.clone().close().await.unwrap();
}

/// Screenshots of the main pages with a year of demo data, in light and dark
/// scheme and at a phone's width (390 pixels), for people to look at:
/// `CASHKEEPER_SCREENSHOTS=target/screenshots cargo test --test blackbox -- --ignored screenshots`
/// (`docs/screenshots/` holds a choice of them, e.g. `dashboard-phone.png`).
#[tokio::test]
#[ignore]
async fn screenshots() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    cashkeeper::app::insights::run(&app.state).await;
    for (name, width, height, dark) in MODES {
        // Headless Chromium's window is at least 500 pixels wide: a phone's
        // viewport is set through the DevTools protocol.
        let Some(browser) = start_with(width.max(500), height, dark).await else {
            return;
        };
        let c = &browser.client;
        crate::support::browser::resize(c, width, height).await;
        sign_in(c, &app, &user).await;
        for (page, path) in [
            ("dashboard", "/"),
            ("budgets", "/budgets"),
            ("accounts", "/accounts"),
            // The accounts page scrolled to its net-worth chart.
            ("net-worth", "/accounts#net-worth"),
            ("expenses", "/expenses"),
            ("daily-expenses", "/daily-expenses"),
            ("subscriptions", "/subscriptions"),
            ("incomes", "/incomes"),
            ("transfers", "/transfers"),
            ("categories", "/categories"),
            ("forecasts", "/forecasts"),
            ("reserves", "/reserves"),
            ("insights", "/insights"),
            ("documents", "/documents"),
            ("settings", "/settings"),
            ("assistant", "/assistant"),
        ] {
            c.goto(&app.url(path)).await.unwrap();
            screenshot(c, &format!("{page}-{name}")).await;
        }
        browser.client.clone().close().await.unwrap();
    }
}

#[tokio::test]
async fn a_person_creates_an_api_token_and_sees_it_once() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/settings")).await.unwrap();
    let form = c
        .find(Locator::Css("form[data-action=createApiToken]"))
        .await
        .unwrap();
    form.find(Locator::Css("[name=name]"))
        .await
        .unwrap()
        .send_keys("Home Assistant")
        .await
        .unwrap();
    form.find(Locator::Css("[name=password]"))
        .await
        .unwrap()
        .send_keys(&user.password)
        .await
        .unwrap();
    form.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "csk_").await;
    let shown = c
        .find(Locator::Css("#new-token-value"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(shown.starts_with("csk_") && shown.len() == 68, "{shown}");
    assert_eq!(app.api("/me", &shown).await.status(), 200);
    c.refresh().await.unwrap();
    wait_for_text(c, "Home Assistant").await;
    assert!(
        !c.source().await.unwrap().contains(&shown),
        "not shown again"
    );
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_person_opens_the_forecast_fills_a_reserve_pot_and_opens_the_insights() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let today = app.state.clock.today().to_string();
    app.ok(&user, "createExpense", serde_json::json!({"name": "Kfz-Steuer", "amount": 240, "frequency": "yearly", "startDate": today, "accountId": giro})).await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/forecasts")).await.unwrap();
    wait_for_text(c, "Lowest projected balance").await;
    assert!(c.source().await.unwrap().contains("<svg"));
    c.goto(&app.url("/reserves")).await.unwrap();
    let pot = c
        .find(Locator::Css("form.pot input[name=amount]"))
        .await
        .unwrap();
    pot.clear().await.unwrap();
    pot.send_keys("-5").await.unwrap();
    c.find(Locator::Css("form.pot button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "must not be negative").await;
    let pot = c
        .find(Locator::Css("form.pot input[name=amount]"))
        .await
        .unwrap();
    pot.clear().await.unwrap();
    pot.send_keys("20.50").await.unwrap();
    c.find(Locator::Css("form.pot button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "value=\"20.50\"").await;
    let plan = app.ok(&user, "getReservePlan", serde_json::json!({})).await;
    assert_eq!(plan["potsTotal"].as_f64(), Some(20.5));
    c.goto(&app.url("/insights")).await.unwrap();
    wait_for_text(c, "Nothing to report right now.").await;
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn the_reminder_toggle_finds_the_service_worker_and_shows_its_state() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/settings")).await.unwrap();
    // The service worker registered and the browser's push manager answered.
    // The state text is in the page from the start; the button shows
    // only once the script has asked the browser.
    let button = wait_for_css(c, "[data-push-toggle] button:not([hidden])").await;
    assert!(button.is_displayed().await.unwrap());
    let state = c.find(Locator::Css(".push-state")).await.unwrap();
    assert_eq!(
        state.text().await.unwrap(),
        "Reminders are off for this device."
    );
    assert_eq!(button.text().await.unwrap(), "Turn on");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_person_uploads_a_receipt_on_the_documents_page_and_finds_it_on_the_expense() {
    let Some(browser) = start(1280, 1000).await else {
        return;
    };
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let daily = app
        .ok(
            &user,
            "createDailyExpense",
            serde_json::json!({"name": "Bäckerei", "amount": "4.80", "currency": "EUR",
                               "date": app.state.clock.today().to_string(), "accountId": account}),
        )
        .await;
    let receipt = tempfile::Builder::new()
        .prefix("Kassenbon-")
        .suffix(".png")
        .tempfile()
        .unwrap();
    std::fs::write(
        receipt.path(),
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
        )
        .unwrap(),
    )
    .unwrap();
    let file_name = receipt
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let c = &browser.client;
    sign_in(c, &app, &user).await;
    c.goto(&app.url("/documents")).await.unwrap();
    c.find(Locator::Css("form.upload input[type=file]"))
        .await
        .unwrap()
        .send_keys(receipt.path().to_str().unwrap())
        .await
        .unwrap();
    let option = format!("dailyExpenseId:{}", daily["id"].as_str().unwrap());
    c.find(Locator::Css(&format!(
        "#doc-attach option[value='{option}']"
    )))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    c.find(Locator::Css("form.upload button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, &format!(">{file_name}</a>")).await;
    let thumb = c
        .find(Locator::Css("table.documents img.thumb"))
        .await
        .unwrap();
    assert!(thumb
        .attr("src")
        .await
        .unwrap()
        .unwrap()
        .starts_with("/api/documents/"));
    assert!(
        c.source().await.unwrap().contains("Bäckerei"),
        "listed with its expense"
    );
    screenshot(c, "documents-uploaded").await;

    // The one-time expense's paperclip shows it.
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    let clip = c
        .find(Locator::Css("details.paperclip summary"))
        .await
        .unwrap();
    assert!(clip.text().await.unwrap().contains('1'));
    clip.click().await.unwrap();
    let link = c
        .find(Locator::Css("details.paperclip li a"))
        .await
        .unwrap();
    assert_eq!(link.text().await.unwrap(), file_name);
    screenshot(c, "daily-paperclip").await;

    // Attached to no record any more, from the Documents page.
    c.goto(&app.url("/documents")).await.unwrap();
    c.find(Locator::Css("td.row-actions a[href^='/documents?edit=']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let selected = c
        .find(Locator::Css("#doc-reattach option:checked"))
        .await
        .unwrap();
    assert!(
        selected.text().await.unwrap().contains("Bäckerei"),
        "preselected"
    );
    c.find(Locator::Css("#doc-reattach option[value='']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Css(
        "form[data-action=attachDocument] button[type=submit]",
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    // Saved, the form leads back to the list (without the `?edit=`).
    wait_until(
        c,
        "return location.pathname + location.search === '/documents'",
        vec![],
    )
    .await
    .expect("back on the list of documents");
    let docs = app.ok(&user, "listDocuments", serde_json::json!({})).await;
    assert!(docs[0]["dailyExpenseId"].is_null(), "{docs}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_person_scans_a_receipt_into_the_one_time_expense_form_and_keeps_the_photo() {
    let Some(browser) = start(1280, 1000).await else {
        return;
    };
    let provider = crate::receipts::Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = crate::receipts::app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    provider.then(crate::receipts::Reply::Text(
        serde_json::json!({
            "merchant": "Bäckerei Schmidt",
            "date": today,
            "total": "12.4",
            "currency": "EUR",
            "items": [{"name": "Brot", "amount": "4.20"}, {"name": "Kuchen", "amount": "8.20"}],
            "categoryId": null,
        })
        .to_string(),
    ));
    let photo = tempfile::Builder::new()
        .prefix("bon-")
        .suffix(".png")
        .tempfile()
        .unwrap();
    std::fs::write(
        photo.path(),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89",
    )
    .unwrap();
    let c = &browser.client;
    sign_in(c, &app, &user).await;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    c.find(Locator::Css(".scan input[type=file]"))
        .await
        .unwrap()
        .send_keys(photo.path().to_str().unwrap())
        .await
        .unwrap();
    let filled = wait_until(
        c,
        "return document.querySelector('form.stack [name=amount]').value",
        vec![],
    )
    .await
    .unwrap_or_default();
    assert_eq!(filled, "12.40");
    let name = c
        .find(Locator::Css("form.stack [name=name]"))
        .await
        .unwrap();
    assert_eq!(
        name.prop("value").await.unwrap().unwrap(),
        "Bäckerei Schmidt"
    );
    let notes = c
        .find(Locator::Css("form.stack [name=notes]"))
        .await
        .unwrap();
    assert_eq!(
        notes.prop("value").await.unwrap().unwrap(),
        "Brot 4.20\nKuchen 8.20"
    );
    screenshot(c, "daily-scanned").await;
    c.find(Locator::Css("form.stack button.primary[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // The form leads to the list once the photo's upload was answered.
    wait_for_text(c, "€12.40").await;

    // The photo is kept as a document of the new expense.
    let docs = app.ok(&user, "listDocuments", serde_json::json!({})).await;
    let entries = app
        .ok(&user, "listDailyExpenses", serde_json::json!({}))
        .await;
    assert_eq!(entries[0]["amount"], 12.4);
    assert_eq!(docs[0]["dailyExpenseId"], entries[0]["id"]);
    assert_eq!(docs[0]["contentType"], "image/png");
    browser.client.clone().close().await.unwrap();
}

/// A phone camera's photo, 6000 by 4000 pixels and well over the 5 MiB a
/// receipt may have, is scaled down in the browser before it is sent: the
/// scan reads it and the photo kept with the expense is a JPEG under the
/// limit, no more than 3000 pixels on its longer side.
#[tokio::test]
async fn a_phone_photo_over_5_mib_is_scaled_down_in_the_browser_and_scanned() {
    let Some(browser) = start(1280, 1000).await else {
        return;
    };
    let provider = crate::receipts::Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = crate::receipts::app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    provider.then(crate::receipts::Reply::Text(
        serde_json::json!({
            "merchant": "Markthalle", "date": today, "total": "23.8",
            "currency": "EUR", "items": [], "categoryId": null,
        })
        .to_string(),
    ));
    // Grain everywhere, as a camera's sensor gives: JPEG cannot make it small.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let photo = image::RgbImage::from_fn(6000, 4000, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let n = (seed & 0x3f) as u8;
        image::Rgb([(x / 24) as u8 ^ n, (y / 16) as u8 ^ n, 160 ^ n])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 92)
        .encode_image(&photo)
        .unwrap();
    assert!(
        jpeg.len() > 5 * 1024 * 1024,
        "the photo is {} bytes",
        jpeg.len()
    );
    let file = tempfile::Builder::new()
        .prefix("bon-")
        .suffix(".jpg")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), &jpeg).unwrap();

    let c = &browser.client;
    sign_in(c, &app, &user).await;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    c.find(Locator::Css(".scan input[type=file]"))
        .await
        .unwrap()
        .send_keys(file.path().to_str().unwrap())
        .await
        .unwrap();
    let filled = wait_until(
        c,
        "const s = document.querySelector('.scan-status.error');
         return (s && !s.hidden && 'refused: ' + s.textContent)
           || document.querySelector('form.stack [name=amount]').value",
        vec![],
    )
    .await
    .unwrap_or_default();
    assert_eq!(filled, "23.80");
    c.find(Locator::Css("form.stack button.primary[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "€23.80").await;
    let docs = app.ok(&user, "listDocuments", serde_json::json!({})).await;
    assert_eq!(docs[0]["contentType"], "image/jpeg", "{docs}");
    let id = docs[0]["id"].as_str().unwrap();
    let kept = app
        .get(&format!("/api/documents/{id}"), Some(&user.cookie))
        .await
        .bytes()
        .await
        .unwrap();
    assert!(kept.len() <= 5 * 1024 * 1024, "{} bytes kept", kept.len());
    let kept = image::load_from_memory(&kept).expect("a JPEG");
    assert_eq!((kept.width(), kept.height()), (3000, 2000));
    browser.client.clone().close().await.unwrap();
}

/// A browser with a new user on the assistant page, who asks "Add 12.40
/// at the bakery today" and is answered with a proposed one-time expense;
/// once its card is shown: the browser, the app, the user and the provider
/// (which must live on). `None` without a browser.
async fn a_proposal_on_the_page(
) -> Option<(Browser, TestApp, TestUser, crate::assistant::ChatProvider)> {
    use crate::assistant::{app_with_chat, ChatProvider, Dialect, Turn};
    let browser = start(1280, 1000).await?;
    let c = &browser.client;
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    provider
        .then(Turn::Calls(vec![(
            "create_daily_expense".into(),
            serde_json::json!({"name": "Bäckerei", "amount": "12.40", "date": today, "accountId": account})
                .to_string(),
        )]))
        .then(Turn::Text(
            "I have prepared the expense; please confirm.".into(),
        ));
    sign_in(c, &app, &user).await;
    c.goto(&app.url("/assistant")).await.unwrap();
    wait_for_text(c, "No conversations yet.").await;
    let input = c.find(Locator::Css("#chat-input")).await.unwrap();
    input
        .send_keys("Add 12.40 at the bakery today")
        .await
        .unwrap();
    // Enter sends.
    input.send_keys("\u{E007}").await.unwrap();

    wait_for_text(c, "I have prepared the expense; please confirm.").await;
    Some((browser, app, user, provider))
}

#[tokio::test]
async fn a_person_asks_the_assistant_to_add_an_expense_confirms_the_proposal_and_finds_it() {
    let Some((browser, app, user, provider)) = a_proposal_on_the_page().await else {
        return;
    };
    let c = &browser.client;
    let today = app.state.clock.today().to_string();
    let question = c
        .find(Locator::Css(".msg-user .msg-text"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(question, "Add 12.40 at the bakery today");
    let card = c.find(Locator::Css("article.proposal")).await.unwrap();
    assert!(!card.text().await.unwrap().is_empty());
    // The new conversation is listed and the address opens it again.
    wait_for_text(
        c,
        "class=\"conv-title\">Add 12.40 at the bakery today</span>",
    )
    .await;
    let url = c.current_url().await.unwrap();
    assert!(url.query().is_some_and(|q| q.starts_with("c=")), "{url}");
    assert!(
        c.find(Locator::Css(".chat-stop"))
            .await
            .unwrap()
            .attr("hidden")
            .await
            .unwrap()
            .is_some(),
        "Stop is gone once the answer is complete"
    );
    screenshot(c, "assistant-proposal").await;

    assert!(
        app.ok(&user, "listDailyExpenses", serde_json::json!({}))
            .await
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing is saved before the person confirms"
    );
    // Another tab confirms it first.
    let conversation = url
        .query_pairs()
        .find(|(k, _)| k == "c")
        .map(|(_, v)| v.to_string())
        .unwrap();
    let conv = app
        .ok(
            &user,
            "getConversation",
            serde_json::json!({ "id": conversation }),
        )
        .await;
    let proposal = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["proposals"].as_array().cloned().unwrap_or_default())
        .next()
        .expect("the proposal is stored")["id"]
        .clone();
    app.ok(
        &user,
        "confirmProposal",
        serde_json::json!({ "proposalId": proposal }),
    )
    .await;
    card.find(Locator::Css("button.confirm"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // "Saved." is in the page's translation table from the start, so
    // wait for the card itself to turn saved: here in words that say it
    // was saved elsewhere, linked, without a field's name or an id, and
    // without buttons to press again.
    let link = wait_for_css(c, "article.proposal.saved a").await;
    assert!(link
        .attr("href")
        .await
        .unwrap()
        .unwrap()
        .starts_with("/daily-expenses?month="));
    let said = card.text().await.unwrap();
    assert!(
        said.contains("This proposal is saved already, in another tab or before"),
        "{said}"
    );
    assert!(!said.contains("proposalId"), "{said}");
    assert!(!said.contains(proposal.as_str().unwrap()), "{said}");
    assert!(card
        .find_all(Locator::Css("button"))
        .await
        .unwrap()
        .is_empty());
    screenshot(c, "assistant-saved").await;
    let saved = app
        .ok(&user, "listDailyExpenses", serde_json::json!({}))
        .await;
    assert_eq!(saved.as_array().unwrap().len(), 1, "{saved}");
    assert_eq!(saved[0]["name"], "Bäckerei");
    assert_eq!(saved[0]["amount"], 12.4);
    assert_eq!(saved[0]["date"], today.as_str());
    let requests = provider.requests();
    assert_eq!(requests.len(), 2, "the tool round and the answer");
    assert!(
        requests[1].1["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool"),
        "the proposal went back to the model: {}",
        requests[1].1
    );

    // Reopened, the conversation shows its question and answer.
    c.refresh().await.unwrap();
    wait_for_text(c, "I have prepared the expense; please confirm.").await;
    assert!(c
        .source()
        .await
        .unwrap()
        .contains("Add 12.40 at the bakery today"));

    c.goto(&app.url("/daily-expenses")).await.unwrap();
    wait_for_text(c, "Bäckerei").await;
    assert!(c.source().await.unwrap().contains("€12.40"));
    browser.client.clone().close().await.unwrap();
}

/// A Confirm the browser could not send, being offline, says so in the
/// card and books nothing; back online, the same Confirm books it.
#[tokio::test]
async fn a_confirm_sent_offline_says_the_browser_is_offline_and_books_nothing() {
    let Some((browser, app, user, _provider)) = a_proposal_on_the_page().await else {
        return;
    };
    let c = &browser.client;
    let offline = |offline: bool| {
        Cdp(
            "Network.emulateNetworkConditions",
            serde_json::json!({"offline": offline, "latency": 0,
                "downloadThroughput": -1, "uploadThroughput": -1}),
        )
    };
    c.issue_cmd(Cdp("Network.enable", serde_json::json!({})))
        .await
        .unwrap();
    c.issue_cmd(offline(true)).await.unwrap();
    click(c, "article.proposal button.confirm").await;
    wait_for_shown(
        c,
        "article.proposal .proposal-status",
        "You are offline, so nothing was sent.",
    )
    .await;
    let saved = app
        .ok(&user, "listDailyExpenses", serde_json::json!({}))
        .await;
    assert!(saved.as_array().unwrap().is_empty(), "{saved}");

    c.issue_cmd(offline(false)).await.unwrap();
    wait_until(
        c,
        "return !document.querySelector('article.proposal button.confirm').disabled",
        vec![],
    )
    .await
    .expect("Confirm can be pressed again");
    click(c, "article.proposal button.confirm").await;
    wait_for_css(c, "article.proposal.saved a").await;
    let saved = app
        .ok(&user, "listDailyExpenses", serde_json::json!({}))
        .await;
    assert_eq!(saved.as_array().unwrap().len(), 1, "{saved}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_person_turns_on_two_factor_sign_in_and_signs_in_with_a_code() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/settings#two-factor")).await.unwrap();
    let secret = begin_two_factor(c, &user.password).await;
    let qr = c
        .find(Locator::Css("img.totp-qr"))
        .await
        .unwrap()
        .attr("src")
        .await
        .unwrap()
        .unwrap();
    assert!(qr.starts_with("data:image/svg+xml;base64,"), "{qr}");
    screenshot(c, "two-factor-setup").await;

    let now = || app.state.clock.now().timestamp();
    let code = cashkeeper::auth::totp::code_at(&secret, cashkeeper::auth::totp::step_at(now()));
    fill(c, "code", &code).await;
    c.find(Locator::Css("form[data-totp-enable] button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_css(c, ".totp-recovery:not([hidden]) .recovery-codes li").await;
    let codes = c
        .find_all(Locator::Css(".recovery-codes li"))
        .await
        .unwrap();
    assert_eq!(codes.len(), 10);
    screenshot(c, "two-factor-recovery-codes").await;
    // It no longer says "Off", and no code breaks over two lines.
    let off_shown = c
        .execute(
            "const p = document.querySelector('#two-factor .status-off'); \
             return !!p && p.offsetParent !== null;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(off_shown, serde_json::json!(false));
    let wraps = c
        .execute(
            "return [...document.querySelectorAll('.recovery-codes li')] \
             .map(li => getComputedStyle(li).whiteSpace);",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        wraps.as_array().unwrap().iter().all(|w| w == "nowrap"),
        "{wraps}"
    );

    // "I have saved them": Settings says it is on, without a manual reload.
    c.find(Locator::Css("a[data-totp-done]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "Recovery codes left: 10").await;
    assert!(!c
        .source()
        .await
        .unwrap()
        .contains("the password alone signs in"));

    // Signing in again asks for the code after the password.
    c.delete_all_cookies().await.unwrap();
    c.goto(&app.url("/login")).await.unwrap();
    fill(c, "email", &user.email).await;
    fill(c, "password", &user.password).await;
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_css(c, "#login-code:not([hidden])").await;
    assert_eq!(c.current_url().await.unwrap().path(), "/login");
    // The second step offers the way back, not a new account.
    let back = c
        .find(Locator::Css("#login-code a[href='/login']"))
        .await
        .unwrap();
    assert_eq!(back.text().await.unwrap(), "Back to sign-in");
    let register_shown = c
        .execute(
            "return [...document.querySelectorAll('a[href=\"/register\"]')] \
             .some(a => a.offsetParent !== null);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(register_shown, serde_json::json!(false));
    // The code used to turn it on works once; the app's next one signs in.
    app.state.clock.advance(chrono::Duration::seconds(30));
    let code = cashkeeper::auth::totp::code_at(&secret, cashkeeper::auth::totp::step_at(now()));
    c.find(Locator::Css("#f-login-code"))
        .await
        .unwrap()
        .send_keys(&code)
        .await
        .unwrap();
    screenshot(c, "two-factor-login").await;
    c.find(Locator::Css("#login-code button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_path(c, "/").await;
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn amounts_are_typed_and_shown_in_the_users_language() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let ok = |r: ActionReply| assert!(r.ok(), "{}", r.body);
    ok(app
        .action(
            "updateSettings",
            serde_json::json!({"locale": "de"}),
            Some(&user.cookie),
        )
        .await);
    ok(app
        .action(
            "createAccount",
            serde_json::json!({"name": "Girokonto", "type": "checking", "currency": "EUR", "balance": "0"}),
            Some(&user.cookie),
        )
        .await);
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;

    // German: "1,500" could be one and a half or fifteen hundred: refused.
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    fill(c, "name", "Fahrrad").await;
    fill(c, "amount", "1,500").await;
    submit(c).await;
    let error = wait_for_css(c, "[data-error-for=amount]:not(:empty)").await;
    assert!(
        error.text().await.unwrap().contains("mehrdeutig"),
        "{}",
        error.text().await.unwrap()
    );
    // "1.500" is fifteen hundred, as Germans write it.
    fill(c, "amount", "1.500").await;
    submit(c).await;
    wait_for_text(c, "1.500,00").await;
    let uid = app.user_id(&user).await;
    let cents: i64 = app
        .state
        .db
        .run(move |conn| {
            Ok(conn.query_row(
                "SELECT amount_cents FROM daily_expenses WHERE user_id = ?1",
                [&uid],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(cents, 150_000);

    // The edit form holds it the same way, and saves it back unchanged.
    let edit = c
        .find(Locator::Css("a[href*='edit=']"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    c.goto(&app.url(&edit)).await.unwrap();
    let amount = wait_for_css(c, "form.stack [name=amount]").await;
    assert_eq!(amount.prop("value").await.unwrap().unwrap(), "1500,00");
    screenshot(c, "amount-german-edit").await;

    // English: 1,234.56.
    ok(app
        .action(
            "updateSettings",
            serde_json::json!({"locale": "en"}),
            Some(&user.cookie),
        )
        .await);
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    fill(c, "name", "Laptop").await;
    fill(c, "amount", "1,234.56").await;
    submit(c).await;
    wait_for_text(c, "€1,234.56").await;
}

#[tokio::test]
async fn on_a_phone_every_table_cell_says_which_column_it_is() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            serde_json::json!({"name": "Girokonto", "type": "checking", "currency": "EUR", "balance": "1234.56"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/accounts")).await.unwrap();
    wait_for_css(c, "table.records td[data-col]").await;
    let labels = c
        .execute(
            "return Array.from(document.querySelectorAll('table.records tbody td'), \
             td => getComputedStyle(td, '::before').content)",
            vec![],
        )
        .await
        .unwrap();
    let labels: Vec<String> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or("").to_string())
        .collect();
    assert!(labels.iter().any(|l| l.contains("Balance")), "{labels:?}");
    assert!(labels.iter().any(|l| l.contains("Name")), "{labels:?}");
    c.execute(
        "document.querySelector('table.records').scrollIntoView()",
        vec![],
    )
    .await
    .unwrap();
    screenshot(c, "accounts-phone").await;

    // The open menu scrolls away with the page instead of staying on top.
    let position = |c: &Client| {
        let c = c.clone();
        async move {
            c.execute(
                "return getComputedStyle(document.querySelector('.topbar')).position",
                vec![],
            )
            .await
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
        }
    };
    assert_eq!(position(c).await, "sticky");
    c.find(Locator::Css("label.nav-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(position(c).await, "static");
}

#[tokio::test]
async fn new_entries_start_on_the_checking_account_and_then_on_the_one_last_chosen() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut ids = std::collections::HashMap::new();
    // Sorted by name, the depot comes first; it must not be the default.
    for (name, kind) in [
        ("ETF-Depot", "etf"),
        ("Girokonto", "checking"),
        ("Tagesgeld", "savings"),
    ] {
        let r = app
            .action(
                "createAccount",
                serde_json::json!({"name": name, "type": kind, "currency": "EUR", "balance": "100"}),
                Some(&user.cookie),
            )
            .await;
        ids.insert(name, r.data()["id"].as_str().unwrap().to_string());
    }
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    let value = |css: &'static str| async move {
        c.find(Locator::Css(css))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap()
            .unwrap()
    };

    c.goto(&app.url("/daily-expenses")).await.unwrap();
    assert_eq!(value("form.stack [name=accountId]").await, ids["Girokonto"]);
    c.goto(&app.url("/transfers")).await.unwrap();
    assert_eq!(
        value("form.stack [name=fromAccountId]").await,
        ids["Girokonto"]
    );
    assert_eq!(
        value("form.stack [name=toAccountId]").await,
        ids["Tagesgeld"]
    );
    c.goto(&app.url("/forecasts")).await.unwrap();
    assert_eq!(value("select[name=account]").await, ids["Girokonto"]);

    // Chosen once in the form, it is the form's start from then on.
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    fill(c, "name", "Zinsen-Gebühr").await;
    fill(c, "amount", "2.50").await;
    c.find(Locator::Css(&format!(
        "form.stack [name=accountId] option[value='{}']",
        ids["Tagesgeld"]
    )))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    submit(c).await;
    wait_for_text(c, "Zinsen-Gebühr").await;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    wait_for_css(c, "form.stack [name=accountId]").await;
    assert_eq!(value("form.stack [name=accountId]").await, ids["Tagesgeld"]);
    // Other forms keep their own default.
    c.goto(&app.url("/incomes")).await.unwrap();
    assert_eq!(value("form.stack [name=accountId]").await, ids["Girokonto"]);
}

#[tokio::test]
async fn forms_sit_above_the_list_say_saved_and_add_one_receipt_after_another() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for (name, kind) in [("Cash", "checking"), ("Savings", "savings")] {
        let r = app
            .action(
                "createAccount",
                serde_json::json!({"name": name, "type": kind, "currency": "EUR", "balance": "0"}),
                Some(&user.cookie),
            )
            .await;
        assert!(r.ok(), "{}", r.body);
    }
    let Some(browser) = signed_in(&app, &user, 1280, 900).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    // The add form comes before the list.
    let order: bool = c
        .execute(
            "const f = document.querySelector('#record-form'), l = document.querySelector('table.records');\
             return !l || !!(f.compareDocumentPosition(l) & Node.DOCUMENT_POSITION_FOLLOWING);",
            vec![],
        )
        .await
        .unwrap()
        .as_bool()
        .unwrap();
    assert!(order, "the form is above the list");

    // Save and add another: the form stays, date and account kept.
    let date = c
        .find(Locator::Css("form.stack [name=date]"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    let account = c
        .find(Locator::Css("form.stack [name=accountId]"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    for (name, amount) in [("Bakery", "3.20"), ("Butcher", "12.80")] {
        fill(c, "name", name).await;
        fill(c, "amount", amount).await;
        c.find(Locator::Css("form.stack button[data-another]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_css(c, ".toast:not([hidden])").await;
        wait_until(
            c,
            "return document.querySelector('form.stack [name=name]').value === ''",
            vec![],
        )
        .await;
        let field = |n: &'static str| async move {
            c.find(Locator::Css(&format!("form.stack [name={n}]")))
                .await
                .unwrap()
                .prop("value")
                .await
                .unwrap()
                .unwrap()
        };
        assert_eq!(field("name").await, "", "ready for the next one");
        assert_eq!(field("amount").await, "");
        assert_eq!(field("date").await, date);
        assert_eq!(field("accountId").await, account);
    }
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    wait_for_text(c, "Bakery").await;
    wait_for_text(c, "Butcher").await;

    // Edit: the form opens at the top with the cursor in its first field.
    let edit = c
        .find(Locator::Css("a[href*='edit=']"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    assert!(edit.ends_with("#record-form"), "{edit}");
    c.goto(&app.url(&edit)).await.unwrap();
    let focused: String = c
        .execute(
            "const f = document.querySelector('#record-form form'); \
             return [document.activeElement.tagName, document.activeElement.name || '', f ? f.dataset.action : 'none', location.href].join('|')",
            vec![],
        )
        .await
        .unwrap()
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(focused.starts_with("INPUT|name|"), "{focused}");
    fill(c, "name", "Bakery Schmidt").await;
    submit(c).await;
    // Saved, the page reloads and says so.
    let note = wait_for_css(c, ".toast:not([hidden])").await;
    assert_eq!(note.text().await.unwrap(), "Saved.");
    wait_for_text(c, "Bakery Schmidt").await;
    screenshot(c, "saved-note").await;
}

/// The height in pixels of the smallest text drawn in the page's charts.
async fn smallest_chart_text(c: &Client) -> f64 {
    c.execute(
        "return Math.min(...Array.from(document.querySelectorAll('.chart text'), \
         t => t.getBoundingClientRect().height).filter(h => h > 0))",
        vec![],
    )
    .await
    .unwrap()
    .as_f64()
    .unwrap()
}

#[tokio::test]
async fn charts_stay_readable_on_a_phone_and_tell_their_series_apart() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let act = |name: &'static str, body: serde_json::Value| {
        let (app, cookie) = (&app, user.cookie.clone());
        async move {
            let r = app.action(name, body, Some(&cookie)).await;
            r.data().clone()
        }
    };
    let giro = act(
        "createAccount",
        serde_json::json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "2000"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    act(
        "createIncome",
        serde_json::json!({"name": "Salary", "amount": "2500", "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro}),
    )
    .await;
    act(
        "createExpense",
        serde_json::json!({"name": "Rent", "amount": "950", "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro}),
    )
    .await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/")).await.unwrap();
    wait_for_css(c, "rect.chart-expenses-bar").await;
    let smallest = smallest_chart_text(c).await;
    assert!(smallest >= 9.0, "chart text {smallest:.1} px high");
    // Hover names month, series and amount; expenses are hatched.
    let title = c
        .find(Locator::Css("rect.chart-expenses-bar title"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap_or_default();
    let fill = c
        .find(Locator::Css("rect.chart-expenses-bar"))
        .await
        .unwrap()
        .attr("fill")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(fill.starts_with("url(#"), "{fill}");
    let source = c.source().await.unwrap();
    assert!(source.contains("Expenses: €950.00"), "{title}");
    // The forecast's balance lines keep readable text too.
    c.goto(&app.url("/forecasts")).await.unwrap();
    wait_for_css(c, "polyline.dashed").await;
    let smallest = smallest_chart_text(c).await;
    assert!(smallest >= 9.0, "forecast chart text {smallest:.1} px high");
    screenshot(c, "forecast-phone").await;
}

#[tokio::test]
async fn a_balance_is_updated_from_the_account_list() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            serde_json::json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "100"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let Some(browser) = signed_in(&app, &user, 1280, 900).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/accounts")).await.unwrap();
    wait_for_text(c, "new entries do not change it").await;
    let input = c
        .find(Locator::Css("form.pot input[name=balance]"))
        .await
        .unwrap();
    input.clear().await.unwrap();
    input.send_keys("2,500.75").await.unwrap();
    c.find(Locator::Css("form.pot button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let note = wait_for_css(c, ".toast:not([hidden])").await;
    assert_eq!(note.text().await.unwrap(), "Saved.");
    wait_for_text(c, "€2,500.75").await;
}

#[tokio::test]
async fn the_merchant_field_offers_merchants_typed_before() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            serde_json::json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
            Some(&user.cookie),
        )
        .await;
    let account = r.data()["id"].as_str().unwrap().to_string();
    let r = app
        .action(
            "createDailyExpense",
            serde_json::json!({"merchant": "Bäckerei Schmidt", "amount": "3", "date": "2026-01-05", "accountId": account}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let Some(browser) = signed_in(&app, &user, 1280, 900).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    fill(c, "merchant", "Bäck").await;
    let offered = wait_until(
        c,
        "const l = document.getElementById(document.querySelector('form.stack [name=merchant]').getAttribute('list'));\
         return l ? Array.from(l.options, o => o.value).join('|') : ''",
        vec![],
    )
    .await
    .unwrap_or_default();
    assert_eq!(offered, "Bäckerei Schmidt");
}

#[tokio::test]
async fn a_charts_values_open_from_the_keyboard() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            serde_json::json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "2000"}),
            Some(&user.cookie),
        )
        .await;
    let giro = r.data()["id"].as_str().unwrap().to_string();
    let r = app
        .action(
            "createExpense",
            serde_json::json!({"name": "Rent", "amount": "950", "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let Some(browser) = signed_in(&app, &user, 1280, 900).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/forecasts")).await.unwrap();
    let summary = wait_for_css(c, "details.chart-values summary").await;
    assert_eq!(summary.text().await.unwrap(), "Show the values");
    let table = c
        .find(Locator::Css("details.chart-values table"))
        .await
        .unwrap();
    assert!(!table.is_displayed().await.unwrap(), "closed at first");
    // Keyboard: focus the summary and press Enter.
    summary.send_keys("\u{e007}").await.unwrap();
    // Laid out once the details are open.
    wait_until(
        c,
        "return document.querySelector('details.chart-values table').getClientRects().length > 0",
        vec![],
    )
    .await;
    assert!(table.is_displayed().await.unwrap());
    // The forecast's values start with today's balance.
    let text = table.text().await.unwrap();
    assert!(
        text.contains("Today") && text.contains("€2,000.00"),
        "{text}"
    );
}

/// The accounts page's net-worth chart with a year of demo balances, on a
/// desktop and a phone, light and dark: drawn and readable, the account
/// types told apart by pattern, the page not scrolling sideways, and the
/// span links working without script; and the forecast's line from the
/// past balances on. Saved as screenshots.
#[tokio::test]
async fn the_net_worth_chart_on_the_accounts_page_at_desktop_and_phone_light_and_dark() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    for (mode, width, height, dark) in MODES {
        // Headless Chromium's window is at least 500 pixels wide: a phone's
        // viewport is set through the DevTools protocol.
        let Some(browser) = start_with(width.max(500), height, dark).await else {
            return;
        };
        let c = &browser.client;
        crate::support::browser::resize(c, width, height).await;
        sign_in(c, &app, &user).await;
        c.goto(&app.url("/accounts")).await.unwrap();
        let chart = wait_for_css(c, "figure.net-worth svg[role=img]").await;
        assert!(chart.is_displayed().await.unwrap(), "{mode}");
        let count = |css: &'static str| async move {
            c.execute(
                &format!("return document.querySelectorAll({css:?}).length"),
                vec![],
            )
            .await
            .unwrap()
            .as_u64()
            .unwrap()
        };
        // Twelve months, each with a total; savings hatched, ETF dotted.
        assert_eq!(
            count("figure.net-worth line.chart-total").await,
            12,
            "{mode}"
        );
        assert!(count("figure.net-worth rect.part-savings[fill^='url(']").await >= 12);
        assert!(count("figure.net-worth rect.part-etf[fill^='url(']").await >= 12);
        assert!(count("figure.net-worth rect.part-checking:not([fill])").await >= 12);
        // Drawn with the pattern: no style rule paints over it.
        for kind in ["savings", "etf"] {
            let fill = c
                .execute(
                    &format!("return getComputedStyle(document.querySelector('figure.net-worth rect.part-{kind}')).fill"),
                    vec![],
                )
                .await
                .unwrap();
            assert!(
                fill.as_str().unwrap().starts_with("url("),
                "{mode} {kind}: {fill}"
            );
        }
        let smallest = smallest_chart_text(c).await;
        assert!(smallest >= 9.0, "{mode}: chart text {smallest:.1} px high");
        // Only the chart may scroll sideways on a phone, never the page.
        let wider = c
            .execute(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
                vec![],
            )
            .await
            .unwrap()
            .as_i64()
            .unwrap();
        assert!(
            wider <= 1,
            "{mode}: the page is {wider} px wider than the window"
        );
        c.execute(
            "document.getElementById('net-worth').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
        screenshot(c, &format!("accounts-net-worth-{mode}")).await;

        // Two years, by a link.
        c.find(Locator::Css("nav.chart-span a[href*='months=24']"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_css(c, "nav.chart-span a[href*='months=24'][aria-current=page]").await;
        // From the demo's first balances on: a year and this month, not a
        // year of nothing before them.
        assert_eq!(
            count("figure.net-worth details.chart-values tbody tr").await,
            13
        );

        // The forecast of the checking account: the year so far solid, then
        // the expected balance dashed and the one without everyday
        // spending dotted.
        c.goto(&app.url("/forecasts")).await.unwrap();
        wait_for_css(c, "polyline.chart-line.solid").await;
        assert_eq!(count("polyline.chart-line.dashed").await, 1, "{mode}");
        assert_eq!(count("polyline.chart-line.dotted").await, 1, "{mode}");
        let smallest = smallest_chart_text(c).await;
        assert!(
            smallest >= 9.0,
            "{mode}: forecast text {smallest:.1} px high"
        );
        c.execute(
            "document.querySelector('figure.chart').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
        screenshot(c, &format!("forecast-past-{mode}")).await;
        browser.client.clone().close().await.unwrap();
    }
}

#[tokio::test]
async fn the_colour_of_a_category_is_a_visible_swatch_on_a_phone() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/categories")).await.unwrap();
    let size = c
        .execute(
            "const r = document.querySelector('input[type=color]').getBoundingClientRect(); \
             return [r.width, r.height];",
            vec![],
        )
        .await
        .unwrap();
    let (w, h) = (size[0].as_f64().unwrap(), size[1].as_f64().unwrap());
    assert!((40.0..=120.0).contains(&w) && h >= 32.0, "{w}×{h}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn sessions_and_tokens_show_their_times_in_the_browsers_time_zone() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(
        &user,
        "createApiToken",
        serde_json::json!({"name": "Home Assistant", "password": user.password, "expiresInDays": 30}),
    )
    .await;
    // The server writes them in UTC, as a <time> the script can read.
    let html = app
        .get("/settings", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    let tokens = &html[html.find("id=\"api-tokens\"").unwrap()..];
    assert!(tokens.contains("<time datetime=\""), "{tokens}");
    assert!(tokens.contains(" UTC</time>"), "{tokens}");
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/settings")).await.unwrap();
    wait_for_css(c, "#sessions time[data-local][title]").await;
    let shown = c
        .execute(
            "const lang = document.documentElement.lang === 'de' ? 'de-DE' : 'en-GB'; \
             return [...document.querySelectorAll('#sessions time, #api-tokens time')].map(t => [ \
               t.textContent, t.title, \
               new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', year: 'numeric', \
                 hour: '2-digit', minute: '2-digit' }).format(new Date(t.getAttribute('datetime'))) ]);",
            vec![],
        )
        .await
        .unwrap();
    let shown = shown.as_array().unwrap();
    // Two sessions (signed in, last seen) and the token (created, expires).
    assert!(shown.len() >= 6, "{shown:?}");
    for t in shown {
        let (text, title, local) = (
            t[0].as_str().unwrap(),
            t[1].as_str().unwrap(),
            t[2].as_str().unwrap(),
        );
        assert_eq!(text, local, "{shown:?}");
        assert!(
            !text.contains("UTC") && title.ends_with(" UTC"),
            "{shown:?}"
        );
    }
    browser.client.clone().close().await.unwrap();
}
