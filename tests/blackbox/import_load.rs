//! Large imports next to everyone else: a confirm of a big file lets other
//! users write meanwhile, several big confirms run together, an undo of a
//! confirm written in chunks takes back every record, one-time expenses
//! are answered a page at a time, and a file with a quote that is never
//! closed is refused without taking the service's memory.

use crate::support::service::status_mib;
use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Rows of the big files below: 12 chunks of a confirm. With a single
/// transaction per confirm, as before chunks, a confirm of this many rows
/// in a test build held the write lock longer than the old 5-second busy
/// timeout; 200,000 rows (the most a file may have) take over a minute
/// and a half in a test build, measured in `docs/performance.md`.
const BIG_ROWS: usize = 60_000;

/// Rows of each of four files confirmed at once: six chunks each, 120,000
/// records written together.
const CONCURRENT_ROWS: usize = 30_000;

/// A bank file of `rows` card payments in a made-up layout (see
/// [`mapping`]), compact so that 200,000 rows stay under the action's
/// body limit.
fn bank_file(rows: usize) -> String {
    let mut out = String::with_capacity(rows * 40);
    out.push_str("Datum;Betrag;Empfänger;Zweck\n");
    let first = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap();
    for i in 0..rows {
        let day = first + chrono::Duration::days((i % 365) as i64);
        out.push_str(&format!(
            "{};-{},{:02};Laden {i};Einkauf\n",
            day.format("%d.%m.%Y"),
            1 + i % 900,
            i % 100
        ));
    }
    out
}

fn mapping() -> Value {
    json!({"date": "Datum", "amount": "Betrag", "payee": "Empfänger", "memo": "Zweck",
           "dateFormat": "%d.%m.%Y", "decimalSeparator": ","})
}

/// A user with an account and a staged batch of `rows` rows: the user,
/// the account and the batch id.
async fn with_batch(app: &TestApp, rows: usize) -> (TestUser, String, String) {
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let batch = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "fileName": "gross.csv", "csv": bank_file(rows),
                   "mapping": mapping()}),
        )
        .await;
    assert_eq!(batch["counts"]["new"], rows, "{}", batch["counts"]);
    (user, account, batch["id"].as_str().unwrap().to_string())
}

/// The user's records an import wrote, straight from the database.
fn records_of(app: &TestApp, batch: &str) -> (i64, i64) {
    let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
    c.query_row(
        "SELECT COUNT(*), COUNT(DISTINCT import_key) FROM daily_expenses WHERE import_id = ?1",
        [batch],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn while_a_60000_row_confirm_runs_four_other_users_write_and_not_one_write_fails() {
    let app = Arc::new(spawn_app().await);
    let (importer, _, batch) = with_batch(&app, BIG_ROWS).await;
    let mut others = Vec::new();
    for _ in 0..4 {
        let user = app.new_user().await;
        let account = app.account(&user, "Giro", "EUR").await;
        others.push((user, account));
    }

    let confirming = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let during = Arc::new(AtomicUsize::new(0));
    let mut writers = Vec::new();
    for (user, account) in others {
        let (app, confirming, done, during) = (
            app.clone(),
            confirming.clone(),
            done.clone(),
            during.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut failures = Vec::new();
            let mut mine_during = 0;
            let mut i = 0;
            while !done.load(Ordering::SeqCst) {
                let started_during = confirming.load(Ordering::SeqCst);
                let r = app
                    .action(
                        "createDailyExpense",
                        json!({"name": format!("Bäcker {i}"), "amount": "2.50",
                               "date": "2026-03-01", "accountId": account}),
                        Some(&user.cookie),
                    )
                    .await;
                if !r.ok() {
                    failures.push(format!("{} {}", r.status, r.body));
                } else if started_during && !done.load(Ordering::SeqCst) {
                    mine_during += 1;
                }
                i += 1;
            }
            during.fetch_add(mine_during, Ordering::SeqCst);
            (failures, mine_during, i)
        }));
    }

    confirming.store(true, Ordering::SeqCst);
    let confirmed = app
        .action(
            "confirmImport",
            json!({"id": batch}),
            Some(&importer.cookie),
        )
        .await;
    done.store(true, Ordering::SeqCst);
    assert_eq!(confirmed.data()["imported"], BIG_ROWS);
    assert_eq!(confirmed.data()["batch"]["status"], "confirmed");
    for w in writers {
        let (failures, mine_during, total) = w.await.unwrap();
        assert!(failures.is_empty(), "failed writes: {failures:?}");
        assert!(
            mine_during > 0,
            "a writer wrote nothing while the confirm ran ({total} writes in all)"
        );
    }
    eprintln!(
        "{} writes of other users succeeded during the confirm",
        during.load(Ordering::SeqCst)
    );
    assert_eq!(records_of(&app, &batch), (BIG_ROWS as i64, BIG_ROWS as i64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn four_concurrent_30000_row_confirms_of_four_users_all_succeed() {
    let app = spawn_app().await;
    let mut batches = Vec::new();
    for _ in 0..4 {
        batches.push(with_batch(&app, CONCURRENT_ROWS).await);
    }
    let confirm = |i: usize| {
        let (user, _, batch) = &batches[i];
        app.action("confirmImport", json!({"id": batch}), Some(&user.cookie))
    };
    let (a, b, c, d) = tokio::join!(confirm(0), confirm(1), confirm(2), confirm(3));
    for r in [&a, &b, &c, &d] {
        assert_eq!(r.data()["imported"], CONCURRENT_ROWS, "{}", r.body);
        assert_eq!(r.data()["batch"]["status"], "confirmed");
    }
    for (_, _, batch) in &batches {
        let n = CONCURRENT_ROWS as i64;
        assert_eq!(records_of(&app, batch), (n, n));
    }
}

#[tokio::test]
async fn an_undo_after_a_confirm_in_chunks_removes_every_record_and_its_sums() {
    let app = spawn_app().await;
    // Three chunks and a part of one.
    let rows = 3 * cashkeeper::app::import::CHUNK_ROWS + 123;
    let (user, account, batch) = with_batch(&app, rows).await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Bäcker", "amount": "3.20", "date": "2025-02-01", "accountId": account}),
    )
    .await;
    let confirmed = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(confirmed["imported"], rows);
    assert_eq!(records_of(&app, &batch), (rows as i64, rows as i64));
    let search = app
        .ok(&user, "search", json!({"query": "Laden 15122"}))
        .await;
    assert_eq!(search.as_array().unwrap().len(), 1, "{search}");
    let sums = |app: &TestApp| -> (i64, i64) {
        let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
        c.query_row(
            "SELECT COALESCE(SUM(amount_cents), 0), COALESCE(SUM(entries), 0)
             FROM daily_expense_months",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    let written: i64 = (0..rows)
        .map(|i| (1 + i % 900) as i64 * 100 + (i % 100) as i64)
        .sum();
    assert_eq!(sums(&app), (written + 320, rows as i64 + 1));

    let undone = app.ok(&user, "undoImport", json!({"id": batch})).await;
    assert_eq!(undone["removed"], rows);
    assert_eq!(undone["batch"]["status"], "cancelled");
    assert_eq!(records_of(&app, &batch), (0, 0));
    assert_eq!(sums(&app), (320, 1));
    let left = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(left.as_array().unwrap().len(), 1, "{left}");
    let search = app
        .ok(&user, "search", json!({"query": "Laden 15122"}))
        .await;
    assert_eq!(search.as_array().unwrap().len(), 0, "{search}");
    // Undone once: a second undo is refused and removes nothing.
    let again = app.refused(&user, "undoImport", json!({"id": batch})).await;
    assert!(again.contains("not a confirmed import"), "{again}");
}

#[tokio::test]
async fn one_time_expenses_are_listed_a_page_at_a_time() {
    let app = spawn_app().await;
    let (user, _, batch) = with_batch(&app, 250).await;
    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    let list = |body: Value| {
        let (app, user) = (&app, &user);
        async move {
            app.ok(user, "listDailyExpenses", body)
                .await
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    let all = list(json!({"limit": 1000})).await;
    assert_eq!(all.len(), 250);
    // 200 by default, newest first; the pages neither repeat nor skip.
    let first = list(json!({})).await;
    assert_eq!(first, all[..200]);
    assert_eq!(list(json!({"offset": 200})).await, all[200..]);
    assert_eq!(
        list(json!({"limit": 7, "offset": 100})).await,
        all[100..107]
    );
    assert!(list(json!({"offset": 250})).await.is_empty());
    // A range is paged too.
    let march = list(json!({"month": "2025-03", "limit": 5})).await;
    assert_eq!(march.len(), 5);

    for (body, field) in [
        (json!({"limit": 0}), "limit: must be between 1 and 1000"),
        (json!({"limit": 1001}), "limit: must be between 1 and 1000"),
        (json!({"offset": -1}), "offset: must not be negative"),
    ] {
        assert_eq!(app.refused(&user, "listDailyExpenses", body).await, field);
    }
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    assert_eq!(
        app.refused(&user, "listDailyExpenses", json!({"limit": 5000}))
            .await,
        "limit: muss zwischen 1 und 1000 liegen"
    );
}

/// The real binary on a fresh data directory, with a user (its session
/// cookie) and a checking account.
pub(crate) async fn service_with_account() -> (
    tempfile::TempDir,
    crate::support::service::Service,
    String,
    String,
) {
    let dir = tempfile::tempdir().unwrap();
    let service = crate::support::service::Service::start(dir.path(), &[]);
    let cookie = service.register("upload@example.org").await;
    let account = service.giro(&cookie).await;
    (dir, service, cookie, account)
}

/// The multipart body of `POST /api/imports` and its boundary.
pub(crate) fn upload_body(
    account: &str,
    mapping: Option<&Value>,
    name: &str,
    file: &[u8],
) -> (String, Vec<u8>) {
    let boundary = "cashkeeper-test-boundary".to_string();
    let mut body = Vec::with_capacity(file.len() + 1024);
    body.extend_from_slice(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"accountId\"\r\n\r\n{account}\r\n")
            .as_bytes(),
    );
    if let Some(mapping) = mapping {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"mapping\"\r\n\r\n{mapping}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (boundary, body)
}

/// Sends one upload three times at once, as three browser tabs would; each
/// must be refused (400): answers their bodies.
async fn three_at_once(
    service: &crate::support::service::Service,
    cookie: &str,
    boundary: &str,
    body: &[u8],
) -> Vec<String> {
    let send = || {
        service
            .client
            .post(format!("{}/api/imports", service.base))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .header("cookie", format!("cashkeeper_session={cookie}"))
            .body(body.to_vec())
            .send()
    };
    let (a, b, c) = tokio::join!(send(), send(), send());
    let mut texts = Vec::new();
    for r in [a, b, c] {
        let r = r.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        texts.push(r.text().await.unwrap());
    }
    texts
}

/// A file whose payee cell opens a quote that is never closed, padded to
/// `size` bytes.
fn unterminated(size: usize) -> String {
    let mut csv = String::from("Datum;Betrag;Empfänger;Zweck\n01.02.2026;-1,00;\"Laden;x\n");
    let line = "02.02.2026;-2,00;Laden;Einkauf\n";
    while csv.len() + line.len() <= size {
        csv.push_str(line);
    }
    csv
}

#[tokio::test]
async fn the_eleventh_waiting_import_is_refused_before_its_file_is_read() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let stage = |csv: String| {
        let (app, user, account) = (&app, &user, &account);
        async move {
            app.action(
                "stageImport",
                json!({"accountId": account, "fileName": "a.csv", "csv": csv, "mapping": mapping()}),
                Some(&user.cookie),
            )
            .await
        }
    };
    // Alone, the broken file is refused for its field, naming the line.
    let broken = stage(unterminated(200_000)).await;
    assert_eq!(
        broken.error(),
        Some("csv: has a field longer than 64 KiB starting on line 2; is a closing quote missing?")
    );
    for _ in 0..10 {
        assert!(stage(bank_file(3)).await.ok());
    }
    // The eleventh is refused for the cap: its file was never read (read
    // first, it would have been refused for its field).
    let eleventh = stage(unterminated(200_000)).await;
    assert_eq!(
        eleventh.error(),
        Some("at most 10 imports may wait for confirmation; confirm or cancel one first")
    );
    // In German too.
    let other = app.new_user().await;
    app.ok(&other, "updateSettings", json!({"locale": "de"}))
        .await;
    let other_account = app.account(&other, "Giro", "EUR").await;
    let broken = app
        .action(
            "stageImport",
            json!({"accountId": other_account, "csv": unterminated(100_000), "mapping": mapping()}),
            Some(&other.cookie),
        )
        .await;
    assert_eq!(
        broken.error(),
        Some("csv: hat ein Feld, das länger als 64 KiB ist, ab Zeile 2; fehlt ein schließendes Anführungszeichen?")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_66_mb_file_with_an_unterminated_quote_is_refused_below_400_mib() {
    let (_dir, service, cookie, account) = service_with_account().await;
    let csv = unterminated(66_000_000);
    let before = status_mib(service.child.id(), "VmHWM");
    let (boundary, body) = upload_body(&account, Some(&mapping()), "gross.csv", csv.as_bytes());
    drop(csv);
    for text in three_at_once(&service, &cookie, &boundary, &body).await {
        assert!(
            text.contains("file: has a field longer than 64 KiB starting on line 2"),
            "{text}"
        );
    }
    let peak = status_mib(service.child.id(), "VmHWM");
    eprintln!("peak RSS {before} MiB before, {peak} MiB after three 66 MB uploads");
    assert!(peak < 400, "peak RSS {peak} MiB");
}

#[tokio::test]
async fn an_interrupted_confirm_is_finished_by_a_confirm_or_taken_back_by_a_cancel() {
    let app = spawn_app().await;
    let rows = cashkeeper::app::import::CHUNK_ROWS + 2_000;
    let (user, _, batch) = with_batch(&app, rows).await;
    app.ok(&user, "confirmImport", json!({"id": batch})).await;
    // As the database is left when the service stops before the last
    // chunk: the batch marked as being confirmed, the last rows unwritten.
    let interrupt = |unwritten: i64| {
        let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
        c.execute(
            "DELETE FROM daily_expenses WHERE rowid IN (SELECT rowid FROM daily_expenses
             WHERE import_id = ?1 ORDER BY rowid DESC LIMIT ?2)",
            rusqlite::params![batch, unwritten],
        )
        .unwrap();
        c.execute(
            "UPDATE import_batches SET status = 'reconciled' WHERE id = ?1",
            [&batch],
        )
        .unwrap();
    };
    interrupt(2_500);
    let n = rows as i64;
    assert_eq!(records_of(&app, &batch), (n - 2_500, n - 2_500));
    let got = app
        .ok(&user, "getImport", json!({"id": batch, "limit": 1}))
        .await;
    assert_eq!(got["status"], "reconciled");
    assert_eq!(got["confirmedAt"], Value::Null);
    let refused = app
        .refused(
            &user,
            "decideImportConflict",
            json!({"id": batch, "all": "new", "decision": "skip"}),
        )
        .await;
    assert_eq!(
        refused,
        "id: was being confirmed when the service stopped; confirmImport finishes it, cancelImport takes it back"
    );
    // A confirm writes what is missing, each row once.
    let done = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(done["imported"], rows);
    assert_eq!(done["batch"]["status"], "confirmed");
    assert!(done["batch"]["confirmedAt"].is_string(), "{done}");
    assert_eq!(records_of(&app, &batch), (n, n));

    // A cancel takes back what was written.
    interrupt(1_000);
    let cancelled = app.ok(&user, "cancelImport", json!({"id": batch})).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["confirmedAt"], Value::Null);
    assert_eq!(records_of(&app, &batch), (0, 0));
    let left = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(left, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_64_mib_ofx_with_one_huge_memo_is_refused_below_400_mib() {
    let (_dir, service, cookie, account) = service_with_account().await;
    let mut ofx = String::from(
        "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>\
         <CURDEF>EUR<BANKACCTFROM><ACCTID>12345</BANKACCTFROM><BANKTRANLIST>\n\
         <STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20241102<TRNAMT>-23.99<NAME>REWE<MEMO>",
    );
    ofx.push_str(&"x".repeat(64 * 1024 * 1024 - 1024));
    ofx.push_str("\n</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n");
    let before = status_mib(service.child.id(), "VmHWM");
    let (boundary, body) = upload_body(&account, None, "konto.ofx", ofx.as_bytes());
    drop(ofx);
    for text in three_at_once(&service, &cookie, &boundary, &body).await {
        // A statement file has no quotes: the refusal says so in its own words.
        assert!(
            text.contains("file: is an OFX file with a value longer than 64 KiB from line"),
            "{text}"
        );
    }
    let peak = status_mib(service.child.id(), "VmHWM");
    eprintln!("peak RSS {before} MiB before, {peak} MiB after three 64 MiB OFX files");
    assert!(peak < 400, "peak RSS {peak} MiB");
}
