//! Documents: the actions, the `/api/documents` routes, sniffing, the
//! quota, ownership, and the file store's consistency after a crash.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// A real 1×1 PNG.
const PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn png() -> Vec<u8> {
    STANDARD.decode(PNG_B64).unwrap()
}

fn pdf(len: usize) -> Vec<u8> {
    let mut b = b"%PDF-1.7\n".to_vec();
    b.resize(len.max(b.len()), b'x');
    b
}

async fn upload(
    app: &TestApp,
    user: &TestUser,
    name: &str,
    bytes: &[u8],
    extra: Value,
) -> ActionReply {
    let mut body = json!({
        "fileName": name,
        "contentType": "application/pdf",
        "dataBase64": STANDARD.encode(bytes),
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    app.action("uploadDocument", body, Some(&user.cookie)).await
}

/// A `multipart/form-data` body as a browser sends it.
fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    crate::support::upload::form(parts, "application/octet-stream")
}

async fn post_multipart(
    app: &TestApp,
    cookie: Option<&str>,
    parts: &[(&str, Option<&str>, &[u8])],
) -> reqwest::Response {
    let (ct, body) = multipart(parts);
    let mut req = app
        .client
        .post(app.url("/api/documents"))
        .header("content-type", ct)
        .body(body);
    if let Some(c) = cookie {
        req = req.header("cookie", format!("cashkeeper_session={c}"));
    }
    req.send().await.unwrap()
}

/// Every file under the data directory's documents folder.
fn stored_files(app: &TestApp) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let root = app.data_dir().join("documents");
    for user in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(user.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(f.path());
        }
    }
    out
}

#[tokio::test]
async fn an_upload_is_stored_by_its_sniffed_kind_and_served_back_safely() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let bytes = png();
    let r = upload(&app, &user, "../../Kassenbon März.pdf", &bytes, json!({})).await;
    assert!(r.ok(), "{}", r.body);
    let doc = r.data().clone();
    let id = doc["id"].as_str().unwrap().to_string();
    assert_eq!(doc["fileName"], "Kassenbon März.pdf");
    assert_eq!(
        doc["contentType"], "image/png",
        "the bytes decide, not the claim"
    );
    assert_eq!(doc["sizeBytes"], bytes.len());
    assert_eq!(doc["sha256"], hex::encode(Sha256::digest(&bytes)));
    assert_eq!(doc["expenseId"], Value::Null);
    assert_eq!(doc["dailyExpenseId"], Value::Null);
    assert!(doc["createdAt"].as_str().is_some());

    // Stored under the data directory by id, nowhere else.
    let files = stored_files(&app);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].file_name().unwrap().to_str().unwrap(), id);
    assert_eq!(std::fs::read(&files[0]).unwrap(), bytes);

    let list = app
        .action("listDocuments", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(list.data().as_array().unwrap().len(), 1);
    let down = app
        .action("downloadDocument", json!({"id": id}), Some(&user.cookie))
        .await;
    assert_eq!(down.data()["contentType"], "image/png");
    assert_eq!(down.data()["fileName"], "Kassenbon März.pdf");
    assert_eq!(
        STANDARD
            .decode(down.data()["dataBase64"].as_str().unwrap())
            .unwrap(),
        bytes
    );

    let res = app
        .get(&format!("/api/documents/{id}"), Some(&user.cookie))
        .await;
    assert_eq!(res.status(), 200);
    let h = res.headers().clone();
    assert_eq!(h["content-type"], "image/png");
    assert_eq!(
        h["content-disposition"],
        "inline; filename*=UTF-8''Kassenbon%20M%C3%A4rz.pdf"
    );
    assert_eq!(h["cache-control"], "private, max-age=3600");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["content-security-policy"], "sandbox");
    assert_eq!(res.bytes().await.unwrap().to_vec(), bytes);

    let listed: Value = app
        .get("/api/documents", Some(&user.cookie))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["documents"][0]["id"], id.as_str());
}

#[tokio::test]
async fn only_pdf_jpeg_png_and_webp_are_accepted_whatever_their_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let refused: [(&str, &[u8]); 4] = [
        ("beleg.png", b"GIF89a\x01\x00\x01\x00\x00\x00\x00"),
        (
            "bild.png",
            br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#,
        ),
        (
            "seite.pdf",
            b"<!DOCTYPE html><html><script>alert(1)</script></html>",
        ),
        ("leer.pdf", b""),
    ];
    for (name, bytes) in refused {
        let r = upload(&app, &user, name, bytes, json!({})).await;
        assert!(
            r.error().unwrap().starts_with("dataBase64: "),
            "{name}: {}",
            r.body
        );
        let res = post_multipart(&app, Some(&user.cookie), &[("file", Some(name), bytes)]).await;
        assert_eq!(res.status(), 400, "{name}");
        let body: Value = res.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().starts_with("file: "),
            "{body}"
        );
    }
    let r = app
        .action(
            "uploadDocument",
            json!({"fileName": "x.pdf", "dataBase64": "not base64!"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("dataBase64: is not valid base64"));
    let r = upload(&app, &user, "", &pdf(20), json!({})).await;
    assert_eq!(r.error(), Some("fileName: is required"));
    for (name, magic) in [
        ("a.pdf", pdf(30)),
        ("b.jpg", vec![0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]),
        ("c.webp", b"RIFF\x10\x00\x00\x00WEBPVP8 xxxx".to_vec()),
    ] {
        let r = upload(&app, &user, name, &magic, json!({})).await;
        assert!(r.ok(), "{name}: {}", r.body);
    }
    assert_eq!(stored_files(&app).len(), 3, "nothing refused was written");
}

#[tokio::test]
async fn size_limits_and_the_quota_refuse_without_writing() {
    let app = spawn_app_with(|c| c.document_quota = 1024 * 1024).await;
    let user = app.new_user().await;
    let too_big = pdf(10 * 1024 * 1024 + 1);
    let r = upload(&app, &user, "big.pdf", &too_big, json!({})).await;
    assert_eq!(r.error(), Some("dataBase64: must be at most 10 MiB"));
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[("file", Some("big.pdf"), &too_big[..])],
    )
    .await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "file: must be at most 10 MiB");
    // A body beyond the upload limit is cut off as too large.
    let huge = pdf(11 * 1024 * 1024);
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[("file", Some("huge.pdf"), &huge[..])],
    )
    .await;
    assert_eq!(res.status(), 413);

    let r = upload(&app, &user, "one.pdf", &pdf(700 * 1024), json!({})).await;
    assert!(r.ok(), "{}", r.body);
    let r = upload(&app, &user, "two.pdf", &pdf(700 * 1024), json!({})).await;
    let why = r.error().unwrap();
    assert!(why.contains("1 MB"), "{why}");
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[("file", Some("two.pdf"), &pdf(700 * 1024)[..])],
    )
    .await;
    assert_eq!(res.status(), 400);
    assert_eq!(
        stored_files(&app).len(),
        1,
        "a refused upload leaves no file"
    );
    // Another user has a quota of their own.
    let other = app.new_user().await;
    assert!(upload(&app, &other, "x.pdf", &pdf(700 * 1024), json!({}))
        .await
        .ok());
}

#[tokio::test]
async fn the_multipart_route_uploads_and_attaches_to_the_users_records() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let daily = app
        .ok(
            &user,
            "createDailyExpense",
            json!({"name": "Bäcker", "amount": "3.20", "currency": "EUR", "date": "2026-11-20", "accountId": account}),
        )
        .await;
    let daily_id = daily["id"].as_str().unwrap();
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[
            ("dailyExpenseId", None, daily_id.as_bytes()),
            ("file", Some("bon.jpg"), &png()),
        ],
    )
    .await;
    assert_eq!(res.status(), 201);
    let doc: Value = res.json().await.unwrap();
    assert_eq!(doc["contentType"], "image/png");
    assert_eq!(doc["dailyExpenseId"], daily_id);

    let of_entry = app
        .action(
            "listDocuments",
            json!({"dailyExpenseId": daily_id}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(of_entry.data().as_array().unwrap().len(), 1);
    let none = app
        .action(
            "listDocuments",
            json!({"expenseId": daily_id}),
            Some(&user.cookie),
        )
        .await;
    assert!(none.data().as_array().unwrap().is_empty());

    // Ids are checked as UUIDs, then as the user's.
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[("expenseId", None, b"1"), ("file", Some("a.png"), &png())],
    )
    .await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "expenseId: must be a UUID");
    let unknown = uuid::Uuid::new_v4().to_string();
    let res = post_multipart(
        &app,
        Some(&user.cookie),
        &[
            ("expenseId", None, unknown.as_bytes()),
            ("file", Some("a.png"), &png()),
        ],
    )
    .await;
    assert_eq!(res.status(), 404);
    let res = post_multipart(&app, Some(&user.cookie), &[("note", None, b"x")]).await;
    assert_eq!(res.status(), 400);
    let res = app
        .client
        .post(app.url("/api/documents"))
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);

    // Deleting the expense keeps the document, unattached.
    app.ok(&user, "deleteDailyExpense", json!({"id": daily_id}))
        .await;
    let all = app
        .action("listDocuments", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(all.data()[0]["dailyExpenseId"], Value::Null);
    // Attach and detach.
    let expense = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Miete", "amount": "900", "currency": "EUR", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": account}),
        )
        .await;
    let attached = app
        .ok(
            &user,
            "attachDocument",
            json!({"id": doc["id"], "expenseId": expense["id"]}),
        )
        .await;
    assert_eq!(attached["expenseId"], expense["id"]);
    let both = app
        .action(
            "attachDocument",
            json!({"id": doc["id"], "expenseId": expense["id"], "dailyExpenseId": expense["id"]}),
            Some(&user.cookie),
        )
        .await;
    assert!(
        both.error().unwrap().starts_with("dailyExpenseId: "),
        "{}",
        both.body
    );
    let detached = app
        .ok(&user, "attachDocument", json!({"id": doc["id"]}))
        .await;
    assert_eq!(detached["expenseId"], Value::Null);
}

#[tokio::test]
async fn another_users_documents_and_records_are_unknown_ids() {
    let app = spawn_app().await;
    let (alice, bob) = (app.new_user().await, app.new_user().await);
    let account = app.account(&alice, "Giro", "EUR").await;
    let expense = app
        .ok(
            &alice,
            "createExpense",
            json!({"name": "Strom", "amount": "80", "currency": "EUR", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": account}),
        )
        .await;
    let doc = upload(&app, &alice, "a.pdf", &pdf(50), json!({})).await;
    let id = doc.data()["id"].as_str().unwrap().to_string();

    for (action, body) in [
        ("downloadDocument", json!({"id": id})),
        ("deleteDocument", json!({"id": id})),
        ("attachDocument", json!({"id": id})),
    ] {
        let r = app.action(action, body, Some(&bob.cookie)).await;
        assert_eq!(r.error(), Some("not found"), "{action}");
    }
    let r = upload(
        &app,
        &bob,
        "b.pdf",
        &pdf(50),
        json!({"expenseId": expense["id"]}),
    )
    .await;
    assert_eq!(r.error(), Some("expenseId: not found"));
    let bobs = upload(&app, &bob, "b.pdf", &pdf(50), json!({})).await;
    let r = app
        .action(
            "attachDocument",
            json!({"id": bobs.data()["id"], "expenseId": expense["id"]}),
            Some(&bob.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("expenseId: not found"));
    let res = post_multipart(
        &app,
        Some(&bob.cookie),
        &[
            (
                "expenseId",
                None,
                expense["id"].as_str().unwrap().as_bytes(),
            ),
            ("file", Some("a.png"), &png()),
        ],
    )
    .await;
    assert_eq!(res.status(), 404);

    let res = app
        .get(&format!("/api/documents/{id}"), Some(&bob.cookie))
        .await;
    assert_eq!(res.status(), 404);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "not found");
    let res = app
        .client
        .delete(app.url(&format!("/api/documents/{id}")))
        .header("cookie", format!("cashkeeper_session={}", bob.cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let listed: Value = app
        .get("/api/documents", Some(&bob.cookie))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        listed["documents"].as_array().unwrap().len(),
        1,
        "only bob's own"
    );

    // Without a session every route is a 401.
    assert_eq!(app.get("/api/documents", None).await.status(), 401);
    assert_eq!(
        app.get(&format!("/api/documents/{id}"), None)
            .await
            .status(),
        401
    );
    let res = post_multipart(&app, None, &[("file", Some("a.png"), &png())]).await;
    assert_eq!(res.status(), 401);
    let res = app
        .client
        .delete(app.url(&format!("/api/documents/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);

    // Alice still has hers, and deletes it with the route: row and file go.
    let res = app
        .client
        .delete(app.url(&format!("/api/documents/{id}")))
        .header("cookie", format!("cashkeeper_session={}", alice.cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(stored_files(&app).len(), 1, "only bob's file is left");
    let res = app
        .get(&format!("/api/documents/{id}"), Some(&alice.cookie))
        .await;
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn a_missing_file_is_not_found_and_orphans_are_swept_at_start() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let kept = upload(&app, &user, "kept.pdf", &pdf(40), json!({})).await;
    let lost = upload(&app, &user, "lost.pdf", &pdf(40), json!({})).await;
    let (kept_id, lost_id) = (
        kept.data()["id"].as_str().unwrap().to_string(),
        lost.data()["id"].as_str().unwrap().to_string(),
    );
    let user_dir = stored_files(&app)[0].parent().unwrap().to_path_buf();
    std::fs::remove_file(user_dir.join(&lost_id)).unwrap();
    let res = app
        .get(&format!("/api/documents/{lost_id}"), Some(&user.cookie))
        .await;
    assert_eq!(res.status(), 404);
    let r = app
        .action(
            "downloadDocument",
            json!({"id": lost_id}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("not found"));

    // What a crash between writing a file and inserting its row leaves.
    let orphan = uuid::Uuid::new_v4().to_string();
    std::fs::write(user_dir.join(&orphan), b"%PDF-orphan").unwrap();
    std::fs::write(user_dir.join(format!(".{orphan}.partial")), b"%PDF-half").unwrap();
    let dir = app.stop().await;
    let app = spawn_app_in(dir, |_| {}).await;
    let names: Vec<String> = stored_files(&app)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![kept_id.clone()]);
    let user = TestUser {
        cookie: app
            .login(&user.email, &user.password)
            .await
            .session_cookie()
            .unwrap(),
        ..user
    };
    let res = app
        .get(&format!("/api/documents/{kept_id}"), Some(&user.cookie))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_documents_page_links_each_document_to_the_record_it_belongs_to() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let daily = app
        .ok(
            &user,
            "createDailyExpense",
            json!({"name": "Bäcker", "amount": "3.20", "currency": "EUR", "date": "2026-10-20", "accountId": account}),
        )
        .await;
    let daily_id = daily["id"].as_str().unwrap().to_string();
    let rent = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Miete", "amount": "900", "currency": "EUR", "frequency": "monthly", "startDate": "2026-01-01", "accountId": account}),
        )
        .await;
    let rent_id = rent["id"].as_str().unwrap().to_string();
    assert!(upload(
        &app,
        &user,
        "bon.pdf",
        &pdf(100),
        json!({"dailyExpenseId": daily_id})
    )
    .await
    .ok());
    assert!(upload(
        &app,
        &user,
        "vertrag.pdf",
        &pdf(100),
        json!({"expenseId": rent_id})
    )
    .await
    .ok());
    assert!(upload(&app, &user, "lose.pdf", &pdf(100), json!({}))
        .await
        .ok());
    let html = app
        .get("/documents", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(&format!(
            "<a href=\"/daily-expenses?month=2026-10&amp;edit={daily_id}\">Bäcker</a>"
        )),
        "{html}"
    );
    assert!(
        html.contains(&format!("<a href=\"/expenses?edit={rent_id}\">Miete</a>")),
        "{html}"
    );
}
