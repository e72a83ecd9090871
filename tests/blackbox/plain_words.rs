//! What a person reads when the AI provider fails or a file is refused:
//! a plain sentence in their language, never the technical cause (that
//! goes to the log). The provider is a real server on loopback, or a port
//! nothing listens on.

use crate::assistant::{app_with_chat, ChatProvider, Dialect, Turn};
use crate::receipts::app_with_ai;
use crate::support::*;
use serde_json::{json, Value};

/// A PNG by its first bytes and its header (1×1 pixels).
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
const GIF: &[u8] = b"GIF89a\x01\0\x01\0\x80\0\0\0\0\0\xff\xff\xff!\xf9\x04";

/// Words of the causes a person must never read.
const TECHNICAL: &[&str] = &[
    "error sending request",
    "Connection refused",
    "os error",
    "tcp connect",
    "AI provider",
    "JSON",
    "could not be used",
    "out of memory",
];

fn plain(text: &str) {
    for word in TECHNICAL {
        assert!(!text.contains(word), "{word:?} in {text:?}");
    }
}

const BOUNDARY: &str = "plain-words-boundary-4f1c";

/// One part of a multipart body: name, file name, bytes.
type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

/// `parts` (name, file name, bytes) as a multipart body.
fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, bytes) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut head = format!("Content-Disposition: form-data; name=\"{name}\"");
        if let Some(f) = file {
            head.push_str(&format!("; filename=\"{f}\""));
        }
        body.extend_from_slice(head.as_bytes());
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// Posts `parts` to `path` as `user`: the status and the JSON body.
async fn post(app: &TestApp, user: &TestUser, path: &str, parts: &[Part<'_>]) -> (u16, Value) {
    let res = app
        .client
        .post(app.url(path))
        .header("origin", &app.base)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .body(multipart(parts))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// A new user who reads the pages in `locale` (`de`, `en`).
pub(crate) async fn user_in(app: &TestApp, locale: &str) -> TestUser {
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({ "locale": locale }))
        .await;
    user
}

/// What a German and an English user read when the scan's provider is down.
const SCAN_DOWN: [(&str, &str); 2] = [
    (
        "de",
        "Der KI-Dienst ist gerade nicht erreichbar. Versuch es später noch einmal oder trag die \
         Angaben von Hand ein.",
    ),
    (
        "en",
        "The AI service cannot be reached right now. Try again later, or enter the details by \
         hand.",
    ),
];

/// Scans a PNG as `user`.
async fn scan(app: &TestApp, user: &TestUser) -> (u16, Value) {
    post(
        app,
        user,
        "/api/receipt-scan",
        &[("file", Some("bon.png"), PNG)],
    )
    .await
}

/// A provider on loopback, the app using it, and a German user.
async fn german_with_provider() -> (ChatProvider, TestApp, TestUser) {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = user_in(&app, "de").await;
    (provider, app, user)
}

/// An address on loopback that nothing listens on.
pub fn closed_port() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    format!("http://127.0.0.1:{port}/v1")
}

#[tokio::test]
async fn a_scan_with_the_provider_down_says_so_in_the_users_language_without_the_cause() {
    let app = app_with_ai(&closed_port()).await;
    for (locale, want) in SCAN_DOWN {
        let user = user_in(&app, locale).await;
        let (status, body) = scan(&app, &user).await;
        assert_eq!(status, 502, "{body}");
        assert_eq!(body, json!({"success": false, "error": want}));
        plain(want);
    }
}

#[tokio::test]
async fn a_scan_answered_with_prose_asks_for_a_sharper_photo_in_german() {
    let (provider, app, user) = german_with_provider().await;
    provider.then(Turn::Text("Sorry, I cannot read this.".into()));
    let (status, body) = scan(&app, &user).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["error"],
        "Die KI konnte diesen Kassenbon nicht lesen. Versuch es mit einem schärferen Foto oder \
         trag die Angaben von Hand ein."
    );
}

#[tokio::test]
async fn the_assistant_with_a_provider_answering_garbage_says_a_plain_sentence() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    for (locale, want) in [
        (
            "de",
            "Der KI-Dienst ist gerade nicht erreichbar. Versuch es später noch einmal.",
        ),
        (
            "en",
            "The AI service cannot be reached right now. Try again later.",
        ),
    ] {
        let user = user_in(&app, locale).await;
        // A reply that is no chat completion at all.
        provider.then(Turn::Status(200, "<html>bad gateway</html>".into()));
        let res = app
            .client
            .post(app.url("/api/chat"))
            .header("origin", &app.base)
            .header("content-type", "application/json")
            .header("cookie", format!("cashkeeper_session={}", user.cookie))
            .body(json!({"messages": [{"role": "user", "content": "Hallo"}]}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 502);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], want, "{body}");
        plain(want);
    }
}

#[tokio::test]
async fn import_suggestions_from_a_garbage_answer_say_a_plain_sentence_in_german() {
    let (provider, app, user) = german_with_provider().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let csv = "Buchungstag;Verwendungszweck;Beguenstigter/Zahlungspflichtiger;Betrag\n\
               02.03.2026;Brötchen;Bäckerei Schmidt;-4,20\n";
    let (status, batch) = post(
        &app,
        &user,
        "/api/imports",
        &[
            ("accountId", None, account.as_bytes()),
            ("file", Some("umsaetze.csv"), csv.as_bytes()),
        ],
    )
    .await;
    assert_eq!(status, 201, "{batch}");
    for (turn, want) in [
        (
            Turn::Text("I think the bakery is food. Hope that helps!".into()),
            "Keine KI-Vorschläge: die Antwort der KI war nicht zu gebrauchen. Die Zeilen lassen \
             sich auch ohne sie prüfen und bestätigen.",
        ),
        (
            Turn::Status(500, r#"{"error":{"message":"out of memory"}}"#.into()),
            "Keine KI-Vorschläge: der KI-Dienst ist gerade nicht erreichbar. Die Zeilen lassen \
             sich auch ohne sie prüfen und bestätigen.",
        ),
    ] {
        provider.then(turn);
        let r = app
            .ok(
                &user,
                "reconcileImport",
                json!({"id": batch["id"], "ai": true}),
            )
            .await;
        assert_eq!(r["ai"]["error"], want, "{r}");
        plain(want);
    }
}

#[tokio::test]
async fn every_file_refusal_speaks_german() {
    let app = app_with_ai(&closed_port()).await;
    let user = user_in(&app, "de").await;
    let account = app.account(&user, "Giro", "EUR").await;
    let gif = [("file", Some("bild.gif"), GIF)];
    for (path, want) in [
        (
            "/api/documents",
            "file: muss eine PDF-, JPEG-, PNG- oder WebP-Datei sein",
        ),
        (
            "/api/receipt-scan",
            "file: Das Foto muss ein JPEG- oder PNG-Bild sein",
        ),
    ] {
        let (status, body) = post(&app, &user, path, &gif).await;
        assert_eq!((status, &body["error"]), (400, &json!(want)), "{path}");
    }
    // A bank file to import: binary, empty, missing.
    let account = [("accountId", None, account.as_bytes())];
    for (file, want) in [
        (
            Some(&b"\0\x01\x02binary\0\0\xff"[..]),
            "file: ist keine CSV-Textdatei",
        ),
        (
            Some(&b""[..]),
            "file: Die Datei ist leer: Sie enthält keine Buchungen",
        ),
        // Rows there are, under a bank's own header, but none reads as a
        // booking: not "empty".
        (
            Some(
                "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;\
                 Verwendungszweck;Betrag;Währung\n\
                 irgendwann;bald;Bäcker;x;y;viel;EUR\nmorgen;heute;Kiosk;x;y;wenig;EUR\n"
                    .as_bytes(),
            ),
            "file: Die Datei hat 2 Zeilen, aber in keiner lässt sich ein Datum oder ein Betrag \
             lesen; ist es der Umsatz-Export deines Kontos?",
        ),
        (None, "file: bitte ausfüllen"),
    ] {
        let mut parts = account.to_vec();
        parts.extend(file.map(|bytes| ("file", Some("umsaetze.csv"), bytes)));
        let (status, body) = post(&app, &user, "/api/imports", &parts).await;
        assert_eq!((status, &body["error"]), (400, &json!(want)), "{body}");
    }
}

/// Chooses a photo in the scan's file input as a person would (the
/// browser's `change` event with a PNG), then waits for the scan's status
/// to say what went wrong: its text, whether it is inside the viewport,
/// whether it has the focus, and the page's language.
async fn failed_scan(c: &fantoccini::Client) -> Value {
    c.execute(
        "const scan = document.querySelector('[data-scan]');
         scan.scrollIntoView({ block: 'center' });
         const input = scan.querySelector('input[type=file]');
         const png = Uint8Array.from(atob(arguments[0]), ch => ch.charCodeAt(0));
         const dt = new DataTransfer();
         dt.items.add(new File([png], 'bon.png', { type: 'image/png' }));
         input.files = dt.files;
         input.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![json!(base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            PNG
        ))],
    )
    .await
    .unwrap();
    crate::support::browser::wait_until(
        c,
        "const s = document.querySelector('[data-scan] .scan-status');
         if (!s || s.hidden || !s.classList.contains('error')) return null;
         const r = s.getBoundingClientRect();
         return {
           text: s.textContent,
           role: s.getAttribute('role'),
           inView: r.height > 0 && r.top >= 0 && r.left >= 0
             && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
           focused: document.activeElement === s,
           lang: document.documentElement.lang,
         };",
        vec![],
    )
    .await
    .unwrap_or_else(|| panic!("the failed scan said nothing"))
}

#[tokio::test]
async fn a_failed_scan_is_said_beside_its_button_in_view_in_the_pages_language() {
    use crate::support::browser::{screenshot, signed_in_with, wait_for_css};
    let app = app_with_ai(&closed_port()).await;
    for (width, height, dark) in [
        (390, 844, false),
        (390, 844, true),
        (1280, 900, false),
        (1280, 900, true),
    ] {
        let user = app.new_user().await;
        app.account(&user, "Giro", "EUR").await;
        let Some(browser) = signed_in_with(&app, &user, width, height, dark).await else {
            return;
        };
        let c = &browser.client;
        for (locale, want) in SCAN_DOWN {
            app.ok(&user, "updateSettings", json!({ "locale": locale }))
                .await;
            c.goto(&app.url("/daily-expenses")).await.unwrap();
            wait_for_css(c, "[data-scan] input[type=file]").await;
            let seen = failed_scan(c).await;
            let at = format!("{locale} {width}px dark={dark}: {seen}");
            assert_eq!(seen["text"], want, "{at}");
            assert_eq!(seen["lang"], locale, "{at}");
            assert_eq!(seen["role"], "alert", "{at}");
            assert_eq!(seen["inView"], true, "visible without scrolling: {at}");
            assert_eq!(seen["focused"], true, "{at}");
            let scheme = if dark { "-dark" } else { "" };
            screenshot(c, &format!("scan-failed-{locale}-{width}{scheme}")).await;
        }
    }
}

#[tokio::test]
async fn settings_say_what_loading_an_export_brought_beside_the_form() {
    use crate::support::browser::{signed_in, wait_for_css, wait_until};
    let app = spawn_app().await;
    let anna = app.new_user().await;
    crate::export::household(&app, &anna, "Anna").await;
    let bytes = crate::export::export_of(&app, &anna).await;
    let moved = user_in(&app, "de").await;
    app.ok(&moved, "updateSettings", json!({"name": "Anna Neu"}))
        .await;
    let Some(browser) = signed_in(&app, &moved, 390, 844).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/settings")).await.unwrap();
    wait_for_css(c, "#load-export input[type=file]").await;
    c.execute(
        "const form = document.getElementById('load-export');
         const zip = Uint8Array.from(atob(arguments[0]), ch => ch.charCodeAt(0));
         const dt = new DataTransfer();
         dt.items.add(new File([zip], 'export.zip', { type: 'application/zip' }));
         form.querySelector('input[type=file]').files = dt.files;
         form.querySelector('button[type=submit]').click();",
        vec![json!(base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            &bytes
        ))],
    )
    .await
    .unwrap();
    let report = "const s = document.querySelector('#load-export .form-success');
         if (!s || s.hidden || !s.textContent) return null;
         const r = s.getBoundingClientRect();
         return {
           text: s.textContent,
           inView: r.top >= 0 && r.bottom <= window.innerHeight,
           focused: document.activeElement === s,
         };";
    // The page is put back where it was once loaded; the report after.
    wait_until(
        c,
        &format!("const seen = (function () {{ {report} }})(); return seen && seen.inView && seen.focused"),
        vec![],
    )
    .await;
    let seen = c.execute(report, vec![]).await.unwrap();
    let text = seen["text"].as_str().unwrap_or_else(|| panic!("no report"));
    assert!(
        text.starts_with("Export geladen: 1 Konto, 1 wiederkehrende Ausgabe, 1 Einzelausgabe"),
        "{seen}"
    );
    assert_eq!(seen["inView"], true, "{seen}");
    assert_eq!(seen["focused"], true, "{seen}");
    let settings = app.ok(&moved, "getSettings", json!({})).await;
    assert_eq!(settings["name"], "Anna Neu", "not renamed");
    assert_eq!(settings["locale"], "de");
}
