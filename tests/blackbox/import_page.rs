//! The Import page (`/import`): the form, the opened batch and the history
//! as the server renders them, and the whole flow in a browser: upload,
//! preview, a decided conflict, confirm and undo.

use crate::support::browser::resize;
use crate::support::browser::wait_for_shown;
use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn the_import_page_needs_a_session() {
    let app = spawn_app().await;
    let res = app.get("/import", None).await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/login");
}

#[tokio::test]
async fn the_import_page_shows_the_upload_form_in_english_and_german() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(
        &user,
        "createAccount",
        json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": "0"}),
    )
    .await;
    let giro = app.account(&user, "Girokonto", "EUR").await;

    let res = app.get("/import", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let en = res.text().await.unwrap();
    assert!(en.contains("<h1>Import</h1>"), "{en}");
    assert!(en.contains("id=\"import-form\""));
    assert!(en.contains("type=\"file\" name=\"file\""));
    assert!(en.contains("Choose a statement or CSV file, or drop it here"));
    // A phone's file picker offers only what `accept` names: every
    // statement format, not CSV alone.
    let accept = en
        .split("accept=\"")
        .nth(1)
        .and_then(|a| a.split('"').next())
        .expect("the file input's accept");
    for ending in [".csv", ".xml", ".sta", ".mt940", ".ofx", ".qfx", ".qif"] {
        assert!(
            accept.split(',').any(|a| a == ending),
            "{ending} in {accept}"
        );
    }
    assert!(en.contains("as a statement (CAMT, MT940, OFX, QIF) or a CSV file"));
    // The first checking account is chosen, not the first account.
    assert!(
        en.contains(&format!(
            "<option value=\"{giro}\" selected>Girokonto (EUR)"
        )),
        "{en}"
    );
    assert!(en.contains("<noscript>") && en.contains("turn on JavaScript"));
    assert!(en.contains("/assets/import.js?v="));
    assert!(en.contains("No imports yet."));
    // No AI provider configured: no AI suggestions.
    assert!(!en.contains("id=\"import-ai\""));
    // The navigation marks the page.
    assert!(en.contains("href=\"/import\" aria-current=\"page\""));

    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let de = app
        .get("/import", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(de.contains("lang=\"de\""));
    assert!(de.contains("Kontoauszug oder CSV-Datei auswählen oder hierher ziehen"));
    assert!(de.contains("Hochladen und prüfen"));
    assert!(de.contains("Noch keine Importe."));
}

#[tokio::test]
async fn without_an_account_the_import_page_asks_for_one_first() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let html = app
        .get("/import", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Create an account first"));
    assert!(!html.contains("id=\"import-form\""));
}

#[tokio::test]
async fn an_unknown_or_another_users_batch_is_not_found_on_the_page() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    let res = app
        .get(
            "/import?batch=no-such-batch&status=bogus&at=-3",
            Some(&user.cookie),
        )
        .await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    assert!(html.contains("This import does not exist (any more)."));
    assert!(
        html.contains("id=\"import-form\""),
        "the form is still there"
    );
}

/// The pager's links of a page: (prev, what it shows, next), `&amp;` read.
fn pager_of(html: &str) -> (Option<String>, String, Option<String>) {
    let nav = html
        .split("<nav class=\"pager\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no pager in {html}"));
    let nav = &nav[..nav.find("</nav>").unwrap()];
    let link = |rel: &str| {
        let at = nav.find(&format!("rel=\"{rel}\""))?;
        let href = nav[..at].rsplit("href=\"").next()?;
        Some(href[..href.find('"')?].replace("&amp;", "&"))
    };
    let shown = nav.split("<span class=\"muted\">").nth(1).unwrap();
    let shown = shown[..shown.find("</span>").unwrap()].to_string();
    (link("prev"), shown, link("next"))
}

#[tokio::test]
async fn the_rows_of_a_batch_page_by_key_forward_and_back_with_a_filter() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    // 2,500 rows, every tenth unreadable: 250 errors.
    let bookings: Vec<(String, String)> = (0..2500)
        .map(|i| {
            let amount = if i % 10 == 9 {
                "kaputt".to_string()
            } else {
                format!("-{},{:02}", 1 + i % 500, i % 100)
            };
            (amount, format!("Laden {i}"))
        })
        .collect();
    let refs: Vec<crate::imports::Booking<'_>> = bookings
        .iter()
        .map(|(a, p)| ("2026-03-02", a.as_str(), p.as_str(), "x"))
        .collect();
    let batch = crate::imports::stage(&app, &user, &giro, &crate::imports::sparkasse(&refs)).await
        ["id"]
        .as_str()
        .unwrap()
        .to_string();

    let (prev, shown, next) = pager_of(&app.page(&user, &format!("/import?batch={batch}")).await);
    assert_eq!((prev, shown.as_str()), (None, "Rows 1–200 of 2,500"));
    let next = next.unwrap();
    assert_eq!(next, format!("/import?batch={batch}&at=200"));
    let (prev, shown, _) = pager_of(&app.page(&user, &next).await);
    assert_eq!(shown, "Rows 201–400 of 2,500");
    assert_eq!(prev, Some(format!("/import?batch={batch}")));

    // The unreadable rows: the next page begins after the 200th of them
    // (line 2,001 of the file, at 2,000), and leads back.
    let errors = format!("/import?batch={batch}&status=error");
    let (prev, shown, next) = pager_of(&app.page(&user, &errors).await);
    assert_eq!((prev, shown.as_str()), (None, "Rows 1–200 of 250"));
    let next = next.unwrap();
    assert_eq!(next, format!("{errors}&at=2000"));
    let html = app.page(&user, &next).await;
    let (prev, shown, next) = pager_of(&html);
    assert_eq!((shown.as_str(), next), ("Rows 201–250 of 250", None));
    assert!(html.contains("Laden 2009"), "the 201st error row");
    assert!(
        !html.contains("Laden 1999<"),
        "the 200th is on the page before"
    );
    let prev = prev.unwrap();
    let (back, shown, _) = pager_of(&app.page(&user, &prev).await);
    assert_eq!((back, shown.as_str()), (None, "Rows 1–200 of 250"));
}

#[tokio::test]
async fn with_an_ai_provider_the_upload_offers_ai_suggestions() {
    // Rendering the page asks the provider nothing.
    let app = crate::receipts::app_with_ai("http://127.0.0.1:9/v1").await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    let html = app
        .get("/import", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("id=\"import-ai\" type=\"checkbox\""),
        "{html}"
    );
    assert!(html.contains(">AI suggestions</label>"));
}

/// Stages a batch straight through the store (a stand-in while the reader
/// refuses every file): new rows, one like an existing expense, one
/// unreadable.
pub async fn seed(app: &TestApp, user: &TestUser, account: &str, n: usize) -> String {
    use cashkeeper::domain::import::read::{Format, Problem};
    use cashkeeper::domain::import::reconcile::{self, Reason, Status};
    use cashkeeper::store::imports::{self, NewRow};
    let today = app.state.clock.today();
    let day = |d: i64| today - chrono::Duration::days(d);
    app.ok(user, "createDailyExpense", json!({"name": "Rewe", "merchant": "REWE Markt", "amount": "23.99", "currency": "EUR", "date": day(3).to_string(), "accountId": account})).await;
    let payees = [
        "REWE Markt GmbH",
        "Stadtwerke Freiburg",
        "Amazon EU S.a.r.l.",
        "Bäckerei Pfeifer",
        "Arbeitgeber GmbH",
        "DB Vertrieb GmbH",
    ];
    let mut rows: Vec<NewRow> = (0..n)
        .map(|i| NewRow {
            line: i + 2,
            date: Some(day((i % 25) as i64 + 5)),
            cents: Some(if i % 7 == 4 { 250_000 } else { -((i as i64 * 137) % 9000 + 150) }),
            currency: "EUR".into(),
            payee: payees[i % payees.len()].into(),
            memo: format!("SVWZ+ Kartenzahlung {i} EREF+ 2026-11-0{} 12.34 Debitk.{} girocard Folgenr. {} Verfalld. 1228", i % 9, i, i * 3),
            status: Status::New,
            reason: None,
            import_key: String::new(),
        })
        .collect();
    rows.push(NewRow {
        line: n + 2,
        date: Some(day(2)),
        cents: Some(-2399),
        currency: "EUR".into(),
        payee: "REWE Markt 1234 Berlin".into(),
        memo: "Kartenzahlung".into(),
        status: Status::New,
        reason: None,
        import_key: String::new(),
    });
    rows.push(NewRow {
        line: n + 3,
        date: None,
        cents: Some(-500),
        currency: "EUR".into(),
        payee: "Unbekannt".into(),
        memo: String::new(),
        status: Status::Error,
        reason: Some(Reason::Unreadable {
            problem: Problem::Date {
                value: "31.02.26".into(),
            },
        }),
        import_key: String::new(),
    });
    let keyed: Vec<_> = rows
        .iter()
        .map(|r| match (r.status, r.date, r.cents) {
            (Status::New, Some(d), Some(c)) => {
                Some((d, c, reconcile::payee_key(&r.payee, &r.memo)))
            }
            _ => None,
        })
        .collect();
    for (row, key) in rows.iter_mut().zip(reconcile::import_keys(&keyed)) {
        row.import_key = key;
    }
    let format = Format {
        kind: "csv".into(),
        bank: Some("sparkasse-camt".into()),
        encoding: "windows-1252".into(),
        delimiter: Some(";".into()),
        decimal_separator: Some(",".into()),
        date_format: Some("%d.%m.%y".into()),
        header_line: Some(1),
        closing_balance: None,
        account_iban: None,
        columns: None,
    };
    let (uid, account) = (app.user_id(user).await, account.to_string());
    let batch = app
        .state
        .db
        .transaction(move |tx| {
            imports::insert_batch(
                tx,
                &uid,
                &account,
                "20261123-12345678-umsatz.CSV",
                &format,
                None,
                &rows,
                "2026-11-23T10:00:00Z",
            )
        })
        .await
        .unwrap();
    app.ok(user, "reconcileImport", json!({"id": batch.id}))
        .await;
    batch.id
}

/// The batch's badge on its page, as text.
fn badge(html: &str) -> String {
    let start = html
        .find("class=\"badge batch-status")
        .expect("a batch badge");
    let from = start + html[start..].find('>').unwrap() + 1;
    html[from..from + html[from..].find('<').unwrap()].to_string()
}

/// The page of batch `id`, with the user's language set to `locale`.
async fn batch_page(app: &TestApp, user: &TestUser, id: &str, locale: &str) -> String {
    app.ok(user, "updateSettings", json!({ "locale": locale }))
        .await;
    let res = app
        .get(&format!("/import?batch={id}"), Some(&user.cookie))
        .await;
    assert_eq!(res.status(), 200);
    res.text().await.unwrap()
}

#[tokio::test]
async fn an_undecided_conflict_is_on_the_badge() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    let id = seed(&app, &user, &giro, 3).await;
    let page = |locale: &'static str| batch_page(&app, &user, &id, locale);
    assert_eq!(badge(&page("en").await), "Decisions open");
    assert_eq!(badge(&page("de").await), "Entscheidungen offen");

    app.ok(
        &user,
        "decideImportConflict",
        json!({"id": id, "all": "conflict", "decision": "skip"}),
    )
    .await;
    assert_eq!(badge(&page("en").await), "Ready to confirm");
    assert_eq!(badge(&page("de").await), "Bereit zur Bestätigung");
}

#[tokio::test]
#[ignore]
async fn import_screenshots() {
    use crate::support::browser::signed_in_with;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    for name in ["Lebensmittel", "Freizeit", "Mobilität"] {
        app.ok(&user, "createCategory", json!({ "name": name }))
            .await;
    }
    let id = seed(&app, &user, &giro, 12).await;
    let statement = crate::statements::TWO_ACCOUNTS.replace(":62F:C241202", ":62F:C491202");
    let staged = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": giro, "fileName": "umsatz.sta", "csv": statement,
                   "accountIban": "10020030/1234567890"}),
        )
        .await;
    let sid = staged["id"].as_str().unwrap().to_string();
    app.ok(&user, "reconcileImport", json!({ "id": sid })).await;
    for (name, width, dark, lang) in [
        ("desktop", 1280, false, "en"),
        ("dark", 1280, true, "en"),
        ("phone", 390, false, "en"),
        ("phone-dark", 390, true, "en"),
        ("de", 1280, false, "de"),
        ("phone-de", 390, false, "de"),
    ] {
        app.ok(&user, "updateSettings", json!({ "locale": lang }))
            .await;
        let Some(browser) = signed_in_with(&app, &user, width, 900, dark).await else {
            return;
        };
        let c = &browser.client;
        for (page, path) in [
            ("form", "/import".to_string()),
            ("batch", format!("/import?batch={id}")),
            ("conflicts", format!("/import?batch={id}&status=conflict")),
            ("errors", format!("/import?batch={id}&status=error")),
            ("statement", format!("/import?batch={sid}")),
        ] {
            full_shot(c, &app, &path, width, &format!("import-{page}-{name}")).await;
        }
        browser.client.clone().close().await.unwrap();
    }
}

/// A screenshot of the whole page, as tall as its content.
async fn full_shot(c: &fantoccini::Client, app: &TestApp, path: &str, width: u32, name: &str) {
    c.goto(&app.url(path)).await.unwrap();
    let h = c
        .execute("return document.documentElement.scrollHeight", vec![])
        .await
        .unwrap()
        .as_u64()
        .unwrap() as u32;
    resize(c, width, h).await;
    crate::support::browser::screenshot(c, name).await;
    resize(c, width, 900).await;
}

/// A Sparkasse CSV-CAMT export as the bank writes it: semicolons, quoted
/// fields, Windows-1252 bytes, two-digit years, decimal commas.
fn sparkasse_csv(rows: &[(chrono::NaiveDate, &str, &str, &str, &str)]) -> Vec<u8> {
    let mut text = String::from(
        "\"Auftragskonto\";\"Buchungstag\";\"Valutadatum\";\"Buchungstext\";\"Verwendungszweck\";\
         \"Glaeubiger ID\";\"Mandatsreferenz\";\"Kundenreferenz (End-to-End)\";\"Sammlerreferenz\";\
         \"Lastschrift Ursprungsbetrag\";\"Auslagenersatz Ruecklastschrift\";\
         \"Beguenstigter/Zahlungspflichtiger\";\"Kontonummer/IBAN\";\"BIC (SWIFT-Code)\";\"Betrag\";\
         \"Waehrung\";\"Info\"\n",
    );
    for (date, kind, memo, payee, amount) in rows {
        let d = date.format("%d.%m.%y");
        text.push_str(&format!(
            "\"12345678\";\"{d}\";\"{d}\";\"{kind}\";\"{memo}\";;;;;;;\"{payee}\";\
             \"DE12341234123412341234\";\"ABCDABCD\";\"{amount}\";\"EUR\";\"Umsatz gebucht\"\n"
        ));
    }
    // Windows-1252 agrees with Latin-1 on every character used here.
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).expect("a Latin-1 character"))
        .collect()
}

/// Calls an action as the browser's signed-in person.
async fn call(
    app: &TestApp,
    cookie: &str,
    name: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    let reply = app.action(name, body.clone(), Some(cookie)).await;
    assert!(reply.ok(), "{name} {body} → {}", reply.body);
    reply.body["data"].clone()
}

/// Waits until `css` matches an element whose attribute `attr` is `value`.
async fn wait_for_attr(c: &fantoccini::Client, css: &str, attr: &str, value: &str) {
    crate::support::browser::wait_until(
        c,
        "const el = document.querySelector(arguments[0]);
         return el !== null && el.getAttribute(arguments[1]) === arguments[2];",
        vec![css.into(), attr.into(), value.into()],
    )
    .await
    .unwrap_or_else(|| panic!("{css} never had {attr}={value:?}"));
}

#[tokio::test]
async fn a_person_imports_a_sparkasse_file_decides_a_conflict_confirms_and_undoes_it() {
    use crate::support::browser::{screenshot, start, wait_for_path, wait_for_text};
    use fantoccini::Locator;
    let Some(browser) = start(1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    let app = spawn_app().await;

    // Sign up.
    c.goto(&app.url("/register")).await.unwrap();
    for (field, value) in [
        ("#f-name", "Ann"),
        ("#f-email", "ann@example.org"),
        ("#f-password", "correct horse battery"),
    ] {
        c.find(Locator::Css(field))
            .await
            .unwrap()
            .send_keys(value)
            .await
            .unwrap();
    }
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_path(c, "/").await;
    let cookie = c
        .get_named_cookie("cashkeeper_session")
        .await
        .unwrap()
        .value()
        .to_string();

    // A checking account.
    call(
        &app,
        &cookie,
        "createAccount",
        json!({"name": "Girokonto", "type": "checking", "currency": "EUR"}),
    )
    .await;
    let accounts = call(&app, &cookie, "listAccounts", json!({})).await;
    let account = accounts[0]["id"].as_str().unwrap().to_string();
    assert_eq!(accounts[0]["type"], "checking");

    // The bookings are from last month; one of them is already recorded,
    // by hand, a day earlier.
    let today = app.state.clock.today();
    let first = today - chrono::Duration::days(i64::from(chrono::Datelike::day(&today)) - 1);
    let day = |n: i64| first - chrono::Duration::days(30) + chrono::Duration::days(n);
    let month = day(0).format("%Y-%m").to_string();
    call(
        &app,
        &cookie,
        "createDailyExpense",
        json!({"name": "Edeka", "merchant": "EDEKA Dübel", "amount": "62.59", "currency": "EUR",
               "date": day(2).to_string(), "accountId": account}),
    )
    .await;
    let csv = sparkasse_csv(&[
        (
            day(3),
            "KARTENZAHLUNG",
            "2018-03-30T17:47:21 Karte1",
            "EDEKA Dübel",
            "-62,59",
        ),
        (
            day(4),
            "ONLINE-UEBERWEISUNG",
            "Geschenk für Thomas",
            "Harald Schmidt",
            "-100,00",
        ),
        (
            day(5),
            "KARTENZAHLUNG",
            "Brötchen",
            "Bäckerei Pfeifer",
            "-4,80",
        ),
        (
            day(6),
            "GUTSCHRIFT",
            "Lohn/Gehalt",
            "Arbeitgeber GmbH",
            "2450,00",
        ),
    ]);
    let file = tempfile::Builder::new()
        .prefix("umsatz-")
        .suffix(".CSV")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), csv).unwrap();

    // Upload: the account is chosen already.
    c.goto(&app.url("/import")).await.unwrap();
    let chosen = c
        .find(Locator::Css("#f-accountId option:checked"))
        .await
        .unwrap();
    assert_eq!(
        chosen.attr("value").await.unwrap().as_deref(),
        Some(account.as_str())
    );
    send_file(c, file.path()).await;

    // The preview: the bank and format detected, the counts, the rows.
    wait_for_text(c, "Sparkasse CSV-CAMT").await;
    let url = c.current_url().await.unwrap();
    let batch = url
        .query_pairs()
        .find(|(k, _)| k == "batch")
        .map(|(_, v)| v.into_owned())
        .expect("the address names the batch");
    let format = c
        .find(Locator::Css("dl.import-format"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for part in [
        "Windows-1252",
        "semicolon (;)",
        "comma (,)",
        "DD.MM.YY",
        "line 1",
    ] {
        assert!(format.contains(part), "{part} in {format}");
    }
    let filters = c
        .find(Locator::Css("nav.status-filters"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let filters = filters.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        filters.contains("New 3") && filters.contains("Conflict 1"),
        "{filters}"
    );
    let html = c.source().await.unwrap();
    assert!(html.contains("Bäckerei Pfeifer"), "read as Windows-1252");
    assert!(html.contains("-€4.80") && html.contains("€2,450.00"));
    let conflict = c
        .find(Locator::Css("tr[data-status=conflict]"))
        .await
        .unwrap();
    let text = conflict.text().await.unwrap();
    assert!(
        text.contains("EDEKA Dübel") && text.contains("Edeka"),
        "{text}"
    );
    screenshot(c, "import-preview").await;

    // Confirming is refused while the conflict waits for a decision.
    c.find(Locator::Css("button[data-confirm-import]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_shown(
        c,
        ".import-actions .import-error",
        "1 conflict still needs a decision",
    )
    .await;
    // Next to the refusal, the way to the conflict.
    let link = c
        .find(Locator::Css(".import-actions .import-error a"))
        .await
        .unwrap();
    assert!(link
        .attr("href")
        .await
        .unwrap()
        .unwrap_or_default()
        .ends_with("&status=conflict"));

    // Import it after all.
    conflict
        .find(Locator::Css("button[data-decide=import]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_attr(
        c,
        "tr[data-status=conflict] button[data-decide=import]",
        "aria-pressed",
        "true",
    )
    .await;
    let got = call(
        &app,
        &cookie,
        "getImport",
        json!({"id": batch, "status": "conflict"}),
    )
    .await;
    assert_eq!(got["rows"][0]["decision"], "import");

    c.find(Locator::Css("button[data-confirm-import]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_shown(c, ".import-done", "Entries written to Girokonto: 4.").await;
    screenshot(c, "import-confirmed").await;

    // The one-time expenses page shows them.
    c.goto(&app.url(&format!("/daily-expenses?month={month}")))
        .await
        .unwrap();
    let html = c.source().await.unwrap();
    assert!(html.contains("Harald Schmidt") && html.contains("Bäckerei Pfeifer"));
    assert_eq!(
        html.matches("€62.59").count(),
        2,
        "the hand-made and the imported"
    );
    let incomes = call(&app, &cookie, "listIncomes", json!({})).await;
    assert_eq!(incomes[0]["name"], "Arbeitgeber GmbH");

    // Undo from the history.
    c.goto(&app.url("/import")).await.unwrap();
    c.find(Locator::Css(&format!(
        ".import-history tr[data-batch='{batch}'] button[data-undo]"
    )))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    let prompt = c.get_alert_text().await.unwrap();
    assert!(prompt.contains("Undo this import?"), "{prompt}");
    c.accept_alert().await.unwrap();
    wait_for_shown(c, "#import-flash", "Import undone. Entries removed: 4.").await;
    let status = c
        .find(Locator::Css(&format!(
            ".import-history tr[data-batch='{batch}'] .batch-status"
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(status, "Undone");
    screenshot(c, "import-undone").await;

    c.goto(&app.url(&format!("/daily-expenses?month={month}")))
        .await
        .unwrap();
    let html = c.source().await.unwrap();
    assert!(!html.contains("Harald Schmidt") && !html.contains("Bäckerei Pfeifer"));
    let left = call(&app, &cookie, "listDailyExpenses", json!({})).await;
    let left: Vec<&str> = left
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["Edeka"], "the hand-made one stays");
    assert!(call(&app, &cookie, "listIncomes", json!({}))
        .await
        .as_array()
        .unwrap()
        .is_empty());
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_refused_confirm_offers_the_conflicts_in_german_too() {
    use crate::support::browser::signed_in;
    use fantoccini::Locator;
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({ "locale": "de" }))
        .await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    let id = seed(&app, &user, &giro, 3).await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url(&format!("/import?batch={id}")))
        .await
        .unwrap();
    c.find(Locator::Css("button[data-confirm-import]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_shown(
        c,
        ".import-actions .import-error",
        "1 Konflikt braucht noch eine Entscheidung",
    )
    .await;
    let link = c
        .find(Locator::Css(".import-actions .import-error a"))
        .await
        .unwrap();
    assert_eq!(link.text().await.unwrap(), "Konflikte zeigen");
    assert!(link
        .attr("href")
        .await
        .unwrap()
        .unwrap_or_default()
        .ends_with("&status=conflict"));
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_refused_file_says_why_next_to_the_form() {
    use crate::support::browser::signed_in;
    use fantoccini::Locator;
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/import")).await.unwrap();

    // Nothing chosen yet.
    c.find(Locator::Css("#import-form button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_shown(c, "#import-file-error", "choose a file first").await;

    let upload = |bytes: &'static [u8]| {
        let file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        file
    };
    // An empty file: the refusal names the file, so it stands beside it.
    let empty = upload(b"");
    send_file(c, empty.path()).await;
    wait_for_shown(c, "#import-file-error", "is empty").await;
    let input = c.find(Locator::Css("#import-file")).await.unwrap();
    assert_eq!(
        input.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true")
    );

    // A layout no bank writes: the refusal stands above the button.
    let unknown = upload(b"Wann;Was;Wieviel\n1;2;3\n");
    send_file(c, unknown.path()).await;
    wait_for_shown(c, "#import-form .form-error", "not recognised").await;
    assert!(
        c.find(Locator::Css("#import-form button[type=submit]"))
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap(),
        "the form can be sent again"
    );
    assert_eq!(c.current_url().await.unwrap().path(), "/import");
    let listed = app.ok(&user, "listImports", json!({})).await;
    assert!(listed.as_array().unwrap().is_empty(), "{listed}");

    // In German the refusal is German, and the page still offers the
    // file's columns to say which holds what.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    c.goto(&app.url("/import")).await.unwrap();
    send_file(c, unknown.path()).await;
    wait_for_shown(c, "#import-form .import-mapping", "Wieviel").await;
    let options = c
        .find(Locator::Css(
            "#import-form .import-mapping select[data-map=amount]",
        ))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        options.contains("Wann") && options.contains("Was") && options.contains("Wieviel"),
        "{options}"
    );
    browser.client.clone().close().await.unwrap();
}

/// The columns a file of no known bank was read from can be chosen anew:
/// the same file, read again, replaces the import it came from.
#[tokio::test]
async fn other_columns_read_the_same_file_again_in_place_of_the_first() {
    use crate::support::browser::signed_in;
    use fantoccini::Locator;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    let csv = "Buchungstag;Betrag;Partner;Notiz\n02.11.2024;-23,99;REWE;Einkauf Wocheneinkauf\n";
    let first = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": giro, "fileName": "x.csv", "csv": csv}),
        )
        .await;
    let first_id = first["id"].as_str().unwrap().to_string();
    assert_eq!(first["format"]["columns"]["payee"], "partner");
    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url(&format!("/import?batch={first_id}")))
        .await
        .unwrap();
    c.find(Locator::Css(".import-columns a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // The form opens with the columns read before: change the payee's.
    let payee = c.find(Locator::Css("#import-map-payee")).await.unwrap();
    assert_eq!(payee.prop("value").await.unwrap().as_deref(), Some("2"));
    payee.select_by_value("3").await.unwrap();
    c.find(Locator::Css("#import-map-memo"))
        .await
        .unwrap()
        .select_by_value("")
        .await
        .unwrap();
    let file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    std::fs::write(file.path(), csv).unwrap();
    send_file(c, file.path()).await;
    crate::support::browser::wait_until(
        c,
        "const id = new URLSearchParams(location.search).get('batch');
         return id !== null && id !== arguments[0];",
        vec![first_id.as_str().into()],
    )
    .await;
    let url = c.current_url().await.unwrap();
    let second = url
        .query_pairs()
        .find(|(k, _)| k == "batch")
        .map(|(_, id)| id.to_string())
        .filter(|id| *id != first_id)
        .expect("the file was read again");
    let rows = app.ok(&user, "getImport", json!({"id": second})).await["rows"].clone();
    assert_eq!(rows[0]["payee"], "Einkauf Wocheneinkauf");
    assert_eq!(rows[0]["memo"], "");
    let old = app.ok(&user, "getImport", json!({"id": first_id})).await;
    assert_eq!(old["status"], "cancelled");
}

#[tokio::test]
async fn an_undone_import_says_so_once() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    let id = seed(&app, &user, &giro, 3).await;
    let page = |locale: &'static str| batch_page(&app, &user, &id, locale);
    app.ok(
        &user,
        "decideImportConflict",
        json!({"id": id, "all": "conflict", "decision": "skip"}),
    )
    .await;

    app.ok(&user, "confirmImport", json!({"id": id})).await;
    app.ok(&user, "undoImport", json!({"id": id})).await;
    for (locale, word, notice) in [
        (
            "en",
            "Undone",
            "Every entry this import wrote has been removed.",
        ),
        (
            "de",
            "Rückgängig gemacht",
            "Alle Einträge dieses Imports sind wieder entfernt.",
        ),
    ] {
        let html = page(locale).await;
        assert_eq!(badge(&html), word);
        assert!(
            html.contains(&format!("<p class=\"notice\">{notice}</p>")),
            "{html}"
        );
        // Within the batch's panel (the history below lists it too).
        let start = html.find("class=\"panel import-batch\"").unwrap();
        let panel = &html[start..start + html[start..].find("</section>").unwrap()];
        assert_eq!(panel.matches(word).count(), 1, "{panel}");
    }
}

/// Chooses `path` in the upload form and sends it.
async fn send_file(c: &fantoccini::Client, path: &std::path::Path) {
    use fantoccini::Locator;
    c.find(Locator::Css("#import-form input[type=file]"))
        .await
        .unwrap()
        .send_keys(path.to_str().unwrap())
        .await
        .unwrap();
    c.find(Locator::Css("#import-form button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// [`seed`] with 12 rows and two more conflicts: three in all, each
/// undecided. Answers the batch's id.
async fn seed_conflicts(app: &TestApp, user: &TestUser, account: &str) -> String {
    let id = seed(app, user, account, 12).await;
    let today = app.state.clock.today();
    // Rows 0 and 1 of the seed, each with a record of its payee and amount
    // a day later: near matches.
    for (payee, amount, days) in [
        ("REWE Markt GmbH", "1.50", 4),
        ("Stadtwerke Freiburg", "2.87", 5),
    ] {
        let date = today - chrono::Duration::days(days);
        app.ok(
            user,
            "createDailyExpense",
            json!({"name": payee, "merchant": payee, "amount": amount,
            "currency": "EUR", "date": date.to_string(), "accountId": account}),
        )
        .await;
    }
    let batch = app.ok(user, "reconcileImport", json!({ "id": id })).await;
    assert_eq!(batch["counts"]["conflict"], 3, "{batch}");
    assert_eq!(batch["undecided"], 3, "{batch}");
    id
}

/// Where the confirm bar's button is: `[top, bottom, the window's height]`.
async fn bar_rect(c: &fantoccini::Client) -> (f64, f64, f64) {
    let r = c
        .execute(
            "const r = document.querySelector('.import-confirm-bar [data-confirm-import]').getBoundingClientRect();
             return [r.top, r.bottom, window.innerHeight];",
            vec![],
        )
        .await
        .unwrap();
    let n = |i: usize| r[i].as_f64().unwrap();
    (n(0), n(1), n(2))
}

fn assert_in_view((top, bottom, height): (f64, f64, f64), when: &str) {
    assert!(
        top >= 0.0 && bottom <= height,
        "{when}: the confirm is at {top}..{bottom} of a window {height} px high"
    );
}

#[tokio::test]
async fn on_a_phone_the_confirm_stays_in_reach_and_the_badge_follows_each_decision() {
    use crate::support::browser::{screenshot, signed_in, wait_for_css};
    use fantoccini::Locator;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    for name in ["Lebensmittel", "Freizeit", "Mobilität"] {
        app.ok(&user, "createCategory", json!({ "name": name }))
            .await;
    }
    let id = seed_conflicts(&app, &user, &giro).await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url(&format!("/import?batch={id}")))
        .await
        .unwrap();
    wait_for_shown(c, ".batch-head .batch-status", "Decisions open").await;
    wait_for_shown(c, ".import-confirm-bar", "Decisions open: 3").await;
    // Marks this page: a reload would forget it.
    c.execute("window.sameImportPage = true;", vec![])
        .await
        .unwrap();

    // At the end of the rows the confirm above them is far out of sight;
    // the one under them is on the screen.
    let above = c
        .execute(
            "document.querySelector('.import-rows tbody tr:last-child').scrollIntoView({block: 'end'});
             return document.querySelector('.import-actions [data-confirm-import]').getBoundingClientRect().bottom;",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(above < 0.0, "the confirm above the rows is at {above}");
    assert_in_view(bar_rect(c).await, "at the end of the rows");
    screenshot(c, "import-confirm-bar-end-phone").await;

    // Each decision, made in the middle of the rows, counts down the open
    // ones in the bar, which stays on the screen; the last one turns the
    // badge to "Ready to confirm", without a reload.
    for left in ["Decisions open: 2", "Decisions open: 1", "Ready to confirm"] {
        c.execute(
            "document.querySelector('tr.undecided').scrollIntoView({block: 'center'});",
            vec![],
        )
        .await
        .unwrap();
        c.find(Locator::Css("tr.undecided button[data-decide=skip]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_shown(c, ".import-confirm-bar .open-decisions", left).await;
        assert_in_view(bar_rect(c).await, left);
        if left == "Decisions open: 2" {
            screenshot(c, "import-confirm-bar-rows-phone").await;
            // Still conflicts to decide: the badge says so.
            let badge = c
                .find(Locator::Css(".batch-head .batch-status"))
                .await
                .unwrap();
            assert_eq!(
                badge.prop("textContent").await.unwrap().as_deref(),
                Some("Decisions open")
            );
        }
    }
    for css in [
        ".batch-head .batch-status",
        &format!("tr[data-batch='{id}'] .batch-status"),
    ] {
        let badge = c.find(Locator::Css(css)).await.unwrap();
        assert_eq!(
            badge.prop("textContent").await.unwrap().as_deref(),
            Some("Ready to confirm"),
            "{css}"
        );
    }
    let same = c
        .execute("return window.sameImportPage === true;", vec![])
        .await
        .unwrap();
    assert_eq!(same, json!(true), "the page was reloaded");

    // The confirm in the bar confirms.
    c.find(Locator::Css(".import-confirm-bar [data-confirm-import]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_css(c, ".import-done").await;
    let batch = app.ok(&user, "getImport", json!({ "id": id })).await;
    assert_eq!(batch["status"], "confirmed", "{batch}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn ai_suggestions_that_fail_say_why_next_to_their_button_and_take_the_focus() {
    use crate::support::browser::{screenshot, signed_in};
    // A port nothing listens on: the provider refuses every connection.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let app = crate::receipts::app_with_ai(&format!("http://127.0.0.1:{port}/v1")).await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({ "locale": "de" }))
        .await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    for name in ["Lebensmittel", "Freizeit"] {
        app.ok(&user, "createCategory", json!({ "name": name }))
            .await;
    }
    let id = seed(&app, &user, &giro, 12).await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url(&format!("/import?batch={id}")))
        .await
        .unwrap();
    // The button at the foot of the screen, as a person scrolls to it.
    c.execute(
        "const b = document.querySelector('button[data-ai]');
         b.scrollIntoView({block: 'end'});
         b.click();",
        vec![],
    )
    .await
    .unwrap();
    let said = "Keine KI-Vorschläge: der KI-Dienst ist gerade nicht erreichbar.";
    wait_for_shown(c, ".ai-suggest [role=alert]", said).await;
    let seen = c
        .execute(
            "const alert = document.querySelector('.ai-suggest [role=alert]');
             const button = document.querySelector('button[data-ai]').getBoundingClientRect();
             const r = alert.getBoundingClientRect();
             return {
               focused: document.activeElement === alert,
               top: r.top, bottom: r.bottom, height: window.innerHeight,
               gap: r.top - button.bottom,
               flash: !document.querySelector('#import-flash').hidden,
             };",
            vec![],
        )
        .await
        .unwrap();
    screenshot(c, "import-ai-error-phone-de").await;
    assert_eq!(seen["focused"], json!(true), "{seen}");
    let n = |k: &str| seen[k].as_f64().unwrap();
    assert!(n("top") >= 0.0 && n("bottom") <= n("height"), "{seen}");
    // Under the button, the hint between them at most.
    assert!(n("gap") >= 0.0 && n("gap") < 200.0, "{seen}");
    assert_eq!(seen["flash"], json!(false), "not (also) above: {seen}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn the_confirm_under_the_rows_sets_the_balance_as_the_box_above_says() {
    use crate::support::browser::{signed_in, wait_for_css};
    use fantoccini::Locator;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    // A statement whose closing balance is newer than the account's.
    let statement = crate::statements::TWO_ACCOUNTS.replace(":62F:C241202", ":62F:C491202");
    let balance = || async {
        let accounts = app.ok(&user, "listAccounts", json!({})).await;
        accounts
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == giro.as_str())
            .unwrap()["balance"]
            .clone()
    };
    let before = balance().await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    // Unticked, then ticked (as it comes): the bar's confirm does as the box says.
    for (tick, expected) in [(false, before.clone()), (true, json!(976.01))] {
        let staged = app
            .ok(
                &user,
                "stageImport",
                json!({"accountId": giro, "fileName": "umsatz.sta", "csv": statement,
                       "accountIban": "10020030/1234567890"}),
            )
            .await;
        let id = staged["id"].as_str().unwrap().to_string();
        app.ok(&user, "reconcileImport", json!({ "id": id })).await;
        c.goto(&app.url(&format!("/import?batch={id}")))
            .await
            .unwrap();
        let box_ = c.find(Locator::Css("#import-set-balance")).await.unwrap();
        assert!(box_.is_selected().await.unwrap(), "ticked as it comes");
        if !tick {
            box_.click().await.unwrap();
        }
        c.execute(
            "document.querySelector('.import-confirm-bar').scrollIntoView({block: 'end'});",
            vec![],
        )
        .await
        .unwrap();
        c.find(Locator::Css(".import-confirm-bar [data-confirm-import]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_css(c, ".import-done").await;
        assert_eq!(balance().await, expected, "ticked: {tick}");
    }
    browser.client.clone().close().await.unwrap();
}
