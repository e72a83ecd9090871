//! A new user's first steps, from the outside: the dashboard's next steps
//! after the first account (shown, ticked, gone once done or hidden), its
//! quick "+ Expense", the start day a new recurring item starts from, the
//! account a form remembered, the search that marks, counts and sums what
//! it found and finds a category's records, the merchant hint read out,
//! and the cursor after "save and add another", in English and German, on
//! a phone and a desktop.

use crate::helpers::*;
use serde_json::{json, Value};

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// The `value` of the input named `name` in `html`.
fn input_value(html: &str, name: &str) -> String {
    let at = html
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("no field {name}"));
    let (start, end) = (
        html[..at].rfind('<').unwrap(),
        at + html[at..].find('>').unwrap(),
    );
    let tag = &html[start..end];
    tag.split("value=\"")
        .nth(1)
        .map(|v| v[..v.find('"').unwrap()].to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_new_recurring_item_starts_today_and_an_edited_one_keeps_its_start() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    app.account(&user, "Tagesgeld", "EUR").await;
    app.state.clock.set(
        "2026-03-15T21:30:00Z"
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap(),
    );
    for path in ["/expenses", "/subscriptions", "/incomes", "/transfers"] {
        let page = app.page(&user, path).await;
        assert_eq!(input_value(&page, "startDate"), "2026-03-15", "{path}");
        assert_eq!(input_value(&page, "endDate"), "", "{path}");
    }
    let rent = app
        .ok(&user, "createExpense", json!({"name": "Miete", "amount": "900", "frequency": "monthly", "startDate": "2025-10-01", "accountId": account}))
        .await;
    let page = app
        .page(&user, &format!("/expenses?edit={}", id(&rent)))
        .await;
    assert_eq!(input_value(&page, "startDate"), "2025-10-01");
}

#[tokio::test]
async fn the_merchant_hint_is_read_out_when_it_appears() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.account(&user, "Giro", "EUR").await;
    let page = app.page(&user, "/daily-expenses").await;
    let at = page
        .find("class=\"hint merchant-hint\"")
        .expect("the hint is in the page");
    let tag = &page[page[..at].rfind('<').unwrap()..at + page[at..].find('>').unwrap()];
    assert!(tag.contains("aria-live=\"polite\""), "{tag}");
    // In the page and empty (a live region announces what is put into it),
    // its words ready for the script.
    assert!(!tag.contains("hidden"), "{tag}");
    assert!(
        tag.contains("data-text=\"Known merchant: category pre-selected.\""),
        "{tag}"
    );
}
