//! The Import page (`/import`): the form, the opened batch and the history
//! as the server renders them, and the whole flow in a browser: upload,
//! preview, a decided conflict, confirm and undo.

use crate::helpers::*;
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
    assert!(en.contains("Choose a CSV file or drop it here"));
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
    assert!(de.contains("CSV-Datei auswählen oder hierher ziehen"));
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
            "/import?batch=no-such-batch&status=bogus&offset=-3",
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
