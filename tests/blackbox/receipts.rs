//! `POST /api/receipt-scan` against an AI provider the test runs on
//! loopback: a real HTTP server speaking the OpenAI wire format, which
//! records what it receives and answers what each test scripts.

use crate::support::upload::{multipart, Part};
use crate::support::*;
use base64::Engine;
use cashkeeper::config::Secret;
use serde_json::{json, Value};

/// A PNG by its first bytes and its header (1×1 pixels): the service
/// reads the size from the header and does not decode a small image (the
/// vision model does).
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
/// A JPEG's first segments: APP0 (JFIF) and a frame header (SOF0) of 1×1.
const JPEG: &[u8] = b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xff\xc0\0\x11\x08\0\x01\0\x01\x03\x01\x11\0\x02\x11\x01\x03\x11\x01";
const GIF: &[u8] = b"GIF89a\x01\0\x01\0\x80\0\0\0\0\0\xff\xff\xff!\xf9\x04";
const SVG: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><text>12.50</text></svg>";

// The provider on loopback is the assistant tests' one: it answers a
// request without `stream` with one JSON completion of the scripted turn.
pub use crate::assistant::{ChatProvider as Provider, Turn as Reply};

/// The app with AI pointed at `base_url`, with a vision model of its own.
pub async fn app_with_ai(base_url: &str) -> TestApp {
    app_with_ai_and(base_url, |_| {}).await
}

/// Like [`app_with_ai`], with more of the configuration set by `tweak`.
pub async fn app_with_ai_and(
    base_url: &str,
    tweak: impl FnOnce(&mut cashkeeper::config::Config),
) -> TestApp {
    let base_url = base_url.to_string();
    spawn_app_with(move |c| {
        c.ai.api_key = Some(Secret::new("sk-test-key"));
        c.ai.base_url = base_url;
        c.ai.model = "test-text".into();
        c.ai.vision_model = "test-vision".into();
        tweak(c);
    })
    .await
}

fn file(bytes: &[u8]) -> Part<'_> {
    Part {
        name: "file",
        file_name: Some("receipt.png"),
        content_type: Some("image/png"),
        bytes,
    }
}

impl TestApp {
    fn scan_request(&self, cookie: Option<&str>, parts: &[Part<'_>]) -> reqwest::RequestBuilder {
        let (content_type, body) = multipart(parts);
        let mut req = self
            .client
            .post(self.url("/api/receipt-scan"))
            .header("content-type", content_type)
            .body(body);
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        req
    }

    /// Posts `parts` to the receipt scan as `cookie`'s user.
    async fn scan(&self, cookie: Option<&str>, parts: &[Part<'_>]) -> ActionReply {
        self.reply(self.scan_request(cookie, parts)).await
    }
}

/// The reply is `{"success":false,"error"}` with `status`; the error.
fn refused(reply: &ActionReply, status: u16) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body["success"], false, "{}", reply.body);
    let error = reply.error().expect("an error message").to_string();
    assert!(!error.is_empty());
    error
}

/// What an English user reads when the provider fails, and when its
/// answer holds no receipt.
const UNAVAILABLE: &str =
    "The AI service cannot be reached right now. Try again later, or enter the details by hand.";
const UNREADABLE: &str =
    "The AI could not read this receipt. Try a sharper photo, or enter the details by hand.";

async fn category_id(app: &TestApp, user: &TestUser, index: usize) -> String {
    let cats = app.ok(user, "listCategories", json!({})).await;
    cats[index]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_receipt_goes_to_the_vision_model_as_a_png_data_uri_and_comes_back_checked() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    let groceries = category_id(&app, &user, 0).await;
    provider.then(Reply::Text(
        json!({
            "merchant": "Bäckerei Schmidt",
            "date": "2026-03-14",
            "total": "23.4",
            "currency": "chf",
            "items": [{"name": "Brot", "amount": "3.20"}, {"name": "Kuchen", "amount": 20.2}],
            "categoryId": groceries,
        })
        .to_string(),
    ));

    let res = app
        .scan_request(Some(&user.cookie), &[file(PNG)])
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    // Amounts are numbers with two decimals on the wire.
    for amount in [r#""total":23.40"#, r#""amount":3.20"#, r#""amount":20.20"#] {
        assert!(text.contains(amount), "{amount} in {text}");
    }
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        body,
        json!({"success": true, "data": {
            "merchant": "Bäckerei Schmidt",
            "date": "2026-03-14",
            "total": 23.40,
            "currency": "CHF",
            "items": [{"name": "Brot", "amount": 3.20}, {"name": "Kuchen", "amount": 20.20}],
            "categoryId": groceries,
            "notes": "Brot 3.20\nKuchen 20.20",
        }})
    );
    let requests = provider.requests();
    assert_eq!(requests.len(), 1);
    let (auth, sent) = &requests[0];
    assert_eq!(auth, "Bearer sk-test-key");
    assert_eq!(
        sent["model"], "test-vision",
        "the vision model reads receipts"
    );
    let parts = sent["messages"][0]["content"].as_array().unwrap();
    let url = parts
        .iter()
        .find(|p| p["type"] == "image_url")
        .and_then(|p| p["image_url"]["url"].as_str())
        .expect("an image_url part");
    let encoded = url
        .strip_prefix("data:image/png;base64,")
        .expect("a PNG data URI");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(decoded, PNG);
    let text = parts
        .iter()
        .find(|p| p["type"] == "text")
        .and_then(|p| p["text"].as_str())
        .unwrap();
    assert!(
        text.contains(&groceries),
        "the user's categories are offered"
    );
    assert_eq!(
        sent["response_format"]["type"], "json_schema",
        "JSON is asked for"
    );
    assert!(sent["response_format"]["json_schema"]["schema"]["properties"]["total"].is_object());
    assert_eq!(sent["stream"], false);
}

#[tokio::test]
async fn the_items_for_the_notes_are_written_in_the_users_number_style() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let answer = json!({
        "merchant": "REWE", "date": "2026-03-14", "total": "1234.94", "currency": "EUR",
        "items": [{"name": "Vollmilch 1,5%", "amount": "1.19"}, {"name": "Pfand", "amount": "-0.25"},
                  {"name": "Fahrrad", "amount": "1234"}],
        "categoryId": null,
    })
    .to_string();
    for (locale, notes) in [
        ("de", "Vollmilch 1,5% 1,19\nPfand -0,25\nFahrrad 1.234,00"),
        ("en", "Vollmilch 1,5% 1.19\nPfand -0.25\nFahrrad 1,234.00"),
    ] {
        let user = app.new_user().await;
        app.ok(&user, "updateSettings", json!({"locale": locale}))
            .await;
        provider.then(Reply::Text(answer.clone()));
        let reply = app.scan(Some(&user.cookie), &[file(PNG)]).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.body["data"]["notes"], notes, "{locale}");
        // The items themselves stay numbers.
        assert_eq!(reply.body["data"]["items"][0]["amount"], 1.19);
    }
}

#[tokio::test]
async fn json_fenced_garbage_and_a_failing_provider_in_turn() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    let (learned, guessed) = (
        category_id(&app, &user, 1).await,
        category_id(&app, &user, 2).await,
    );
    app.ok(
        &user,
        "learnMerchantCategory",
        json!({"merchant": "REWE Markt 1234 Berlin", "categoryId": learned}),
    )
    .await;
    provider
        .then(Reply::Text(format!(
            "Here is the receipt as JSON:\n```json\n{}\n```\nLet me know if you need more.",
            json!({"merchant": "REWE Markt", "date": "14.03.2026", "total": "7,99",
                   "currency": null, "items": [], "categoryId": guessed})
        )))
        .then(Reply::Text("I am sorry, I cannot read this image.".into()))
        .then(Reply::Status(
            500,
            r#"{"error":{"message":"CUDA out of memory","type":"server_error"}}"#.into(),
        ));

    // Fenced JSON amid prose; the merchant memory beats the model's pick;
    // no currency shown: the user's base currency.
    let reply = app.scan(Some(&user.cookie), &[file(JPEG)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let data = &reply.body["data"];
    assert_eq!(data["merchant"], "REWE Markt");
    assert_eq!(data["date"], "2026-03-14");
    assert_eq!(data["total"], json!(7.99));
    assert_eq!(data["currency"], "EUR");
    assert_eq!(data["items"], json!([]));
    assert_eq!(
        data["categoryId"],
        json!(learned),
        "the merchant memory first"
    );
    let requests = provider.requests();
    let url = requests[0].1["messages"][0]["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.starts_with("data:image/jpeg;base64,"), "{url}");

    // Prose without JSON: the answer cannot be used.
    let error = refused(&app.scan(Some(&user.cookie), &[file(PNG)]).await, 422);
    assert_eq!(error, UNREADABLE);

    // The provider fails: a bad gateway; the provider's words are for the
    // log, the person reads a plain sentence.
    let error = refused(&app.scan(Some(&user.cookie), &[file(PNG)]).await, 502);
    assert_eq!(error, UNAVAILABLE);
}

#[tokio::test]
async fn an_answer_that_does_not_hold_up_is_422_and_no_amount_is_a_float() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    provider
        .then(Reply::Text(
            r#"{"merchant": "Kiosk", "total": "a lot"}"#.into(),
        ))
        .then(Reply::Text(r#"["not", "an", "object"]"#.into()))
        .then(Reply::Text(
            r#"{"merchant": "  ", "date": "03/04/2026", "total": 0.1, "currency": "DOGE",
                "items": [{"name": "x"}], "categoryId": "someone-elses"}"#
                .into(),
        ));
    for _ in 0..2 {
        let error = refused(&app.scan(Some(&user.cookie), &[file(PNG)]).await, 422);
        assert_eq!(error, UNREADABLE);
    }
    let reply = app.scan(Some(&user.cookie), &[file(PNG)]).await;
    assert_eq!(
        reply.body,
        json!({"success": true, "data": {"merchant": null, "date": null, "total": 0.10,
               "currency": "EUR", "items": [], "categoryId": null, "notes": ""}})
    );
}

#[tokio::test]
async fn a_server_refusing_response_format_is_asked_again_without_it() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    provider
        .then(Reply::Status(
            400,
            r#"{"error":{"message":"response_format type must be one of \"text\" or \"json_object\""}}"#
                .into(),
        ))
        .then(Reply::Text(r#"{"total": "5.00"}"#.into()));
    let reply = app.scan(Some(&user.cookie), &[file(PNG)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body["data"]["total"], json!(5.0));
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].1.get("response_format").is_some());
    assert!(requests[1].1.get("response_format").is_none());
}

#[tokio::test]
async fn an_unreachable_or_silent_provider_is_a_bad_gateway() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let app = app_with_ai(&format!("http://127.0.0.1:{port}/v1")).await;
    let user = app.new_user().await;
    let error = refused(&app.scan(Some(&user.cookie), &[file(PNG)]).await, 502);
    assert_eq!(error, UNAVAILABLE);

    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    provider.then(Reply::Hang);
    let base_url = provider.base_url.clone();
    let app = spawn_app_with(move |c| {
        c.ai.api_key = Some(Secret::new("sk-test-key"));
        c.ai.base_url = base_url;
        c.ai.timeout = std::time::Duration::from_secs(1);
    })
    .await;
    let user = app.new_user().await;
    let error = refused(&app.scan(Some(&user.cookie), &[file(PNG)]).await, 502);
    assert_eq!(error, UNAVAILABLE, "too late is unavailable too");
}

#[tokio::test]
async fn without_a_session_it_is_401_and_without_an_ai_key_400_whatever_the_body() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let error = refused(&app.scan(None, &[file(PNG)]).await, 401);
    assert_eq!(error, "unauthorized");

    let app = spawn_app().await;
    // The session comes first.
    refused(&app.scan(None, &[file(PNG)]).await, 401);
    let user = app.new_user().await;
    for parts in [vec![file(PNG)], vec![file(GIF)], vec![]] {
        let error = refused(&app.scan(Some(&user.cookie), &parts).await, 400);
        assert!(error.contains("AI_API_KEY"), "{error}");
    }
    let not_multipart = app
        .reply(
            app.client
                .post(app.url("/api/receipt-scan"))
                .header("cookie", format!("cashkeeper_session={}", user.cookie))
                .header("content-type", "application/json")
                .body("{"),
        )
        .await;
    refused(&not_multipart, 400);
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn the_sixth_scan_in_a_minute_is_429_with_retry_after() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let (alice, bob) = (app.new_user().await, app.new_user().await);
    // Refused files count too: the limit is on requests.
    for _ in 0..5 {
        refused(&app.scan(Some(&alice.cookie), &[file(GIF)]).await, 400);
    }
    let reply = app.scan(Some(&alice.cookie), &[file(PNG)]).await;
    let error = refused(&reply, 429);
    assert!(error.contains("5"), "{error}");
    let retry_after: i64 = reply.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("whole seconds");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // Per user.
    refused(&app.scan(Some(&bob.cookie), &[file(GIF)]).await, 400);
    // A minute later the window has moved on.
    app.state.clock.advance(chrono::Duration::seconds(61));
    refused(&app.scan(Some(&alice.cookie), &[file(GIF)]).await, 400);
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn five_mebibytes_are_accepted_one_byte_more_is_400_and_a_larger_body_413() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    provider.then(Reply::Text(r#"{"total": "1.00"}"#.into()));

    let mut image = PNG.to_vec();
    image.resize(5 * 1024 * 1024, 0);
    let reply = app.scan(Some(&user.cookie), &[file(&image)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(provider.requests().len(), 1);

    image.push(0);
    let error = refused(&app.scan(Some(&user.cookie), &[file(&image)]).await, 400);
    assert!(error.starts_with("file: "), "{error}");

    image.resize(6 * 1024 * 1024, 0);
    let error = refused(&app.scan(Some(&user.cookie), &[file(&image)]).await, 413);
    assert!(!error.is_empty());

    // The same without a Content-Length: the limit holds while reading.
    let (content_type, body) = multipart(&[file(&image)]);
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(256 * 1024).map(|c| Ok(c.to_vec())).collect();
    let streamed = app
        .reply(
            app.client
                .post(app.url("/api/receipt-scan"))
                .header("cookie", format!("cashkeeper_session={}", user.cookie))
                .header("content-type", content_type)
                .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                    chunks,
                ))),
        )
        .await;
    refused(&streamed, 413);
    assert_eq!(
        provider.requests().len(),
        1,
        "nothing more reached the provider"
    );
}

#[tokio::test]
async fn the_file_kind_is_read_from_its_bytes_never_from_its_name_or_type() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    for (bytes, name, kind) in [
        (GIF, "receipt.gif", "image/gif"),
        (SVG, "receipt.svg", "image/svg+xml"),
        (SVG, "receipt.png", "image/png"),
        (b"%PDF-1.7\n" as &[u8], "receipt.jpg", "image/jpeg"),
    ] {
        let part = Part {
            name: "file",
            file_name: Some(name),
            content_type: Some(kind),
            bytes,
        };
        let error = refused(&app.scan(Some(&user.cookie), &[part]).await, 400);
        assert_eq!(
            error, "file: The photo must be a JPEG or PNG image",
            "{name}"
        );
    }
    assert!(provider.requests().is_empty());

    // A PNG called .pdf and declared application/pdf is a PNG.
    let user = app.new_user().await;
    provider.then(Reply::Text(r#"{"total": "2.50"}"#.into()));
    let part = Part {
        name: "file",
        file_name: Some("scan.pdf"),
        content_type: Some("application/pdf"),
        bytes: PNG,
    };
    let other = Part {
        name: "note",
        file_name: None,
        content_type: None,
        bytes: b"ignored",
    };
    let reply = app.scan(Some(&user.cookie), &[other, part]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let url = provider.requests()[0].1["messages"][0]["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.starts_with("data:image/png;base64,"), "{url}");

    // No part named `file`, or an empty one.
    let wrong_name = Part {
        name: "image",
        ..file(PNG)
    };
    let error = refused(&app.scan(Some(&user.cookie), &[wrong_name]).await, 400);
    assert!(
        error.starts_with("file: Choose a JPEG or PNG photo of the receipt"),
        "{error}"
    );
    let error = refused(&app.scan(Some(&user.cookie), &[file(b"")]).await, 400);
    assert_eq!(error, "file: is empty");
}

/// A PNG whose header declares `width`×`height` pixels, with a few bytes
/// of image data: a tiny file that would decode to gigabytes.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        // CRC-32 of the chunk's type and data, as PNG has it.
        let mut crc = !0u32;
        for b in kind.iter().chain(data) {
            crc ^= u32::from(*b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    0xEDB8_8320 ^ (crc >> 1)
                } else {
                    crc >> 1
                };
            }
        }
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        png.extend_from_slice(&(!crc).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(
        b"IDAT",
        b"\x78\x9c\xed\xc1\x01\x0d\x00\x00\x00\xc2\xa0\xf7\x4f",
    );
    chunk(b"IEND", b"");
    png
}

/// The image the provider's `n`-th request carried: its content type and bytes.
fn sent_image(provider: &Provider, n: usize) -> (String, Vec<u8>) {
    let requests = provider.requests();
    let parts = requests[n].1["messages"][0]["content"].as_array().unwrap();
    let url = parts
        .iter()
        .find(|p| p["type"] == "image_url")
        .and_then(|p| p["image_url"]["url"].as_str())
        .expect("an image_url part");
    let (head, encoded) = url.split_once(";base64,").expect("a data URI");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    (head.trim_start_matches("data:").to_string(), bytes)
}

#[tokio::test]
async fn a_png_declaring_20000_by_20000_pixels_is_refused_naming_file_in_the_users_language() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    let bomb = png_declaring(20_000, 20_000);
    assert!(bomb.len() < 100);

    let error = refused(&app.scan(Some(&user.cookie), &[file(&bomb)]).await, 400);
    assert_eq!(
        error,
        "file: The photo is 20000×20000 pixels; at most 20000 pixels a side and 50 megapixels"
    );
    app.ok(&user, "updateSettings", json!({ "locale": "de" }))
        .await;
    let error = refused(&app.scan(Some(&user.cookie), &[file(&bomb)]).await, 400);
    assert_eq!(
        error,
        "file: Das Foto ist 20000×20000 Pixel groß; höchstens 20000 Pixel je Seite und 50 Megapixel"
    );
    // A side too long alone, and a header without a size.
    let error = refused(
        &app.scan(Some(&user.cookie), &[file(&png_declaring(30_000, 10))])
            .await,
        400,
    );
    assert!(
        error.starts_with("file: Das Foto ist 30000×10 Pixel groß"),
        "{error}"
    );
    let error = refused(
        &app.scan(Some(&user.cookie), &[file(b"\xff\xd8\xff\xd9")])
            .await,
        400,
    );
    assert_eq!(
        error,
        "file: Das Foto ist kein lesbares JPEG- oder PNG-Bild"
    );
    assert!(provider.requests().is_empty(), "nothing reached the model");
}

#[tokio::test]
async fn a_png_bomb_sent_to_the_real_binary_is_refused_with_a_peak_under_100_mib() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let dir = tempfile::tempdir().unwrap();
    let service = crate::support::service::Service::start(
        dir.path(),
        &[
            ("AI_API_KEY", "sk-test-key"),
            ("AI_BASE_URL", &provider.base_url),
        ],
    );
    let cookie = service.register("bomb@example.org").await;
    // 20000×20000 RGBA would be 1.6 GB decoded.
    let (content_type, body) = multipart(&[file(&png_declaring(20_000, 20_000))]);
    let res = service
        .client
        .post(format!("{}/api/receipt-scan", service.base))
        .header("cookie", format!("cashkeeper_session={cookie}"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().starts_with("file: "),
        "{body}"
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", service.child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc status");
    assert!(peak_kib / 1024 < 100, "peak memory {} MiB", peak_kib / 1024);
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn a_4000_by_3000_jpeg_reaches_the_model_scaled_down_to_2048_pixels() {
    let provider = Provider::start(crate::assistant::Dialect::OpenAi).await;
    let app = app_with_ai(&provider.base_url).await;
    let user = app.new_user().await;
    let photo = image::RgbImage::from_fn(4000, 3000, |x, y| {
        image::Rgb([(x / 16) as u8, (y / 12) as u8, 200])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 80)
        .encode_image(&photo)
        .unwrap();
    assert!(jpeg.len() < 5 * 1024 * 1024, "{} bytes", jpeg.len());
    provider.then(Reply::Text(r#"{"total": "4.20"}"#.into()));
    provider.then(Reply::Text(r#"{"total": "1.00"}"#.into()));

    let reply = app.scan(Some(&user.cookie), &[file(&jpeg)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let (kind, sent) = sent_image(&provider, 0);
    assert_eq!(kind, "image/jpeg");
    let seen = image::load_from_memory(&sent).expect("a JPEG the model can read");
    assert_eq!((seen.width(), seen.height()), (2048, 1536));
    assert!(sent.len() < jpeg.len());

    // One of 2048 pixels or less goes as it came.
    let small = image::RgbImage::from_fn(2048, 100, |x, _| image::Rgb([(x / 8) as u8, 0, 0]));
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(small)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let reply = app.scan(Some(&user.cookie), &[file(&png)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(sent_image(&provider, 1), ("image/png".to_string(), png));
}
