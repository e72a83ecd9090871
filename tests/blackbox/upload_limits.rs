//! Reading an uploaded bank file takes a small multiple of its size and a
//! bounded time, whatever the file holds: hostile files of each format are
//! read or refused by the real executable with its peak memory measured
//! (the bound is in each test's name, `docs/performance.md`); a user's
//! uploads are read one at a time; a read whose request went away stops;
//! OFX tags left open cost the same however many there are.

use crate::import_load::{service_with_account, upload_body};
use crate::support::service::status_mib;
use crate::support::service::Service;
use crate::support::spawn_app;
use cashkeeper::app::import::parsing;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

/// The size of each hostile file: just under the 64 MiB an upload may be.
const HOSTILE: usize = 63_000_000;

/// `head`, then `unit` as often as fits in `size` bytes, then `tail`.
fn padded(head: &str, unit: &str, tail: &str, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(head.as_bytes());
    let room = size.saturating_sub(head.len() + tail.len());
    for _ in 0..room / unit.len() {
        out.extend_from_slice(unit.as_bytes());
    }
    out.extend_from_slice(tail.as_bytes());
    out
}

/// Uploads `file` through `POST /api/imports` of the executable, alone:
/// its status, its body, and the peak and resident memory after it (MiB).
async fn measured_upload(name: &str, file: Vec<u8>) -> (StatusCode, String, u64, u64) {
    let (_dir, service, cookie, account) = service_with_account().await;
    let pid = service.child.id();
    let (boundary, body) = upload_body(&account, None, name, &file);
    drop(file);
    let before = status_mib(pid, "VmHWM");
    let reply = post(&service, &cookie, &boundary, body).await;
    let status = reply.status();
    let text = reply.text().await.unwrap();
    let (peak, resident) = (status_mib(pid, "VmHWM"), status_mib(pid, "VmRSS"));
    eprintln!(
        "{name}: {status}, VmHWM {before} MiB before, {peak} MiB after, VmRSS {resident} MiB after"
    );
    (status, text, peak, resident)
}

async fn post(service: &Service, cookie: &str, boundary: &str, body: Vec<u8>) -> reqwest::Response {
    service
        .client
        .post(format!("{}/api/imports", service.base))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .header("cookie", format!("cashkeeper_session={cookie}"))
        .body(body)
        .send()
        .await
        .unwrap()
}

/// What the process holds after a refused upload: the idle process, the
/// argon2 memory of the sign-in and SQLite's caches, far below the file.
const RESIDENT_AFTER_MIB: u64 = 120;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_63_mb_camt_of_empty_elements_is_refused_under_400_mib() {
    let camt = padded(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt><Stmt>",
        "<a/>",
        "</Stmt></BkToCstmrStmt></Document>\n",
        HOSTILE,
    );
    let (status, text, peak, resident) = measured_upload("leer.xml", camt).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(
        text.contains("file: has more than 100000 XML elements besides its bookings by line 2; a bank's file has far fewer"),
        "{text}"
    );
    assert!(peak < 400, "peak RSS {peak} MiB");
    assert!(resident < RESIDENT_AFTER_MIB, "resident {resident} MiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_63_mb_mt940_of_blank_lines_is_refused_under_400_mib() {
    let mt940 = padded(
        ":20:STARTUMS\n:25:10020030/1234567890\n:28C:1/1\n:60F:C240101EUR100,00\n\
         :61:2401020102DR12,50NMSCNONREF\n:86:Miete\n",
        "\n",
        ":62F:C240102EUR87,50\n-\n",
        HOSTILE,
    );
    let (status, text, peak, resident) = measured_upload("leer.sta", mt940).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(
        text.contains("file: has more than 1000 lines in one field or booking by line 6"),
        "{text}"
    );
    assert!(peak < 400, "peak RSS {peak} MiB");
    assert!(resident < RESIDENT_AFTER_MIB, "resident {resident} MiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_63_mb_csv_of_empty_fields_is_read_under_400_mib() {
    // Lines of 999 empty fields, just under the most a line may have: read
    // to the end, one line at a time, and none is a booking.
    let line = format!("{}\n", ";".repeat(998));
    let csv = padded("Datum;Betrag;Empfänger\n", &line, "", HOSTILE);
    let (status, text, peak, resident) = measured_upload("leer.csv", csv).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(
        text.contains("file: The file is empty: it holds no bookings"),
        "{text}"
    );
    assert!(peak < 400, "peak RSS {peak} MiB");
    assert!(resident < RESIDENT_AFTER_MIB, "resident {resident} MiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_63_mb_csv_line_of_empty_fields_is_refused_under_400_mib() {
    let csv = padded("Datum;Betrag;Empfänger\n", ";", "\n", HOSTILE);
    let (status, text, peak, resident) = measured_upload("breit.csv", csv).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(
        text.contains("file: has more than 1000 fields on line 2; a bank's file has far fewer"),
        "{text}"
    );
    assert!(peak < 400, "peak RSS {peak} MiB");
    assert!(resident < RESIDENT_AFTER_MIB, "resident {resident} MiB");
}

/// The camt, MT940 and CSV files above at once, by three users: two are
/// read while the third waits its turn, so the peak is the three bodies
/// and two reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_hostile_63_mb_files_at_once_stay_under_600_mib() {
    let (_dir, service, cookie, account) = service_with_account().await;
    let mut users = vec![(cookie, account)];
    for name in ["zwei", "drei"] {
        let cookie = service.register(&format!("{name}@example.org")).await;
        let account = service.giro(&cookie).await;
        users.push((cookie, account));
    }
    let files = [
        (
            "leer.xml",
            padded(
                "<?xml version=\"1.0\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt><Stmt>",
                "<a/>",
                "</Stmt></BkToCstmrStmt></Document>\n",
                HOSTILE,
            ),
        ),
        (
            "leer.sta",
            padded(
                ":20:X\n:25:DE1\n:60F:C240101EUR1,00\n:61:2401020102DR1,00NMSCNONREF\n:86:Miete\n",
                "\n",
                "-\n",
                HOSTILE,
            ),
        ),
        (
            "leer.csv",
            padded(
                "Datum;Betrag;Empfänger\n",
                &format!("{}\n", ";".repeat(998)),
                "",
                HOSTILE,
            ),
        ),
    ];
    let bodies: Vec<(String, Vec<u8>, String)> = files
        .into_iter()
        .zip(&users)
        .map(|((name, file), (cookie, account))| {
            let (boundary, body) = upload_body(account, None, name, &file);
            (boundary, body, cookie.clone())
        })
        .collect();
    let pid = service.child.id();
    let before = status_mib(pid, "VmHWM");
    let send = |(boundary, body, cookie): (String, Vec<u8>, String)| {
        let service = &service;
        async move { post(service, &cookie, &boundary, body).await.status() }
    };
    let mut bodies = bodies.into_iter().map(send);
    let (Some(a), Some(b), Some(c)) = (bodies.next(), bodies.next(), bodies.next()) else {
        panic!("three uploads");
    };
    let (a, b, c) = tokio::join!(a, b, c);
    let statuses = [a, b, c];
    assert!(
        statuses.iter().all(|s| *s == StatusCode::BAD_REQUEST),
        "{statuses:?}"
    );
    let (peak, resident) = (status_mib(pid, "VmHWM"), status_mib(pid, "VmRSS"));
    eprintln!("three at once: VmHWM {before} → {peak} MiB, VmRSS {resident} MiB after");
    assert!(peak < 600, "peak RSS {peak} MiB");
    assert!(resident < RESIDENT_AFTER_MIB, "resident {resident} MiB");
}

/// An OFX 1.x statement of one booking with `filler` between the list's
/// start and the booking, as often as fits in `size` bytes.
fn ofx_with(filler: &str, size: usize) -> Vec<u8> {
    padded(
        "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>\
         <CURDEF>EUR<BANKACCTFROM><ACCTID>12345</BANKACCTFROM><BANKTRANLIST>",
        filler,
        "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240102<TRNAMT>-12.50<NAME>Laden</STMTTRN>\
         </BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n",
        size,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_63_mb_ofx_of_unclosed_tags_is_read_under_400_mib() {
    // Tags of a long name opened and never closed, each followed by the
    // close of a tag that is not open.
    let ofx = ofx_with("<UNCLOSEDAGGREGATEOFALONGNAME></Y>", HOSTILE);
    let (status, text, peak, _) = measured_upload("offen.ofx", ofx).await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let batch: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(batch["rowCount"], 1, "{text}");
    assert!(peak < 400, "peak RSS {peak} MiB");
}

/// Tags opened and never closed, each followed by a close of a tag that
/// is not open: every close looked through every open tag, so 0.68 MB
/// took 44 s of CPU and this file would have taken hours.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_ofx_file_of_unclosed_tags_is_read_to_its_booking() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    // Tags of many names left open are refused, naming the line.
    let names: String = (0..2_000).map(|i| format!("<T{i}>")).collect();
    let refused = app
        .action(
            "stageImport",
            json!({"accountId": account, "fileName": "offen.ofx",
                   "csv": String::from_utf8(ofx_with(&names, names.len() + 400)).unwrap()}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(
        refused.error(),
        Some("csv: has more than 1000 tags open at once on line 5; a bank's file has far fewer")
    );
    // Five million bytes of tags left open, each followed by a close of a
    // tag that is not open: read in one pass to the booking after them.
    let ofx = ofx_with("<X></Y>", 5_000_000);
    let staged = app
        .action(
            "stageImport",
            json!({"accountId": account, "fileName": "offen.ofx",
                   "csv": String::from_utf8(ofx).unwrap()}),
            Some(&user.cookie),
        )
        .await;
    let batch = staged.data();
    assert_eq!(batch["format"]["kind"], "ofx");
    assert_eq!(batch["rowCount"], 1);
}

/// A CSV file of two bookings and then `notes` lines that are not
/// bookings: slow to read in a test build, quick to store.
fn slow_csv(notes: usize) -> String {
    let mut csv =
        String::from("Datum;Betrag;Empfänger\n01.02.2026;-1,00;Laden\n02.02.2026;-2,00;Laden\n");
    csv.reserve(notes * 4);
    for _ in 0..notes {
        csv.push_str("x;;\n");
    }
    csv
}

/// Polls the user's reads until `done` holds; fails after two minutes.
async fn until(user: &str, done: impl Fn(parsing::Seen) -> bool) -> parsing::Seen {
    for _ in 0..24_000 {
        let seen = parsing::counts(user);
        if done(seen) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never: {:?}", parsing::counts(user));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_users_second_upload_waits_until_the_first_is_read() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let stage = |csv: String| {
        let (app, user, account) = (&app, &user, &account);
        async move {
            app.action(
                "stageImport",
                json!({"accountId": account, "fileName": "a.csv", "csv": csv}),
                Some(&user.cookie),
            )
            .await
        }
    };
    let second = async {
        until(&user.id, |s| s.reading == 1).await;
        let quick = stage(slow_csv(0));
        // While the first file is read, the second waits for its turn.
        let watch = until(&user.id, |s| s.waiting == 1);
        let (quick, seen) = tokio::join!(quick, watch);
        assert_eq!(seen.reading, 1, "{seen:?}");
        quick
    };
    let (slow, quick) = tokio::join!(stage(slow_csv(400_000)), second);
    // Both are read in turn.
    assert_eq!(slow.data()["rowCount"], 2);
    assert_eq!(quick.data()["rowCount"], 2);
    assert_eq!(parsing::counts(&user.id).reading, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_whose_upload_went_away_stops_being_read() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let body = json!({"accountId": account, "fileName": "a.csv", "csv": slow_csv(3_000_000)});
    let request = app
        .client
        .post(app.url("/actions/stageImport"))
        .header("content-type", "application/json")
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .body(body.to_string());
    let upload = tokio::spawn(request.send());
    until(&user.id, |s| s.reading == 1).await;
    // The client goes away while its file is read.
    upload.abort();
    let seen = until(&user.id, |s| s.called_off == 1 && s.reading == 0).await;
    assert_eq!(seen.waiting, 0);
    // The user's turn is free again.
    let next = app
        .action(
            "stageImport",
            json!({"accountId": account, "fileName": "b.csv", "csv": slow_csv(0)}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(next.data()["rowCount"], 2);
}
