//! Issue 37, item 8: the smaller findings, each seen from outside. Times
//! are bounds in `docs/`, never asserted here.

use crate::push::{subscribe, vapid, BrowserKeys};
use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A raw connection to the app.
async fn connect(app: &TestApp) -> tokio::net::TcpStream {
    tokio::net::TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Everything the peer sends until it closes (or 20 s pass).
async fn answer(stream: &mut tokio::net::TcpStream) -> String {
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test]
async fn a_body_that_never_comes_is_a_408_not_a_413() {
    let app = spawn_app_with(|c| {
        c.body_read_timeout = Duration::from_millis(300);
        c.body_min_rate = 1024;
    })
    .await;
    let silent = |action: &'static str, header: String| {
        let app = &app;
        async move {
            let mut silent = connect(app).await;
            let head = format!(
                "POST /actions/{action} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                 {header}Content-Length: 100\r\n\r\n{{"
            );
            silent.write_all(head.as_bytes()).await.unwrap();
            answer(&mut silent).await
        }
    };
    let text = silent("login", String::new()).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        text.contains(r#""error":"body: did not arrive in time""#),
        "{text}"
    );
    // In the language of the browser signing in, and of the user signed in.
    let text = silent("login", "Accept-Language: de-DE,de;q=0.9\r\n".into()).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        text.contains(r#""error":"body: ist nicht rechtzeitig angekommen""#),
        "{text}"
    );
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let cookie = format!("Cookie: cashkeeper_session={}\r\n", user.cookie);
    let text = silent("createAccount", cookie.clone()).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("ist nicht rechtzeitig angekommen"), "{text}");
    app.ok(&user, "updateSettings", json!({"locale": "en"}))
        .await;
    let text = silent("createAccount", cookie).await;
    assert!(text.contains("body: did not arrive in time"), "{text}");
}

#[tokio::test]
async fn an_upload_that_never_comes_is_a_408_not_a_500() {
    let app = spawn_app_with(|c| {
        c.body_read_timeout = Duration::from_millis(300);
        c.body_min_rate = 1024;
    })
    .await;
    let user = app.new_user().await;
    let mut silent = connect(&app).await;
    let head = format!(
        "POST /api/import-data HTTP/1.1\r\nHost: x\r\nCookie: cashkeeper_session={}\r\n\
         Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 5000\r\n\r\n\
         --XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n\r\nPK",
        user.cookie
    );
    silent.write_all(head.as_bytes()).await.unwrap();
    let text = answer(&mut silent).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
}

/// The security headers on an answer's head.
fn assert_secured(head: &str) {
    let lower = head.to_ascii_lowercase();
    for header in [
        "content-security-policy: default-src 'self'",
        "x-content-type-options: nosniff",
        "x-frame-options: deny",
        "referrer-policy: same-origin",
        "cache-control: no-store",
    ] {
        assert!(lower.contains(header), "{header} missing in {head}");
    }
    assert_eq!(
        lower.matches("x-content-type-options").count(),
        1,
        "once: {head}"
    );
}

#[tokio::test]
async fn answers_made_before_routing_carry_the_security_headers() {
    let app = spawn_app().await;
    // A URI too long for the HTTP layer: 414.
    let mut long = connect(&app).await;
    let request = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    long.write_all(request.as_bytes()).await.unwrap();
    let text = answer(&mut long).await;
    assert!(text.starts_with("HTTP/1.1 414"), "{text}");
    assert_secured(&text);

    // More header fields than it takes: 431.
    let mut many = connect(&app).await;
    let mut request = String::from("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n");
    for i in 0..200 {
        request.push_str(&format!("X-Field-{i}: {i}\r\n"));
    }
    request.push_str("\r\n");
    many.write_all(request.as_bytes()).await.unwrap();
    let text = answer(&mut many).await;
    assert!(text.starts_with("HTTP/1.1 431"), "{text}");
    assert_secured(&text);

    // A header line without a colon: 400.
    let mut broken = connect(&app).await;
    broken
        .write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
        .await
        .unwrap();
    let text = answer(&mut broken).await;
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    assert_secured(&text);

    // A routed answer keeps its headers once each.
    let mut plain = connect(&app).await;
    plain
        .write_all(b"GET /nothing-here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let text = answer(&mut plain).await;
    assert!(text.starts_with("HTTP/1.1 404"), "{text}");
    assert_secured(&text);
}

async fn account(app: &TestApp, user: &TestUser) -> String {
    let r = app
        .action(
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    r.data()["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_unknown_layout_names_a_few_columns_not_all() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = account(&app, &user).await;
    let stage = |columns: usize| {
        let header: Vec<String> = (0..columns).map(|i| format!("q{i}")).collect();
        let row: Vec<String> = (0..columns).map(|i| i.to_string()).collect();
        let csv = format!("{}\n{}\n", header.join(";"), row.join(";"));
        app.action(
            "stageImport",
            json!({"accountId": giro, "fileName": "wide.csv", "csvBase64": STANDARD.encode(csv)}),
            Some(&user.cookie),
        )
    };
    // As wide as a line may be: the refusal names 20 columns and counts the rest.
    let columns = 1_000;
    let r = stage(columns).await;
    let error = r.error().expect("refused").to_string();
    assert!(error.starts_with("mapping: "), "{error}");
    assert!(error.contains("q0, q1, q2"), "{error}");
    assert!(
        error.contains(&format!("and {} more", columns - 20)),
        "{error}"
    );
    assert!(
        r.body.to_string().len() < 4_000,
        "{}",
        r.body.to_string().len()
    );
    // Wider, the line itself is refused, as briefly.
    let r = stage(50_000).await;
    let error = r.error().expect("refused").to_string();
    assert!(error.contains("more than 1000 fields on line 1"), "{error}");
    assert!(
        r.body.to_string().len() < 4_000,
        "{}",
        r.body.to_string().len()
    );
}

#[tokio::test]
async fn a_statement_file_is_not_told_about_quotes() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = account(&app, &user).await;
    let ofx = format!(
        "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>\n<MEMO>{}\n",
        "x".repeat(70 * 1024)
    );
    let r = app
        .action(
            "stageImport",
            json!({"accountId": giro, "fileName": "konto.ofx", "csvBase64": STANDARD.encode(ofx)}),
            Some(&user.cookie),
        )
        .await;
    let error = r.error().expect("refused").to_string();
    assert!(error.contains("OFX"), "{error}");
    assert!(!error.contains("quote"), "{error}");
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_worded_for_people() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            json!({"name": 202601, "type": "checking", "currency": "EUR"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("name: must be text"), "{}", r.body);
    let r = app
        .action(
            "updateSettings",
            json!({"locale": "de"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let r = app
        .action(
            "createAccount",
            json!({"name": 202601, "type": "checking", "currency": "EUR"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("name: muss Text sein"), "{}", r.body);
    let r = app
        .action(
            "register",
            json!({"email": ["a@example.org"], "password": "correct horse battery"}),
            None,
        )
        .await;
    let error = r.error().unwrap_or_default();
    assert!(!error.contains("invalid type"), "{error}");
    assert!(!error.contains("expected"), "{error}");
}

#[tokio::test]
async fn registration_is_limited_per_client() {
    let app = spawn_app_with(|c| c.registration_limit = 3).await;
    for _ in 0..3 {
        let r = app.register(&unique_email(), "correct horse battery").await;
        assert!(r.ok(), "{}", r.body);
    }
    let r = app.register(&unique_email(), "correct horse battery").await;
    let error = r.error().unwrap_or_default();
    assert!(
        error.starts_with("too many new accounts from your network; try again in "),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn look_alike_letters_do_not_make_a_second_carol() {
    let app = spawn_app().await;
    let pw = "correct horse battery";
    assert!(app.register("carol@example.org", pw).await.ok());
    // A full-width "ｃ".
    let r = app.register("\u{ff43}arol@example.org", pw).await;
    assert_eq!(
        r.error(),
        Some("email: is already registered"),
        "{}",
        r.body
    );
    // A Cyrillic "а" among Latin letters.
    let r = app.register("c\u{0430}rol@example.org", pw).await;
    assert!(
        r.error()
            .unwrap_or_default()
            .starts_with("email: mixes letters of different alphabets"),
        "{}",
        r.body
    );
    // All in Cyrillic letters that read as a registered Latin address.
    assert!(app.register("coco@example.org", pw).await.ok());
    let r = app
        .register("\u{0441}\u{043e}\u{0441}\u{043e}@example.org", pw)
        .await;
    assert_eq!(
        r.error(),
        Some("email: is already registered"),
        "{}",
        r.body
    );
    // The full-width form signs in to carol.
    let r = app.login("\u{ff43}arol@example.org", pw).await;
    assert!(r.ok(), "{}", r.body);
}

#[tokio::test]
async fn push_names_that_resolve_to_loopback_are_refused() {
    let app = spawn_app_with(|c| {
        c.vapid = Some(vapid());
        c.push_allow_loopback_http = true;
        c.push_resolve = vec![
            ("127.0.0.1.nip.io".into(), "127.0.0.1".parse().unwrap()),
            ("localtest.me".into(), "::1".parse().unwrap()),
            ("push.example.org".into(), "93.184.215.14".parse().unwrap()),
        ];
    })
    .await;
    let user = app.new_user().await;
    let keys = BrowserKeys::new();
    for endpoint in [
        "https://127.0.0.1.nip.io/push/abc",
        "https://LOCALTEST.ME/push/abc",
    ] {
        let res = subscribe(&app, &user.cookie, &keys.json(endpoint)).await;
        assert_eq!(res.status(), 422, "{endpoint}");
        let body = res.text().await.unwrap();
        assert!(
            body.contains("endpoint: must not point to a local or private address"),
            "{body}"
        );
    }
    let res = subscribe(
        &app,
        &user.cookie,
        &keys.json("https://push.example.org/push/abc"),
    )
    .await;
    assert_eq!(res.status(), 201);
}

#[tokio::test]
async fn temporary_files_a_crash_left_are_removed_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let leftovers = [
        dir.path().join(".export-0190f0c1.zip"),
        dir.path().join(".import-0190f0c2.zip"),
    ];
    for f in &leftovers {
        std::fs::write(f, b"PK\x03\x04 half an archive").unwrap();
    }
    let kept = dir.path().join("notes.txt");
    std::fs::write(&kept, b"not ours").unwrap();
    let app = spawn_app_in(dir, |_| {}).await;
    // Answered only once serving began, after the clean-up.
    let health = app.get("/api/v1/health", None).await;
    assert!(health.status().is_success());
    for f in &leftovers {
        assert!(!f.exists(), "{} left", f.display());
    }
    assert!(kept.exists());
}

#[tokio::test]
async fn a_search_reads_only_the_users_rows_and_folds_every_letter() {
    let app = spawn_app().await;
    let full = app.new_user().await;
    let empty = app.new_user().await;
    let giro = account(&app, &full).await;
    for (name, merchant) in [("ÄRZTEHAUS Mitte", ""), ("Rezept", "Apotheke ÖLMÜHLE")] {
        let r = app
            .action(
                "createDailyExpense",
                json!({"name": name, "merchant": merchant, "amount": 5, "date": "2026-01-01", "accountId": giro}),
                Some(&full.cookie),
            )
            .await;
        assert!(r.ok(), "{}", r.body);
    }
    for (q, want) in [("ärztehaus", "ÄRZTEHAUS Mitte"), ("ölmühle", "Rezept")] {
        let r = app
            .action("search", json!({"query": q}), Some(&full.cookie))
            .await;
        let names: Vec<&str> = r
            .data()
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h["name"].as_str())
            .collect();
        assert_eq!(names, vec![want], "{q}: {}", r.body);
        let r = app
            .action("search", json!({"query": q}), Some(&empty.cookie))
            .await;
        assert_eq!(r.data().as_array().unwrap().len(), 0, "{}", r.body);
    }
}

/// An empty user's search next to a user of 10,000 matching entries costs
/// what it cost before they were there (`Db::read_steps`, thousands of
/// SQLite steps): it starts from the user's own rows, not from every
/// user's full-text matches.
#[tokio::test]
async fn an_empty_users_search_costs_the_same_next_to_a_large_user() {
    let app = spawn_app().await;
    let empty = app.new_user().await;
    let cost = || async {
        let search = app.action("search", json!({"query": "Einkauf"}), Some(&empty.cookie));
        let (r, steps) = app.read_steps(search).await;
        assert_eq!(r.data().as_array().unwrap().len(), 0, "{}", r.body);
        steps
    };
    let alone = cost().await;
    let large = app.new_user().await;
    let giro = account(&app, &large).await;
    app.many_daily_expenses(&large, &giro, "2026-03", 10_000, 500)
        .await;
    let beside = cost().await;
    eprintln!("{alone}k steps alone, {beside}k beside 10,000 matching entries");
    assert!(beside <= alone + 2, "{beside}k, alone {alone}k");
}
