//! "Load an export" and "Export my data" within bounds: formulas in the
//! CSV files are neutralised, an archive's documents pass the checks of an
//! upload, an own archive loads with new ids, zip bombs are refused before
//! they expand (also ten at once, while another user goes on working), and
//! the export of a large user streams in bounded memory. The memory tests
//! run the real executable and read its peak (`VmHWM`).

use crate::export::{data_json, household, load, unzip, PDF};
use crate::support::service::{giro_with_expenses, status_mib, Service};
use crate::support::upload::load_archive;
use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;
use std::io::{Cursor, Write};

/// An archive of `files` (documents stored, the rest deflated) with
/// `data` as its data.json.
fn zip_of(files: &[(String, Vec<u8>)], data: &Value) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut out);
        for (name, bytes) in files {
            let method = if name.starts_with("documents/") {
                zip::CompressionMethod::Stored
            } else {
                zip::CompressionMethod::Deflated
            };
            z.start_file(
                name.as_str(),
                zip::write::SimpleFileOptions::default().compression_method(method),
            )
            .unwrap();
            if name == "data.json" {
                z.write_all(&serde_json::to_vec(data).unwrap()).unwrap();
            } else {
                z.write_all(bytes).unwrap();
            }
        }
        z.finish().unwrap();
    }
    out.into_inner()
}

fn csv_column(csv: &[u8], column: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(csv);
    let at = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap();
    r.records()
        .map(|row| row.unwrap()[at].to_string())
        .collect()
}

#[tokio::test]
async fn csv_text_that_looks_like_a_formula_gets_a_quote_and_loads_back_as_it_was() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    let account = app
        .ok(
            &anna,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "-12.50"}),
        )
        .await["id"]
        .clone();
    let formula = "=HYPERLINK(\"http://evil.example\",\"Klick\")";
    for (name, merchant) in [
        (formula, "@SUM(A1)"),
        ("Bäcker", "-Kiosk"),
        ("Kiosk", "+49 30"),
    ] {
        app.ok(
            &anna,
            "createDailyExpense",
            json!({"name": name, "amount": "3.20", "date": "2026-11-02",
                   "accountId": account, "merchant": merchant}),
        )
        .await;
    }
    let files = unzip(
        &app.get("/api/export", Some(&anna.cookie))
            .await
            .bytes()
            .await
            .unwrap(),
    );
    let csv = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n == &format!("csv/{name}.csv"))
            .unwrap()
            .1
            .clone()
    };
    let names = csv_column(&csv("daily_expenses"), "name");
    assert!(
        names.contains(&format!("'{formula}")),
        "the formula is text: {names:?}"
    );
    assert!(names.contains(&"Bäcker".to_string()), "{names:?}");
    let merchants = csv_column(&csv("daily_expenses"), "merchant");
    for m in ["'@SUM(A1)", "'-Kiosk", "'+49 30"] {
        assert!(merchants.contains(&m.to_string()), "{m}: {merchants:?}");
    }
    // Amounts are numbers, never text: a negative balance stays one.
    assert_eq!(csv_column(&csv("accounts"), "balance"), vec!["-12.50"]);
    assert!(csv_column(&csv("daily_expenses"), "amount")
        .iter()
        .all(|a| a == "3.20"));
    // data.json keeps the text as it is, and so does a load of the archive.
    let data = data_json(&files);
    assert!(data["tables"]["daily_expenses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == formula));
    let ben = app.new_user().await;
    let bytes = app
        .get("/api/export", Some(&anna.cookie))
        .await
        .bytes()
        .await
        .unwrap()
        .to_vec();
    let (status, body) = load(&app, Some(&ben.cookie), bytes).await;
    assert_eq!(status, 200, "{body}");
    let loaded = app.ok(&ben, "listDailyExpenses", json!({})).await;
    let loaded = loaded
        .as_array()
        .or_else(|| loaded["items"].as_array())
        .cloned()
        .unwrap_or_default();
    assert!(loaded.iter().any(|e| e["name"] == formula), "{loaded:?}");
}

#[tokio::test]
async fn an_own_export_loads_on_the_same_instance_with_new_ids() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    let doc = household(&app, &anna, "Anna").await;
    let bytes = app
        .get("/api/export", Some(&anna.cookie))
        .await
        .bytes()
        .await
        .unwrap()
        .to_vec();
    let copy = app.new_user().await;
    let (status, body) = load(&app, Some(&copy.cookie), bytes).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tables"]["accounts"], 1, "{body}");
    assert_eq!(body["tables"]["expenses"], 1, "{body}");
    assert_eq!(body["documents"], 1, "{body}");

    let theirs = app.ok(&anna, "listAccounts", json!({})).await;
    let mine = app.ok(&copy, "listAccounts", json!({})).await;
    assert_eq!(mine[0]["name"], "Annakonto");
    assert_ne!(mine[0]["id"], theirs[0]["id"], "a new id");
    // The copy's records name the copy's account, never Anna's.
    let expenses = app.ok(&copy, "listExpenses", json!({})).await;
    assert_eq!(expenses[0]["accountId"], mine[0]["id"]);
    let documents = app
        .get("/api/documents", Some(&copy.cookie))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let copied = documents["documents"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(copied, doc);
    let file = app
        .get(&format!("/api/documents/{copied}"), Some(&copy.cookie))
        .await;
    assert_eq!(file.status(), 200);
    assert_eq!(
        file.bytes().await.unwrap().to_vec(),
        STANDARD.decode(PDF).unwrap()
    );
    // Anna's own are untouched.
    assert_eq!(app.ok(&anna, "listAccounts", json!({})).await, theirs);
    assert_eq!(
        app.get(&format!("/api/documents/{doc}"), Some(&anna.cookie))
            .await
            .status(),
        200
    );
}

/// A PDF of `size` bytes.
fn pdf_of(size: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.resize(size, b'x');
    bytes
}

#[tokio::test]
async fn an_archives_documents_pass_the_checks_of_an_upload() {
    let app = spawn_app_with(|c| c.document_quota = 1024 * 1024).await;
    let anna = app.new_user().await;
    household(&app, &anna, "Anna").await;
    let files = unzip(
        &app.get("/api/export", Some(&anna.cookie))
            .await
            .bytes()
            .await
            .unwrap(),
    );
    let data = data_json(&files);
    let row = data["tables"]["documents"][0].clone();
    let id = row["id"].as_str().unwrap().to_string();
    let entry = format!("documents/{id}/Anna-Vertrag.pdf");
    // The archive with its one document's bytes and row replaced.
    let with_document = |bytes: Vec<u8>, edit: &dyn Fn(&mut Value)| {
        let mut data = data.clone();
        let mut row = row.clone();
        row["sha256"] = json!(hex::encode(sha2::Sha256::digest(&bytes)));
        edit(&mut row);
        data["tables"]["documents"] = json!([row]);
        let files: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|(n, b)| {
                if n == &entry {
                    (n.clone(), bytes.clone())
                } else {
                    (n.clone(), b.clone())
                }
            })
            .collect();
        zip_of(&files, &data)
    };
    let user = app.new_user().await;
    let refused = |body: &Value, says: &str| {
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(&format!("file: {entry}: ")) && error.contains(says),
            "{says}: {body}"
        );
    };

    // HTML is not a document, whatever the archive's row says.
    let html = b"<html><script>alert(document.cookie)</script></html>".to_vec();
    let (status, body) = load(
        &app,
        Some(&user.cookie),
        with_document(html, &|r| r["content_type"] = json!("application/pdf")),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "must be a PDF, JPEG, PNG or WebP file");

    // Over 10 MiB.
    let (status, body) = load(
        &app,
        Some(&user.cookie),
        with_document(pdf_of(10 * 1024 * 1024 + 1), &|_| {}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "must be at most 10 MiB");

    // Bytes that are not the ones the archive's checksum names.
    let (status, body) = load(
        &app,
        Some(&user.cookie),
        with_document(pdf_of(2000), &|r| r["sha256"] = json!("00")),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "does not match its checksum");

    // More than the quota of 1 MiB: 2 MiB, while the row says 10 bytes.
    let (status, body) = load(
        &app,
        Some(&user.cookie),
        with_document(pdf_of(2 * 1024 * 1024), &|r| r["size_bytes"] = json!(10)),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("does not fit in your document storage of 1 MB"),
        "{body}"
    );
    // Nothing of the refused loads stayed: no rows, no files.
    assert_eq!(app.ok(&user, "listAccounts", json!({})).await, json!([]));
    let user_dir = app
        .data_dir()
        .join("documents")
        .join(app.user_id(&user).await.as_str());
    assert_eq!(
        std::fs::read_dir(&user_dir).map(|d| d.count()).unwrap_or(0),
        0,
        "no staged file is left"
    );

    // What is stored is what the checks found, not what the row says.
    let (status, body) = load(
        &app,
        Some(&user.cookie),
        with_document(pdf_of(5000), &|r| {
            r["size_bytes"] = json!(1);
            r["content_type"] = json!("text/html");
        }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let listed = app
        .get("/api/documents", Some(&user.cookie))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let doc = &listed["documents"][0];
    assert_eq!(doc["sizeBytes"], 5000, "{doc}");
    assert_eq!(doc["contentType"], "application/pdf", "{doc}");
    let served = app
        .get(
            &format!("/api/documents/{}", doc["id"].as_str().unwrap()),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(served.headers()["content-type"], "application/pdf");
}

/// Bits of a deflate stream, least significant first.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code: its most significant bit first.
    fn code(&mut self, code: u64, bits: u32) {
        for i in (0..bits).rev() {
            self.put((code >> i) & 1, 1);
        }
    }

    /// A literal byte of the fixed Huffman code.
    fn literal(&mut self, b: u8) {
        if b < 144 {
            self.code(0x30 + u64::from(b), 8);
        } else {
            self.code(0x190 + u64::from(b - 144), 9);
        }
    }
}

/// A real deflate stream (fixed Huffman codes) of `head`, `size` bytes of
/// `a` and `tail`: `a` repeated by matches of 258 bytes at distance 1, 13
/// bits each, so 1 GiB takes 6.5 MB.
fn deflate_run(head: &[u8], size: u64, tail: &[u8]) -> Vec<u8> {
    let mut b = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // the final block
    b.put(1, 2); // fixed Huffman codes
    for &c in head {
        b.literal(c);
    }
    b.literal(b'a');
    let mut left = size - 1;
    while left >= 258 {
        b.code(0b1100_0101, 8); // length 258
        b.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        b.literal(b'a');
    }
    for &c in tail {
        b.literal(c);
    }
    b.code(0, 7); // end of block
    if b.n > 0 {
        b.out.push(b.acc as u8);
    }
    b.out
}

/// A zip of one deflated entry `name` whose headers say it expands to
/// `declared` bytes (the checksum is not computed: an honest reader never
/// gets that far).
fn zip_with_entry(name: &str, deflated: &[u8], declared: u32) -> Vec<u8> {
    let mut z = Vec::new();
    let le16 = |z: &mut Vec<u8>, v: u16| z.extend_from_slice(&v.to_le_bytes());
    let le32 = |z: &mut Vec<u8>, v: u32| z.extend_from_slice(&v.to_le_bytes());
    le32(&mut z, 0x0403_4b50);
    for v in [20u16, 0, 8, 0, 0x21] {
        le16(&mut z, v);
    }
    le32(&mut z, 0x1234_5678);
    le32(&mut z, deflated.len() as u32);
    le32(&mut z, declared);
    le16(&mut z, name.len() as u16);
    le16(&mut z, 0);
    z.extend_from_slice(name.as_bytes());
    z.extend_from_slice(deflated);
    let directory = z.len() as u32;
    le32(&mut z, 0x0201_4b50);
    for v in [20u16, 20, 0, 8, 0, 0x21] {
        le16(&mut z, v);
    }
    le32(&mut z, 0x1234_5678);
    le32(&mut z, deflated.len() as u32);
    le32(&mut z, declared);
    le16(&mut z, name.len() as u16);
    for v in [0u16, 0, 0, 0] {
        le16(&mut z, v);
    }
    le32(&mut z, 0);
    le32(&mut z, 0);
    z.extend_from_slice(name.as_bytes());
    let size = z.len() as u32 - directory;
    le32(&mut z, 0x0605_4b50);
    for v in [0u16, 0, 1, 1] {
        le16(&mut z, v);
    }
    le32(&mut z, size);
    le32(&mut z, directory);
    le16(&mut z, 0);
    z
}

const HEAD: &[u8] = br#"{"format":"cashkeeper-export","version":2,"user":{"name":""#;
const TAIL: &[u8] = br#""},"tables":{}}"#;

/// The bombs: a data.json of a 1 GiB string in 6.5 MB; the same claiming
/// to be 1 KB; 100,000 files; and a document that is itself a zip bomb.
fn bombs() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let gib = deflate_run(HEAD, 1 << 30, TAIL);
    let total = (HEAD.len() + TAIL.len()) as u32 + (1 << 30);
    let honest = zip_with_entry("data.json", &gib, total);
    let lying = zip_with_entry("data.json", &gib, 1000);
    let many = {
        let mut out = Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for i in 0..100_000 {
            z.start_file(format!("csv/{i}.csv"), stored).unwrap();
        }
        z.finish().unwrap();
        out.into_inner()
    };
    let nested = {
        let inner = zip_with_entry("x.pdf", &deflate_run(b"%PDF-", 64 << 20, b""), 64 << 20);
        let id = "0191c2a4-0000-7000-8000-000000000001";
        let data = json!({"format": "cashkeeper-export", "version": 2, "user": {},
            "tables": {"documents": [{"id": id, "file_name": "bomb.pdf",
                "sha256": hex::encode(sha2::Sha256::digest(&inner))}]}});
        zip_of(
            &[
                (format!("documents/{id}/bomb.pdf"), inner),
                ("data.json".into(), Vec::new()),
            ],
            &data,
        )
    };
    vec![
        (
            "a 1 GiB string",
            honest,
            "file: data.json: expands more than 100 times",
        ),
        (
            "a 1 GiB string said to be 1 KB",
            lying,
            "file: data.json: is damaged",
        ),
        (
            "100,000 files",
            many,
            "file: the archive holds more than 10000 files",
        ),
        (
            "a zip bomb as a document",
            nested,
            "must be a PDF, JPEG, PNG or WebP file",
        ),
    ]
}

async fn post_archive(service: &Service, cookie: &str, bytes: Vec<u8>) -> (u16, Value) {
    load_archive(&service.client, &service.base, Some(cookie), &bytes).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn zip_bombs_are_refused_naming_the_file_also_ten_at_once_and_peak_below_100_mb() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path(), &[]);
    let pid = service.child.id();
    let mallory = service.register("mallory@example.org").await;
    let anna = service.register("anna@example.org").await;
    let bombs = tokio::task::spawn_blocking(bombs).await.unwrap();

    for (what, bytes, says) in &bombs {
        let (status, body) = post_archive(&service, &mallory, bytes.clone()).await;
        assert_eq!(status, 400, "{what}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{what}: {body}");
    }
    let peak = status_mib(pid, "VmHWM");
    eprintln!("the bombs one by one: peak {peak} MiB");
    assert!(peak < 100, "peak {peak} MiB after the bombs");

    // Ten at once, while Anna goes on working: she is never refused,
    // never signed out and never sees an internal error.
    let service = std::sync::Arc::new(service);
    let mut loads = Vec::new();
    for i in 0..10 {
        let (service, cookie) = (service.clone(), mallory.clone());
        let bytes = bombs[i % bombs.len()].1.clone();
        loads.push(tokio::spawn(async move {
            post_archive(&service, &cookie, bytes).await
        }));
    }
    let account = service
        .action(
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR"}),
            Some(&anna),
        )
        .await
        .unwrap();
    assert_eq!(account["success"], true, "{account}");
    for _ in 0..20 {
        let reply = service
            .action("listAccounts", json!({}), Some(&anna))
            .await
            .unwrap();
        assert_eq!(reply["success"], true, "{reply}");
        assert_eq!(reply["data"][0]["name"], "Giro");
    }
    for load in loads {
        let (status, body) = load.await.unwrap();
        assert_eq!(status, 400, "{body}");
    }
    let peak = status_mib(pid, "VmHWM");
    eprintln!("ten bombs at once: peak {peak} MiB");
    assert!(peak < 100, "peak {peak} MiB after ten bombs at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn export_of_200k_rows_peaks_below_100_mb() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path(), &[]);
    let pid = service.child.id();
    let cookie = service.register("heavy@example.org").await;
    // 200,000 one-time expenses, written straight into the database.
    giro_with_expenses(&service, &cookie, dir.path(), 200_000, "", |i| {
        format!("20{:02}-{:02}-{:02}", 16 + i % 10, 1 + i % 12, 1 + i % 28)
    })
    .await;

    let before = status_mib(pid, "VmHWM");
    let mut res = service
        .client
        .get(format!("{}/api/export", service.base))
        .header("cookie", format!("cashkeeper_session={cookie}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // The archive is read as it comes and counted, not kept.
    let mut bytes = 0usize;
    let mut head = Vec::new();
    while let Some(chunk) = res.chunk().await.unwrap() {
        bytes += chunk.len();
        if head.len() < 4 {
            head.extend_from_slice(&chunk[..chunk.len().min(4)]);
        }
    }
    assert_eq!(&head[..4], b"PK\x03\x04");
    assert!(bytes > 5_000_000, "{bytes} bytes");
    let peak = status_mib(pid, "VmHWM");
    eprintln!("export of 200,000 rows: {bytes} bytes, peak {before} -> {peak} MiB");
    assert!(
        peak < 100,
        "peak {peak} MiB (before the export: {before} MiB) for {bytes} bytes"
    );
}
