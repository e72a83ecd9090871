//! The spreadsheet links of the pages (`GET /api/export/daily-expenses`,
//! `GET /api/export/search`) and the budgets and balance history among the
//! export's `spreadsheet/` files: German Excel-friendly for a German user
//! (`;`, decimal commas, `14.03.2026`, a byte order mark), one user's rows
//! only.

use crate::export::{export_of, unzip};
use crate::support::sheets::sheet_rows;
use crate::support::*;
use serde_json::json;

/// A download's status, content type, file name and body.
async fn download(app: &TestApp, user: &TestUser, path: &str) -> (u16, String, String, Vec<u8>) {
    let res = app.get(path, Some(&user.cookie)).await;
    let header = |h: &str| {
        res.headers()
            .get(h)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (status, kind, name) = (
        res.status().as_u16(),
        header("content-type"),
        header("content-disposition"),
    );
    (status, kind, name, res.bytes().await.unwrap().to_vec())
}

async fn german(app: &TestApp) -> TestUser {
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    user
}

#[tokio::test]
async fn a_months_one_time_expenses_download_as_a_spreadsheet_in_the_users_language() {
    let app = spawn_app().await;
    let anna = german(&app).await;
    let giro = app.account(&anna, "Girokonto", "EUR").await;
    let food = app
        .ok(&anna, "createCategory", json!({"name": "Lebensmittel"}))
        .await["id"]
        .clone();
    for (name, amount, date, category) in [
        ("Bäcker", "3.20", "2026-03-14", Some(&food)),
        ("Kiosk", "1234.50", "2026-03-02", None),
        ("April", "9.99", "2026-04-01", Some(&food)),
    ] {
        app.ok(
            &anna,
            "createDailyExpense",
            json!({"name": name, "amount": amount, "date": date, "accountId": giro,
                   "categoryId": category, "merchant": "Backstube"}),
        )
        .await;
    }
    let bob = app.new_user().await;
    let bobs = app.account(&bob, "Bobs Konto", "EUR").await;
    app.ok(
        &bob,
        "createDailyExpense",
        json!({"name": "Bobs Kino", "amount": "12", "date": "2026-03-05", "accountId": bobs}),
    )
    .await;

    let page = app
        .get("/daily-expenses?month=2026-03", Some(&anna.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(
            "<a href=\"/api/export/daily-expenses?month=2026-03\" download>Als Tabelle (CSV)</a>"
        ),
        "{page}"
    );

    let (status, kind, name, body) =
        download(&app, &anna, "/api/export/daily-expenses?month=2026-03").await;
    assert_eq!(status, 200);
    assert_eq!(kind, "text/csv; charset=utf-8");
    assert!(name.contains("Einzelausgaben-2026-03.csv"), "{name}");
    let sheet = sheet_rows(&body, b';');
    assert_eq!(
        sheet,
        [
            vec![
                "Datum",
                "Name",
                "Händler",
                "Betrag",
                "Währung",
                "Konto",
                "Kategorie",
                "Notizen"
            ],
            vec![
                "02.03.2026",
                "Kiosk",
                "Backstube",
                "1234,50",
                "EUR",
                "Girokonto",
                "",
                ""
            ],
            vec![
                "14.03.2026",
                "Bäcker",
                "Backstube",
                "3,20",
                "EUR",
                "Girokonto",
                "Lebensmittel",
                ""
            ],
        ],
        "the month's entries only, the same file as the export's"
    );
    let text = String::from_utf8_lossy(&body);
    assert!(!text.contains("Bobs"), "{text}");

    // The page's category filter goes along.
    let (_, _, _, body) = download(
        &app,
        &anna,
        "/api/export/daily-expenses?month=2026-03&category=none",
    )
    .await;
    let sheet = sheet_rows(&body, b';');
    assert_eq!(sheet.len(), 2);
    assert_eq!(sheet[1][1], "Kiosk");

    // The same in English.
    app.ok(&anna, "updateSettings", json!({"locale": "en"}))
        .await;
    let page = app
        .get("/daily-expenses?month=2026-03", Some(&anna.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(">As spreadsheet (CSV)</a>"), "{page}");
    let (_, _, name, body) =
        download(&app, &anna, "/api/export/daily-expenses?month=2026-03").await;
    assert!(name.contains("one-time-expenses-2026-03.csv"), "{name}");
    let sheet = sheet_rows(&body, b',');
    assert_eq!(sheet[0][0], "Date");
    assert_eq!(
        sheet[1][..4],
        ["2026-03-02", "Kiosk", "Backstube", "1234.50"]
    );

    // A month that is none is refused by name; no session, no file.
    let (status, _, _, body) =
        download(&app, &anna, "/api/export/daily-expenses?month=2026-13").await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("month"));
    let res = app
        .get("/api/export/daily-expenses?month=2026-03", None)
        .await;
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn a_searchs_hits_download_as_a_spreadsheet_in_the_users_language() {
    let app = spawn_app().await;
    let anna = german(&app).await;
    let giro = app.account(&anna, "Girokonto", "EUR").await;
    app.ok(
        &anna,
        "createDailyExpense",
        json!({"name": "Netflix Gutschein", "amount": "25", "date": "2026-03-14",
               "accountId": giro}),
    )
    .await;
    app.ok(
        &anna,
        "createExpense",
        json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
               "startDate": "2026-01-01", "accountId": giro, "isSubscription": true}),
    )
    .await;
    let bob = app.new_user().await;
    let bobs = app.account(&bob, "Bobs Konto", "EUR").await;
    app.ok(
        &bob,
        "createDailyExpense",
        json!({"name": "Netflix Bob", "amount": "12", "date": "2026-03-05", "accountId": bobs}),
    )
    .await;

    let page = app
        .get("/search?q=Netflix", Some(&anna.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<a href=\"/api/export/search?q=Netflix\" download>Als Tabelle (CSV)</a>"),
        "{page}"
    );
    let (status, kind, name, body) = download(&app, &anna, "/api/export/search?q=Netflix").await;
    assert_eq!(status, 200);
    assert_eq!(kind, "text/csv; charset=utf-8");
    assert!(name.contains("Suche.csv"), "{name}");
    let sheet = sheet_rows(&body, b';');
    assert_eq!(
        sheet[0],
        ["Art", "Datum", "Beginn", "Name", "Händler", "Betrag", "Währung", "Rhythmus"]
    );
    assert_eq!(sheet.len(), 3, "{sheet:?}");
    assert_eq!(
        sheet[1],
        [
            "Fixkosten",
            "",
            "01.01.2026",
            "Netflix",
            "",
            "13,99",
            "EUR",
            "monatlich"
        ],
        "a recurring hit: its start apart from a booking day, its rhythm"
    );
    assert_eq!(
        sheet[2],
        [
            "Ausgabe",
            "14.03.2026",
            "",
            "Netflix Gutschein",
            "",
            "25,00",
            "EUR",
            ""
        ]
    );
    assert!(!String::from_utf8_lossy(&body).contains("Bob"));

    app.ok(&anna, "updateSettings", json!({"locale": "en"}))
        .await;
    let (_, _, name, body) = download(&app, &anna, "/api/export/search?q=netflix").await;
    assert!(name.contains("search.csv"), "{name}");
    let sheet = sheet_rows(&body, b',');
    assert_eq!(sheet[0][0], "Kind");
    assert_eq!(
        sheet[1],
        [
            "Recurring expense",
            "",
            "2026-01-01",
            "Netflix",
            "",
            "13.99",
            "EUR",
            "monthly"
        ]
    );

    let (status, _, _, body) = download(&app, &anna, "/api/export/search?q=%20").await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("query"));
}

#[tokio::test]
async fn budgets_and_the_balance_history_are_spreadsheet_files_of_the_export() {
    let app = spawn_app().await;
    for (locale, delimiter) in [("de", b';'), ("en", b',')] {
        let user = app.new_user().await;
        app.ok(&user, "updateSettings", json!({"locale": locale}))
            .await;
        let giro = app
            .ok(
                &user,
                "createAccount",
                json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "100"}),
            )
            .await["id"]
            .clone();
        let first_day = app.state.clock.today();
        app.state.clock.advance(chrono::Duration::days(1));
        app.ok(
            &user,
            "updateAccount",
            json!({"id": giro, "balance": "-150.25"}),
        )
        .await;
        let food = app
            .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
            .await["id"]
            .clone();
        app.ok(
            &user,
            "setBudget",
            json!({"categoryId": food, "amount": 400, "from": "2025-01", "rollover": true}),
        )
        .await;
        app.ok(
            &user,
            "setBudget",
            json!({"categoryId": food, "amount": "350.50", "from": "2025-06"}),
        )
        .await;
        let other = app.new_user().await;
        app.ok(
            &other,
            "createAccount",
            json!({"name": "Fremdes Konto", "type": "checking", "currency": "EUR", "balance": "5"}),
        )
        .await;
        let files = unzip(&export_of(&app, &user).await);
        let file = |name: &str| {
            files
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} in the archive"))
                .1
                .clone()
        };
        let second_day = app.state.clock.today();
        let de = locale == "de";
        let day = |d: chrono::NaiveDate| {
            if de {
                d.format("%d.%m.%Y").to_string()
            } else {
                d.to_string()
            }
        };
        let budgets = sheet_rows(
            &file(if de {
                "spreadsheet/Budgets.csv"
            } else {
                "spreadsheet/budgets.csv"
            }),
            delimiter,
        );
        let balances = sheet_rows(
            &file(if de {
                "spreadsheet/Kontostand-Verlauf.csv"
            } else {
                "spreadsheet/balance-history.csv"
            }),
            delimiter,
        );
        if de {
            assert_eq!(
                budgets,
                [
                    ["Kategorie", "Gilt ab", "Betrag", "Währung", "Übertrag"],
                    ["Lebensmittel", "01.01.2025", "400,00", "EUR", "ja"],
                    ["Lebensmittel", "01.06.2025", "350,50", "EUR", "nein"],
                ]
            );
            assert_eq!(balances[0], ["Datum", "Konto", "Kontostand", "Währung"]);
        } else {
            assert_eq!(
                budgets,
                [
                    ["Category", "From", "Amount", "Currency", "Rollover"],
                    ["Lebensmittel", "2025-01-01", "400.00", "EUR", "yes"],
                    ["Lebensmittel", "2025-06-01", "350.50", "EUR", "no"],
                ]
            );
            assert_eq!(balances[0], ["Date", "Account", "Balance", "Currency"]);
        }
        let (hundred, overdrawn) = if de {
            ("100,00", "-150,25")
        } else {
            ("100.00", "-150.25")
        };
        assert_eq!(
            balances[1..],
            [
                [day(first_day), "Giro".into(), hundred.into(), "EUR".into()],
                [
                    day(second_day),
                    "Giro".into(),
                    overdrawn.into(),
                    "EUR".into()
                ],
            ],
            "{locale}: every day's balance, no other user's account"
        );
    }
}
