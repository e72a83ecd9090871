//! What a long list says about itself: the one-time expenses' total line
//! names the month and how many entries it adds up, the pager stands above
//! and below the list and reaches every page and day at once; the
//! dashboard words a change against a month of next to nothing, and writes
//! its percentages the user's way.

use crate::support::*;
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
    use crate::support::browser::{screenshot, signed_in, wait_for_css, wait_for_text};
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let month = app.state.clock.today().format("%Y-%m").to_string();
    app.many_daily_expenses(&user, &account, &month, 395, 1000)
        .await;
    let Some(browser) = signed_in(&app, &user, 390, 844).await else {
        return;
    };
    let c = &browser.client;
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

/// The first day of the month after today's, as the server's clock has it.
fn next_month_start() -> chrono::NaiveDate {
    use chrono::Datelike;
    let today = chrono::Utc::now().date_naive();
    let (y, m) = if today.month() == 12 {
        (today.year() + 1, 1)
    } else {
        (today.year(), today.month() + 1)
    };
    chrono::NaiveDate::from_ymd_opt(y, m, 1).unwrap()
}

#[tokio::test]
async fn a_search_sums_one_time_entries_per_kind_and_shows_recurring_ones_at_todays_price() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let income = |name: &str, amount: &str, frequency: &str, start: &str| {
        json!({"name": name, "amount": amount, "frequency": frequency,
               "startDate": start, "accountId": account})
    };
    app.ok(
        &user,
        "createIncome",
        income("Weihnachtsgeld", "1000", "once", "2025-12-01"),
    )
    .await;
    app.ok(
        &user,
        "createIncome",
        income("Kindergeld", "250", "monthly", "2025-11-15"),
    )
    .await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Geldautomat Gebühr", "amount": "5", "date": "2026-01-10", "accountId": account}),
    )
    .await;
    let html = app.page(&user, "/search?q=geld").await;
    assert!(
        html.contains(
            "<strong>3 Treffer</strong> · Einzelausgaben: <span class=\"amount\">5,00\u{a0}€</span> \
             · Einmalige Einnahmen: <span class=\"amount\">1.000,00\u{a0}€</span> \
             · 1 wiederkehrend, jeweils mit Rhythmus und heutigem Betrag, nicht addiert"
        ),
        "{html}"
    );
    for wrong in ["1.005,00", "1.250,00", "1.255,00", ">Summe"] {
        assert!(!html.contains(wrong), "{wrong}: {html}");
    }
    // Kindergeld: its rhythm, not its start date as if it were a booking.
    assert!(html.contains("monatlich</small>"), "{html}");
    assert!(!html.contains("15.11.2025"), "{html}");
    assert!(
        html.contains("01.12.2025"),
        "a one-time income's day: {html}"
    );

    // Three insurances, yearly and half-yearly: each with its rhythm, no sum.
    for (name, amount, frequency) in [
        ("Haftpflichtversicherung", "80", "yearly"),
        ("Hausratversicherung", "120", "yearly"),
        ("Zahnzusatzversicherung", "60", "half_yearly"),
    ] {
        app.ok(&user, "createExpense", json!({"name": name, "amount": amount, "frequency": frequency, "startDate": "2025-03-01", "accountId": account}))
            .await;
    }
    let html = app.page(&user, "/search?q=versicherung").await;
    assert!(
        html.contains("<strong>3 Treffer</strong> · 3 wiederkehrend"),
        "{html}"
    );
    assert_eq!(html.matches("jährlich</small>").count(), 3, "{html}");
    assert_eq!(html.matches("halbjährlich</small>").count(), 1, "{html}");
    assert!(!html.contains("260,00"), "{html}");

    // Netflix costs 13.99 until next month, 15.99 from then on.
    let netflix = app
        .ok(&user, "createExpense", json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly", "startDate": "2025-01-05", "accountId": account, "isSubscription": true}))
        .await["id"]
        .clone();
    let from = next_month_start();
    app.ok(
        &user,
        "updateExpense",
        json!({"id": netflix, "amount": "15.99", "amountFrom": from}),
    )
    .await;
    let html = app.page(&user, "/search?q=netflix").await;
    assert!(
        html.contains(&format!(
            "monatlich</small> <span class=\"amount\">13,99\u{a0}€</span> <small class=\"muted\">(ab {}: 15,99\u{a0}€)</small>",
            from.format("%d.%m.%Y")
        )),
        "{html}"
    );
    let hits = app.ok(&user, "search", json!({"query": "netflix"})).await;
    assert_eq!(hits[0]["amount"], json!(15.99), "{hits}");
    assert_eq!(hits[0]["amountToday"], json!(13.99), "{hits}");
    assert_eq!(hits[0]["amountFrom"], json!(from.to_string()), "{hits}");
    assert_eq!(hits[0]["frequency"], "monthly", "{hits}");
}

#[tokio::test]
async fn a_search_pages_its_hits_instead_of_stopping_at_50() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    app.many_daily_expenses(&user, &account, "2026-03", 120, 120)
        .await;
    let first = app.page(&user, "/search?q=Einkauf").await;
    assert!(first.contains("Hits 1–50 of 120"), "{first}");
    assert_eq!(pagers(&first), 2, "a pager above the hits and one below");
    assert!(
        first.contains(r#"href="/search?q=Einkauf&amp;page=3""#),
        "{first}"
    );
    let third = app.page(&user, "/search?q=Einkauf&page=3").await;
    assert!(third.contains("Hits 101–120 of 120"), "{third}");
    assert_eq!(
        third.matches("<li><a href=\"/daily-expenses?edit=").count(),
        20
    );

    // The action pages alike, and no hit is on two pages.
    let mut ids = std::collections::HashSet::new();
    for page in 1..=3 {
        let hits = app
            .ok(&user, "search", json!({"query": "einkauf", "page": page}))
            .await;
        let hits = hits.as_array().unwrap();
        assert_eq!(hits.len(), if page < 3 { 50 } else { 20 });
        for h in hits {
            assert!(ids.insert(h["id"].as_str().unwrap().to_string()));
        }
    }
    assert_eq!(
        app.refused(&user, "search", json!({"query": "einkauf", "page": 0}))
            .await,
        "page: must be between 1 and 10000"
    );
}
