//! The staged CSV import of `docs/import.md`, from the outside: staging a
//! bank file (as text, as raw bytes, through the page's upload), the
//! refusals, reconciliation (new, duplicate, matched, conflict, error),
//! decisions, confirm, cancel and undo, paging, other users' ids, the AI's
//! suggestions, and a kill -9 in the middle of a confirm.
//!
//! The files are written in the Sparkasse CSV-CAMT layout (recognised
//! without a mapping) or in a made-up layout with a `mapping`.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::StatusCode;
use serde_json::{json, Value};

// ------------------------------------------------------------ bank files

const SPARKASSE_HEADER: &str = r#""Auftragskonto";"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";"Glaeubiger ID";"Mandatsreferenz";"Kundenreferenz (End-to-End)";"Sammlerreferenz";"Lastschrift Ursprungsbetrag";"Auslagenersatz Ruecklastschrift";"Beguenstigter/Zahlungspflichtiger";"Kontonummer/IBAN";"BIC (SWIFT-Code)";"Betrag";"Waehrung";"Info""#;

/// A booking as a test writes it: the day (`YYYY-MM-DD`, written the way
/// the bank writes days; anything else is taken as the cell), the amount
/// as the bank writes it (`-23,99`), the payee and the memo.
pub(crate) type Booking<'a> = (&'a str, &'a str, &'a str, &'a str);

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// `day` in `format` when it is an ISO day, else as it is.
fn bank_day(day: &str, format: &str) -> String {
    match chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d") {
        Ok(d) => d.format(format).to_string(),
        Err(_) => day.to_string(),
    }
}

/// One line of a Sparkasse CSV-CAMT export.
fn sparkasse_line(day: &str, amount: &str, payee: &str, memo: &str, currency: &str) -> String {
    let d = quoted(&bank_day(day, "%d.%m.%y"));
    let text = if amount.contains('-') {
        "KARTENZAHLUNG"
    } else {
        "GUTSCHRIFT"
    };
    format!(
        "\"1234567890\";{d};{d};\"{text}\";{};;;;;;;{};\"DE02120300000000202051\";\"BYLADEM1001\";{};{};\"Umsatz gebucht\"",
        quoted(memo),
        quoted(payee),
        quoted(amount),
        quoted(currency),
    )
}

/// A Sparkasse CSV-CAMT export of these bookings, all in EUR.
pub(crate) fn sparkasse(rows: &[Booking<'_>]) -> String {
    let mut out = format!("{SPARKASSE_HEADER}\n");
    for (day, amount, payee, memo) in rows {
        out.push_str(&sparkasse_line(day, amount, payee, memo, "EUR"));
        out.push('\n');
    }
    out
}

/// A file of a layout no bank uses; it needs [`generic_mapping`].
fn generic(rows: &[Booking<'_>]) -> String {
    let mut out = "Datum;Betrag;Empfänger;Zweck\n".to_string();
    for (day, amount, payee, memo) in rows {
        out.push_str(&format!(
            "{};{amount};{payee};{memo}\n",
            bank_day(day, "%d.%m.%Y")
        ));
    }
    out
}

fn generic_mapping() -> Value {
    json!({"date": "Datum", "amount": "Betrag", "payee": "Empfänger", "memo": "Zweck",
           "dateFormat": "%d.%m.%Y", "decimalSeparator": ","})
}

/// The text in Windows-1252, as German banks still write their files.
fn windows_1252(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| match c {
            c if c.is_ascii() => c as u8,
            'ä' => 0xE4,
            'ö' => 0xF6,
            'ü' => 0xFC,
            'Ä' => 0xC4,
            'Ö' => 0xD6,
            'Ü' => 0xDC,
            'ß' => 0xDF,
            'é' => 0xE9,
            '€' => 0x80,
            other => panic!("{other:?} is not in this test's Windows-1252 table"),
        })
        .collect()
}

/// A real 1×1 PNG.
const PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// --------------------------------------------------------------- helpers

struct Setup {
    app: TestApp,
    user: TestUser,
    account: String,
}

async fn setup() -> Setup {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    Setup { app, user, account }
}

fn id(v: &Value) -> String {
    v["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {v}"))
        .to_string()
}

/// An amount of a reply as text with two decimals.
fn m(v: &Value) -> String {
    format!(
        "{:.2}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

pub(crate) async fn stage(app: &TestApp, user: &TestUser, account: &str, csv: &str) -> Value {
    app.ok(
        user,
        "stageImport",
        json!({"accountId": account, "fileName": "umsaetze.csv", "csv": csv}),
    )
    .await
}

/// Every row of a batch, in file order.
async fn rows_of(app: &TestApp, user: &TestUser, batch: &str) -> Vec<Value> {
    app.ok(user, "getImport", json!({"id": batch, "limit": 1000}))
        .await["rows"]
        .as_array()
        .unwrap()
        .clone()
}

/// Stages and reconciles a file: the batch id and its rows.
async fn staged_and_reconciled(
    app: &TestApp,
    user: &TestUser,
    account: &str,
    csv: &str,
) -> (String, Vec<Value>) {
    let batch = id(&stage(app, user, account, csv).await);
    let reconciled = app.ok(user, "reconcileImport", json!({"id": batch})).await;
    assert_eq!(reconciled["status"], "reconciled", "{reconciled}");
    (batch.clone(), rows_of(app, user, &batch).await)
}

fn statuses(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["status"].as_str().unwrap()).collect()
}

async fn one_time_expenses(app: &TestApp, user: &TestUser) -> Vec<Value> {
    app.ok(user, "listDailyExpenses", json!({}))
        .await
        .as_array()
        .unwrap()
        .clone()
}

async fn incomes(app: &TestApp, user: &TestUser) -> Vec<Value> {
    app.ok(user, "listIncomes", json!({}))
        .await
        .as_array()
        .unwrap()
        .clone()
}

/// A one-time expense recorded by hand: its id.
async fn by_hand(
    app: &TestApp,
    user: &TestUser,
    account: &str,
    name: &str,
    amount: &str,
    date: &str,
) -> String {
    id(&app
        .ok(
            user,
            "createDailyExpense",
            json!({"name": name, "amount": amount, "date": date, "accountId": account}),
        )
        .await)
}

/// A form field of a multipart upload: name, file name, bytes.
type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

/// A `multipart/form-data` body as a browser sends it.
fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    crate::support::upload::form(parts, "text/csv")
}

/// `POST /api/imports`: the status and the JSON body.
async fn upload(app: &TestApp, cookie: Option<&str>, parts: &[Part<'_>]) -> (StatusCode, Value) {
    let (content_type, body) = multipart(parts);
    let mut req = app
        .client
        .post(app.url("/api/imports"))
        .header("content-type", content_type)
        .body(body);
    if let Some(c) = cookie {
        req = req.header("cookie", format!("cashkeeper_session={c}"));
    }
    let res = req.send().await.unwrap();
    let status = res.status();
    let text = res.text().await.unwrap();
    let body =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
    (status, body)
}

// --------------------------------------------------------------- staging

#[tokio::test]
async fn a_bank_file_is_staged_from_text_and_nothing_is_written_yet() {
    let Setup { app, user, account } = setup().await;
    let csv = sparkasse(&[
        (
            "2026-03-02",
            "-23,99",
            "REWE Markt 1234 Berlin",
            "Kartenzahlung",
        ),
        ("2026-03-03", "2.500,00", "Arbeitgeber GmbH", "Gehalt März"),
        ("2026-03-04", "-3,50", "Café Kranz", "Kaffee \"to go\""),
    ]);
    let batch = stage(&app, &user, &account, &csv).await;
    assert_eq!(batch["status"], "staged");
    assert_eq!(batch["fileName"], "umsaetze.csv");
    assert_eq!(batch["accountId"], account.as_str());
    assert!(batch["createdAt"].as_str().is_some(), "{batch}");
    assert_eq!(batch["confirmedAt"], Value::Null);
    let format = &batch["format"];
    assert!(
        format["bank"]
            .as_str()
            .is_some_and(|b| b.contains("sparkasse")),
        "{format}"
    );
    assert_eq!(format["encoding"], "utf-8", "{format}");
    assert_eq!(format["delimiter"], ";", "{format}");
    assert_eq!(format["decimalSeparator"], ",", "{format}");
    assert_eq!(format["dateFormat"], "%d.%m.%y", "{format}");
    assert_eq!(format["headerLine"], 1, "{format}");
    assert_eq!(batch["rowCount"], 3);
    assert_eq!(
        batch["counts"],
        json!({"new": 3, "duplicate": 0, "matched": 0, "conflict": 0, "error": 0})
    );

    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(rows.len(), 3);
    let want = [
        (
            2,
            "2026-03-02",
            "-23.99",
            "REWE Markt 1234 Berlin",
            "Kartenzahlung",
        ),
        (
            3,
            "2026-03-03",
            "2500.00",
            "Arbeitgeber GmbH",
            "Gehalt März",
        ),
        (4, "2026-03-04", "-3.50", "Café Kranz", "Kaffee \"to go\""),
    ];
    for (row, (line, date, amount, payee, memo)) in rows.iter().zip(want) {
        assert!(row["id"].as_str().is_some_and(|s| !s.is_empty()), "{row}");
        assert_eq!(row["line"], line, "{row}");
        assert_eq!(row["date"], date, "{row}");
        assert_eq!(m(&row["amount"]), amount, "{row}");
        assert_eq!(row["currency"], "EUR", "{row}");
        assert_eq!(row["payee"], payee, "{row}");
        assert_eq!(row["memo"], memo, "{row}");
        assert_eq!(row["status"], "new", "{row}");
        assert_eq!(row["decision"], Value::Null, "{row}");
        assert_eq!(row["match"], Value::Null, "{row}");
        assert_eq!(row["categoryId"], Value::Null, "{row}");
    }
    // Staging writes nothing to the records.
    assert!(one_time_expenses(&app, &user).await.is_empty());
    assert!(incomes(&app, &user).await.is_empty());
}

#[tokio::test]
async fn raw_windows_1252_bytes_are_read_with_their_umlauts() {
    let Setup { app, user, account } = setup().await;
    let text = sparkasse(&[
        (
            "2026-03-02",
            "-45,00",
            "Müller Bäckerei",
            "Brötchen für Jürgen",
        ),
        ("2026-03-03", "-12,00", "Straßenbahn Köln", "Fahrschein 2 €"),
    ]);
    let bytes = windows_1252(&text);
    assert!(std::str::from_utf8(&bytes).is_err(), "not UTF-8 on purpose");
    assert!(bytes.contains(&0xFC), "ü as the single byte 0xFC");
    let batch = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "fileName": "Umsätze.csv", "csvBase64": STANDARD.encode(&bytes)}),
        )
        .await;
    assert_eq!(batch["format"]["encoding"], "windows-1252", "{batch}");
    assert_eq!(batch["fileName"], "Umsätze.csv");
    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["payee"], "Müller Bäckerei");
    assert_eq!(rows[0]["memo"], "Brötchen für Jürgen");
    assert_eq!(rows[1]["payee"], "Straßenbahn Köln");
    assert_eq!(rows[1]["memo"], "Fahrschein 2 €");
    assert_eq!(m(&rows[1]["amount"]), "-12.00");
    assert_eq!(statuses(&rows), ["new", "new"]);
}

#[tokio::test]
async fn the_page_uploads_a_file_as_multipart() {
    let Setup { app, user, account } = setup().await;
    let csv = sparkasse(&[
        ("2026-03-02", "-23,99", "REWE Markt", "Kartenzahlung"),
        ("2026-03-03", "-4,20", "Bäckerei", "Brötchen"),
    ]);
    let (status, batch) = upload(
        &app,
        Some(&user.cookie),
        &[
            ("accountId", None, account.as_bytes()),
            ("file", Some("umsaetze.csv"), csv.as_bytes()),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{batch}");
    assert_eq!(batch["status"], "staged");
    assert_eq!(batch["fileName"], "umsaetze.csv");
    assert_eq!(batch["accountId"], account.as_str());
    assert_eq!(batch["rowCount"], 2);
    assert_eq!(batch["counts"]["new"], 2);
    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(rows[1]["payee"], "Bäckerei");

    // A layout that needs a mapping, with the mapping as JSON text.
    let mapped = generic(&[("2026-03-04", "-9,99", "Kino", "Karten")]);
    let mapping = generic_mapping().to_string();
    let (status, batch) = upload(
        &app,
        Some(&user.cookie),
        &[
            ("file", Some("export.csv"), mapped.as_bytes()),
            ("accountId", None, account.as_bytes()),
            ("mapping", None, mapping.as_bytes()),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{batch}");
    assert_eq!(batch["format"]["bank"], Value::Null, "{batch}");
    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(rows[0]["date"], "2026-03-04");
    assert_eq!(m(&rows[0]["amount"]), "-9.99");
    assert_eq!(rows[0]["payee"], "Kino");

    // Refusals: 400 naming the field.
    let png = STANDARD.decode(PNG_B64).unwrap();
    let unknown = "Spalte A;Spalte B\nx;y\n";
    let bad_mapping = json!({"date": "Datum", "amount": "Summe", "payee": "Empfänger"}).to_string();
    let cases: Vec<(Vec<Part<'_>>, &str)> = vec![
        (
            vec![("file", Some("a.csv"), csv.as_bytes())],
            "accountId: is required",
        ),
        (
            vec![("accountId", None, account.as_bytes())],
            "file: is required",
        ),
        (
            vec![
                ("accountId", None, account.as_bytes()),
                ("file", Some("a.csv"), &b""[..]),
            ],
            "file:",
        ),
        (
            vec![
                ("accountId", None, account.as_bytes()),
                ("file", Some("a.png"), &png[..]),
            ],
            "file:",
        ),
        (
            vec![
                ("accountId", None, account.as_bytes()),
                ("file", Some("a.csv"), unknown.as_bytes()),
            ],
            "mapping:",
        ),
        (
            vec![
                ("accountId", None, account.as_bytes()),
                ("file", Some("a.csv"), mapped.as_bytes()),
                ("mapping", None, &b"{not json"[..]),
            ],
            "mapping: is not JSON",
        ),
        (
            vec![
                ("accountId", None, account.as_bytes()),
                ("file", Some("a.csv"), mapped.as_bytes()),
                ("mapping", None, bad_mapping.as_bytes()),
            ],
            "mapping.amount:",
        ),
    ];
    for (parts, want) in &cases {
        let (status, body) = upload(&app, Some(&user.cookie), parts).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{want}: {body}");
        let error = body["error"].as_str().unwrap_or_else(|| panic!("{body}"));
        assert!(
            error.starts_with(want),
            "{error:?} should start with {want:?}"
        );
    }

    // An account that is not the user's: 404 naming the field, as on
    // every /api route.
    let (status, body) = upload(
        &app,
        Some(&user.cookie),
        &[
            ("accountId", None, &b"no-such-account"[..]),
            ("file", Some("a.csv"), csv.as_bytes()),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"], "accountId: not found");

    // Without a session: 401, and nothing staged.
    let (status, body) = upload(
        &app,
        None,
        &[
            ("accountId", None, account.as_bytes()),
            ("file", Some("a.csv"), csv.as_bytes()),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let list = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
}

#[tokio::test]
async fn an_upload_over_64_mib_is_413() {
    let Setup { app, user, account } = setup().await;
    const MIB: usize = 1024 * 1024;
    // A file of one byte over the limit, well inside the body limit, and
    // a body far over it. Binary, so that a file under the limit is
    // refused at once (400) rather than read.
    let mut file = STANDARD.decode(PNG_B64).unwrap();
    for (len, want) in [
        (64 * MIB, StatusCode::BAD_REQUEST),
        (64 * MIB + 1, StatusCode::PAYLOAD_TOO_LARGE),
        (65 * MIB, StatusCode::PAYLOAD_TOO_LARGE),
    ] {
        file.resize(len, 0);
        let (status, body) = upload(
            &app,
            Some(&user.cookie),
            &[
                ("accountId", None, account.as_bytes()),
                ("file", Some("big.csv"), &file[..]),
            ],
        )
        .await;
        assert_eq!(status, want, "a file of {len} bytes: {body}");
        if want == StatusCode::PAYLOAD_TOO_LARGE {
            assert_eq!(body["error"], "file: must be at most 64 MiB");
        }
    }
    let list = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(list, json!([]));
}

#[tokio::test]
async fn a_stage_import_body_over_16_mib_is_413() {
    let Setup { app, user, account } = setup().await;
    let mut csv = sparkasse(&[("2026-03-02", "-1,00", "A", "x")]);
    csv.push_str(&" ".repeat(16 * 1024 * 1024));
    let reply = app
        .action(
            "stageImport",
            json!({"accountId": account, "fileName": "big.csv", "csv": csv}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert_eq!(reply.body["success"], false);
    let list = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(list, json!([]));
}

#[tokio::test]
async fn files_that_cannot_be_staged_are_refused_naming_the_field() {
    let Setup { app, user, account } = setup().await;
    let other = app.new_user().await;
    let others_account = app.account(&other, "Fremd", "EUR").await;
    let csv = sparkasse(&[("2026-03-02", "-23,99", "REWE", "x")]);
    let png = STANDARD.encode(STANDARD.decode(PNG_B64).unwrap());
    let generic_csv = generic(&[("2026-03-02", "-1,00", "A", "x")]);

    let cases = [
        (
            json!({"fileName": "a.csv", "csv": csv}),
            "accountId: is required",
        ),
        (
            json!({"accountId": "no-such-account", "csv": csv}),
            "accountId: not found",
        ),
        // Another user's account is answered like an unknown one.
        (
            json!({"accountId": others_account, "csv": csv}),
            "accountId: not found",
        ),
        (json!({"accountId": account}), "csv:"),
        (
            json!({"accountId": account, "csv": csv, "csvBase64": STANDARD.encode(&csv)}),
            "csv",
        ),
        (json!({"accountId": account, "csv": ""}), "csv:"),
        (json!({"accountId": account, "csv": " \n\r\n "}), "csv:"),
        (
            json!({"accountId": account, "csv": format!("{SPARKASSE_HEADER}\n")}),
            "csv:",
        ),
        (
            json!({"accountId": account, "csvBase64": png}),
            "csvBase64:",
        ),
        (
            json!({"accountId": account, "csvBase64": "%%% not base64 %%%"}),
            "csvBase64:",
        ),
        (
            json!({"accountId": account, "csv": generic_csv,
                   "mapping": {"date": "Datum", "amount": "Summe", "payee": "Empfänger"}}),
            "mapping.amount:",
        ),
        (
            json!({"accountId": account, "csv": generic_csv,
                   "mapping": {"date": "Tag", "amount": "Betrag", "payee": "Empfänger"}}),
            "mapping.date:",
        ),
    ];
    for (body, want) in &cases {
        let error = app.refused(&user, "stageImport", body.clone()).await;
        assert!(
            error.starts_with(want),
            "{error:?} should start with {want:?}"
        );
    }
    // Unknown layout: the message asks for a mapping and lists the columns.
    let error = app
        .refused(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": "Spalte A;Spalte B;Etwas\nx;y;z\n"}),
        )
        .await;
    assert!(error.starts_with("mapping:"), "{error}");
    for column in ["Spalte A", "Spalte B", "Etwas"] {
        assert!(error.contains(column), "{error} should list {column}");
    }
    let list = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(list, json!([]), "a refused file stages nothing");
}

#[tokio::test]
async fn more_than_200000_rows_are_refused() {
    let Setup { app, user, account } = setup().await;
    let mut csv = "Datum;Betrag;Empfänger;Zweck\n".to_string();
    for i in 0..200_001 {
        csv.push_str(&format!("02.03.2026;-1,{:02};L{i};\n", i % 100));
    }
    let error = app
        .refused(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": csv, "mapping": generic_mapping()}),
        )
        .await;
    assert!(error.starts_with("csv:"), "{error}");
    assert!(
        error.contains("200000") || error.contains("200,000"),
        "{error}"
    );
}

#[tokio::test]
async fn unreadable_rows_are_errors_quoting_the_cell_and_the_others_stage() {
    let Setup { app, user, account } = setup().await;
    let mut csv = sparkasse(&[
        ("2026-03-02", "-23,99", "Rewe", "a"),
        ("31.02.26", "-5,00", "Bäcker", "b"),
        ("2026-03-03", "zwölf", "Kiosk", "c"),
        ("2026-03-04", "1.234,56-", "Möbelhaus", "d"),
    ]);
    // A ragged row: cut off before the payee and the amount.
    csv.push_str("\"1234567890\";\"05.03.26\";\"05.03.26\";\"KARTENZAHLUNG\";\"kurz\"\n");
    for (day, amount, payee, memo) in [
        ("2026-03-06", "0,00", "Sparkasse", "Rechnungsabschluss"),
        ("2026-03-07", "1.000,00", "Arbeitgeber", "Gehalt"),
    ] {
        csv.push_str(&sparkasse_line(day, amount, payee, memo, "EUR"));
        csv.push('\n');
    }
    let batch = stage(&app, &user, &account, &csv).await;
    assert_eq!(batch["rowCount"], 7, "{batch}");
    assert_eq!(batch["counts"]["new"], 3, "{batch}");
    assert_eq!(batch["counts"]["error"], 4, "{batch}");
    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(
        statuses(&rows),
        ["new", "error", "error", "new", "error", "error", "new"]
    );
    let lines: Vec<i64> = rows.iter().map(|r| r["line"].as_i64().unwrap()).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6, 7, 8]);
    let reason = |i: usize| rows[i]["reason"].as_str().unwrap_or_default().to_string();
    assert_eq!(rows[1]["date"], Value::Null, "{}", rows[1]);
    assert!(reason(1).contains("31.02.26"), "{}", rows[1]);
    assert_eq!(rows[2]["amount"], Value::Null, "{}", rows[2]);
    assert!(reason(2).contains("zwölf"), "{}", rows[2]);
    assert_eq!(m(&rows[3]["amount"]), "-1234.56", "a trailing minus");
    assert!(!reason(4).is_empty(), "{}", rows[4]);
    assert_eq!(m(&rows[5]["amount"]), "0.00", "{}", rows[5]);
    assert!(!reason(5).is_empty(), "{}", rows[5]);
    assert_eq!(m(&rows[6]["amount"]), "1000.00");

    // Reconciling leaves them errors; confirming writes only the others.
    let id_ = id(&batch);
    let again = app.ok(&user, "reconcileImport", json!({"id": id_})).await;
    assert_eq!(again["counts"]["error"], 4, "{again}");
    let done = app.ok(&user, "confirmImport", json!({"id": id_})).await;
    assert_eq!(done["imported"], 3, "{done}");
    let written = one_time_expenses(&app, &user).await;
    let mut amounts: Vec<String> = written.iter().map(|e| m(&e["amount"])).collect();
    amounts.sort();
    assert_eq!(amounts, ["1234.56", "23.99"]);
    assert_eq!(incomes(&app, &user).await.len(), 1);

    // The same with an impossible day in a file read through a mapping.
    let csv = generic(&[
        ("2026-03-02", "-1,00", "A", "x"),
        ("31.02.2026", "-2,00", "B", "y"),
        ("2026-03-03", "-3,00", "C", "z"),
    ]);
    let batch = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": csv, "mapping": generic_mapping()}),
        )
        .await;
    let rows = rows_of(&app, &user, &id(&batch)).await;
    assert_eq!(statuses(&rows), ["new", "error", "new"]);
    assert!(
        rows[1]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("31.02.2026")),
        "{}",
        rows[1]
    );
}

#[tokio::test]
async fn a_file_of_only_unreadable_rows_reconciles_and_confirms_nothing() {
    let Setup { app, user, account } = setup().await;
    let csv = sparkasse(&[
        ("2026-03-02", "0,00", "Sparkasse", "Abschluss"),
        ("99.99.99", "-1,00", "A", "x"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &csv).await;
    assert_eq!(statuses(&rows), ["error", "error"]);
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 0, "{done}");
    assert_eq!(done["batch"]["status"], "confirmed");
    assert!(one_time_expenses(&app, &user).await.is_empty());
    // Not offered as "Imported · 0 · Undo": it wrote nothing, so it says
    // so, in the history and in its own view, with nothing to undo.
    for path in ["/import".to_string(), format!("/import?batch={batch}")] {
        let html = app.page(&user, &path).await;
        assert!(html.contains(">Nothing written</span>"), "{path}: {html}");
        assert!(!html.contains(">Imported</span>"), "{path}: {html}");
        assert!(!html.contains("data-undo="), "{path}: {html}");
    }
    let html = app.page(&user, &format!("/import?batch={batch}")).await;
    assert!(
        html.contains("without writing an entry: every row was already there, skipped or in error. There is nothing to undo."),
        "{html}"
    );
}

#[tokio::test]
async fn at_most_ten_imports_wait_for_a_confirm() {
    let Setup { app, user, account } = setup().await;
    let mut open = Vec::new();
    for i in 0..10 {
        let csv = sparkasse(&[("2026-03-02", "-1,00", format!("Laden {i}").as_str(), "x")]);
        open.push(id(&stage(&app, &user, &account, &csv).await));
    }
    let eleventh = sparkasse(&[("2026-03-02", "-2,00", "Elf", "x")]);
    let body = json!({"accountId": account, "csv": eleventh});
    let error = app.refused(&user, "stageImport", body.clone()).await;
    assert!(error.contains("10"), "{error}");
    assert_eq!(
        app.ok(&user, "listImports", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        10
    );
    // A confirmed batch no longer waits...
    app.ok(&user, "confirmImport", json!({"id": open[0]})).await;
    app.ok(&user, "stageImport", body.clone()).await;
    app.refused(&user, "stageImport", body.clone()).await;
    // ...nor does a cancelled one.
    app.ok(&user, "cancelImport", json!({"id": open[1]})).await;
    app.ok(&user, "stageImport", body.clone()).await;
    app.refused(&user, "stageImport", body).await;
}

// -------------------------------------------------------- reconciliation

#[tokio::test]
async fn two_equal_coffees_on_one_day_both_import_and_one_recorded_answers_for_one() {
    let Setup { app, user, account } = setup().await;
    let coffees = sparkasse(&[
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &coffees).await;
    assert_eq!(statuses(&rows), ["new", "new"]);

    // One of them was already recorded by hand.
    let other = app.new_user().await;
    let acc = app.account(&other, "Giro", "EUR").await;
    let hand = by_hand(&app, &other, &acc, "CAFE KRANZ 0042", "3.50", "2026-03-02").await;
    let (batch, rows) = staged_and_reconciled(&app, &other, &acc, &coffees).await;
    assert_eq!(statuses(&rows), ["duplicate", "new"]);
    assert_eq!(rows[0]["match"]["kind"], "daily_expense");
    assert_eq!(rows[0]["match"]["id"], hand.as_str());
    assert_eq!(m(&rows[0]["match"]["amount"]), "3.50");
    let done = app.ok(&other, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 1, "{done}");
    assert_eq!(one_time_expenses(&app, &other).await.len(), 2);
}

#[tokio::test]
async fn the_same_file_twice_adds_nothing_even_after_renaming_the_records() {
    let Setup { app, user, account } = setup().await;
    let file = sparkasse(&[
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-03", "-23,99", "REWE Markt 1234", "Einkauf"),
        ("2026-03-04", "2.500,00", "Arbeitgeber GmbH", "Gehalt"),
    ]);
    let (first, _) = staged_and_reconciled(&app, &user, &account, &file).await;
    let done = app.ok(&user, "confirmImport", json!({"id": first})).await;
    assert_eq!(done["imported"], 4, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 3);
    assert_eq!(incomes(&app, &user).await.len(), 1);

    let (second, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&rows),
        ["duplicate", "duplicate", "duplicate", "duplicate"]
    );
    assert_eq!(rows[3]["match"]["kind"], "income", "{}", rows[3]);
    assert_eq!(rows[0]["match"]["kind"], "daily_expense", "{}", rows[0]);
    assert_ne!(
        rows[0]["match"]["id"], rows[1]["match"]["id"],
        "each record answers for one row"
    );
    let done = app.ok(&user, "confirmImport", json!({"id": second})).await;
    assert_eq!(done["imported"], 0, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 3);
    assert_eq!(incomes(&app, &user).await.len(), 1);

    // Renamed records are still known by what the import wrote.
    for e in one_time_expenses(&app, &user).await {
        app.ok(
            &user,
            "updateDailyExpense",
            json!({"id": id(&e), "name": "Kaffee mit Anna", "merchant": "Anna"}),
        )
        .await;
    }
    for i in incomes(&app, &user).await {
        app.ok(
            &user,
            "updateIncome",
            json!({"id": id(&i), "name": "Lohn", "notes": "umbenannt"}),
        )
        .await;
    }
    let (third, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&rows),
        ["duplicate", "duplicate", "duplicate", "duplicate"]
    );
    app.ok(&user, "cancelImport", json!({"id": third})).await;

    // A later file that overlaps adds only what is new: a third coffee.
    let overlap = sparkasse(&[
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-03", "-23,99", "REWE Markt 1234", "Einkauf"),
    ]);
    let (fourth, rows) = staged_and_reconciled(&app, &user, &account, &overlap).await;
    assert_eq!(
        statuses(&rows),
        ["duplicate", "duplicate", "new", "duplicate"]
    );
    let done = app.ok(&user, "confirmImport", json!({"id": fourth})).await;
    assert_eq!(done["imported"], 1, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 4);
}

#[tokio::test]
async fn duplicates_are_the_same_day_amount_and_payee_in_the_batchs_account_only() {
    let Setup { app, user, account } = setup().await;
    let savings = app.account(&user, "Tagesgeld", "EUR").await;
    let rewe = by_hand(&app, &user, &account, "Einkauf", "23.99", "2026-03-03").await;
    app.ok(
        &user,
        "updateDailyExpense",
        json!({"id": rewe, "merchant": "REWE Markt 0815 München"}),
    )
    .await;
    let salary = id(&app
        .ok(
            &user,
            "createIncome",
            json!({"name": "Arbeitgeber GmbH", "amount": "2500", "frequency": "once",
                   "startDate": "2026-03-04", "accountId": account}),
        )
        .await);
    let utility = by_hand(&app, &user, &account, "Stadtwerke", "45.00", "2026-03-05").await;
    // The same as a file row, but in another account.
    by_hand(&app, &user, &savings, "Edeka", "31.50", "2026-03-06").await;

    let file = sparkasse(&[
        ("2026-03-03", "-23,99", "REWE Markt 1234 Berlin", "Einkauf"),
        ("2026-03-04", "2.500,00", "ARBEITGEBER GMBH", "Gehalt März"),
        // No payee: the memo is the payee.
        ("2026-03-05", "-45,00", "", "STADTWERKE"),
        ("2026-03-06", "-31,50", "Edeka", "Einkauf"),
        // The same payee and day, another amount.
        ("2026-03-03", "-24,00", "REWE Markt", "Einkauf"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&rows),
        ["duplicate", "duplicate", "duplicate", "new", "new"]
    );
    assert_eq!(rows[0]["match"]["kind"], "daily_expense");
    assert_eq!(rows[0]["match"]["id"], rewe.as_str());
    assert_eq!(rows[0]["match"]["date"], "2026-03-03");
    assert_eq!(m(&rows[0]["match"]["amount"]), "23.99");
    assert!(rows[0]["reason"].as_str().is_some_and(|r| !r.is_empty()));
    assert_eq!(rows[1]["match"]["kind"], "income");
    assert_eq!(rows[1]["match"]["id"], salary.as_str());
    assert_eq!(m(&rows[1]["match"]["amount"]), "2500.00");
    assert_eq!(rows[2]["match"]["id"], utility.as_str());
}

#[tokio::test]
async fn recurring_payments_within_three_days_are_matched_each_due_once() {
    let Setup { app, user, account } = setup().await;
    let netflix = id(&app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Netflix", "amount": "12.99", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": account, "isSubscription": true}),
        )
        .await);
    let salary = id(&app
        .ok(
            &user,
            "createIncome",
            json!({"name": "Gehalt", "amount": "2500", "frequency": "monthly",
                   "startDate": "2026-01-28", "accountId": account}),
        )
        .await);
    let file = sparkasse(&[
        ("2026-03-03", "-12,99", "NETFLIX INTERNATIONAL", "Abo"),
        // The March payment answered for the row above.
        ("2026-03-04", "-12,99", "NETFLIX INTERNATIONAL", "Abo"),
        // Four days after the April one: too far.
        ("2026-04-05", "-12,99", "NETFLIX INTERNATIONAL", "Abo"),
        ("2026-03-30", "2.500,00", "Arbeitgeber GmbH", "Lohn"),
        // Money in of the expense's amount is not its payment.
        ("2026-02-01", "12,99", "NETFLIX INTERNATIONAL", "Erstattung"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["matched", "new", "new", "matched", "new"]);
    let found = &rows[0]["match"];
    assert_eq!(found["kind"], "expense", "{found}");
    assert_eq!(found["id"], netflix.as_str());
    assert_eq!(found["date"], "2026-03-01");
    assert_eq!(m(&found["amount"]), "12.99");
    assert!(rows[0]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("Netflix")));
    let found = &rows[3]["match"];
    assert_eq!(found["kind"], "income", "{found}");
    assert_eq!(found["id"], salary.as_str());
    assert_eq!(found["date"], "2026-03-28");
}

#[tokio::test]
async fn a_recurring_expense_whose_price_changed_matches_the_amount_at_that_date() {
    let Setup { app, user, account } = setup().await;
    // The change is dated today (by the service's clock): payments before
    // it were of the old amount.
    use chrono::Datelike;
    let today = chrono::Utc::now().date_naive();
    let month = |back: i32| {
        let first = chrono::NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap();
        if back >= 0 {
            first - chrono::Months::new(back as u32)
        } else {
            first + chrono::Months::new((-back) as u32)
        }
    };
    let start = month(4);
    let gym = id(&app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Fitnessstudio", "amount": "9.99", "frequency": "monthly",
                   "startDate": start.to_string(), "accountId": account}),
        )
        .await);
    app.ok(
        &user,
        "updateExpense",
        json!({"id": gym, "amount": "12.99"}),
    )
    .await;
    let day = |d: chrono::NaiveDate| (d + chrono::Duration::days(1)).to_string();
    let (two_ago, three_ago, next) = (day(month(2)), day(month(3)), day(month(-1)));
    let file = sparkasse(&[
        (two_ago.as_str(), "-9,99", "Fitnessstudio", "Beitrag"),
        (three_ago.as_str(), "-12,99", "Fitnessstudio", "Beitrag"),
        (next.as_str(), "-12,99", "Fitnessstudio", "Beitrag"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["matched", "new", "matched"], "{rows:?}");
    assert_eq!(m(&rows[0]["match"]["amount"]), "9.99");
    assert_eq!(m(&rows[2]["match"]["amount"]), "12.99");
}

#[tokio::test]
async fn a_transfer_between_own_accounts_is_matched_on_both_sides() {
    let Setup { app, user, account } = setup().await;
    let savings = app.account(&user, "Tagesgeld", "EUR").await;
    let transfer = id(&app
        .ok(
            &user,
            "createTransfer",
            json!({"fromAccountId": account, "toAccountId": savings, "amount": "500",
                   "frequency": "monthly", "startDate": "2026-01-15"}),
        )
        .await);
    // Out of the source account...
    let giro = sparkasse(&[
        ("2026-03-16", "-500,00", "Max Mustermann", "Sparen"),
        ("2026-04-15", "500,00", "Max Mustermann", "Zurück"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &giro).await;
    assert_eq!(statuses(&rows), ["matched", "new"]);
    assert_eq!(rows[0]["match"]["kind"], "transfer");
    assert_eq!(rows[0]["match"]["id"], transfer.as_str());
    assert_eq!(rows[0]["match"]["date"], "2026-03-15");
    assert_eq!(m(&rows[0]["match"]["amount"]), "500.00");
    // ...and into the target account.
    let tagesgeld = sparkasse(&[
        ("2026-03-14", "500,00", "Max Mustermann", "Sparen"),
        ("2026-04-15", "-500,00", "Max Mustermann", "Abhebung"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &savings, &tagesgeld).await;
    assert_eq!(statuses(&rows), ["matched", "new"]);
    assert_eq!(rows[0]["match"]["kind"], "transfer");
    assert_eq!(rows[0]["match"]["id"], transfer.as_str());
}

#[tokio::test]
async fn a_near_match_is_a_conflict_naming_the_record() {
    let Setup { app, user, account } = setup().await;
    let rewe = by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-03").await;
    by_hand(&app, &user, &account, "Kiosk", "5.00", "2026-03-03").await;
    by_hand(&app, &user, &account, "Lidl", "9.99", "2026-03-01").await;
    let file = sparkasse(&[
        ("2026-03-05", "-23,99", "REWE Markt 1234 Berlin", "Einkauf"),
        // Same amount and days, another payee.
        ("2026-03-05", "-5,00", "Edeka", "Einkauf"),
        // Same payee and amount, four days away.
        ("2026-03-05", "-9,99", "LIDL", "Einkauf"),
    ]);
    let (_, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["conflict", "new", "new"]);
    let found = &rows[0]["match"];
    assert_eq!(found["kind"], "daily_expense", "{found}");
    assert_eq!(found["id"], rewe.as_str());
    assert_eq!(found["date"], "2026-03-03");
    assert_eq!(m(&found["amount"]), "23.99");
    assert_eq!(found["name"], "Rewe");
    assert!(rows[0]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("Rewe")));
    assert_eq!(rows[0]["decision"], Value::Null);
}

#[tokio::test]
async fn the_merchant_memory_gives_new_rows_their_category() {
    let Setup { app, user, account } = setup().await;
    let food = id(&app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await);
    let fuel = id(&app
        .ok(&user, "createCategory", json!({"name": "Tanken"}))
        .await);
    app.ok(
        &user,
        "learnMerchantCategory",
        json!({"merchant": "Bäckerei Schmidt", "categoryId": food}),
    )
    .await;
    // A categorised one-time expense teaches its merchant too (long ago,
    // outside the file's days).
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Tanken", "merchant": "Aral Tankstelle", "amount": "60", "date": "2025-12-01",
               "accountId": account, "categoryId": fuel}),
    )
    .await;
    let file = sparkasse(&[
        ("2026-03-02", "-4,20", "BÄCKEREI SCHMIDT 0042", "Brötchen"),
        (
            "2026-03-03",
            "-70,00",
            "ARAL TANKSTELLE 1234 BERLIN",
            "Super",
        ),
        ("2026-03-04", "-9,00", "Unbekannt", "x"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["new", "new", "new"]);
    assert_eq!(rows[0]["categoryId"], food.as_str(), "{}", rows[0]);
    assert_eq!(rows[1]["categoryId"], fuel.as_str(), "{}", rows[1]);
    assert_eq!(rows[2]["categoryId"], Value::Null);
    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    let written = app
        .ok(&user, "listDailyExpenses", json!({"categoryId": food}))
        .await;
    assert_eq!(written.as_array().unwrap().len(), 1, "{written}");
    assert_eq!(m(&written[0]["amount"]), "4.20");
}

#[tokio::test]
async fn reconciling_twice_gives_the_same_result() {
    let Setup { app, user, account } = setup().await;
    by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-03").await;
    by_hand(&app, &user, &account, "Cafe Kranz", "3.50", "2026-03-02").await;
    app.ok(
        &user,
        "createExpense",
        json!({"name": "Netflix", "amount": "12.99", "frequency": "monthly",
               "startDate": "2026-01-01", "accountId": account}),
    )
    .await;
    let file = sparkasse(&[
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"),
        ("2026-03-05", "-23,99", "REWE Markt", "Einkauf"),
        ("2026-03-02", "-12,99", "Netflix", "Abo"),
        ("2026-03-06", "0,00", "Bank", "Info"),
        ("2026-03-07", "-8,00", "Kino", "Karten"),
    ]);
    let (batch, first) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&first),
        ["duplicate", "new", "conflict", "matched", "error", "new"]
    );
    let counts = app.ok(&user, "reconcileImport", json!({"id": batch})).await["counts"].clone();
    assert_eq!(
        counts,
        json!({"new": 2, "duplicate": 1, "matched": 1, "conflict": 1, "error": 1})
    );
    let second = rows_of(&app, &user, &batch).await;
    assert_eq!(first, second);
}

// -------------------------------------------------------------- decisions

#[tokio::test]
async fn conflicts_are_decided_one_by_one_or_all_at_once() {
    let Setup { app, user, account } = setup().await;
    for (name, amount) in [("Rewe", "23.99"), ("Edeka", "31.50"), ("Aldi", "12.00")] {
        by_hand(&app, &user, &account, name, amount, "2026-03-03").await;
    }
    let file = sparkasse(&[
        ("2026-03-04", "-23,99", "REWE Markt", "x"),
        ("2026-03-04", "-31,50", "EDEKA Center", "x"),
        ("2026-03-04", "-12,00", "ALDI SUED", "x"),
        ("2026-03-04", "kaputt", "Kiosk", "x"),
        ("2026-03-04", "-1,00", "Neu", "x"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&rows),
        ["conflict", "conflict", "conflict", "error", "new"]
    );
    let decide = |body: Value| {
        let mut body = body;
        body["id"] = json!(batch);
        body
    };

    let d = app
        .ok(
            &user,
            "decideImportConflict",
            decide(json!({"rowId": id(&rows[0]), "decision": "import"})),
        )
        .await;
    assert_eq!(d["decided"], 1, "{d}");
    assert_eq!(d["batch"]["id"], batch.as_str());
    let d = app
        .ok(
            &user,
            "decideImportConflict",
            decide(json!({"rowId": id(&rows[1]), "decision": "skip"})),
        )
        .await;
    assert_eq!(d["decided"], 1, "{d}");
    let now = rows_of(&app, &user, &batch).await;
    let decisions: Vec<&Value> = now.iter().map(|r| &r["decision"]).collect();
    assert_eq!(
        decisions,
        [
            &json!("import"),
            &json!("skip"),
            &Value::Null,
            &Value::Null,
            &Value::Null
        ]
    );
    assert_eq!(statuses(&now)[..3], ["conflict", "conflict", "conflict"]);

    // Refusals name the field.
    for (body, want) in [
        (
            json!({"rowId": id(&rows[3]), "decision": "import"}),
            "rowId:",
        ),
        (json!({"rowId": id(&rows[3]), "decision": "skip"}), "rowId:"),
        (
            json!({"rowId": id(&rows[0]), "decision": "maybe"}),
            "decision:",
        ),
        (json!({"rowId": id(&rows[0])}), "decision:"),
        (
            json!({"rowId": "no-such-row", "decision": "skip"}),
            "rowId: not found",
        ),
        (json!({"decision": "skip"}), "rowId:"),
        (json!({"all": "bogus", "decision": "skip"}), "all:"),
        (json!({"all": "error", "decision": "import"}), "all:"),
    ] {
        let error = app
            .refused(&user, "decideImportConflict", decide(body))
            .await;
        assert!(
            error.starts_with(want),
            "{error:?} should start with {want:?}"
        );
    }
    let error_row = &rows_of(&app, &user, &batch).await[3];
    assert_eq!(error_row["decision"], Value::Null, "{error_row}");

    // All conflicts at once, whatever they were decided before.
    let d = app
        .ok(
            &user,
            "decideImportConflict",
            decide(json!({"all": "conflict", "decision": "skip"})),
        )
        .await;
    assert_eq!(d["decided"], 3, "{d}");
    let now = rows_of(&app, &user, &batch).await;
    for r in &now[..3] {
        assert_eq!(r["decision"], "skip", "{r}");
    }
    assert_eq!(now[3]["decision"], Value::Null);
    assert_eq!(
        now[4]["decision"],
        Value::Null,
        "a new row is not a conflict"
    );
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 1, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 4);
}

// ---------------------------------------------------------------- confirm

#[tokio::test]
async fn a_confirm_is_refused_while_a_conflict_is_undecided_and_writes_nothing() {
    let Setup { app, user, account } = setup().await;
    by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-03").await;
    by_hand(&app, &user, &account, "Edeka", "31.50", "2026-03-03").await;
    let file = sparkasse(&[
        ("2026-03-04", "-23,99", "REWE Markt", "x"),
        ("2026-03-04", "-31,50", "EDEKA", "x"),
        ("2026-03-04", "-1,00", "Neu", "x"),
        ("2026-03-04", "100,00", "Erstattung", "x"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["conflict", "conflict", "new", "new"]);
    let error = app
        .refused(&user, "confirmImport", json!({"id": batch}))
        .await;
    assert!(
        error.contains("2 conflicts") && error.contains("decision"),
        "{error}"
    );
    assert_eq!(one_time_expenses(&app, &user).await.len(), 2);
    assert!(incomes(&app, &user).await.is_empty());
    let b = app.ok(&user, "getImport", json!({"id": batch})).await;
    assert_eq!(b["status"], "reconciled", "{b}");
    assert_eq!(b["confirmedAt"], Value::Null);

    app.ok(
        &user,
        "decideImportConflict",
        json!({"id": batch, "rowId": id(&rows[0]), "decision": "skip"}),
    )
    .await;
    let error = app
        .refused(&user, "confirmImport", json!({"id": batch}))
        .await;
    assert!(error.contains("1 conflict "), "{error}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 2);

    app.ok(
        &user,
        "decideImportConflict",
        json!({"id": batch, "rowId": id(&rows[1]), "decision": "import"}),
    )
    .await;
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 3, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 4);
    assert_eq!(incomes(&app, &user).await.len(), 1);
}

/// The one record of `amount` among `written`.
fn only_one<'a>(written: &'a [Value], amount: &str) -> &'a Value {
    let hits: Vec<&Value> = written
        .iter()
        .filter(|e| m(&e["amount"]) == amount)
        .collect();
    assert_eq!(hits.len(), 1, "one written record of {amount}: {written:?}");
    hits[0]
}

#[tokio::test]
async fn a_confirm_writes_new_and_decided_rows_as_the_doc_says() {
    let Setup { app, user, account } = setup().await;
    let food = id(&app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await);
    app.ok(
        &user,
        "learnMerchantCategory",
        json!({"merchant": "Bäckerei Schmidt", "categoryId": food}),
    )
    .await;
    by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-03").await;
    by_hand(&app, &user, &account, "Edeka", "31.50", "2026-03-03").await;
    by_hand(&app, &user, &account, "Cafe Kranz", "3.50", "2026-03-02").await;
    for (name, amount) in [("Netflix", "12.99"), ("Spotify", "9.99")] {
        app.ok(
            &user,
            "createExpense",
            json!({"name": name, "amount": amount, "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": account}),
        )
        .await;
    }
    let long_payee = "X".repeat(150);
    let long_memo = "Y".repeat(2100);
    let mut file = sparkasse(&[
        ("2026-03-02", "-3,50", "Cafe Kranz", "Kaffee"), // 0 duplicate
        (
            "2026-03-05",
            "-23,99",
            "REWE Markt 1234 Berlin",
            "Kartenzahlung",
        ), // 1 conflict → import
        ("2026-03-05", "-31,50", "EDEKA", "Einkauf"),    // 2 conflict → skip
        ("2026-03-02", "-12,99", "Netflix", "Abo"),      // 3 matched → import
        ("2026-03-02", "-9,99", "Spotify", "Abo"),       // 4 matched
        ("2026-03-06", "-4,20", "Bäckerei Schmidt 0042", "Brötchen"), // 5 new, category
        ("2026-03-06", "-7,00", "Kiosk", "Zeitung"),     // 6 new → skip
        ("2026-03-07", "2.500,00", "Arbeitgeber GmbH", "Gehalt März"), // 7 new income
        ("2026-03-08", "-15,00", "", "Bargeldauszahlung Automat 12"), // 8 new, no payee
        (
            "2026-03-09",
            "-1,00",
            long_payee.as_str(),
            long_memo.as_str(),
        ), // 9 new, long texts
        ("31.02.26", "-2,00", "Unlesbar", "x"),          // 10 error
        ("2026-03-10", "0,00", "Sparkasse", "Abschluss"), // 11 error
    ]);
    file.push_str(&sparkasse_line(
        "2026-03-11",
        "-5,00",
        "Amazon US",
        "Order",
        "USD",
    )); // 12 new, in dollars
    file.push('\n');
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(
        statuses(&rows),
        [
            "duplicate",
            "conflict",
            "conflict",
            "matched",
            "matched",
            "new",
            "new",
            "new",
            "new",
            "new",
            "error",
            "error",
            "new"
        ]
    );
    assert_eq!(rows[12]["currency"], "USD");
    for (row, decision) in [(1, "import"), (2, "skip"), (3, "import"), (6, "skip")] {
        app.ok(
            &user,
            "decideImportConflict",
            json!({"id": batch, "rowId": id(&rows[row]), "decision": decision}),
        )
        .await;
    }
    let before: Vec<String> = one_time_expenses(&app, &user)
        .await
        .iter()
        .map(id)
        .collect();
    assert_eq!(before.len(), 3);

    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    // Rows 1, 3, 5, 7, 8, 9 and 12.
    assert_eq!(done["imported"], 7, "{done}");
    assert_eq!(
        done["imported"].as_i64().unwrap() + done["skipped"].as_i64().unwrap(),
        13,
        "{done}"
    );
    assert_eq!(done["batch"]["status"], "confirmed");
    assert!(done["batch"]["confirmedAt"].as_str().is_some(), "{done}");

    let written: Vec<Value> = one_time_expenses(&app, &user)
        .await
        .into_iter()
        .filter(|e| !before.contains(&id(e)))
        .collect();
    assert_eq!(written.len(), 6, "{written:?}");
    let by_amount = |a: &str| only_one(&written, a);
    for e in &written {
        assert_eq!(e["accountId"], account.as_str(), "{e}");
    }
    let rewe = by_amount("23.99");
    assert_eq!(rewe["name"], "REWE Markt 1234 Berlin");
    assert_eq!(rewe["merchant"], "REWE Markt 1234 Berlin");
    assert_eq!(rewe["notes"], "Kartenzahlung");
    assert_eq!(rewe["date"], "2026-03-05");
    assert_eq!(rewe["currency"], "EUR");
    assert_eq!(rewe["categoryId"], Value::Null);
    let netflix = by_amount("12.99");
    assert_eq!(netflix["name"], "Netflix");
    assert_eq!(netflix["date"], "2026-03-02");
    let bread = by_amount("4.20");
    assert_eq!(bread["name"], "Bäckerei Schmidt 0042");
    assert_eq!(bread["notes"], "Brötchen");
    assert_eq!(bread["categoryId"], food.as_str());
    let cash = by_amount("15.00");
    assert_eq!(cash["name"], "Bargeldauszahlung Automat 12");
    assert_eq!(cash["merchant"], "");
    assert_eq!(cash["notes"], "Bargeldauszahlung Automat 12");
    let long = by_amount("1.00");
    assert_eq!(long["name"], "X".repeat(100));
    assert_eq!(long["notes"], "Y".repeat(2000));
    let dollars = by_amount("5.00");
    assert_eq!(dollars["currency"], "USD");
    assert_eq!(dollars["name"], "Amazon US");
    for skipped in ["3.50", "31.50", "9.99", "7.00", "2.00", "0.00"] {
        assert!(
            written.iter().all(|e| m(&e["amount"]) != skipped),
            "{skipped} must not be written: {written:?}"
        );
    }

    let incomes = incomes(&app, &user).await;
    assert_eq!(incomes.len(), 1, "{incomes:?}");
    let salary = &incomes[0];
    assert_eq!(salary["name"], "Arbeitgeber GmbH");
    assert_eq!(m(&salary["amount"]), "2500.00");
    assert_eq!(salary["frequency"], "once");
    assert_eq!(salary["startDate"], "2026-03-07");
    assert_eq!(salary["notes"], "Gehalt März");
    assert_eq!(salary["accountId"], account.as_str());
    assert_eq!(salary["currency"], "EUR");

    // A second confirm is refused and writes nothing; the batch is closed.
    let error = app
        .refused(&user, "confirmImport", json!({"id": batch}))
        .await;
    assert!(error.starts_with("id:"), "{error}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 9);
    assert_eq!(
        app.ok(&user, "listIncomes", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let error = app
        .refused(
            &user,
            "decideImportConflict",
            json!({"id": batch, "rowId": id(&rows[2]), "decision": "import"}),
        )
        .await;
    assert!(error.starts_with("id:"), "{error}");
    let error = app
        .refused(&user, "reconcileImport", json!({"id": batch}))
        .await;
    assert!(error.starts_with("id:"), "{error}");
}

#[tokio::test]
async fn a_confirm_reconciles_again_and_never_writes_a_movement_twice() {
    let Setup { app, user, account } = setup().await;
    let file = sparkasse(&[
        ("2026-03-02", "-23,99", "Rewe", "Einkauf"),
        ("2026-03-03", "-8,00", "Kino", "Karten"),
        ("2026-03-04", "-6,00", "Eisdiele", "Eis"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["new", "new", "new"]);
    // Recorded after the preview: the same as row 0, and near row 1.
    by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-02").await;
    by_hand(&app, &user, &account, "Kino", "8.00", "2026-03-01").await;
    let error = app
        .refused(&user, "confirmImport", json!({"id": batch}))
        .await;
    assert!(error.contains("1 conflict "), "{error}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 2);
    // The preview shows what the confirm found.
    let rows = rows_of(&app, &user, &batch).await;
    assert_eq!(statuses(&rows), ["duplicate", "conflict", "new"]);
    app.ok(
        &user,
        "decideImportConflict",
        json!({"id": batch, "all": "conflict", "decision": "skip"}),
    )
    .await;
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 1, "{done}");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 3);
}

#[tokio::test]
async fn two_concurrent_confirms_of_one_batch_write_it_once() {
    let Setup { app, user, account } = setup().await;
    let bookings: Vec<(String, String, String)> = (0..200)
        .map(|i| {
            (
                format!("2026-03-{:02}", 1 + i % 28),
                format!("-{},{:02}", 1 + i / 10, i % 100),
                format!("Laden {i}"),
            )
        })
        .collect();
    let refs: Vec<Booking<'_>> = bookings
        .iter()
        .map(|(d, a, p)| (d.as_str(), a.as_str(), p.as_str(), "x"))
        .collect();
    let (batch, _) = staged_and_reconciled(&app, &user, &account, &sparkasse(&refs)).await;
    let body = json!({"id": batch});
    let (a, b) = tokio::join!(
        app.action("confirmImport", body.clone(), Some(&user.cookie)),
        app.action("confirmImport", body.clone(), Some(&user.cookie)),
    );
    assert_eq!(
        [a.ok(), b.ok()].iter().filter(|ok| **ok).count(),
        1,
        "exactly one confirm succeeds: {} / {}",
        a.body,
        b.body
    );
    let (winner, loser) = if a.ok() { (&a, &b) } else { (&b, &a) };
    assert_eq!(winner.body["data"]["imported"], 200);
    // Refused in words, whether it came while the first ran or after.
    assert!(
        [
            "id: is being confirmed or taken back; wait until it is done",
            "id: is already confirmed; undoImport takes it back"
        ]
        .contains(&loser.error().unwrap()),
        "{}",
        loser.body
    );
    assert_eq!(one_time_expenses(&app, &user).await.len(), 200);
}

// ------------------------------------------------------- cancel and undo

#[tokio::test]
async fn undo_removes_exactly_what_the_import_wrote() {
    let Setup { app, user, account } = setup().await;
    let before = by_hand(&app, &user, &account, "Vorher", "1.00", "2026-03-01").await;
    let hand_income = id(&app
        .ok(
            &user,
            "createIncome",
            json!({"name": "Bonus", "amount": "100", "frequency": "once",
                   "startDate": "2026-03-01", "accountId": account}),
        )
        .await);
    let file = sparkasse(&[
        ("2026-03-02", "-23,99", "Rewe", "Einkauf"),
        ("2026-03-03", "-8,00", "Kino", "Karten"),
        ("2026-03-04", "2.500,00", "Arbeitgeber", "Gehalt"),
    ]);
    let (batch, _) = staged_and_reconciled(&app, &user, &account, &file).await;
    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    let after = by_hand(&app, &user, &account, "Nachher", "2.00", "2026-03-05").await;
    let imported: Vec<String> = one_time_expenses(&app, &user)
        .await
        .iter()
        .map(id)
        .filter(|i| *i != before && *i != after)
        .collect();
    assert_eq!(imported.len(), 2);
    // Edited since, and with a document attached.
    app.ok(
        &user,
        "updateDailyExpense",
        json!({"id": imported[0], "name": "Wocheneinkauf", "amount": "24.99"}),
    )
    .await;
    let doc = id(&app
        .ok(
            &user,
            "uploadDocument",
            json!({"fileName": "bon.png", "contentType": "image/png", "dataBase64": PNG_B64,
                   "dailyExpenseId": imported[0]}),
        )
        .await);

    let undone = app.ok(&user, "undoImport", json!({"id": batch})).await;
    assert_eq!(undone["removed"], 3, "{undone}");
    assert_eq!(undone["batch"]["status"], "cancelled");
    let mut left: Vec<String> = one_time_expenses(&app, &user)
        .await
        .iter()
        .map(id)
        .collect();
    left.sort();
    let mut want = vec![before.clone(), after.clone()];
    want.sort();
    assert_eq!(left, want);
    let left: Vec<String> = incomes(&app, &user).await.iter().map(id).collect();
    assert_eq!(left, [hand_income]);
    // The document stays, unattached.
    let docs = app.ok(&user, "listDocuments", json!({})).await;
    assert_eq!(docs.as_array().unwrap().len(), 1, "{docs}");
    assert_eq!(docs[0]["id"], doc.as_str());
    assert_eq!(docs[0]["dailyExpenseId"], Value::Null);
    // The batch keeps its line, without rows.
    let b = app.ok(&user, "getImport", json!({"id": batch})).await;
    assert_eq!(b["status"], "cancelled");
    assert_eq!(b["rows"], json!([]));
    let list = app.ok(&user, "listImports", json!({})).await;
    assert_eq!(list[0]["id"], batch.as_str());
    assert_eq!(list[0]["status"], "cancelled");

    // Only once; and the file can be imported again afterwards.
    let error = app.refused(&user, "undoImport", json!({"id": batch})).await;
    assert!(error.starts_with("id:"), "{error}");
    let (again, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["new", "new", "new"]);
    let done = app.ok(&user, "confirmImport", json!({"id": again})).await;
    assert_eq!(done["imported"], 3);
}

#[tokio::test]
async fn cancel_and_undo_take_only_the_batches_they_are_for() {
    let Setup { app, user, account } = setup().await;
    let file = sparkasse(&[("2026-03-02", "-23,99", "Rewe", "Einkauf")]);
    let staged = id(&stage(&app, &user, &account, &file).await);
    let error = app
        .refused(&user, "undoImport", json!({"id": staged}))
        .await;
    assert!(error.starts_with("id:"), "{error}");
    let (reconciled, _) = staged_and_reconciled(&app, &user, &account, &file).await;
    let error = app
        .refused(&user, "undoImport", json!({"id": reconciled}))
        .await;
    assert!(error.starts_with("id:"), "{error}");

    let cancelled = app.ok(&user, "cancelImport", json!({"id": staged})).await;
    assert_eq!(cancelled["status"], "cancelled");
    let b = app.ok(&user, "getImport", json!({"id": staged})).await;
    assert_eq!(b["rows"], json!([]), "a cancelled batch keeps no rows");
    for action in ["confirmImport", "reconcileImport"] {
        let error = app.refused(&user, action, json!({"id": staged})).await;
        assert!(error.starts_with("id:"), "{action}: {error}");
    }
    let error = app
        .refused(
            &user,
            "decideImportConflict",
            json!({"id": staged, "all": "new", "decision": "skip"}),
        )
        .await;
    assert!(error.starts_with("id:"), "{error}");
    assert!(one_time_expenses(&app, &user).await.is_empty());

    app.ok(&user, "confirmImport", json!({"id": reconciled}))
        .await;
    let error = app
        .refused(&user, "cancelImport", json!({"id": reconciled}))
        .await;
    assert!(error.starts_with("id:"), "{error}");
    let b = app.ok(&user, "getImport", json!({"id": reconciled})).await;
    assert_eq!(b["status"], "confirmed");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 1);
}

// ----------------------------------------------------- reading batches

#[tokio::test]
async fn get_import_pages_and_filters_the_rows() {
    let Setup { app, user, account } = setup().await;
    let bookings: Vec<(String, String)> = (0..250)
        .map(|i| {
            let amount = if i % 10 == 9 {
                "kaputt".to_string()
            } else {
                format!("-{},{:02}", 1 + i, i % 100)
            };
            (amount, format!("Laden {i}"))
        })
        .collect();
    let refs: Vec<Booking<'_>> = bookings
        .iter()
        .map(|(a, p)| ("2026-03-02", a.as_str(), p.as_str(), "x"))
        .collect();
    let batch = id(&stage(&app, &user, &account, &sparkasse(&refs)).await);
    let page = |body: Value| {
        let mut body = body;
        body["id"] = json!(batch);
        body
    };
    let lines = |v: &Value| -> Vec<i64> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["line"].as_i64().unwrap())
            .collect()
    };

    let all = app.ok(&user, "getImport", page(json!({}))).await;
    assert_eq!(all["rowCount"], 250);
    assert_eq!(
        lines(&all),
        (2..202i64).collect::<Vec<_>>(),
        "200 by default"
    );
    let p = app
        .ok(&user, "getImport", page(json!({"offset": 10, "limit": 5})))
        .await;
    assert_eq!(lines(&p), [12, 13, 14, 15, 16]);
    let p = app
        .ok(
            &user,
            "getImport",
            page(json!({"offset": 240, "limit": 1000})),
        )
        .await;
    assert_eq!(lines(&p), (242..252i64).collect::<Vec<_>>());
    let errors = app
        .ok(&user, "getImport", page(json!({"status": "error"})))
        .await;
    assert_eq!(errors["counts"]["error"], 25);
    assert_eq!(errors["rows"].as_array().unwrap().len(), 25);
    assert!(errors["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "error"));
    let p = app
        .ok(
            &user,
            "getImport",
            page(json!({"status": "error", "offset": 20, "limit": 10})),
        )
        .await;
    assert_eq!(lines(&p), [211, 221, 231, 241, 251]);
    let news = app
        .ok(
            &user,
            "getImport",
            page(json!({"status": "new", "limit": 1000})),
        )
        .await;
    assert_eq!(news["rows"].as_array().unwrap().len(), 225);

    for (body, want) in [
        (json!({"limit": 1001}), "limit:"),
        (json!({"limit": 0}), "limit:"),
        (json!({"offset": -1}), "offset:"),
        (json!({"status": "bogus"}), "status:"),
    ] {
        let error = app.refused(&user, "getImport", page(body)).await;
        assert!(
            error.starts_with(want),
            "{error:?} should start with {want:?}"
        );
    }
    let error = app.refused(&user, "getImport", json!({})).await;
    assert!(error.starts_with("id:"), "{error}");
}

/// The rows of a `getImport` reply: their ids.
fn row_ids(v: &Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn get_import_pages_by_key_and_a_deep_page_costs_what_the_first_costs() {
    let Setup { app, user, account } = setup().await;
    // 4,000 rows, every tenth unreadable.
    let bookings: Vec<(String, String)> = (0..4000)
        .map(|i| {
            let amount = if i % 10 == 9 {
                "kaputt".to_string()
            } else {
                format!("-{},{:02}", 1 + i % 500, i % 100)
            };
            (amount, format!("Laden {i}"))
        })
        .collect();
    let refs: Vec<Booking<'_>> = bookings
        .iter()
        .map(|(a, p)| ("2026-03-02", a.as_str(), p.as_str(), "x"))
        .collect();
    let batch = id(&stage(&app, &user, &account, &sparkasse(&refs)).await);
    let get = |mut body: Value| {
        body["id"] = json!(batch);
        let (app, user) = (&app, &user);
        async move { app.ok(user, "getImport", body).await }
    };
    // Walked by key, all rows and the unreadable ones are what the offsets
    // give.
    let mut walks = Vec::new();
    for status in [None, Some("error")] {
        let mut by_key: Vec<String> = Vec::new();
        // At most the pages 4,000 rows fill, should `after` be ignored.
        for _ in 0..7 {
            let mut body = json!({"limit": 700});
            if let Some(s) = status {
                body["status"] = json!(s);
            }
            if let Some(last) = by_key.last() {
                body["after"] = json!(last);
            }
            let page = row_ids(&get(body).await);
            let done = page.len() < 700;
            by_key.extend(page);
            if done {
                break;
            }
        }
        let mut by_offset = Vec::new();
        for offset in (0..4000).step_by(1000) {
            let mut body = json!({"limit": 1000, "offset": offset});
            if let Some(s) = status {
                body["status"] = json!(s);
            }
            by_offset.extend(row_ids(&get(body).await));
        }
        assert_eq!(by_key.len(), if status.is_some() { 400 } else { 4000 });
        assert_eq!(by_key, by_offset, "{status:?}");
        walks.push(by_key);
    }
    let (all, errors) = (&walks[0], &walks[1]);
    // `after` and `offset` together: past the row, then past more.
    let p = row_ids(&get(json!({"after": all[99], "offset": 10, "limit": 5})).await);
    assert_eq!(p, all[110..115]);
    // Another batch's row is no key.
    let other = id(&stage(&app, &user, &account, &sparkasse(&refs[..3])).await);
    let first_of_other =
        row_ids(&app.ok(&user, "getImport", json!({"id": other})).await)[0].clone();
    let e = app
        .refused(
            &user,
            "getImport",
            json!({"id": batch, "after": first_of_other}),
        )
        .await;
    assert_eq!(e, "after: not found");

    // A deep page, by offset over all rows or by key within one status,
    // costs what the first costs (`Db::read_steps`, in thousands of steps).
    let cost = |body: Value| {
        let get = &get;
        let app = &app;
        async move {
            let (reply, steps) = app.read_steps(get(body)).await;
            (row_ids(&reply), steps)
        }
    };
    let (_, first) = cost(json!({"limit": 100})).await;
    let (deep, deep_cost) = cost(json!({"offset": 3800, "limit": 100})).await;
    assert_eq!(deep, all[3800..3900]);
    let (_, first_errors) = cost(json!({"status": "error", "limit": 20})).await;
    let (deep_errors, deep_errors_cost) =
        cost(json!({"status": "error", "after": errors[379], "limit": 20})).await;
    assert_eq!(deep_errors, errors[380..400]);
    eprintln!(
        "all rows: {first}k steps first, {deep_cost}k deep; errors: {first_errors}k first, \
         {deep_errors_cost}k deep"
    );
    assert!(
        deep_cost <= first + first / 4 + 2,
        "{deep_cost}k, first {first}k"
    );
    assert!(
        deep_errors_cost <= first_errors + first_errors / 4 + 2,
        "{deep_errors_cost}k, first {first_errors}k"
    );
}

#[tokio::test]
async fn list_imports_shows_the_newest_first() {
    let Setup { app, user, account } = setup().await;
    for (i, name) in ["januar.csv", "februar.csv", "maerz.csv"]
        .iter()
        .enumerate()
    {
        let csv = sparkasse(&[("2026-03-02", "-1,00", format!("Laden {i}").as_str(), "x")]);
        app.ok(
            &user,
            "stageImport",
            json!({"accountId": account, "fileName": name, "csv": csv}),
        )
        .await;
    }
    let list = app.ok(&user, "listImports", json!({})).await;
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["fileName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["maerz.csv", "februar.csv", "januar.csv"]);
    assert_eq!(list[0]["counts"]["new"], 1, "{list}");
    assert!(list[0].get("rows").is_none(), "a list carries no rows");
    let other = app.new_user().await;
    assert_eq!(app.ok(&other, "listImports", json!({})).await, json!([]));
}

// ------------------------------------------------------------ other users

#[tokio::test]
async fn another_users_batches_and_rows_are_answered_like_unknown_ones() {
    let Setup { app, user, account } = setup().await;
    by_hand(&app, &user, &account, "Rewe", "23.99", "2026-03-03").await;
    let file = sparkasse(&[
        ("2026-03-04", "-23,99", "REWE Markt", "x"),
        ("2026-03-04", "-1,00", "Neu", "x"),
    ]);
    let (open, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    assert_eq!(statuses(&rows), ["conflict", "new"]);
    let confirmed_file = sparkasse(&[("2026-03-05", "-2,00", "Kiosk", "x")]);
    let (confirmed, _) = staged_and_reconciled(&app, &user, &account, &confirmed_file).await;
    app.ok(&user, "confirmImport", json!({"id": confirmed}))
        .await;

    let mallory = app.new_user().await;
    let own_account = app.account(&mallory, "Giro", "EUR").await;
    let (own, own_rows) = staged_and_reconciled(&app, &mallory, &own_account, &file).await;
    let unknown = "00000000-0000-0000-0000-000000000000";

    for batch in [&open, &confirmed] {
        for (action, extra) in [
            ("getImport", json!({})),
            ("reconcileImport", json!({})),
            (
                "decideImportConflict",
                json!({"rowId": id(&rows[0]), "decision": "import"}),
            ),
            (
                "decideImportConflict",
                json!({"all": "conflict", "decision": "import"}),
            ),
            ("confirmImport", json!({})),
            ("cancelImport", json!({})),
            ("undoImport", json!({})),
        ] {
            let call = |id: &str| {
                let mut body = extra.clone();
                body["id"] = json!(id);
                body
            };
            let theirs = app.refused(&mallory, action, call(batch)).await;
            let made_up = app.refused(&mallory, action, call(unknown)).await;
            assert_eq!(theirs, made_up, "{action}");
            assert_eq!(theirs, "id: not found", "{action}");
        }
    }
    // A row of another user's batch, asked for through one's own batch.
    for decision in ["import", "skip"] {
        let theirs = app
            .refused(
                &mallory,
                "decideImportConflict",
                json!({"id": own, "rowId": id(&rows[0]), "decision": decision}),
            )
            .await;
        let made_up = app
            .refused(
                &mallory,
                "decideImportConflict",
                json!({"id": own, "rowId": unknown, "decision": decision}),
            )
            .await;
        assert_eq!(theirs, made_up);
        assert_eq!(theirs, "rowId: not found");
    }
    // Nor through the owner's batch with another batch's row.
    let error = app
        .refused(
            &user,
            "decideImportConflict",
            json!({"id": open, "rowId": id(&own_rows[0]), "decision": "import"}),
        )
        .await;
    assert_eq!(error, "rowId: not found");
    // And another user's account is not a place to stage a file.
    let theirs = app
        .refused(
            &mallory,
            "stageImport",
            json!({"accountId": account, "csv": file}),
        )
        .await;
    let made_up = app
        .refused(
            &mallory,
            "stageImport",
            json!({"accountId": unknown, "csv": file}),
        )
        .await;
    assert_eq!(theirs, made_up);

    // The owner's batches are as they were.
    let b = app.ok(&user, "getImport", json!({"id": open})).await;
    assert_eq!(b["status"], "reconciled");
    let now = b["rows"].as_array().unwrap();
    assert_eq!(statuses(now), ["conflict", "new"]);
    assert!(now.iter().all(|r| r["decision"].is_null()), "{b}");
    let b = app.ok(&user, "getImport", json!({"id": confirmed})).await;
    assert_eq!(b["status"], "confirmed");
    assert_eq!(one_time_expenses(&app, &user).await.len(), 2);
    assert_eq!(
        app.ok(&mallory, "listImports", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

// --------------------------------------------------------- AI suggestions

#[tokio::test]
async fn ai_suggestions_without_a_provider_say_so_and_change_nothing() {
    let Setup { app, user, account } = setup().await;
    let file = sparkasse(&[("2026-03-02", "-4,20", "Bäckerei", "Brötchen")]);
    let batch = id(&stage(&app, &user, &account, &file).await);
    let r = app
        .ok(&user, "reconcileImport", json!({"id": batch, "ai": true}))
        .await;
    assert_eq!(r["status"], "reconciled");
    assert!(
        r["ai"]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{r}"
    );
    let rows = rows_of(&app, &user, &batch).await;
    assert_eq!(statuses(&rows), ["new"]);
    assert_eq!(rows[0]["reason"], Value::Null);
    let plain = app.ok(&user, "reconcileImport", json!({"id": batch})).await;
    assert!(plain.get("ai").is_none(), "only asked for: {plain}");
}

/// A scripted AI provider and an app that asks it, with a user, the
/// account "Giro" and the category "Lebensmittel".
async fn with_ai() -> (crate::assistant::ChatProvider, Setup) {
    use crate::assistant::{app_with_chat, ChatProvider, Dialect};
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    app.ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await;
    (provider, Setup { app, user, account })
}

#[tokio::test]
async fn ai_suggestions_land_in_the_reason_only() {
    use crate::assistant::Turn;
    let (provider, Setup { app, user, account }) = with_ai().await;
    by_hand(&app, &user, &account, "Kiosk Müller", "5.00", "2026-03-03").await;
    let file = sparkasse(&[
        ("2026-03-02", "-4,20", "Bäckerei Schmidt", "Brötchen"),
        ("2026-03-05", "-5,00", "Zeitschriftenladen", "Zeitung"),
    ]);
    let batch = id(&stage(&app, &user, &account, &file).await);
    provider.then(Turn::Text(
        json!({"categories": [{"payee": "Bäckerei Schmidt", "category": "Lebensmittel"}],
               "duplicates": [0]})
        .to_string(),
    ));
    let r = app
        .ok(&user, "reconcileImport", json!({"id": batch, "ai": true}))
        .await;
    assert_eq!(r["ai"]["categories"], 1, "{r}");
    assert_eq!(r["ai"]["duplicates"], 1, "{r}");
    assert_eq!(provider.requests().len(), 1);
    let rows = rows_of(&app, &user, &batch).await;
    assert_eq!(statuses(&rows), ["new", "new"]);
    assert!(
        rows[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Lebensmittel")),
        "{}",
        rows[0]
    );
    assert!(
        rows[1]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Kiosk Müller")),
        "{}",
        rows[1]
    );
    for r in &rows {
        assert_eq!(r["categoryId"], Value::Null, "{r}");
        assert_eq!(r["decision"], Value::Null, "{r}");
    }
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 2, "{done}");
    let uncategorised = app
        .ok(&user, "listDailyExpenses", json!({"categoryId": "none"}))
        .await;
    assert_eq!(
        uncategorised.as_array().unwrap().len(),
        3,
        "{uncategorised}"
    );
}

/// A confirm reconciles the batch again only when the user's data changed
/// since its last reconcile: right after it, the rows are confirmed as
/// reviewed (the AI's reasons stay); after a write, they are reconciled
/// again first (a reconcile gives no AI reason, so it is gone).
#[tokio::test]
async fn a_confirm_reconciles_again_only_when_the_users_data_changed_since_the_reconcile() {
    use crate::assistant::Turn;
    let (provider, Setup { app, user, account }) = with_ai().await;
    let reason_after_confirm = |write_between: bool| {
        let (app, user, account, provider) = (&app, &user, &account, &provider);
        async move {
            // Another movement each time: not a duplicate of the first.
            let (day, amount) = match write_between {
                false => ("2026-03-02", "-4,20"),
                true => ("2026-03-09", "-7,10"),
            };
            let file = sparkasse(&[(day, amount, "Bäckerei Schmidt", "Brötchen")]);
            let batch = id(&stage(app, user, account, &file).await);
            provider.then(Turn::Text(
                json!({"categories": [{"payee": "Bäckerei Schmidt", "category": "Lebensmittel"}],
                       "duplicates": []})
                .to_string(),
            ));
            let r = app
                .ok(user, "reconcileImport", json!({"id": batch, "ai": true}))
                .await;
            assert_eq!(r["ai"]["categories"], 1, "{r}");
            if write_between {
                by_hand(app, user, account, "Kiosk", "1.00", "2026-01-10").await;
            }
            let done = app.ok(user, "confirmImport", json!({"id": batch})).await;
            assert_eq!(done["imported"], 1, "{done}");
            rows_of(app, user, &batch).await[0]["reason"].clone()
        }
    };
    let kept = reason_after_confirm(false).await;
    assert!(
        kept.as_str().is_some_and(|r| r.contains("Lebensmittel")),
        "{kept}"
    );
    assert_eq!(reason_after_confirm(true).await, Value::Null);
}

#[tokio::test]
async fn categories_chosen_before_the_confirm_stay_are_written_and_teach_the_merchant_memory() {
    let Setup { app, user, account } = setup().await;
    let food = id(&app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await);
    let fuel = id(&app
        .ok(&user, "createCategory", json!({"name": "Tanken"}))
        .await);
    let file = sparkasse(&[
        ("2026-03-02", "-4,20", "Bäckerei Schmidt", "Brötchen"),
        ("2026-03-03", "-70,00", "Tankstelle Nord", "Super"),
        ("2026-03-04", "2.500,00", "Arbeitgeber GmbH", "Gehalt"),
    ]);
    let (batch, rows) = staged_and_reconciled(&app, &user, &account, &file).await;
    for r in &rows {
        assert_eq!(r["categoryId"], Value::Null, "{r}");
        assert_eq!(r["suggestedCategoryId"], Value::Null, "{r}");
    }
    let set = |row: &Value, category: Value| json!({"id": batch, "rowId": row["id"], "categoryId": category});
    let row = app
        .ok(&user, "setImportRowCategory", set(&rows[0], json!(food)))
        .await;
    assert_eq!(row["categoryId"], food.as_str(), "{row}");
    assert_eq!(row["id"], rows[0]["id"]);
    app.ok(&user, "setImportRowCategory", set(&rows[1], json!(food)))
        .await;
    let cleared = app
        .ok(&user, "setImportRowCategory", set(&rows[1], Value::Null))
        .await;
    assert_eq!(cleared["categoryId"], Value::Null, "{cleared}");

    // Refusals name the field and change nothing.
    let other = app.new_user().await;
    let theirs = id(&app
        .ok(&other, "createCategory", json!({"name": "Fremd"}))
        .await);
    for (body, said) in [
        (set(&rows[1], json!(theirs)), "categoryId: not found"),
        (
            set(&rows[1], json!("no-such-category")),
            "categoryId: not found",
        ),
        (
            set(&rows[2], json!(food)),
            "rowId: is money in; only money out gets a category",
        ),
        (
            json!({"id": batch, "rowId": "no-such-row", "categoryId": food}),
            "rowId: not found",
        ),
        (
            json!({"id": batch, "categoryId": food}),
            "rowId: is required",
        ),
    ] {
        assert_eq!(
            app.refused(&user, "setImportRowCategory", body.clone())
                .await,
            said,
            "{body}"
        );
    }
    // Another user's batch is unknown.
    assert_eq!(
        app.refused(&other, "setImportRowCategory", set(&rows[0], Value::Null))
            .await,
        "id: not found"
    );

    // A choice stays when the batch is reconciled again (the merchant
    // memory knows neither payee).
    app.ok(&user, "reconcileImport", json!({"id": batch})).await;
    let rows = rows_of(&app, &user, &batch).await;
    assert_eq!(rows[0]["categoryId"], food.as_str(), "{}", rows[0]);
    assert_eq!(rows[1]["categoryId"], Value::Null, "{}", rows[1]);
    app.ok(&user, "setImportRowCategory", set(&rows[1], json!(fuel)))
        .await;

    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], 3, "{done}");
    for (category, amount) in [(&food, "4.20"), (&fuel, "70.00")] {
        let written = app
            .ok(&user, "listDailyExpenses", json!({"categoryId": category}))
            .await;
        assert_eq!(written.as_array().unwrap().len(), 1, "{written}");
        assert_eq!(m(&written[0]["amount"]), amount);
    }
    // The merchant memory learned both payees: the next file arrives categorised.
    let hints = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "Tankstelle Nord"}),
        )
        .await;
    assert_eq!(hints["categoryId"], fuel.as_str(), "{hints}");
    let next = sparkasse(&[
        ("2026-04-02", "-3,80", "Bäckerei Schmidt", "Brötchen"),
        ("2026-04-03", "-65,00", "Tankstelle Nord", "Super"),
    ]);
    let (_, rows2) = staged_and_reconciled(&app, &user, &account, &next).await;
    assert_eq!(rows2[0]["categoryId"], food.as_str(), "{}", rows2[0]);
    assert_eq!(rows2[1]["categoryId"], fuel.as_str(), "{}", rows2[1]);

    // A confirmed batch takes no more changes.
    assert_eq!(
        app.refused(&user, "setImportRowCategory", set(&rows[0], Value::Null))
            .await,
        "id: is already confirmed; undoImport takes it back"
    );
}

#[tokio::test]
async fn the_ais_suggestions_are_accepted_one_by_one_or_all_at_once() {
    use crate::assistant::{app_with_chat, ChatProvider, Dialect, Turn};
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let food = id(&app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await);
    let fun = id(&app
        .ok(&user, "createCategory", json!({"name": "Freizeit"}))
        .await);
    let file = sparkasse(&[
        ("2026-03-02", "-4,20", "Bäckerei Schmidt", "Brötchen"),
        ("2026-03-03", "-12,00", "Kino am Markt", "Tickets"),
        ("2026-03-04", "-3,10", "Bäckerei Schmidt", "Kuchen"),
    ]);
    let batch = id(&stage(&app, &user, &account, &file).await);
    provider.then(Turn::Text(
        json!({"categories": [{"payee": "Bäckerei Schmidt", "category": "Lebensmittel"},
                              {"payee": "Kino am Markt", "category": "freizeit"}],
               "duplicates": []})
        .to_string(),
    ));
    let r = app
        .ok(&user, "reconcileImport", json!({"id": batch, "ai": true}))
        .await;
    assert_eq!(r["ai"]["categories"], 3, "{r}");
    let rows = rows_of(&app, &user, &batch).await;
    assert_eq!(rows[0]["suggestedCategoryId"], food.as_str(), "{}", rows[0]);
    assert_eq!(rows[1]["suggestedCategoryId"], fun.as_str(), "{}", rows[1]);
    for r in &rows {
        assert_eq!(r["categoryId"], Value::Null, "a suggestion only: {r}");
    }

    // The page offers a category on every row and the suggestions.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let page = app
        .get(&format!("/import?batch={batch}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(
        page.matches("data-row-category").count(),
        3,
        "a select per row"
    );
    assert!(
        page.contains("Vorschlag: Lebensmittel"),
        "the suggestion is named"
    );
    assert!(
        page.contains("data-accept-suggestions"),
        "and all can be taken at once"
    );
    assert!(page.contains("Alle Vorschläge übernehmen"));

    // The person picks another category for the last row; "apply all"
    // fills only the rows without one.
    app.ok(
        &user,
        "setImportRowCategory",
        json!({"id": batch, "rowId": rows[2]["id"], "categoryId": fun}),
    )
    .await;
    let accepted = app
        .ok(&user, "acceptImportSuggestions", json!({"id": batch}))
        .await;
    assert_eq!(accepted, json!({"accepted": 2}));
    let rows = rows_of(&app, &user, &batch).await;
    let categories: Vec<&str> = rows
        .iter()
        .map(|r| r["categoryId"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(categories, [food.as_str(), fun.as_str(), fun.as_str()]);
    let again = app
        .ok(&user, "acceptImportSuggestions", json!({"id": batch}))
        .await;
    assert_eq!(again, json!({"accepted": 0}), "nothing left to accept");
    let page = app
        .get(&format!("/import?batch={batch}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("data-accept-suggestions"),
        "nothing left to offer"
    );

    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    let food_written = app
        .ok(&user, "listDailyExpenses", json!({"categoryId": food}))
        .await;
    assert_eq!(food_written.as_array().unwrap().len(), 1, "{food_written}");
    let fun_written = app
        .ok(&user, "listDailyExpenses", json!({"categoryId": fun}))
        .await;
    assert_eq!(fun_written.as_array().unwrap().len(), 2, "{fun_written}");
    assert_eq!(
        app.refused(&user, "acceptImportSuggestions", json!({"id": batch}))
            .await,
        "id: ist schon bestätigt; undoImport nimmt ihn zurück"
    );
}

// ------------------------------------------------------------- the crash

/// The records the batch wrote and their distinct import keys, and the
/// batch's stored status, read from the database file beside the service.
fn crash_written(dir: &std::path::Path, batch: &str) -> (i64, i64, String) {
    let db = rusqlite::Connection::open(dir.join("cashkeeper.db")).unwrap();
    let (n, keys) = db
        .query_row(
            "SELECT COUNT(*), COUNT(DISTINCT import_key) FROM daily_expenses WHERE import_id = ?1",
            [batch],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let status = db
        .query_row(
            "SELECT status FROM import_batches WHERE id = ?1",
            [batch],
            |r| r.get(0),
        )
        .unwrap();
    (n, keys, status)
}

async fn crash_stage(
    service: &crate::support::service::Service,
    cookie: &str,
    account: &str,
    csv: &[u8],
) -> String {
    let (content_type, body) = multipart(&[
        ("accountId", None, account.as_bytes()),
        ("file", Some("gross.csv"), csv),
    ]);
    let res = service
        .client
        .post(format!("{}/api/imports", service.base))
        .header("content-type", content_type)
        .header("cookie", format!("cashkeeper_session={cookie}"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let batch: Value = res.json().await.unwrap();
    assert_eq!(batch["counts"]["new"], CRASH_ROWS, "{batch}");
    id(&batch)
}

/// Twenty chunks of a confirm.
const CRASH_ROWS: usize = 100_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_kill_during_a_confirm_in_chunks_is_finished_by_the_next_confirm_exactly_once() {
    use crate::support::service::Service;
    let dir = tempfile::tempdir().unwrap();
    let mut service = Service::start(dir.path(), &[]);
    let mut cookie = service.register("import-crash@example.org").await;
    let account = service.giro(&cookie).await;
    let mut csv = format!("{SPARKASSE_HEADER}\n");
    let first = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    for i in 0..CRASH_ROWS {
        let day = (first + chrono::Duration::days((i % 300) as i64)).to_string();
        let amount = format!("-{},{:02}", 1 + i % 900, i % 100);
        csv.push_str(&sparkasse_line(
            &day,
            &amount,
            &format!("Laden {i}"),
            "Einkauf",
            "EUR",
        ));
        csv.push('\n');
    }
    let mut batch = crash_stage(&service, &cookie, &account, csv.as_bytes()).await;

    // Kill the service as soon as the first chunk of the confirm is in the
    // database; should the whole confirm have finished first, take it
    // back and try again.
    let mut interrupted = None;
    for attempt in 0..5 {
        let confirm = {
            let (client, base, cookie, batch) = (
                service.client.clone(),
                service.base.clone(),
                cookie.clone(),
                batch.clone(),
            );
            tokio::spawn(async move {
                client
                    .post(format!("{base}/actions/confirmImport"))
                    .header("content-type", "application/json")
                    .header("cookie", format!("cashkeeper_session={cookie}"))
                    .body(json!({"id": batch}).to_string())
                    .send()
                    .await
            })
        };
        while crash_written(dir.path(), &batch).0 == 0 && !confirm.is_finished() {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        service.child.kill().unwrap(); // SIGKILL
        service.child.wait().unwrap();
        let _ = confirm.await;

        let db = rusqlite::Connection::open(dir.path().join("cashkeeper.db")).unwrap();
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        drop(db);

        service = Service::start(dir.path(), &[]);
        cookie = service.login("import-crash@example.org").await;
        let (written, _, status) = crash_written(dir.path(), &batch);
        eprintln!("attempt {attempt}: {written} of {CRASH_ROWS} written, batch {status}");
        if status == "confirmed" {
            assert_eq!(written, CRASH_ROWS as i64);
            let undone = service
                .action("undoImport", json!({"id": batch}), Some(&cookie))
                .await
                .unwrap();
            assert_eq!(undone["data"]["removed"], CRASH_ROWS, "{undone}");
            batch = crash_stage(&service, &cookie, &account, csv.as_bytes()).await;
        } else {
            interrupted = Some(written);
            break;
        }
    }
    let written = interrupted.expect("no kill landed while the confirm was writing");
    assert!(written < CRASH_ROWS as i64, "{written}");

    // The interrupted batch still answers a status the clients know, and
    // nothing but a confirm (or a cancel) may touch it.
    let got = service
        .action("getImport", json!({"id": batch, "limit": 1}), Some(&cookie))
        .await
        .unwrap();
    assert_eq!(got["data"]["status"], "reconciled", "{got}");
    assert_eq!(got["data"]["confirmedAt"], Value::Null, "{got}");
    let reconcile = service
        .action("reconcileImport", json!({"id": batch}), Some(&cookie))
        .await
        .unwrap();
    assert_eq!(
        reconcile["error"],
        "id: was being confirmed when the service stopped; confirmImport finishes it, cancelImport takes it back",
        "{reconcile}"
    );

    // The next confirm writes the rest, each row once.
    let done = service
        .action("confirmImport", json!({"id": batch}), Some(&cookie))
        .await
        .unwrap();
    assert_eq!(done["data"]["imported"], CRASH_ROWS, "{done}");
    assert_eq!(done["data"]["batch"]["status"], "confirmed", "{done}");
    let full = (
        CRASH_ROWS as i64,
        CRASH_ROWS as i64,
        "confirmed".to_string(),
    );
    assert_eq!(crash_written(dir.path(), &batch), full);
    assert_eq!(month_sums_agree(dir.path()).1, 0, "month sums off");
    // And only once.
    let again = service
        .action("confirmImport", json!({"id": batch}), Some(&cookie))
        .await
        .unwrap();
    assert_eq!(
        again["error"], "id: is already confirmed; undoImport takes it back",
        "{again}"
    );
    assert_eq!(crash_written(dir.path(), &batch), full);
}

/// The month sums a month view reads, as the entries themselves give them.
fn month_sums_agree(dir: &std::path::Path) -> (i64, i64) {
    let c = rusqlite::Connection::open(dir.join("cashkeeper.db")).unwrap();
    let kept: i64 = c
        .query_row(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM daily_expense_months",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let mismatches: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM (
                SELECT user_id, substr(date, 1, 7) AS month, currency,
                       COALESCE(category_id, '') AS category, SUM(amount_cents) AS cents
                FROM daily_expenses GROUP BY 1, 2, 3, 4
             ) AS e
             FULL OUTER JOIN (SELECT * FROM daily_expense_months WHERE entries > 0) AS m
               ON m.user_id = e.user_id AND m.month = e.month
              AND m.currency = e.currency AND m.category_id = e.category
             WHERE e.cents IS NOT m.amount_cents",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (kept, mismatches)
}

#[tokio::test]
async fn a_confirmed_import_is_searchable_and_in_the_month_sums_and_an_undo_takes_both_back() {
    let Setup { app, user, account } = setup().await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Bäcker", "amount": "3.20", "date": "2026-10-01", "accountId": account}),
    )
    .await;
    let csv = sparkasse(&[
        ("2026-10-02", "-23,99", "Zauberladen Quendel", "Einkauf"),
        ("2026-10-03", "-5,00", "Zauberladen Quendel", "Nachkauf"),
        ("2026-11-04", "-7,50", "Kiosk Morgenrot", "Zeitung"),
    ]);
    let (batch, _) = staged_and_reconciled(&app, &user, &account, &csv).await;
    let search = |q: &'static str| {
        let (app, user) = (&app, &user);
        async move {
            app.ok(user, "search", json!({"query": q}))
                .await
                .as_array()
                .unwrap()
                .len()
        }
    };
    assert_eq!(search("Quendel").await, 0, "nothing before the confirm");
    app.ok(&user, "confirmImport", json!({"id": batch})).await;

    assert_eq!(search("Quendel").await, 2);
    assert_eq!(search("Morgenrot").await, 1);
    assert_eq!(
        month_sums_agree(app.data_dir()),
        (320 + 2399 + 500 + 750, 0)
    );

    // An imported entry edited later moves in the sums and the search.
    let kiosk = one_time_expenses(&app, &user)
        .await
        .into_iter()
        .find(|e| e["merchant"] == "Kiosk Morgenrot")
        .unwrap();
    app.ok(
        &user,
        "updateDailyExpense",
        json!({"id": kiosk["id"], "name": "Zeitungskiosk Abendrot", "amount": "8.00"}),
    )
    .await;
    assert_eq!(search("Abendrot").await, 1);
    assert_eq!(
        month_sums_agree(app.data_dir()),
        (320 + 2399 + 500 + 800, 0)
    );

    app.ok(&user, "undoImport", json!({"id": batch})).await;
    assert_eq!(search("Quendel").await, 0);
    assert_eq!(search("Abendrot").await, 0);
    assert_eq!(month_sums_agree(app.data_dir()), (320, 0));
}

#[tokio::test]
async fn the_mapping_of_an_accounts_last_unknown_file_reads_its_next_one() {
    let Setup { app, user, account } = setup().await;
    let csv = "Wann;Wieviel;Wer\n24.12.2025;-12,50;Anna\n";
    let e = app
        .refused(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": csv}),
        )
        .await;
    assert!(e.starts_with("mapping:"), "{e}");
    let mapping = json!({"date": "Wann", "amount": "Wieviel", "payee": "Wer"});
    let first = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": csv, "mapping": mapping}),
        )
        .await;
    app.ok(&user, "cancelImport", json!({"id": id(&first)}))
        .await;

    // The next file of the same layout into the same account needs none.
    let next = "Wann;Wieviel;Wer\n27.12.2025;-3,00;Bäcker\n";
    let second = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "csv": next}),
        )
        .await;
    let rows = app.ok(&user, "getImport", json!({"id": id(&second)})).await["rows"].clone();
    assert_eq!(rows[0]["payee"], "Bäcker");
    assert_eq!(rows[0]["amount"], json!(-3.0));
    // The page says which column was read as what.
    assert_eq!(second["format"]["columns"]["payee"], "wer");
    let page = app
        .get(
            &format!("/import?batch={}", id(&second)),
            Some(&user.cookie),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Columns read") && page.contains("<q>wieviel</q>"),
        "{page}"
    );

    // Another account has not seen the layout.
    let other = app.account(&user, "Tagesgeld", "EUR").await;
    let e = app
        .refused(
            &user,
            "stageImport",
            json!({"accountId": other, "csv": next}),
        )
        .await;
    assert!(e.starts_with("mapping:"), "{e}");
}

/// A refused upload brings what the page offers next as data, not only in
/// its words: an unknown layout its `columns`, in either language.
#[tokio::test]
async fn an_unknown_layout_brings_its_columns_in_either_language() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    for (locale, words) in [("en", "columns found"), ("de", "gefundene Spalten")] {
        app.ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        let (status, body) = upload(
            &app,
            Some(&user.cookie),
            &[
                ("accountId", None, account.as_bytes()),
                ("file", Some("x.csv"), b"Wann;Was;Wieviel\n1;2;3\n"),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.starts_with("mapping: ") && error.contains(words),
            "{error}"
        );
        assert_eq!(body["columns"], json!(["Wann", "Was", "Wieviel"]), "{body}");
        // A statement of two accounts brings them, to choose one.
        let (status, body) = upload(
            &app,
            Some(&user.cookie),
            &[
                ("accountId", None, account.as_bytes()),
                (
                    "file",
                    Some("umsatz.sta"),
                    crate::statements::TWO_ACCOUNTS.as_bytes(),
                ),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body["error"].as_str().unwrap().starts_with("accountIban: "));
        assert_eq!(
            body["accounts"],
            json!(["10020030/1234567890", "10020030/9999999999"]),
            "{body}"
        );
    }
}
