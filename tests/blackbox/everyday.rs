//! The everyday flows of a household in the browser, in German and English,
//! at desktop and phone width: amounts typed in the user's style (German
//! `1.500` is fifteen hundred), every error of a form at once, the default
//! account, editing in place, a price change from a day with the month
//! before unchanged, and the checking account's expected balance.

use crate::support::browser::resize;
use crate::support::browser::{
    fill, sign_in, start_with, submit, wait_for_css, wait_for_path, wait_until,
};
use crate::support::*;
use cashkeeper::domain::recurrence::{add_months, month_start};
use chrono::Datelike;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

struct Words {
    locale: &'static str,
    fifteen_hundred: &'static str,
    fifteen_hundred_shown: &'static str,
    required: &'static str,
    new_price: &'static str,
    since: &'static str,
    everyday: &'static str,
}

const DE: Words = Words {
    locale: "de",
    fifteen_hundred: "1.500",
    fifteen_hundred_shown: "1.500,00",
    required: "bitte ausfüllen",
    new_price: "15,99",
    since: "seit ",
    everyday: "Alltagsausgaben",
};

const EN: Words = Words {
    locale: "en",
    fifteen_hundred: "1,500",
    fifteen_hundred_shown: "1,500.00",
    required: "is required",
    new_price: "15.99",
    since: "since ",
    everyday: "Everyday spending",
};

async fn js(c: &Client, script: &str, args: Vec<Value>) -> Value {
    c.execute(script, args).await.unwrap()
}

async fn everyday(words: Words, width: u32, height: u32) {
    let Some(browser) = start_with(width.max(500), height, false).await else {
        return;
    };
    let c = &browser.client;
    if width < 500 {
        resize(c, width, height).await;
    }
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": words.locale}))
        .await;
    // Sorted by name the depot comes first; new entries must start on the
    // checking account all the same.
    let mut ids = Vec::new();
    for (name, kind, balance) in [
        ("ETF-Depot", "etf", "5000"),
        ("Girokonto", "checking", "1200"),
    ] {
        let a = app
            .ok(
                &user,
                "createAccount",
                json!({"name": name, "type": kind, "currency": "EUR", "balance": balance}),
            )
            .await;
        ids.push(a["id"].as_str().unwrap().to_string());
    }
    let giro = ids[1].clone();
    let today = app.state.clock.today();
    let first = month_start(today);
    let start = add_months(first, -12);
    let netflix = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
                   "startDate": start.to_string(), "accountId": giro, "isSubscription": true}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    for n in 1..=3 {
        let day = add_months(first, -n) + chrono::Duration::days(2);
        app.ok(&user, "createDailyExpense", json!({"name": "Supermarkt", "amount": "600", "date": day.to_string(), "accountId": giro})).await;
    }
    sign_in(c, &app, &user).await;

    // Every error of an empty form at once, in the user's language, the
    // first field focused.
    c.goto(&app.url("/expenses")).await.unwrap();
    submit(c).await;
    wait_for_css(c, "[data-error-for=amount]:not(:empty)").await;
    let errors = js(
        c,
        "return Array.from(document.querySelectorAll('#record-form [data-error-for]'), s => s.textContent).filter(t => t);",
        vec![],
    )
    .await;
    let errors: Vec<&str> = errors
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    // The start date starts today; the name and the amount are missing.
    assert!(errors.len() >= 2, "name and amount: {errors:?}");
    assert!(errors.iter().all(|e| *e == words.required), "{errors:?}");
    let focused = js(c, "return document.activeElement.name;", vec![]).await;
    assert_eq!(focused, "name");
    // What only the server can judge comes back for every field at once too.
    fill(c, "name", "Miete").await;
    fill(c, "amount", "-5").await;
    js(
        c,
        "const f = document.querySelector('#record-form form') || document.querySelector('form.stack');
         f.querySelector('[name=startDate]').value = '2026-05-01';
         f.querySelector('[name=endDate]').value = '2026-04-01';",
        vec![],
    )
    .await;
    submit(c).await;
    wait_for_css(c, "[data-error-for=endDate]:not(:empty)").await;
    let amount_error = wait_for_css(c, "[data-error-for=amount]:not(:empty)").await;
    assert!(!amount_error.text().await.unwrap().is_empty());
    let focused = js(c, "return document.activeElement.name;", vec![]).await;
    assert_eq!(focused, "amount", "the first wrong field keeps the focus");

    // A one-time expense of fifteen hundred, typed the user's way, on the
    // checking account without choosing it.
    let categories = app.ok(&user, "listCategories", json!({})).await;
    let groceries = categories[0]["id"].as_str().unwrap().to_string();
    app.ok(
        &user,
        "learnMerchantCategory",
        json!({"merchant": "REWE Markt", "categoryId": groceries}),
    )
    .await;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    let account = wait_for_css(c, "form.stack [name=accountId]").await;
    assert_eq!(account.prop("value").await.unwrap().unwrap(), giro);
    // The merchant written otherwise than learned still picks its category.
    fill(c, "merchant", "Rewe Makrt").await;
    fill(c, "name", "Fahrrad").await;
    wait_until(
        c,
        "return document.querySelector('form.stack [name=categoryId]').value === arguments[0]",
        vec![groceries.clone().into()],
    )
    .await;
    let picked = js(
        c,
        "return document.querySelector('form.stack [name=categoryId]').value;",
        vec![],
    )
    .await;
    assert_eq!(picked, groceries.as_str());
    // And says so where a screen reader reads it out.
    let hint = wait_for_css(c, ".merchant-hint:not(:empty)").await;
    assert_eq!(
        hint.attr("aria-live").await.unwrap().as_deref(),
        Some("polite")
    );
    fill(c, "name", "Fahrrad").await;
    fill(c, "amount", words.fifteen_hundred).await;
    submit(c).await;
    crate::support::browser::wait_for_text(c, words.fifteen_hundred_shown).await;
    let listed = app.ok(&user, "listDailyExpenses", json!({})).await;
    let bike = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "Fahrrad")
        .expect("saved");
    assert_eq!(bike["amount"].as_f64(), Some(1500.0));
    assert_eq!(bike["accountId"], giro.as_str());

    // Editing in place: the edit form opens at the form, focused.
    c.goto(&app.url("/expenses")).await.unwrap();
    let edit = c
        .find(Locator::Css(&format!("a[href*='edit={netflix}']")))
        .await
        .unwrap();
    edit.click().await.unwrap();
    wait_for_path(c, "/expenses").await;
    wait_for_css(c, "form.stack [name=amountFrom]").await;
    let in_form = js(
        c,
        "return !!document.activeElement.closest('#record-form');",
        vec![],
    )
    .await;
    assert_eq!(in_form, true);

    // A new price from the first of this month: last month keeps 13.99.
    fill(c, "amount", words.new_price).await;
    js(
        c,
        "document.querySelector('form.stack [name=amountFrom]').value = arguments[0];",
        vec![json!(first.to_string())],
    )
    .await;
    submit(c).await;
    crate::support::browser::wait_for_text(c, words.since).await;
    let month = |d: chrono::NaiveDate| json!({"year": d.year(), "month": d.month()});
    let last = app
        .ok(&user, "getDashboard", month(add_months(first, -1)))
        .await;
    let now = app.ok(&user, "getDashboard", month(first)).await;
    let subs = |d: &Value| d["recurring"]["subscriptionsMonthly"].as_f64().unwrap();
    assert_eq!(subs(&last), 13.99, "last month keeps the old price");
    assert_eq!(subs(&now), 15.99);
    // The edit form shows the history.
    c.goto(&app.url(&format!("/expenses?edit={netflix}")))
        .await
        .unwrap();
    wait_for_css(c, ".amount-history li").await;
    js(
        c,
        "document.querySelector('.amount-history').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await;
    crate::support::browser::screenshot(c, &format!("price-history-{}-{width}", words.locale))
        .await;

    // The checking account's forecast: the expected balance with everyday
    // spending as its own line.
    c.goto(&app.url("/forecasts")).await.unwrap();
    wait_for_css(c, "polyline.dashed").await;
    let source = c.source().await.unwrap();
    assert!(source.contains(words.everyday));
    crate::support::browser::screenshot(c, &format!("forecast-{}-{width}", words.locale)).await;
    assert_eq!(source.matches("<polyline").count(), 2);
    // Nothing wider than the window.
    let overflow = js(
        c,
        "return document.documentElement.scrollWidth - window.innerWidth;",
        vec![],
    )
    .await;
    assert!(
        overflow.as_i64().unwrap() <= 0,
        "the page scrolls sideways: {overflow}"
    );
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn everyday_flows_in_german_on_a_desktop() {
    everyday(DE, 1280, 1000).await;
}

#[tokio::test]
async fn everyday_flows_in_german_on_a_phone() {
    everyday(DE, 390, 844).await;
}

#[tokio::test]
async fn everyday_flows_in_english_on_a_desktop() {
    everyday(EN, 1280, 1000).await;
}

#[tokio::test]
async fn everyday_flows_in_english_on_a_phone() {
    everyday(EN, 390, 844).await;
}
