//! Accessibility: every page a person can reach, checked with axe-core in
//! headless Chromium, on a desktop and a phone, in the light and the dark
//! colour scheme, with a year of demo data: one test per mode. Any
//! violation fails its mode's test, after every page of that mode has been
//! checked, with what failed where.
//!
//! axe-core comes from npm (`tests/axe/`); the first run installs it with
//! `npm ci`. Like the other browser tests this skips loudly without
//! Chromium, unless CASHKEEPER_E2E=required. With CASHKEEPER_SCREENSHOTS set
//! it also saves a screenshot of each page, named `{page}-{mode}.png`.

use crate::import_page::seed;
use crate::support::browser::{resize, Cdp};
use crate::support::browser::{screenshot, sign_in, signed_in_with, start_with, MODES};
use crate::support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

fn axe_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/axe")
}

/// axe-core's script, installed on first use; `Err` says why not.
fn axe_script() -> &'static Result<String, String> {
    static SCRIPT: OnceLock<Result<String, String>> = OnceLock::new();
    SCRIPT.get_or_init(|| {
        let dir = axe_dir();
        let file = dir.join("node_modules/axe-core/axe.min.js");
        if !file.exists() {
            let out = std::process::Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .output()
                .map_err(|e| format!("npm is not available ({e})"))?;
            if !out.status.success() {
                return Err(format!(
                    "npm ci in tests/axe failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))
    })
}

/// Runs axe-core on the page and answers its violations, each as
/// `{id, impact, help, nodes: [{target, html, summary}]}`.
const RUN_AXE: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ['violations'] })
  .then(r => done(r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({ target: n.target, html: n.html, summary: n.failureSummary })),
  }))))
  .catch(e => done({ error: String(e) }));
"#;

/// One violation on one page in one mode.
struct Found {
    mode: &'static str,
    path: String,
    violation: Value,
}

/// What the page breaks: injects axe-core and runs it.
async fn check(c: &Client, script: &str, mode: &'static str, path: &str, out: &mut Vec<Found>) {
    c.execute(script, vec![]).await.expect("axe-core loads");
    let answer = c.execute_async(RUN_AXE, vec![]).await.expect("axe runs");
    let Some(violations) = answer.as_array() else {
        panic!("axe failed on {path} ({mode}): {answer}");
    };
    for v in violations {
        out.push(Found {
            mode,
            path: path.to_string(),
            violation: v.clone(),
        });
    }
}

/// axe-core's script, or `None` (after saying why) when it is missing and
/// CASHKEEPER_E2E is not `required`.
fn script_or_skip() -> Option<&'static str> {
    match axe_script() {
        Ok(s) => Some(s.as_str()),
        Err(why) => {
            if std::env::var("CASHKEEPER_E2E").as_deref() == Ok("required") {
                panic!("axe-core is missing ({why}), but CASHKEEPER_E2E=required");
            }
            eprintln!("\n*** ACCESSIBILITY TEST SKIPPED: {why} ***\n");
            None
        }
    }
}

/// The violations axe-core finds on the page open in `c`, for a browser
/// test that checks a state of a page this test does not reach; `None`
/// when axe-core is missing (see [`script_or_skip`]).
pub(crate) async fn violations_here(c: &Client) -> Option<Vec<Value>> {
    let script = script_or_skip()?;
    let mut found = Vec::new();
    check(c, script, "here", "this page", &mut found).await;
    Some(found.into_iter().map(|f| f.violation).collect())
}

/// Opens `path`, checks it, and saves a screenshot named `{name}-{mode}`.
async fn visit(
    c: &Client,
    app: &TestApp,
    script: &str,
    mode: &'static str,
    (name, path): (&str, &str),
    out: &mut Vec<Found>,
) {
    c.goto(&app.url(path)).await.unwrap();
    check(c, script, mode, path, out).await;
    screenshot(c, &format!("{name}-{mode}")).await;
}

/// The first link on the page whose address contains `part`.
async fn first_link(c: &Client, part: &str) -> String {
    c.find(Locator::Css(&format!("a[href*='{part}']")))
        .await
        .unwrap_or_else(|_| panic!("no link with {part} on the page"))
        .attr("href")
        .await
        .unwrap()
        .unwrap()
}

/// Switches the signed-in user's language with the footer's buttons.
async fn switch_language(c: &Client, lang: &str) {
    c.find(Locator::Css(&format!("button[lang={lang}]")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    crate::support::browser::wait_for_css(c, &format!("html[lang={lang}]")).await;
}

/// Sets the language the browser asks for (the signed-out pages follow it).
async fn accept_language(c: &Client, lang: &str) {
    let agent = c
        .execute("return navigator.userAgent", vec![])
        .await
        .unwrap();
    c.issue_cmd(Cdp(
        "Emulation.setUserAgentOverride",
        json!({"userAgent": agent, "acceptLanguage": lang}),
    ))
    .await
    .unwrap();
}

/// The signed-in pages, as (screenshot name, path).
const PAGES: &[(&str, &str)] = &[
    ("dashboard", "/"),
    ("accounts", "/accounts"),
    ("accounts-net-worth-all", "/accounts?months=all"),
    ("expenses", "/expenses"),
    ("daily", "/daily-expenses"),
    ("subscriptions", "/subscriptions"),
    ("incomes", "/incomes"),
    ("transfers", "/transfers"),
    ("categories", "/categories"),
    ("budgets", "/budgets"),
    ("forecasts", "/forecasts"),
    ("reserves", "/reserves"),
    ("insights", "/insights"),
    ("documents", "/documents"),
    ("search", "/search"),
    ("search-results", "/search?q=rewe"),
    ("import", "/import"),
    ("bank", "/bank"),
    ("bank-connect", "/bank/connect"),
    ("assistant", "/assistant"),
    ("settings", "/settings"),
    ("not-found", "/no-such-page"),
];

/// The pages with an `?edit=` view, opened through their first edit link.
const EDITABLE: &[(&str, &str)] = &[
    ("account-edit", "/accounts"),
    ("expense-edit", "/expenses"),
    ("daily-edit", "/daily-expenses"),
    ("subscription-edit", "/subscriptions"),
    ("income-edit", "/incomes"),
    ("transfer-edit", "/transfers"),
    ("category-edit", "/categories"),
    ("document-edit", "/documents"),
];

/// The pages also checked in German.
const GERMAN: &[(&str, &str)] = &[
    ("dashboard-de", "/"),
    ("budgets-de", "/budgets"),
    ("accounts-de", "/accounts"),
    ("expenses-de", "/expenses"),
    ("daily-de", "/daily-expenses"),
    ("forecasts-de", "/forecasts"),
    ("import-de", "/import"),
    ("bank-de", "/bank"),
    ("bank-connect-de", "/bank/connect"),
    ("settings-de", "/settings"),
];

// One test per mode of `MODES`, so that four Chromiums can share the work.
// Each starts its own service with its own user: the German pages are
// reached by switching the user's language.

#[tokio::test]
async fn axe_finds_no_violations_on_any_page_desktop_light() {
    every_page_in_mode("desktop").await;
}

#[tokio::test]
async fn axe_finds_no_violations_on_any_page_desktop_dark() {
    every_page_in_mode("dark").await;
}

#[tokio::test]
async fn axe_finds_no_violations_on_any_page_phone_light() {
    every_page_in_mode("phone").await;
}

#[tokio::test]
async fn axe_finds_no_violations_on_any_page_phone_dark() {
    every_page_in_mode("phone-dark").await;
}

/// A service with a user who has a year of demo data and something on
/// every page, and the paths of the pages only that data makes.
struct Household {
    app: TestApp,
    user: TestUser,
    chat_path: String,
    reset_path: String,
    batch_path: String,
    conflicts_path: String,
    bank_paths: [(&'static str, String); 4],
}

async fn household() -> Household {
    // An AI provider is configured (never asked: only pages are rendered),
    // so the assistant shows its chat and the forms their AI options.
    // Bank sync may reach the loopback mock banks.
    let app = crate::receipts::app_with_ai_and(
        "http://127.0.0.1:9/v1",
        crate::bank_pages::allow_mock_banks,
    )
    .await;
    let user = app.new_user().await;
    let (uid, now) = (app.user_id(&user).await, app.state.clock.now());
    let stamp = cashkeeper::clock::timestamp(now);
    let token = "ab".repeat(32);
    let hash = cashkeeper::auth::secrets::sha256_hex(&token);
    let expires = cashkeeper::clock::timestamp(now + chrono::Duration::hours(1));
    let conversation = app
        .state
        .db
        .transaction(move |tx| {
            use cashkeeper::store::conversations::{self, NewMessage};
            cashkeeper::demo::fill_household(tx, &uid, now.date_naive(), now)?;
            cashkeeper::store::password_resets::insert(tx, &hash, &uid, &stamp, &expires)?;
            let chat = conversations::create(tx, &uid, "What did I spend on groceries?", &stamp)?;
            let calls = json!([
                {"id": "a", "name": "get_spending", "arguments": "{}"},
                {"id": "b", "name": "create_daily_expense", "arguments": "{\"name\":\"Bäcker\",\"amount\":\"4.20\"}"},
            ]);
            for m in [
                NewMessage::text("user", "What did I spend on groceries?"),
                NewMessage {
                    tool_calls: Some(&calls),
                    ..NewMessage::text("assistant", "")
                },
                NewMessage::text("assistant", "312,40 € this month. Shall I add the bakery?"),
            ] {
                conversations::append(tx, &uid, &chat.id, &m, &stamp)?;
            }
            Ok(chat.id)
        })
        .await
        .unwrap();
    cashkeeper::app::insights::run(&app.state).await;
    let accounts = app.ok(&user, "listAccounts", json!({})).await;
    let checking = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "checking")
        .expect("the demo household has a checking account");
    let account = checking["id"].as_str().unwrap().to_string();
    let batch = seed(&app, &user, &account, 6).await;
    // Bank connections in every state their pages show.
    let banks = crate::bank_pages::seed(&app, &user, &account).await;
    // A month of more entries than a page holds: its pager.
    app.many_daily_expenses(&user, &account, "2025-01", 60, 100)
        .await;
    app.ok(
        &user,
        "uploadDocument",
        json!({"fileName": "Kaufvertrag.pdf", "contentType": "application/pdf",
               "dataBase64": "JVBERi0xLjcKJSVFT0YK"}),
    )
    .await;
    Household {
        chat_path: format!("/assistant?c={conversation}"),
        reset_path: format!("/reset-password?token={token}"),
        batch_path: format!("/import?batch={batch}"),
        conflicts_path: format!("/import?batch={batch}&status=conflict"),
        bank_paths: [
            ("bank-connection", format!("/bank/{}", banks.ready)),
            ("bank-choose-method", format!("/bank/{}", banks.choose)),
            ("bank-tan", format!("/bank/{}", banks.tan)),
            ("bank-wait", format!("/bank/{}", banks.approval)),
        ],
        app,
        user,
    }
}

/// Checks every page a person can reach in the mode of `MODES` named
/// `mode`, signed out and signed in, in English and in German, for a
/// [`household`] of its own; fails with every violation found, after all
/// pages have been checked.
async fn every_page_in_mode(mode: &'static str) {
    let Some(script) = script_or_skip() else {
        return;
    };
    let (mode, width, height, dark) = MODES
        .into_iter()
        .find(|m| m.0 == mode)
        .expect("a mode of MODES");
    let started = Instant::now();
    let Household {
        app,
        user,
        chat_path,
        reset_path,
        batch_path,
        conflicts_path,
        bank_paths,
    } = household().await;
    let app = &app;
    let mut found = Vec::new();
    let mut pages = 0;
    // Headless Chromium's window is at least 500 pixels wide: a phone's
    // viewport is set through the DevTools protocol.
    let Some(browser) = start_with(width.max(500), height, dark).await else {
        return;
    };
    let c = &browser.client;
    resize(c, width, height).await;
    let signed_out = [
        ("login", "/login"),
        ("register", "/register"),
        ("forgot-password", "/forgot-password"),
        ("reset-password", reset_path.as_str()),
        ("reset-password-invalid", "/reset-password?token=used"),
        ("login-refused", "/login?sso=no_account"),
        ("not-found-signed-out", "/no-such-page"),
    ];
    for page in &signed_out {
        visit(c, app, script, mode, *page, &mut found).await;
    }
    accept_language(c, "de").await;
    for (name, path) in &signed_out[..3] {
        let name = format!("{name}-de");
        visit(c, app, script, mode, (&name, *path), &mut found).await;
    }
    accept_language(c, "en-US").await;
    pages += signed_out.len() + 3;

    sign_in(c, app, &user).await;
    let extra = [
        ("assistant-chat", chat_path.as_str()),
        ("import-batch", batch_path.as_str()),
        ("import-conflicts", conflicts_path.as_str()),
        ("daily-paged", "/daily-expenses?month=2025-01&page=2"),
    ];
    for page in PAGES.iter().chain(&extra) {
        visit(c, app, script, mode, *page, &mut found).await;
    }
    for (name, path) in &bank_paths {
        visit(c, app, script, mode, (name, path), &mut found).await;
    }
    pages += PAGES.len() + extra.len() + bank_paths.len();
    // The page a panic turns into has no styles, so one mode will do.
    if mode == "desktop" {
        visit(c, app, script, mode, ("error", "/__panic"), &mut found).await;
        pages += 1;
    }
    for (name, list) in EDITABLE {
        c.goto(&app.url(list)).await.unwrap();
        let path = first_link(c, "edit=").await;
        visit(c, app, script, mode, (name, &path), &mut found).await;
    }
    pages += EDITABLE.len();

    // The menu, opened on a phone.
    if width < 500 {
        c.goto(&app.url("/")).await.unwrap();
        c.find(Locator::Css("label.nav-button"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        check(c, script, mode, "/ (menu open)", &mut found).await;
        screenshot(c, &format!("menu-{mode}")).await;
        pages += 1;
    }

    c.goto(&app.url("/settings")).await.unwrap();
    switch_language(c, "de").await;
    for page in GERMAN {
        visit(c, app, script, mode, *page, &mut found).await;
    }
    pages += GERMAN.len();
    browser.client.clone().close().await.unwrap();
    eprintln!(
        "axe checked {pages} pages ({mode}) in {:.0?}",
        started.elapsed()
    );

    let report: Vec<String> = found
        .iter()
        .map(|f| {
            let v = &f.violation;
            let nodes: Vec<String> = v["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| {
                    let html: String = n["html"].as_str().unwrap_or("").chars().take(200).collect();
                    format!(
                        "      {}\n        {html}\n        {}",
                        n["target"],
                        n["summary"]
                            .as_str()
                            .unwrap_or("")
                            .replace('\n', "\n        ")
                    )
                })
                .collect();
            format!(
                "[{}] {} {} ({}): {}\n{}",
                f.mode,
                f.path,
                v["id"].as_str().unwrap_or("?"),
                v["impact"].as_str().unwrap_or("?"),
                v["help"].as_str().unwrap_or(""),
                nodes.join("\n")
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "{} accessibility violations:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The states a page reaches only by use, on a phone in the light and the
/// dark scheme: the one-time expense form opened by the dashboard's
/// "+ Ausgabe" (scrolled to, under the sticky top bar), and a confirmed
/// import's notice with its "Rückgängig machen".
#[tokio::test]
async fn axe_finds_no_violations_in_the_opened_expense_form_and_the_undo_notice() {
    let Some(script) = script_or_skip() else {
        return;
    };
    // AI configured (never asked), as in the run above: the form has its
    // receipt scan.
    let app = crate::receipts::app_with_ai("http://127.0.0.1:9/v1").await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today();
    for i in 0..12 {
        app.ok(
            &user,
            "createDailyExpense",
            json!({"name": format!("Einkauf {i}"), "amount": "9.90",
                   "date": today.to_string(), "accountId": account}),
        )
        .await;
    }
    let csv = format!(
        "Datum;Betrag;Empfänger\n{};-12,50;Kiosk Morgenrot\n",
        today.format("%d.%m.%Y")
    );
    let batch = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "fileName": "k.csv", "csv": csv,
                   "mapping": {"date": "Datum", "amount": "Betrag", "payee": "Empfänger"}}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    let mut found = Vec::new();
    for (mode, dark) in [("phone", false), ("phone-dark", true)] {
        let Some(browser) = signed_in_with(&app, &user, 390, 844, dark).await else {
            return;
        };
        let c = &browser.client;
        c.goto(&app.url("/")).await.unwrap();
        c.find(Locator::Css("a.quick-add"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        crate::support::browser::wait_for_css(c, "#record-form form [name=amount]:focus").await;
        // The form's toggle is in sight below the sticky top bar, not under it.
        let gap = crate::support::browser::wait_until(
            c,
            "if (document.readyState !== 'complete') return null;
             const bar = document.querySelector('.topbar').getBoundingClientRect();
             const toggle = document.querySelector('details.new-record > summary').getBoundingClientRect();
             return String(toggle.top - bar.bottom);",
            vec![],
        )
        .await
        .unwrap_or_default();
        assert!(
            gap.as_str()
                .and_then(|g| g.parse::<f64>().ok())
                .unwrap_or(-1.0)
                >= 0.0,
            "{mode}: the toggle is {gap} px below the top bar"
        );
        check(c, script, mode, "+ Ausgabe (form opened)", &mut found).await;
        screenshot(c, &format!("quick-add-{mode}")).await;
        c.goto(&app.url(&format!("/import?batch={batch}")))
            .await
            .unwrap();
        crate::support::browser::wait_for_css(c, ".import-done [data-undo]").await;
        check(c, script, mode, "import confirmed (undo)", &mut found).await;
        screenshot(c, &format!("import-undo-{mode}")).await;
        browser.client.clone().close().await.unwrap();
    }
    let report: Vec<String> = found
        .iter()
        .map(|f| format!("[{}] {}: {}", f.mode, f.path, f.violation))
        .collect();
    assert!(
        report.is_empty(),
        "{} accessibility violations:\n{}",
        report.len(),
        report.join("\n")
    );
}
