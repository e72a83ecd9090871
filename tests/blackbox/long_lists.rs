//! Long histories: a month of many one-time expenses is shown in pages of
//! 50 with links to the newer and older ones; the month's total counts
//! every page.

use crate::support::*;

/// How many entries a page of `/daily-expenses` lists (one delete button
/// each).
fn rows(html: &str) -> usize {
    html.matches(r#"data-action="deleteDailyExpense""#).count()
}

/// The address of the link marked `rel` ("next", "prev"), if the page has one.
fn link(html: &str, rel: &str) -> Option<String> {
    let at = html.find(&format!(r#"rel="{rel}""#))?;
    let start = html[..at].rfind("href=\"")? + "href=\"".len();
    let end = start + html[start..].find('"')?;
    Some(html[start..end].replace("&amp;", "&"))
}

/// The names of the entries a page lists.
fn names(html: &str) -> Vec<String> {
    html.split("<td>Einkauf ")
        .skip(1)
        .map(|rest| rest[..rest.find('<').unwrap()].to_string())
        .collect()
}

#[tokio::test]
async fn a_month_of_120_entries_is_shown_50_at_a_time_with_the_months_total_on_every_page() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    app.many_daily_expenses(&user, &account, "2026-03", 120, 125)
        .await;
    // Another month's entries count on none of March's pages.
    app.many_daily_expenses(&user, &account, "2026-04", 7, 1000)
        .await;

    let first = app.page(&user, "/daily-expenses?month=2026-03").await;
    assert_eq!(rows(&first), 50);
    assert!(first.contains("Entries 1–50 of 120"), "{first}");
    assert!(first.contains("€150.00"), "the month's total, all pages");
    assert_eq!(link(&first, "prev"), None);
    let second_href = link(&first, "next").expect("a link to the older entries");
    assert_eq!(second_href, "/daily-expenses?month=2026-03&page=2");

    let second = app.page(&user, &second_href).await;
    assert_eq!(rows(&second), 50);
    assert!(second.contains("Entries 51–100 of 120"));
    assert!(second.contains("€150.00"));
    assert_eq!(
        link(&second, "prev").as_deref(),
        Some("/daily-expenses?month=2026-03")
    );
    // An entry's edit link comes back to the page it is on.
    assert!(second.contains("/daily-expenses?month=2026-03&amp;page=2&amp;edit="));

    let third = app.page(&user, &link(&second, "next").unwrap()).await;
    assert_eq!(rows(&third), 20);
    assert!(third.contains("Entries 101–120 of 120"));
    assert!(third.contains("€150.00"));
    assert_eq!(link(&third, "next"), None, "the oldest page is the last");

    // Every entry on exactly one page.
    let mut all: Vec<String> = [&first, &second, &third]
        .iter()
        .flat_map(|p| names(p))
        .collect();
    assert_eq!(all.len(), 120);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 120);

    // A page past the last shows the last; a month that fits one page has
    // no pager.
    let past = app
        .page(&user, "/daily-expenses?month=2026-03&page=9")
        .await;
    assert_eq!(rows(&past), 20);
    let april = app.page(&user, "/daily-expenses?month=2026-04").await;
    assert_eq!(rows(&april), 7);
    assert!(!april.contains("nav class=\"pager\""));
    assert!(april.contains("€70.00"));
}

#[tokio::test]
async fn the_pager_speaks_german_and_keeps_the_category_filter() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", serde_json::json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    app.many_daily_expenses(&user, &account, "2026-03", 60, 250)
        .await;
    let html = app
        .page(&user, "/daily-expenses?month=2026-03&category=none")
        .await;
    assert_eq!(rows(&html), 50);
    assert!(html.contains("Einträge 1–50 von 60"), "{html}");
    assert!(html.contains("150,00\u{a0}€"), "{html}");
    assert_eq!(
        link(&html, "next").as_deref(),
        Some("/daily-expenses?month=2026-03&category=none&page=2")
    );
    assert!(html.contains("Ältere"));
}

#[tokio::test]
async fn a_long_month_shows_its_pager_on_a_phone_and_a_desktop() {
    use crate::support::browser::{signed_in, wait_for_css, wait_for_text};
    for (width, height) in [(390, 844), (1280, 900)] {
        let app = spawn_app().await;
        let user = app.new_user().await;
        let account = app.account(&user, "Girokonto", "EUR").await;
        let month = app.state.clock.today().format("%Y-%m").to_string();
        app.many_daily_expenses(&user, &account, &month, 60, 100)
            .await;
        let Some(browser) = signed_in(&app, &user, width, height).await else {
            return;
        };
        let c = &browser.client;
        c.goto(&app.url("/daily-expenses")).await.unwrap();
        let older = wait_for_css(c, "nav.pager a[rel=next]").await;
        assert!(older.is_displayed().await.unwrap(), "{width} px");
        let shown = c
            .find(fantoccini::Locator::Css("nav.pager .muted"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(shown, "Entries 1–50 of 60", "{width} px");
        // The pager fits the screen: nothing sticks out on the right.
        let overflow = c
            .execute(
                "const r = document.querySelector('nav.pager').getBoundingClientRect(); \
                 return r.right <= document.documentElement.clientWidth && r.width > 0",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(overflow, serde_json::json!(true), "{width} px");
        older.click().await.unwrap();
        wait_for_css(c, "nav.pager a[rel=prev]").await;
        wait_for_text(c, "Entries 51–60 of 60").await;
        let rows = c
            .find_all(fantoccini::Locator::Css("table.records tbody tr"))
            .await
            .unwrap();
        assert_eq!(rows.len(), 10, "{width} px");
        browser.client.clone().close().await.unwrap();
    }
}
