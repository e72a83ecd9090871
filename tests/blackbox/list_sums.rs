//! What a long list says about itself: the one-time expenses' total line
//! names the month and how many entries it adds up, the pager stands above
//! and below the list and reaches every page and day at once; the
//! dashboard words a change against a month of next to nothing, and writes
//! its percentages the user's way.

use crate::helpers::*;
use serde_json::json;

/// How many entries a page of `/daily-expenses` lists (one delete button
/// each).
fn rows(html: &str) -> usize {
    html.matches(r#"data-action="deleteDailyExpense""#).count()
}

fn pagers(html: &str) -> usize {
    html.matches(r#"<nav class="pager""#).count()
}

#[tokio::test]
async fn the_total_names_the_month_and_its_count_and_both_pagers_jump_to_any_page_or_day() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    // 120 entries over March's days 1 to 28: days 1–8 have 5, the others 4.
    app.many_daily_expenses(&user, &account, "2026-03", 120, 125)
        .await;
    app.many_daily_expenses(&user, &account, "2026-04", 1, 999)
        .await;

    let first = app.page(&user, "/daily-expenses?month=2026-03").await;
    assert!(first.contains("Total March, 120 entries"), "{first}");
    assert!(!first.contains(">Total<"), "{first}");
    assert_eq!(pagers(&first), 2, "a pager above the list and one below");
    assert!(
        first.find(r#"<nav class="pager""#) < first.find(r#"<table class="records""#),
        "the first pager comes before the list"
    );
    // Every page by number, the one shown marked, from either pager.
    assert!(first.contains(r#"<a href="/daily-expenses?month=2026-03" aria-current="page">1</a>"#));
    assert_eq!(
        first
            .matches(r#"<a href="/daily-expenses?month=2026-03&amp;page=3">3</a>"#)
            .count(),
        2
    );
    // Newest first: days 28–17 and the first two of the 16th fill page 1,
    // the 15th starts page 2, days 2 and 1 are on page 3.
    for (day, href) in [
        (16, "/daily-expenses?month=2026-03#day-2026-03-16"),
        (
            15,
            "/daily-expenses?month=2026-03&amp;page=2#day-2026-03-15",
        ),
        (1, "/daily-expenses?month=2026-03&amp;page=3#day-2026-03-01"),
    ] {
        assert!(
            first.contains(&format!(r#"href="{href}""#)),
            "day {day}: {first}"
        );
    }
    assert!(first.contains(r#"id="day-2026-03-28""#));
    assert!(first.contains(r#"id="day-2026-03-16""#));

    let third = app
        .page(&user, "/daily-expenses?month=2026-03&page=3")
        .await;
    assert_eq!(rows(&third), 20);
    assert!(
        third.contains(r#"id="day-2026-03-01""#),
        "the day's link lands here"
    );
    assert!(third.contains("Entries 101–120 of 120"));
    assert!(third.contains("Total March, 120 entries"));
    assert!(third.contains(r#"aria-current="page">3</a>"#));

    // One entry: said in the singular, and no pager.
    let april = app.page(&user, "/daily-expenses?month=2026-04").await;
    assert!(april.contains("Total April, 1 entry"), "{april}");
    assert_eq!(pagers(&april), 0);
}

#[tokio::test]
async fn a_german_month_of_395_entries_reaches_page_4_from_the_first() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    app.many_daily_expenses(&user, &account, "2026-11", 395, 1000)
        .await;

    let first = app.page(&user, "/daily-expenses?month=2026-11").await;
    assert!(first.contains("Summe November, 395 Einträge"), "{first}");
    assert!(first.contains("3.950,00\u{a0}€"), "{first}");
    assert!(first.contains("Zum Tag"));
    assert!(first.contains(r#"aria-label="Seiten der Einträge""#));
    assert!(first.contains(r#"aria-label="Seiten der Einträge, unten""#));
    assert!(first.contains(r#">8</a>"#), "eight pages of 50");
    let fourth = r#"href="/daily-expenses?month=2026-11&amp;page=4""#;
    assert_eq!(first.matches(fourth).count(), 2, "{first}");

    let page4 = app
        .page(&user, "/daily-expenses?month=2026-11&page=4")
        .await;
    assert_eq!(rows(&page4), 50);
    assert!(page4.contains("Einträge 151–200 von 395"), "{page4}");
    assert!(page4.contains("Summe November, 395 Einträge"));
}

/// A one-time expense of `amount` on `date`.
async fn spend(app: &TestApp, user: &TestUser, account: &str, amount: &str, date: &str) {
    app.ok(
        user,
        "createDailyExpense",
        json!({"name": "Einkauf", "amount": amount, "date": date, "accountId": account}),
    )
    .await;
}

#[tokio::test]
async fn a_month_ten_times_the_one_before_is_much_more_not_a_five_digit_percent() {
    for (locale, much_more) in [
        ("en", "much more than last month"),
        ("de", "deutlich mehr als im Vormonat"),
    ] {
        let app = spawn_app().await;
        let user = app.new_user().await;
        app.ok(&user, "updateSettings", json!({"locale": locale}))
            .await;
        let account = app.account(&user, "Girokonto", "EUR").await;
        spend(&app, &user, &account, "10", "2026-02-10").await;
        spend(&app, &user, &account, "1415.33", "2026-03-10").await;
        let html = app.page(&user, "/?month=2026-03").await;
        assert!(html.contains(much_more), "{locale}: {html}");
        assert!(!html.contains("14053"), "{locale}: {html}");
        assert!(!html.contains("14.053"), "{locale}: {html}");
        assert!(!html.contains("14,053"), "{locale}: {html}");
    }
}

#[tokio::test]
async fn an_ordinary_change_is_a_percent_written_the_users_way() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    spend(&app, &user, &account, "100", "2026-02-10").await;
    spend(&app, &user, &account, "132.10", "2026-03-10").await;
    let html = app.page(&user, "/?month=2026-03").await;
    assert!(html.contains("+32,1 % ggü. Vormonat"), "{html}");
    assert!(!html.contains("32.1"), "{html}");
    assert!(!html.contains("deutlich mehr"), "{html}");
}

#[tokio::test]
async fn on_a_phone_page_4_is_reached_from_the_first_screen_of_the_list() {
    use crate::browser::{screenshot, sign_in, start, wait_for_css, wait_for_text};
    let Some(browser) = start(390, 844).await else {
        return;
    };
    let c = &browser.client;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let month = app.state.clock.today().format("%Y-%m").to_string();
    app.many_daily_expenses(&user, &account, &month, 395, 1000)
        .await;
    sign_in(c, &app, &user).await;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    let fourth = wait_for_css(c, "nav.pager a[href$='page=4']").await;
    screenshot(c, "daily-expenses-pager-phone").await;
    // The days are one tap away; the 1st is on the last page.
    let days = wait_for_css(c, "nav.pager details.jump-days summary").await;
    days.click().await.unwrap();
    let first_day = wait_for_css(
        c,
        &format!("nav.pager details[open] a[href$='page=8#day-{month}-01']"),
    )
    .await;
    assert!(first_day.is_displayed().await.unwrap());
    screenshot(c, "daily-expenses-days-phone").await;
    days.click().await.unwrap();
    // The link to page 4 is near the top of the page: above the list,
    // not after 50 entries (the pager below them was 28,000 px down).
    let top = c
        .execute(
            "return document.querySelector(\"nav.pager a[href$='page=4']\").getBoundingClientRect().top + window.scrollY",
            vec![],
        )
        .await
        .unwrap();
    assert!(top.as_f64().unwrap() < 1500.0, "{top}");
    // Nothing in the pager sticks out on the right.
    let fits = c
        .execute(
            "return [...document.querySelectorAll('nav.pager')].every(n => \
             n.getBoundingClientRect().right <= document.documentElement.clientWidth)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(fits, serde_json::json!(true));
    fourth.click().await.unwrap();
    wait_for_text(c, "Entries 151–200 of 395").await;
    browser.client.clone().close().await.unwrap();
}
